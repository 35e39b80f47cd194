package mcts

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// TestConfigPresets pins every field of the full-configuration presets:
// a change to a default shows here and in docs/search.md's table.
func TestConfigPresets(t *testing.T) {
	base := Config{
		Mode: ModePUCT, Simulations: 200, LeavesInFlight: 1, VirtualLoss: 1,
		CPUCT: 1.25, CPUCTBase: 19652,
		FPUMode: FPUReduction, FPUReduction: 0.25, RootFPUReduction: 0.1,
		DirichletAlpha: 0.3, DirichletEpsilon: 0.25,
		Temperature: 1, TemperatureMoves: 10, ReuseTree: true,
		Gumbel:     GumbelConfig{MaxConsideredActions: 16, Scale: 1, CVisit: 50, CScale: 1, Interior: InteriorImprovedPolicy},
		PlayoutCap: PlayoutCapConfig{FullProbability: 0.25, CheapSimulations: 32},
	}
	selfPlay := base
	selfPlay.Mode, selfPlay.Simulations, selfPlay.LeavesInFlight, selfPlay.TemperatureMoves = ModeGumbel, 24, 4, 0
	selfPlay.PlayoutCap = PlayoutCapConfig{Enabled: true, FullProbability: 0.25, CheapSimulations: 6}
	play := base
	play.Simulations, play.DirichletEpsilon, play.Temperature, play.TemperatureMoves, play.ReuseTree = 50, 0, 0, 0, false
	play.Gumbel.Scale = 0
	for _, tc := range []struct {
		name string
		got  Config
		want Config
	}{
		{"DefaultConfig", DefaultConfig(), base},
		{"SelfPlayConfig", SelfPlayConfig(), selfPlay},
		{"PlayConfig(50)", PlayConfig(50), play},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %+v\nwant %+v", tc.name, tc.got, tc.want)
		}
		if err := tc.got.Validate(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestSettingsPresets pins the player presets and the configuration each
// one searches with.
func TestSettingsPresets(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  Settings
		want Settings
		// edit turns PlayConfig(want's budget) into the expected Config.
		edit func(*Config)
	}{
		{"EvalSettings", EvalSettings(), Settings{Simulations: 32, Mode: ModeGumbel, CPUCT: 1.25},
			func(c *Config) { c.Mode, c.LeavesInFlight, c.TreeMB = ModeGumbel, 0, 16 }},
		{"AgentSettings", AgentSettings(), Settings{Simulations: 128, Mode: ModePUCT, LeavesInFlight: 4, CPUCT: 1.25, ReuseTree: true},
			func(c *Config) { c.LeavesInFlight, c.ReuseTree, c.TreeMB = 4, true, 16 }},
		{"ShippedAgentSettings", ShippedAgentSettings(),
			Settings{Simulations: 2000, MoveTime: Duration(time.Second), Mode: ModePUCT, LeavesInFlight: 4, CPUCT: 1.25, ReuseTree: true, MaxNodes: 200_000, Solver: true},
			func(c *Config) {
				c.LeavesInFlight, c.ReuseTree, c.MaxNodes, c.TreeMB, c.Solver = 4, true, 200_000, 16, true
			}},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %+v\nwant %+v", tc.name, tc.got, tc.want)
		}
		want := PlayConfig(tc.want.Simulations)
		tc.edit(&want)
		if c := tc.got.Config(); c != want {
			t.Errorf("%s.Config() = %+v\nwant %+v", tc.name, c, want)
		}
		s := tc.got
		if s.LeavesInFlight == 0 { // EvalSettings: the self-play search's
			s.LeavesInFlight = SelfPlayConfig().LeavesInFlight
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if err := s.Config().Validate(); err != nil {
			t.Errorf("%s.Config(): %v", tc.name, err)
		}
	}
	// A time-only budget searches up to MaxSimulations.
	s := AgentSettings()
	s.Simulations, s.MoveTime = 0, Duration(time.Second)
	if c := s.Config(); c.Simulations != MaxSimulations {
		t.Errorf("time-only budget: %d simulations, want %d", c.Simulations, MaxSimulations)
	}
}

func TestSettingsValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Settings)
		want string
	}{
		{"default", func(*Settings) {}, ""},
		{"time only", func(s *Settings) { s.Simulations, s.MoveTime = 0, Duration(time.Second) }, ""},
		{"negative sims", func(s *Settings) { s.Simulations = -1 }, "simulations ="},
		{"too many sims", func(s *Settings) { s.Simulations = MaxSimulations + 1 }, "simulations ="},
		{"negative time", func(s *Settings) { s.MoveTime = -1 }, "move_time ="},
		{"no budget", func(s *Settings) { s.Simulations = 0 }, "no budget"},
		{"bad mode", func(s *Settings) { s.Mode = "minimax" }, "mode ="},
		{"gumbel time only", func(s *Settings) { s.Mode, s.Simulations, s.MoveTime = ModeGumbel, 0, Duration(time.Second) }, "gumbel search plans"},
		{"no leaves", func(s *Settings) { s.LeavesInFlight = 0 }, "leaves_in_flight ="},
		{"too many leaves", func(s *Settings) { s.LeavesInFlight = MaxLeavesInFlight + 1 }, "leaves_in_flight ="},
		{"cpuct", func(s *Settings) { s.CPUCT = 0 }, "c_puct ="},
		{"policy temperature", func(s *Settings) { s.PolicyTemperature = 0.01 }, "policy_temperature ="},
		{"max nodes", func(s *Settings) { s.MaxNodes = -1 }, "max_nodes ="},
		{"tree mb", func(s *Settings) { s.TreeMB = -1 }, "tree_mb ="},
		{"tree mb too large", func(s *Settings) { s.TreeMB = MaxTreeMB + 1 }, "tree_mb ="},
	} {
		s := AgentSettings()
		tc.edit(&s)
		err := s.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: Validate() = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestSettingsEncoding checks the keys Settings are written with, in a
// manifest's JSON and a configuration's YAML, and that both round-trip.
func TestSettingsEncoding(t *testing.T) {
	for _, s := range []Settings{AgentSettings(), ShippedAgentSettings(), EvalSettings(),
		{Simulations: 0, MoveTime: Duration(1500 * time.Millisecond), Mode: ModePUCT, LeavesInFlight: 2, CPUCT: 3, PolicyTemperature: 1.4}} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back Settings
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("JSON %s: %+v, %v; want %+v", b, back, err, s)
		}
		y, err := yaml.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		back = Settings{}
		if err := yaml.Unmarshal(y, &back); err != nil || back != s {
			t.Errorf("YAML %s: %+v, %v; want %+v", y, back, err, s)
		}
	}
	// The JSON of an exported agent's manifest: optional keys are left
	// out when unset, durations are strings.
	b, _ := json.Marshal(AgentSettings())
	if want := `{"simulations":128,"move_time":"0s","mode":"puct","leaves_in_flight":4,"c_puct":1.25,"reuse_tree":true}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	b, _ = json.Marshal(ShippedAgentSettings())
	if want := `{"simulations":2000,"move_time":"1s","mode":"puct","leaves_in_flight":4,"c_puct":1.25,"reuse_tree":true,"max_nodes":200000,"solver":true}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	var y struct {
		S Settings `yaml:",inline"`
	}
	if err := yaml.Unmarshal([]byte("simulations: 64\nmove_time: 250ms\nmode: gumbel\nsolver: true\n"), &y); err != nil {
		t.Fatal(err)
	}
	if want := (Settings{Simulations: 64, MoveTime: Duration(250 * time.Millisecond), Mode: ModeGumbel, Solver: true}); !reflect.DeepEqual(y.S, want) {
		t.Errorf("YAML: %+v, want %+v", y.S, want)
	}
	for _, bad := range []string{`{"move_time":"soon"}`, `{"move_time":5}`} {
		var s Settings
		if err := json.Unmarshal([]byte(bad), &s); err == nil {
			t.Errorf("JSON %s: no error", bad)
		}
	}
	for _, bad := range []string{"move_time: soon\n", "simulations: 1\nmove_time: [1s]\n"} {
		if err := yaml.Unmarshal([]byte(bad), &y); err == nil || !strings.Contains(err.Error(), "line ") {
			t.Errorf("YAML %q: %v, want an error naming the line", bad, err)
		}
	}
}

func FuzzDurationText(f *testing.F) {
	for _, s := range []string{"1s", "0s", "1.5s", "-2m", "soon", "", "1h2m3.5s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var d Duration
		if err := d.UnmarshalText([]byte(s)); err != nil {
			return
		}
		b, err := d.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Duration
		if err := back.UnmarshalText(b); err != nil || back != d {
			t.Fatalf("%q -> %q -> %v, %v", s, b, back, err)
		}
	})
}
