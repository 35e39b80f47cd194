package train

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/model/torch"
	"github.com/zerokit/zerokit/selfplay"
)

// TestSetupGenerator: the generator of a configuration whose self-play
// section names a sparring partner gets that partner (the store worker
// once built its generator without it and failed), and a partner that is
// no agent is an error naming it.
func TestSetupGenerator(t *testing.T) {
	for _, tc := range []struct {
		name, agent string
		fraction    float64
		err         string
	}{
		{name: "self-play"},
		{name: "sparring", agent: "random", fraction: 0.5},
		{name: "bad partner", agent: "nosuchagent", fraction: 0.5, err: `sparring agent "nosuchagent"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := LoadConfig(pinnedConfig)
			if err != nil {
				t.Fatal(err)
			}
			cfg.SelfPlay.SparringAgent, cfg.SelfPlay.SparringFraction = tc.agent, tc.fraction
			s, err := NewSetup(cfg)
			if err != nil {
				t.Fatal(err)
			}
			gen, err := s.Generator(selfplay.Options{Seed: 3})
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("generator: %v, want an error containing %q", err, tc.err)
				}
			case err != nil:
				t.Fatalf("generator: %v", err)
			case gen == nil:
				t.Fatal("no generator")
			}
		})
	}
}

// TestSetupLoad: Load takes a checkpoint of the configuration's game and
// architecture, and refuses one of another game or architecture with an
// error that names the difference.
func TestSetupLoad(t *testing.T) {
	cfg, err := LoadConfig(pinnedConfig)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSetup(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	save := func(name string, mcfg torch.Config, game string) string {
		t.Helper()
		g, err := games.New(games.DefaultConfig(game))
		if err != nil {
			t.Fatal(err)
		}
		net, err := torch.New(mcfg, neural.ShapeOf(g), 1)
		if err != nil {
			t.Fatal(err)
		}
		defer net.Close()
		path := filepath.Join(dir, name)
		if err := torch.Save(path, net, nil, torch.Metadata{Game: g.Name(), EncodingVersion: g.EncodingVersion(), Step: 4, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		return path
	}
	wider := cfg.NetConfig()
	wider.Channels *= 2
	for _, tc := range []struct {
		name, path, err string
	}{
		{"fits", save("fits.ckpt", cfg.NetConfig(), "tictactoe"), ""},
		{"other game", save("wyb.ckpt", cfg.NetConfig(), "wyb"), "game"},
		{"other architecture", save("wide.ckpt", wider, "tictactoe"), "channels"},
		{"missing", filepath.Join(dir, "missing.ckpt"), "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ck, err := s.Load(tc.path)
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				defer ck.Net.Close()
				if ck.Step != 4 || ck.Net.Shape() != s.Shape {
					t.Fatalf("loaded step %d shape %v, want step 4 shape %v", ck.Step, ck.Net.Shape(), s.Shape)
				}
				return
			}
			if err == nil {
				ck.Net.Close()
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("error %q, want one naming %s and containing %q", err, tc.path, tc.err)
			}
		})
	}
}

// TestSetupEvaluatorMaterial: with selfplay.material_weight the self-play
// evaluator's value is the network's blended with the term, exactly as
// agent.MaterialUtility defines it, and it still reports the network's
// work; with weight 0 it is the network's value. A term the game lacks is
// a configuration error naming the key.
func TestSetupEvaluatorMaterial(t *testing.T) {
	cfg := DefaultConfig() // Watch Your Back!
	cfg.Model.Blocks, cfg.Model.Channels = 1, 8
	cfg.SelfPlay.Workers = 1
	base, err := NewSetup(cfg)
	if err != nil {
		t.Fatal(err)
	}
	net, err := base.NewNet()
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	// White has placed one piece on the final board: Black, to move, is
	// level in material (pieces to place count) and half a piece down for
	// the final term.
	final, err := agent.FinalMaterial(base.Game)
	if err != nil {
		t.Fatal(err)
	}
	s := base.Game.NewInitialState()
	onFinal := -1
	for _, a := range s.LegalActions(nil) {
		c := s.Clone()
		if err := c.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
		if final.Evaluate(c, 1) == -0.5 {
			onFinal = a
			break
		}
	}
	if onFinal < 0 {
		t.Fatal("no placement on the final board")
	}
	if err := s.ApplyAction(onFinal); err != nil {
		t.Fatal(err)
	}
	value := func(weight float64, term string) (float32, int64) {
		t.Helper()
		c := cfg
		c.SelfPlay.MaterialWeight, c.SelfPlay.MaterialTerm = weight, term
		setup, err := NewSetup(c)
		if err != nil {
			t.Fatal(err)
		}
		eval, closeEval, err := setup.Evaluator(net)
		if err != nil {
			t.Fatal(err)
		}
		defer closeEval()
		v, err := eval.Evaluate(context.Background(), s, s.LegalActions(nil), make([]float32, base.Game.NumActions()))
		if err != nil {
			t.Fatal(err)
		}
		return v, eval.EvalStats().Positions
	}
	v0, n0 := value(0, "")
	if n0 != 1 {
		t.Fatalf("weight 0: %d positions evaluated, want 1", n0)
	}
	for _, tc := range []struct {
		term     string
		material float64
	}{{"", 0}, {"material", 0}, {"final", -0.5}} {
		v, n := value(0.4, tc.term)
		want := float32(0.6*float64(v0) + 0.4*math.Tanh(tc.material/agent.DefaultMaterialScale))
		if math.Abs(float64(v-want)) > 1e-6 || n != 1 {
			t.Errorf("term %q: value %v (%d positions), want %v (1): network %v", tc.term, v, n, want, v0)
		}
	}
	if _, err := ParseConfig("test.yaml", []byte("game:\n  name: tictactoe\nselfplay:\n  material_weight: 0.3\n  material_term: nosuch\n")); err == nil || !strings.Contains(err.Error(), "selfplay.material_term") {
		t.Errorf("unknown term: %v, want an error naming selfplay.material_term", err)
	}
}
