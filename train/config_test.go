package train

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/rundir"
)

func TestConfigFilesLoad(t *testing.T) {
	paths, err := filepath.Glob("../configs/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 4 {
		t.Fatalf("found %d configs in ../configs, want wyb, wyb-tiny, squatter6 and squatter-tiny", len(paths))
	}
	paths = append(paths, "testdata/tictactoe-tiny.yaml")
	for _, p := range paths {
		cfg, err := LoadConfig(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		// Every key of a shipped config is commented.
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(text), "\n") {
			trim := strings.TrimSpace(line)
			if trim == "" || strings.HasPrefix(trim, "#") || strings.HasSuffix(trim, ":") {
				continue // blank, comment, or a section heading
			}
			if !strings.Contains(line, "#") && strings.HasPrefix(p, "../configs") {
				t.Errorf("%s:%d: key without a comment: %q", p, i+1, trim)
			}
		}
		// The effective configuration round-trips.
		enc, err := cfg.Encode()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseConfig(p+" (encoded)", enc)
		if err != nil {
			t.Fatalf("%s: encoded configuration does not load: %v\n%s", p, err, enc)
		}
		if !reflect.DeepEqual(cfg, back) {
			t.Errorf("%s: configuration changes through Encode and ParseConfig", p)
		}
	}
}

