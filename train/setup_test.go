package train

import (
	"path/filepath"
	"strings"
	"testing"

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
