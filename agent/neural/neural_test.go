//go:build !nonet

package neural

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/spec"
	"github.com/zerokit/zerokit/arena"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/torch"
	"github.com/zerokit/zerokit/rundir"
)

// writeCheckpoint saves an untrained tiny network for game at path, with
// metadata meta (Game and EncodingVersion default to game's).
func writeCheckpoint(t testing.TB, path string, game env.Game, cfg torch.Config, meta torch.Metadata) {
	t.Helper()
	net, err := torch.New(cfg, ShapeOf(game), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	if meta.Game == "" {
		meta.Game = game.Name()
	}
	if meta.EncodingVersion == 0 {
		meta.EncodingVersion = game.EncodingVersion()
	}
	if err := torch.Save(path, net, nil, meta); err != nil {
		t.Fatal(err)
	}
}

func loadNet(t *testing.T, path string, game env.Game) *Network {
	t.Helper()
	n, err := Load(path, game, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// TestPlaysLegalGames plays full games between untrained network agents
// and baselines, two at a time through one network, on each game; the
// arena rejects any illegal move.
func TestPlaysLegalGames(t *testing.T) {
	tests := []struct {
		game     env.Game
		settings Settings
		opponent agent.Factory
		workers  int
	}{
		{tictactoe.New(), Settings{Settings: mcts.Settings{Simulations: 16, Mode: "puct", LeavesInFlight: 1, CPUCT: 1.25, ReuseTree: true}}, agent.RandomFactory(), 0},
		{tictactoe.New(), Settings{Settings: mcts.Settings{Simulations: 16, Mode: "gumbel", LeavesInFlight: 2, CPUCT: 1.25}}, agent.RandomFactory(), 1},
		{wyb.New(wyb.Options{TurnLimit: 40}), Settings{Settings: mcts.Settings{Simulations: 8, Mode: "puct", LeavesInFlight: 2, CPUCT: 1.25, ReuseTree: true}}, agent.RandomFactory(), 0},
		{wyb.New(wyb.Options{TurnLimit: 40}), Settings{Settings: mcts.Settings{Simulations: 8, Mode: "gumbel", LeavesInFlight: 2, CPUCT: 1.25}}, agent.RandomFactory(), 2},
	}
	for _, tc := range tests {
		t.Run(tc.game.Name()+"-"+string(tc.settings.Mode), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "net.ckpt")
			writeCheckpoint(t, path, tc.game, tinyConfig, torch.Metadata{Step: 5})
			n, err := Load(path, tc.game, Options{Concurrency: 2, Workers: tc.workers})
			if err != nil {
				t.Fatal(err)
			}
			defer n.Close()
			f, err := n.Factory(tc.settings)
			if err != nil {
				t.Fatal(err)
			}
			res, err := arena.Play(context.Background(), arena.Config{Game: tc.game, Games: 4, Workers: 2, Seed: 1}, f, tc.opponent)
			if err != nil {
				t.Fatal(err)
			}
			if res.Games() != 4 || res.MovesA == 0 {
				t.Errorf("played %d games, %d network moves", res.Games(), res.MovesA)
			}
			if !strings.HasPrefix(res.A, "step5-sims") {
				t.Errorf("agent name %q, want step5-sims...", res.A)
			}
			st := n.Stats()
			if st.Positions < int64(res.MovesA) {
				t.Errorf("the network evaluated %d positions for %d moves", st.Positions, res.MovesA)
			}
			if st.Workers != max(tc.workers, 1) {
				t.Errorf("%d batcher workers, want %d", st.Workers, max(tc.workers, 1))
			}
		})
	}
}

// TestTimeBudget: with a time-only budget the agent stops at the deadline
// and plays the best move so far.
func TestTimeBudget(t *testing.T) {
	game := wyb.New(wyb.Options{})
	path := filepath.Join(t.TempDir(), "net.ckpt")
	writeCheckpoint(t, path, game, tinyConfig, torch.Metadata{})
	n := loadNet(t, path, game)
	s := DefaultSettings()
	s.Simulations, s.MoveTime = 0, mcts.Duration(300*time.Millisecond)
	a, err := n.NewAgent(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	st := game.NewInitialState()
	act, err := a.Act(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	res := a.LastResult()
	if !st.IsLegal(act) || !res.Truncated || res.Simulations < 1 {
		t.Errorf("action %d, result truncated %v after %d simulations; want a legal move from a truncated search", act, res.Truncated, res.Simulations)
	}
	// A deadline from the caller (the protocol's) also stops it.
	s.MoveTime = 0
	s.Simulations = mcts.MaxSimulations
	b, err := n.NewAgent(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The deadline is generous so that a loaded machine still completes the
	// first simulation; the budget of mcts.MaxSimulations guarantees truncation.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if act, err := b.Act(ctx, st); err != nil || !st.IsLegal(act) || !b.LastResult().Truncated {
		t.Errorf("Act under a deadline: %v, %v, truncated %v", act, err, b.LastResult().Truncated)
	}
	// A cancelled context is an error.
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := b.Act(ctx, st); !errors.Is(err, context.Canceled) {
		t.Errorf("Act with a cancelled context: %v", err)
	}
}

func TestLoadSources(t *testing.T) {
	dir := t.TempDir()
	game := wyb.New(wyb.Options{TurnLimit: wyb.DefaultTurnLimit})
	ckpt := filepath.Join(dir, "wyb.ckpt")
	writeCheckpoint(t, ckpt, game, tinyConfig, torch.Metadata{Step: 42, Seed: 9})

	// A run directory loads its latest checkpoint.
	run := filepath.Join(dir, "run")
	cks := rundir.Run{Dir: run}.Checkpoints()
	cks.KeepLast = 2
	if err := os.MkdirAll(cks.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, step := range []int64{10, 20} {
		writeCheckpoint(t, cks.Path(step), game, tinyConfig, torch.Metadata{Step: step})
		if err := os.WriteFile(cks.StatePath(step), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := cks.Commit(step); err != nil {
			t.Fatal(err)
		}
	}
	// A spatial-policy network for Squatter 6x6 plays 8x8.
	sq6, _ := squatter.New(6)
	sq8, _ := squatter.New(8)
	spatial := tinyConfig
	spatial.PolicyHead = torch.PolicySpatial
	sqPath := filepath.Join(dir, "sq6.ckpt")
	writeCheckpoint(t, sqPath, sq6, spatial, torch.Metadata{})

	tests := []struct {
		path     string
		game     env.Game
		wantStep int64
	}{
		{ckpt, game, 42},
		{ckpt, wyb.New(wyb.Options{TurnLimit: 0}), 42}, // rule variant
		{run, game, 20},
		{sqPath, sq8, 0},
	}
	for _, tc := range tests {
		n := loadNet(t, tc.path, tc.game)
		info := n.Info()
		if info.Step != tc.wantStep || info.Shape != ShapeOf(tc.game) || info.Settings != DefaultSettings() || info.Manifest != nil {
			t.Errorf("Load(%s, %s): info %+v", tc.path, tc.game.Name(), info)
		}
		a, err := n.NewAgent(Settings{Settings: mcts.Settings{Simulations: 4, Mode: "puct", LeavesInFlight: 1, CPUCT: 1}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Act(context.Background(), tc.game.NewInitialState()); err != nil {
			t.Errorf("%s on %s: %v", tc.path, tc.game.Name(), err)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	game := wyb.New(wyb.Options{TurnLimit: wyb.DefaultTurnLimit})
	ttt := filepath.Join(dir, "ttt.ckpt")
	writeCheckpoint(t, ttt, tictactoe.New(), tinyConfig, torch.Metadata{})
	oldEnc := filepath.Join(dir, "old.ckpt")
	writeCheckpoint(t, oldEnc, game, tinyConfig, torch.Metadata{EncodingVersion: game.EncodingVersion() + 1})
	good := filepath.Join(dir, "good.ckpt")
	writeCheckpoint(t, good, game, tinyConfig, torch.Metadata{})
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "truncated.ckpt")
	if err := os.WriteFile(truncated, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.ckpt")
	if err := os.WriteFile(garbage, []byte("not a checkpoint"), 0o644); err != nil {
		t.Fatal(err)
	}
	sq6, _ := squatter.New(6)
	sq8, _ := squatter.New(8)
	dense := filepath.Join(dir, "sq6-dense.ckpt")
	writeCheckpoint(t, dense, sq6, tinyConfig, torch.Metadata{})
	empty := filepath.Join(dir, "emptydir")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		path string
		game env.Game
		want string
	}{
		{filepath.Join(dir, "missing.ckpt"), game, "no such file"},
		{empty, game, "neither an exported agent"},
		{ttt, game, `trained for game "tictactoe" and cannot play "wyb"`},
		{oldEnc, game, fmt.Sprintf("encoding version %d", game.EncodingVersion()+1)},
		{truncated, game, "not a readable zerokit checkpoint"},
		{garbage, game, "not a readable zerokit checkpoint"},
		{dense, sq8, "does not fit game squatter8"},
	}
	for _, tc := range tests {
		_, err := Load(tc.path, tc.game, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("Load(%s) error = %v, want one naming the path and containing %q", tc.path, err, tc.want)
		}
	}
}

func TestSpecKind(t *testing.T) {
	dir := t.TempDir()
	game := wyb.New(wyb.Options{})
	ckpt := filepath.Join(dir, "net.ckpt")
	writeCheckpoint(t, ckpt, game, tinyConfig, torch.Metadata{Step: 3})
	pool := NewPool(Options{})
	defer pool.Close()
	reg := spec.Default()
	if err := reg.Register(KindName, pool.Kind()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec     string
		want     Settings
		wantName string
		wantErr  string
	}{
		{spec: "net:path=" + ckpt, want: DefaultSettings(), wantName: "step3-sims128"},
		{spec: "net:path=" + ckpt + ",sims=32,time=1s,leaves=4,cpuct=2,mode=gumbel,reuse=0",
			want: Settings{Settings: mcts.Settings{Simulations: 32, MoveTime: mcts.Duration(time.Second), Mode: "gumbel", LeavesInFlight: 4, CPUCT: 2}}, wantName: "step3-sims32-1s-gumbel"},
		{spec: "net:path=" + ckpt + ",sims=0,time=500ms", want: Settings{Settings: mcts.Settings{MoveTime: mcts.Duration(500 * time.Millisecond), Mode: "puct", LeavesInFlight: mcts.DefaultLeavesInFlight, CPUCT: 1.25, ReuseTree: true}}, wantName: "step3-500ms"},
		{spec: "net:path=" + ckpt + ",sims=64,material=0.3,mscale=3", want: Settings{Settings: mcts.Settings{Simulations: 64, Mode: "puct", LeavesInFlight: mcts.DefaultLeavesInFlight, CPUCT: 1.25, ReuseTree: true}, MaterialWeight: 0.3, MaterialScale: 3},
			wantName: "step3-sims64-mat0.3"},
		{spec: "net:sims=3", wantErr: "path= is required"},
		{spec: "net:path=" + ckpt + ",material=1", wantErr: "material=1"},
		{spec: "net:path=" + ckpt + ",mscale=-1", wantErr: "mscale=-1"},
		{spec: "net:path=" + ckpt + ",sims=64,material=0.3,mterm=eval", want: Settings{Settings: mcts.Settings{Simulations: 64, Mode: "puct", LeavesInFlight: mcts.DefaultLeavesInFlight, CPUCT: 1.25, ReuseTree: true}, MaterialWeight: 0.3, MaterialTerm: "eval"},
			wantName: "step3-sims64-mat0.3-eval"},
		{spec: "net:path=" + ckpt + ",material=0.3,mterm=rollout", wantErr: "material_term"},
		{spec: "net:path=" + ckpt + ",mterm=eval", wantErr: "set a weight too"},
		{spec: "net:path=" + ckpt + ",sims=64,material=0.3,mterm=final,muntil=24", want: Settings{Settings: mcts.Settings{Simulations: 64, Mode: "puct", LeavesInFlight: mcts.DefaultLeavesInFlight, CPUCT: 1.25, ReuseTree: true}, MaterialWeight: 0.3, MaterialTerm: "final", MaterialUntil: 24},
			wantName: "step3-sims64-mat0.3-final-until24"},
		{spec: "net:path=" + ckpt + ",muntil=24", wantErr: "set a weight too"},
		{spec: "net:path=" + ckpt + ",material=0.3,muntil=-1", wantErr: "muntil"},
		{spec: "net:path=" + ckpt + ",sims=0", wantErr: "no budget"},
		{spec: "net:path=" + ckpt + ",sims=0,time=1s,mode=gumbel", wantErr: "gumbel search plans"},
		{spec: "net:path=" + ckpt + ",sims=-1", wantErr: "sims=-1"},
		{spec: "net:path=" + ckpt + ",time=soon", wantErr: "time=soon"},
		{spec: "net:path=" + ckpt + ",mode=alphazero", wantErr: "mode=alphazero"},
		{spec: "net:path=" + ckpt + ",reuse=2", wantErr: "reuse=2"},
		{spec: "net:path=" + ckpt + ",sims=64,solver=1", want: Settings{Settings: mcts.Settings{Simulations: 64, Mode: "puct", LeavesInFlight: mcts.DefaultLeavesInFlight, CPUCT: 1.25, ReuseTree: true, Solver: true}},
			wantName: "step3-sims64-solver"},
		{spec: "net:path=" + ckpt + ",solver=yes", wantErr: "solver=yes"},
		{spec: "net:path=" + ckpt + ",sims=64,tb=0", want: Settings{Settings: mcts.Settings{Simulations: 64, Mode: "puct", LeavesInFlight: mcts.DefaultLeavesInFlight, CPUCT: 1.25, ReuseTree: true}, NoTablebase: true},
			wantName: "step3-sims64-notb"},
		{spec: "net:path=" + ckpt + ",tb=2", wantErr: "tb=2"},
		{spec: "net:path=" + ckpt + ",sims=64,sym=1", want: Settings{Settings: mcts.Settings{Simulations: 64, Mode: "puct", LeavesInFlight: mcts.DefaultLeavesInFlight, CPUCT: 1.25, ReuseTree: true}, AverageSymmetries: true},
			wantName: "step3-sims64-sym"},
		{spec: "net:path=" + ckpt + ",sym=2", wantErr: "sym=2"},
		{spec: "net:path=" + ckpt + ",sims=64,ptemp=1.4", want: Settings{Settings: mcts.Settings{Simulations: 64, Mode: "puct", LeavesInFlight: mcts.DefaultLeavesInFlight, CPUCT: 1.25, ReuseTree: true, PolicyTemperature: 1.4}},
			wantName: "step3-sims64-ptemp1.4"},
		{spec: "net:path=" + ckpt + ",ptemp=0.01", wantErr: "policy_temperature"},
		{spec: "net:path=" + ckpt + ",ptemp=30", wantErr: "ptemp=30"},
		{spec: "net:path=" + ckpt + ",sims=64,time=1s,weighted=1", want: Settings{Settings: mcts.Settings{Simulations: 64, MoveTime: mcts.Duration(time.Second), Mode: "puct", LeavesInFlight: mcts.DefaultLeavesInFlight, CPUCT: 1.25, ReuseTree: true, WeightedBudget: true}},
			wantName: "step3-sims64-1s-weighted"},
		{spec: "net:path=" + ckpt + ",weighted=2", wantErr: "weighted=2"},
		{spec: "net:path=" + ckpt + ",sims=64,temp=0.5,tempmoves=8", want: Settings{Settings: mcts.Settings{Simulations: 64, Mode: "puct", LeavesInFlight: mcts.DefaultLeavesInFlight, CPUCT: 1.25, ReuseTree: true, Temperature: 0.5, TemperatureMoves: 8}},
			wantName: "step3-sims64-temp0.5-8"},
		{spec: "net:path=" + ckpt + ",temp=0.5", wantErr: "set both, or neither"},
		{spec: "net:path=" + ckpt + ",tempmoves=8", wantErr: "set both, or neither"},
		{spec: "net:path=" + ckpt + ",temp=11,tempmoves=8", wantErr: "temp=11"},
		{spec: "net:path=" + ckpt + ",tempmoves=-1,temp=1", wantErr: "tempmoves=-1"},
		{spec: "net:path=" + ckpt + ",sims=64,mode=gumbel,temp=1,tempmoves=2", wantErr: "needs puct"},
		{spec: "net:path=" + ckpt + ",sims=64,lcb=3", want: Settings{Settings: mcts.Settings{Simulations: 64, Mode: "puct", LeavesInFlight: mcts.DefaultLeavesInFlight, CPUCT: 1.25, ReuseTree: true, LCB: 3}},
			wantName: "step3-sims64-lcb3"},
		{spec: "net:path=" + ckpt + ",lcb=-1", wantErr: "lcb=-1"},
		{spec: "net:path=" + ckpt + ",lcb=11", wantErr: "lcb=11"},
		{spec: "net:path=" + ckpt + ",sims=64,mode=gumbel,lcb=2", wantErr: "needs puct"},
		{spec: "net:path=" + ckpt + ",depth=3", wantErr: `no key "depth"`},
		{spec: "net:path=" + filepath.Join(dir, "nope"), wantErr: "no such file"},
	}
	for _, tc := range tests {
		built, err := reg.Build(game, tc.spec)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Build(%q) error = %v, want one containing %q", tc.spec, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Build(%q): %v", tc.spec, err)
			continue
		}
		a, err := built.NewAgent(0)
		if err != nil {
			t.Fatal(err)
		}
		na := a.(*Agent)
		if na.Settings() != tc.want || na.Name() != tc.wantName {
			t.Errorf("Build(%q): agent %s with %+v, want %s with %+v", tc.spec, na.Name(), na.Settings(), tc.wantName, tc.want)
		}
	}
	// Every spec naming the checkpoint shares one network.
	if nets := pool.Networks(); len(nets) != 1 {
		t.Errorf("pool holds %d networks, want 1", len(nets))
	}
	pool.Close()
	if _, err := reg.Build(game, "net:path="+ckpt); err == nil {
		t.Error("a closed pool loaded a network")
	}
}

// TestSpecKindMaterialOff checks that material=0 turns off the material
// term of the agent a spec names (the shipped Watch Your Back! agent's), and
// that a term named with it is still refused.
func TestSpecKindMaterialOff(t *testing.T) {
	shipped := filepath.Join("..", "..", "agents", "wyb")
	m, err := ReadManifest(shipped)
	if err != nil {
		t.Fatal(err)
	}
	if m.Search.MaterialWeight == 0 || m.Search.MaterialTerm == "" {
		t.Skipf("the shipped agent's search has no material term to turn off: %+v", m.Search)
	}
	pool := NewPool(Options{})
	defer pool.Close()
	reg := spec.Default()
	if err := reg.Register(KindName, pool.Kind()); err != nil {
		t.Fatal(err)
	}
	game := wyb.New(wyb.Options{})
	off := m.Search
	off.MaterialWeight, off.MaterialTerm, off.MaterialUntil = 0, "", 0
	for _, tc := range []struct {
		params  string
		want    Settings
		wantErr string
	}{
		{"", m.Search, ""},
		{",material=0", off, ""},
		{",material=0,mterm=table", Settings{}, "set a weight too"},
		{",material=0,muntil=24", Settings{}, "set a weight too"},
	} {
		built, err := reg.Build(game, "net:path="+shipped+tc.params)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want one containing %q", tc.params, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.params, err)
		}
		a, err := built.NewAgent(0)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.(*Agent).Settings(); got != tc.want {
			t.Errorf("%q: settings %+v, want %+v", tc.params, got, tc.want)
		}
	}
}

func TestSettingsValidate(t *testing.T) {
	ok := DefaultSettings()
	tests := []struct {
		name string
		edit func(*Settings)
		want string
	}{
		{"default", func(*Settings) {}, ""},
		{"time only", func(s *Settings) { s.Simulations, s.MoveTime = 0, mcts.Duration(time.Second) }, ""},
		{"negative sims", func(s *Settings) { s.Simulations = -1 }, "simulations"},
		{"too many sims", func(s *Settings) { s.Simulations = mcts.MaxSimulations + 1 }, "simulations"},
		{"negative time", func(s *Settings) { s.MoveTime = -1 }, "move_time"},
		{"no budget", func(s *Settings) { s.Simulations = 0 }, "no budget"},
		{"bad mode", func(s *Settings) { s.Mode = "minimax" }, "mode"},
		{"leaves", func(s *Settings) { s.LeavesInFlight = 0 }, "leaves_in_flight"},
		{"cpuct", func(s *Settings) { s.CPUCT = 0 }, "c_puct"},
		{"material", func(s *Settings) { s.MaterialWeight, s.MaterialScale = 0.3, 2 }, ""},
		{"material weight", func(s *Settings) { s.MaterialWeight = 1 }, "material_weight"},
		{"material weight negative", func(s *Settings) { s.MaterialWeight = -0.1 }, "material_weight"},
		{"material scale", func(s *Settings) { s.MaterialScale = -1 }, "material_scale"},
		{"material term", func(s *Settings) { s.MaterialWeight, s.MaterialTerm = 0.3, "eval" }, ""},
		{"shrink term", func(s *Settings) { s.MaterialWeight, s.MaterialTerm = 0.3, "shrink" }, ""},
		{"unknown material term", func(s *Settings) { s.MaterialTerm = "rollout" }, "material_term"},
		{"material term without weight", func(s *Settings) { s.MaterialTerm = "shrink" }, "no effect with material_weight 0"},
		{"final term until the placing ends", func(s *Settings) { s.MaterialWeight, s.MaterialTerm, s.MaterialUntil = 0.3, "final", 24 }, ""},
		{"table term", func(s *Settings) { s.MaterialWeight, s.MaterialTerm = 0.3, "table" }, ""},
		{"negative material until", func(s *Settings) { s.MaterialWeight, s.MaterialUntil = 0.3, -1 }, "material_until"},
		{"material until without weight", func(s *Settings) { s.MaterialUntil = 24 }, "material_until"},
	}
	for _, tc := range tests {
		s := ok
		tc.edit(&s)
		err := s.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: Validate() = %v, want %q", tc.name, err, tc.want)
		}
		if err == nil {
			if cerr := s.Config().Validate(); cerr != nil {
				t.Errorf("%s: search config invalid: %v", tc.name, cerr)
			}
		}
	}
}

// TestWrap serves agents from a network in memory and leaves it open.
func TestWrap(t *testing.T) {
	game := tictactoe.New()
	net, err := torch.New(tinyConfig, ShapeOf(game), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	n, err := Wrap(net, game, "live", Options{Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := DefaultSettings()
	s.Simulations = 8
	f, err := n.Factory(s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := arena.Play(context.Background(), arena.Config{Game: game, Games: 2, Workers: 2, Seed: 1}, f, agent.RandomFactory())
	if err != nil || res.A != "live-sims8" {
		t.Fatalf("match: %v, %+v", err, res)
	}
	n.Close()
	if _, err := n.NewAgent(s, 1); err == nil {
		t.Error("agent built after Close")
	}
	// The caller's network still works.
	if err := net.Forward(make([]float32, ShapeOf(game).Size()), 1, make([]float32, game.NumActions()), make([]float32, 1)); err != nil {
		t.Errorf("Forward after the wrapper closed: %v", err)
	}
	if _, err := Wrap(net, wyb.New(wyb.Options{}), "wrong", Options{}); err == nil || !strings.Contains(err.Error(), "does not fit game") {
		t.Errorf("Wrap for another game: %v", err)
	}
}

// TestEvaluatorSymmetries checks that a symmetry-averaging evaluator gives
// the mean of the network's outputs on a position and on its mirror image.
func TestEvaluatorSymmetries(t *testing.T) {
	game := wyb.New(wyb.Options{})
	if got := SearchSymmetries(game); len(got) != 2 || got[1].Name != wyb.MirrorSymmetry().Name {
		t.Fatalf("WYB search symmetries: %d", len(got))
	}
	ckpt := filepath.Join(t.TempDir(), "net.ckpt")
	writeCheckpoint(t, ckpt, game, tinyConfig, torch.Metadata{Step: 3})
	n, err := Load(ckpt, game, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	plain, err := n.Evaluator(1, false)
	if err != nil {
		t.Fatal(err)
	}
	sym, err := n.Evaluator(1, true)
	if err != nil {
		t.Fatal(err)
	}
	nets, release, err := n.net.workers(1)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	raw := nets[0]

	s := game.NewState()
	for _, a := range []int{wyb.PlaceAction(1, 2), wyb.PlaceAction(5, 5), wyb.PlaceAction(0, 3)} {
		s.ApplyAction(a)
	}
	shape, na := game.ObservationShape(), game.NumActions()
	obs := make([]float32, 2*shape.Size())
	s.Observation(obs[:shape.Size()])
	mirror := wyb.MirrorSymmetry()
	mirror.TransformObservation(shape, obs[:shape.Size()], obs[shape.Size():])
	logits, values := make([]float32, 2*na), make([]float32, 2)
	if err := raw.Forward(obs, 2, logits, values); err != nil {
		t.Fatal(err)
	}
	legal := s.LegalActions(nil)
	mean := make([]float32, na)
	for a := range mean {
		mean[a] = (logits[a] + logits[na+mirror.Actions[a]]) / 2
	}
	want := make([]float32, len(legal))
	if err := mcts.MaskedSoftmax(mean, legal, want); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pp, ps := make([]float32, len(legal)), make([]float32, len(legal))
	vp, err := plain.Evaluate(ctx, s, legal, pp)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sym.Evaluate(ctx, s, legal, ps)
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-5 }
	if !near(vp, values[0]) || !near(vs, (values[0]+values[1])/2) {
		t.Fatalf("values: plain %v sym %v, want %v and %v", vp, vs, values[0], (values[0]+values[1])/2)
	}
	if values[0] == values[1] {
		t.Fatal("the test network values the position and its mirror alike: the test proves nothing")
	}
	for i := range legal {
		if !near(ps[i], want[i]) {
			t.Fatalf("prior of action %d: %v, want %v", legal[i], ps[i], want[i])
		}
	}
}