// TestWYBConfigIsTheDefault keeps configs/wyb.yaml and DefaultConfig in
// step, so that "every key has a documented default" holds.
func TestWYBConfigIsTheDefault(t *testing.T) {
	cfg, err := LoadConfig("../configs/wyb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	def := DefaultConfig()
	def.Buffer.Seed = cfg.Buffer.Seed
	a, _ := cfg.Encode()
	b, _ := def.Encode()
	if d := firstDifference(string(a), string(b)); d != "" {
		t.Fatalf("configs/wyb.yaml differs from DefaultConfig: %s", d)
	}
}

func TestConfigStrictness(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string // substrings of the error; nil: valid
	}{
		{"empty", "", nil},
		{"minimal", "game:\n  name: tictactoe\n", nil},
		{"unknown top key", "game:\n  name: wyb\nbogus: 1\n", []string{"line 3", "bogus"}},
		{"unknown nested key", "train:\n  batch_size: 64\n  batchsize: 3\n", []string{"line 3", "batchsize"}},
		{"unknown search key", "search:\n  gumbel:\n    scale: 1\n    sale: 2\n", []string{"line 4", "sale"}},
		{"duplicate key", "seed: 1\nseed: 2\n", []string{"line 2"}},
		{"wrong type", "train:\n  batch_size: many\n", []string{"line 2"}},
		{"bad duration", "batcher:\n  max_wait: 3\n", []string{"line 2"}},
		{"bad game", "game:\n  name: chess\n", []string{"game.name"}},
		{"batch size", "train:\n  batch_size: 0\n", []string{"train.batch_size"}},
		{"ratio", "train:\n  samples_per_position: 0\n", []string{"train.samples_per_position"}},
		{"odd eval games", "eval:\n  games: 7\n", []string{"eval.games"}},
		{"unknown opponent", "eval:\n  opponents: [random, stockfish]\n", []string{"eval.opponents[1]", "stockfish"}},
		{"repeated opponent", "eval:\n  opponents: [random, random]\n", []string{"eval.opponents[1]"}},
		{"model threads", "model:\n  threads: 4\n", []string{"model.threads"}},
		{"search", "search:\n  simulations: 0\n", []string{"search", "simulations"}},
		{"selfplay", "selfplay:\n  parallel_games: 0\n", []string{"parallel_games"}},
		{"sparring", "selfplay:\n  sparring_agent: 'alphabeta:depth=3'\n  sparring_fraction: 0.25\n", nil},
		{"sparring agent", "selfplay:\n  sparring_agent: stockfish\n  sparring_fraction: 0.25\n", []string{"selfplay.sparring_agent", "stockfish"}},
		{"sparring fraction", "selfplay:\n  sparring_agent: random\n  sparring_fraction: 2\n", []string{"sparring_fraction"}},
		{"checkpoint", "checkpoint:\n  every: 0\n", []string{"checkpoint.every"}},
		{"store self-play", "train:\n  self_play: store\n  poll: 1s\n", nil},
		{"self-play source", "train:\n  self_play: remote\n", []string{"train.self_play", `"remote"`}},
		{"poll", "train:\n  poll: 10ms\n", []string{"train.poll"}},
		{"threads", "threads: 0\n", []string{"threads"}},
		{"device", "device: tpu\n", []string{`device "tpu"`, "auto | cpu | cuda | cuda:N"}},
		{"device cuda", "device: cuda:1\n", nil},
		{"device cpu", "device: cpu\n", nil},
		{"precision", "precision: fp16\n", []string{"precision", `"fp16"`, "bf16"}},
		{"precision bf16", "precision: bf16\n", nil},
		{"second document", "seed: 1\n---\nseed: 2\n", []string{"second"}},
		{"no stages", "stages: []\n", nil},
		{"stages", "stages:\n  - name: a\n    from_step: 0\n  - name: b\n    from_step: 5\n    sparring_agent: greedy\n    sparring_fraction: 0.5\n    root_value_weight: 0.2\n    eval_opponents: [random]\n", nil},
		{"stage unknown key", "stages:\n  - name: a\n    from_step: 0\n    learning_rate: 1\n", []string{"line 4", "learning_rate"}},
		{"stage name", "stages:\n  - name: 'a b'\n", []string{"stages[0].name"}},
		{"stage names twice", "stages:\n  - name: a\n  - name: a\n    from_step: 3\n", []string{"stages[1].name", "twice"}},
		{"stage order", "stages:\n  - name: a\n    from_step: 5\n  - name: b\n    from_step: 5\n", []string{"stages[1].from_step", "after stages[0]"}},
		{"stage sparring agent", "stages:\n  - name: a\n    sparring_agent: stockfish\n    sparring_fraction: 0.5\n", []string{"stages[0].sparring_agent", "stockfish"}},
		{"stage sparring without agent", "stages:\n  - name: a\n    sparring_fraction: 0.5\n", []string{"stages[0]", "no sparring_agent"}},
		{"stage sparring fraction", "stages:\n  - name: a\n    sparring_agent: random\n    sparring_fraction: 1.5\n", []string{"stages[0].sparring_fraction"}},
		{"stage value weight", "stages:\n  - name: a\n    root_value_weight: -1\n", []string{"stages[0].root_value_weight"}},
		{"stage opponent", "stages:\n  - name: a\n    eval_opponents: [random, random]\n", []string{"stages[0].eval_opponents[1]", "twice"}},
		{"averaging every", "averaging:\n  from_step: 10\n  every: 300\n", []string{"averaging.every", "multiple of checkpoint.every"}},
		{"averaging from", "averaging:\n  from_step: -1\n", []string{"averaging.from_step"}},
		{"agent budget", "agent:\n  simulations: 0\n  move_time: 0s\n", []string{"agent", "move_time"}},
		{"agent mode", "agent:\n  mode: minimax\n", []string{"agent"}},
		{"ownership", "model:\n  ownership_head: true\noptimizer:\n  ownership_loss_weight: 1.5\n", nil},
		{"ownership head alone", "model:\n  ownership_head: true\n", nil},
		{"ownership without head", "optimizer:\n  ownership_loss_weight: 1\n", []string{"optimizer.ownership_loss_weight", "model.ownership_head"}},
		{"ownership weight", "model:\n  ownership_head: true\noptimizer:\n  ownership_loss_weight: -1\n", []string{"ownership_loss_weight"}},
		{"ownership game", "game:\n  name: tictactoe\nmodel:\n  ownership_head: true\noptimizer:\n  ownership_loss_weight: 1\n", []string{"tictactoe", "cannot say who holds its cells"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig("test.yaml", []byte(tc.text))
			if tc.want == nil {
				if err != nil {
					t.Fatalf("valid configuration rejected: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("invalid configuration accepted")
			}
			for _, w := range append(tc.want, "test.yaml") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestStageAt checks which settings are in force at each step of a recipe.
func TestStageAt(t *testing.T) {
	cfg, err := ParseConfig("recipe.yaml", []byte(`
buffer:
  root_value_weight: 0.5
stages:
  - name: first
    from_step: 100
    sparring_agent: greedy
    sparring_fraction: 0.5
  - name: second
    from_step: 200
    root_value_weight: 0.2
    eval_opponents: [random]
  - name: third
    from_step: 300
    sparring_fraction: 0
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		step      int64
		name      string
		agent     string
		fraction  float64
		weight    float64
		opponents string
	}{
		{0, "", "", 0, 0.5, "previous random greedy alphabeta:depth=2"},
		{99, "", "", 0, 0.5, "previous random greedy alphabeta:depth=2"},
		{100, "first", "greedy", 0.5, 0.5, "previous random greedy alphabeta:depth=2"},
		{250, "second", "greedy", 0.5, 0.2, "random"},
		{1000, "third", "greedy", 0, 0.2, "random"},
	} {
		eff, name := cfg.StageAt(tc.step)
		got := []any{name, eff.SelfPlay.SparringAgent, eff.SelfPlay.SparringFraction, eff.Buffer.RootValueWeight, strings.Join(eff.Eval.Opponents, " ")}
		want := []any{tc.name, tc.agent, tc.fraction, tc.weight, tc.opponents}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("step %d: %v, want %v", tc.step, got, want)
		}
	}
	if len(cfg.Eval.Opponents) != 4 || cfg.SelfPlay.SparringAgent != "" {
		t.Error("StageAt modified the configuration")
	}
}

func TestOpponentsListReplacesDefault(t *testing.T) {
	cfg, err := ParseConfig("t.yaml", []byte("eval:\n  opponents: [greedy]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.Eval.Opponents, []string{"greedy"}) {
		t.Fatalf("opponents %v, want [greedy]", cfg.Eval.Opponents)
	}
	cfg, err = ParseConfig("t.yaml", []byte("seed: 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.Eval.Opponents, DefaultConfig().Eval.Opponents) {
		t.Fatalf("opponents %v, want the default", cfg.Eval.Opponents)
	}
}

func FuzzParseConfig(f *testing.F) {
	for _, p := range []string{"../configs/wyb.yaml", "../configs/wyb-tiny.yaml", "testdata/tictactoe-tiny.yaml"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("train:\n  batch_size: -1\n"))
	f.Add([]byte("eval: {opponents: [previous, 'alphabeta:depth=2']}\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		cfg, err := ParseConfig("fuzz.yaml", text)
		if err != nil {
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("accepted an invalid configuration: %v", err)
		}
		enc, err := cfg.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseConfig("fuzz-encoded.yaml", enc); err != nil {
			t.Fatalf("encoded configuration does not load: %v\n%s", err, enc)
		}
	})
}

func TestResumeConfig(t *testing.T) {
	stored := DefaultConfig()
	tests := []struct {
		name     string
		change   func(*Config)
		wantErr  string   // a conflict naming this
		wantKeys []string // the changes recorded in meta.json
	}{
		{name: "same", change: func(*Config) {}},
		{name: "schedule and eval", change: func(c *Config) {
			c.Optimizer.Schedule.Kind, c.Optimizer.Schedule.StepEvery, c.Optimizer.Schedule.StepFactor = "constant", 5000, 0.1
			c.Eval.Games = 40
		}, wantKeys: []string{"optimizer.schedule.kind: step -> constant", "optimizer.schedule.step_every: 50000 -> 5000",
			"optimizer.schedule.step_factor: 0.25 -> 0.1", "eval.games: 20 -> 40"}},
		{name: "recipe", change: func(c *Config) {
			c.Stages = append([]Stage(nil), c.Stages...)
			c.Stages[1].FromStep = 20000
			c.Averaging.FromStep = 40000
			c.Agent.Simulations = 400
		}, wantKeys: []string{"from_step: 10000 -> 20000", "averaging.from_step: 20000 -> 40000", "agent.simulations: 2000 -> 400"}},
		{name: "parallelism", change: func(c *Config) { c.SelfPlay.ParallelGames, c.Threads = 8, 1 },
			wantKeys: []string{"selfplay.parallel_games: 48 -> 8", "threads: 2 -> 1"}},
		{name: "sparring", change: func(c *Config) { c.SelfPlay.SparringAgent, c.SelfPlay.SparringFraction = "alphabeta:depth=3", 0.25 },
			wantKeys: []string{`selfplay.sparring_agent: \"\" -> alphabeta:depth=3`, "selfplay.sparring_fraction: 0 -> 0.25"}},
		{name: "value target", change: func(c *Config) { c.Buffer.RootValueWeight = 0.2 },
			wantKeys: []string{"buffer.root_value_weight: 0.5 -> 0.2"}},
		{name: "device", change: func(c *Config) { c.Device = "cpu" },
			wantKeys: []string{"device: auto -> cpu"}},
		{name: "solver", change: func(c *Config) { c.Search.Solver = true },
			wantKeys: []string{"search.solver: false -> true"}},
		{name: "buffer window", change: func(c *Config) { c.Buffer.Window.MaxPositions++ }, wantErr: "max_positions"},
		{name: "model", change: func(c *Config) { c.Model.Blocks++ }, wantErr: "blocks"},
		{name: "optimizer kind", change: func(c *Config) { c.Optimizer.Optimizer = "sgd" }, wantErr: "optimizer: sgd"},
		{name: "search", change: func(c *Config) { c.Search.Simulations++ }, wantErr: "simulations"},
		{name: "max moves", change: func(c *Config) { c.SelfPlay.MaxMoves = 100 }, wantErr: "max_moves"},
		{name: "seed", change: func(c *Config) { c.Seed++ }, wantErr: "seed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			text, err := stored.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, rundir.ConfigFile), text, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, rundir.MetaFile), []byte(`{"seed": 1}`), 0o644); err != nil {
				t.Fatal(err)
			}
			given := stored
			tt.change(&given)
			gtext, err := given.Encode()
			if err != nil {
				t.Fatal(err)
			}
			gpath := filepath.Join(t.TempDir(), "given.yaml")
			if err := os.WriteFile(gpath, gtext, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := resolveConfig(dir, gpath)
			after, rerr := os.ReadFile(filepath.Join(dir, rundir.ConfigFile))
			if rerr != nil {
				t.Fatal(rerr)
			}
			meta, merr := os.ReadFile(filepath.Join(dir, rundir.MetaFile))
			if merr != nil {
				t.Fatal(merr)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), "conflicts") || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want a conflict naming %q", err, tt.wantErr)
				}
				if string(after) != string(text) || string(meta) != `{"seed": 1}` {
					t.Fatal("a refused configuration changed the run's files")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, given) {
				t.Fatalf("resolved %+v, want the given configuration", got)
			}
			reloaded, err := LoadConfig(filepath.Join(dir, rundir.ConfigFile))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(reloaded, given) {
				t.Fatal("the run's config.yaml does not hold the given configuration")
			}
			if len(tt.wantKeys) == 0 {
				if string(meta) != `{"seed": 1}` {
					t.Fatalf("meta.json changed without a configuration change: %s", meta)
				}
				return
			}
			if !strings.Contains(string(meta), `"seed": 1`) || !strings.Contains(string(meta), "config_changes") {
				t.Fatalf("meta.json lost its fields or has no change record: %s", meta)
			}
			if strings.Contains(string(meta), `\u003e`) {
				t.Fatalf("meta.json escapes its arrows: %s", meta)
			}
			for _, k := range tt.wantKeys {
				if !strings.Contains(string(meta), k) {
					t.Errorf("meta.json does not name %s: %s", k, meta)
				}
			}
		})
	}
}

// TestSearchSettingsSections checks the search that each configuration's
// evaluation player and agent get: the presets of package mcts with the
// file's keys on top, the evaluation player taking the self-play search's
// leaves in flight unless eval.leaves_in_flight is set.
func TestSearchSettingsSections(t *testing.T) {
	eval := func(sims, leaves int) mcts.Settings {
		s := mcts.EvalSettings()
		s.Simulations, s.LeavesInFlight = sims, leaves
		return s
	}
	squatterAgent := mcts.ShippedAgentSettings()
	squatterAgent.Simulations = 800
	shipped := neural.ShippedSettings()
	withMaterial := func(s mcts.Settings, w float64, term string) neural.Settings {
		return neural.Settings{Settings: s, MaterialWeight: w, MaterialTerm: term}
	}
	for _, tc := range []struct {
		name, path, text string
		search           int // self-play simulations
		eval             mcts.Settings
		agent            neural.Settings
		gameTime         time.Duration
	}{
		{name: "default", search: 24, eval: eval(32, 4), agent: shipped, gameTime: 55 * time.Second},
		{name: "wyb", path: "../configs/wyb.yaml", search: 24, eval: eval(32, 4), agent: shipped, gameTime: 55 * time.Second},
		{name: "wyb-tiny", path: "../configs/wyb-tiny.yaml", search: 8, eval: eval(8, 2), agent: shipped, gameTime: 55 * time.Second},
		{name: "squatter6", path: "../configs/squatter6.yaml", search: 32, eval: eval(32, 4), agent: neural.Settings{Settings: squatterAgent}},
		{name: "eval keys", text: "search:\n  leaves_in_flight: 2\neval:\n  leaves_in_flight: 8\n  move_time: 250ms\n  solver: true\n  c_puct: 2\n",
			search: 24, eval: mcts.Settings{Simulations: 32, MoveTime: mcts.Duration(250 * time.Millisecond), Mode: mcts.ModeGumbel, LeavesInFlight: 8, CPUCT: 2, Solver: true},
			agent: shipped, gameTime: 55 * time.Second},
		{name: "agent keys", text: "agent:\n  simulations: 0\n  move_time: 2s\n  leaves_in_flight: 2\n  reuse_tree: false\n  policy_temperature: 1.5\n  material_term: eval\n  game_time: 0s\n",
			search: 24, eval: eval(32, 4),
			agent: withMaterial(mcts.Settings{MoveTime: mcts.Duration(2 * time.Second), Mode: mcts.ModePUCT, LeavesInFlight: 2, CPUCT: 1.25, MaxNodes: mcts.AgentMaxNodes, Solver: true, PolicyTemperature: 1.5}, neural.ShippedMaterialWeight, "eval")},
		{name: "agent material off", text: "agent:\n  material_weight: 0\n", search: 24, eval: eval(32, 4),
			agent: neural.Settings{Settings: mcts.ShippedAgentSettings()}, gameTime: 55 * time.Second},
		{name: "agent material weight", text: "agent:\n  material_weight: 0.5\n  material_term: final\n", search: 24, eval: eval(32, 4),
			agent: withMaterial(mcts.ShippedAgentSettings(), 0.5, "final"), gameTime: 55 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			var err error
			switch {
			case tc.path != "":
				cfg, err = LoadConfig(tc.path)
			case tc.text != "":
				cfg, err = ParseConfig("test.yaml", []byte(tc.text))
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Search.Simulations != tc.search {
				t.Errorf("search.simulations = %d, want %d", cfg.Search.Simulations, tc.search)
			}
			if got := cfg.EvalSettings(); got != tc.eval {
				t.Errorf("EvalSettings() = %+v\nwant %+v", got, tc.eval)
			}
			if got := cfg.Agent.NeuralSettings(); got != tc.agent {
				t.Errorf("agent settings %+v\nwant %+v", got, tc.agent)
			}
			if cfg.Agent.GameTime != tc.gameTime {
				t.Errorf("agent.game_time = %v, want %v", cfg.Agent.GameTime, tc.gameTime)
			}
		})
	}
	for _, tc := range []struct{ text, want string }{
		{"eval:\n  leaves_in_flight: -1\n", "eval.leaves_in_flight"},
		{"eval:\n  leaves_in_flight: 1000\n", "leaves_in_flight"},
		{"eval:\n  move_time: soon\n", "line 2"},
		{"eval:\n  c_puct: 0\n", "c_puct"},
		{"agent:\n  c_puct: -1\n", "c_puct"},
		{"agent:\n  leaves_in_flight: 0\n", "leaves_in_flight"},
		{"agent:\n  material_weight: 1\n", "material_weight"},
		{"agent:\n  material_term: rollout\n", "material_term"},
		{"eval:\n  mode: minimax\n", "mode"},
		{"eval:\n  simulations: 0\n  move_time: 1s\n", "eval.simulations"},
	} {
		if _, err := ParseConfig("test.yaml", []byte(tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one naming %s", tc.text, err, tc.want)
		}
	}
}
