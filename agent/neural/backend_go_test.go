package neural

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/arena"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/model/arch"
	"github.com/zerokit/zerokit/model/ckpt"
)

// writePureCheckpoint writes a checkpoint of a random tinyConfig network
// for game without libtorch (package ckpt only), as torch.Save would.
func writePureCheckpoint(t *testing.T, path string, game env.Game) {
	t.Helper()
	cfg := tinyConfig.WithDefaults()
	shape := ShapeOf(game)
	rng := rand.New(rand.NewPCG(3, 4))
	c := &ckpt.Checkpoint{Header: ckpt.Header{Game: game.Name(), EncodingVersion: game.EncodingVersion(), Step: 7, Network: cfg, Shape: shape}}
	for _, tt := range arch.NewLayout(cfg, shape).Tensors {
		data := make([]float32, tt.NumElements())
		for i := range data {
			data[i] = float32(rng.NormFloat64() * 0.3)
			if strings.HasSuffix(tt.Name, "var") || strings.HasSuffix(tt.Name, "variance") {
				data[i] = 0.5 + rng.Float32()
			}
		}
		c.Tensors = append(c.Tensors, ckpt.Tensor{Name: tt.Name, Shape: tt.Shape, Data: data})
	}
	if err := ckpt.WriteFile(path, c); err != nil {
		t.Fatal(err)
	}
}

// TestGoBackendPlays loads a checkpoint with the pure-Go backend (the
// default, and the only one in a -tags nonet build) and plays legal games
// against a baseline with a tree size limit.
func TestGoBackendPlays(t *testing.T) {
	game := wyb.New(wyb.Options{TurnLimit: 40})
	path := filepath.Join(t.TempDir(), "w.ckpt")
	writePureCheckpoint(t, path, game)
	n, err := Load(path, game, Options{Concurrency: 2, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if info := n.Info(); info.Backend != BackendGo || info.Step != 7 || info.Parameters == 0 {
		t.Errorf("info: backend %q, step %d, %d parameters", info.Backend, info.Step, info.Parameters)
	}
	s := DefaultSettings()
	s.Simulations, s.MaxNodes = 64, 500
	f, err := n.Factory(s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := arena.Play(context.Background(), arena.Config{Game: game, Games: 2, Workers: 2, Seed: 1}, f, agent.RandomFactory())
	if err != nil {
		t.Fatal(err)
	}
	if res.Games() != 2 {
		t.Fatalf("%d games", res.Games())
	}
	a, err := n.NewAgent(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Act(context.Background(), game.NewInitialState()); err != nil {
		t.Fatal(err)
	}
	if r := a.LastResult(); !r.Truncated || r.TreeSize > 500+2*577 {
		t.Errorf("max_nodes 500: truncated %v, tree %d nodes", r.Truncated, r.TreeSize)
	}
}
