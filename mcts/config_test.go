package mcts

import (
	"math"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func TestDefaultConfigValid(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	if err := DefaultBatcherConfig().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		field string
		edit  func(*Config)
	}{
		{"mode", func(c *Config) { c.Mode = "alphabeta" }},
		{"simulations", func(c *Config) { c.Simulations = 0 }},
		{"leaves_in_flight", func(c *Config) { c.LeavesInFlight = 0 }},
		{"virtual_loss", func(c *Config) { c.VirtualLoss = -1 }},
		{"c_puct", func(c *Config) { c.CPUCT = 0 }},
		{"c_puct_base", func(c *Config) { c.CPUCTBase = -1 }},
		{"policy_temperature", func(c *Config) { c.PolicyTemperature = -1 }},
		{"policy_temperature", func(c *Config) { c.PolicyTemperature = 0.01 }},
		{"policy_temperature", func(c *Config) { c.PolicyTemperature = math.Inf(1) }},
		{"fpu_mode", func(c *Config) { c.FPUMode = "optimistic" }},
		{"fpu_reduction", func(c *Config) { c.FPUReduction = -0.1 }},
		{"root_fpu_reduction", func(c *Config) { c.RootFPUReduction = -0.1 }},
		{"fpu_value", func(c *Config) { c.FPUValue = 2 }},
		{"dirichlet_epsilon", func(c *Config) { c.DirichletEpsilon = 1.5 }},
		{"dirichlet_alpha", func(c *Config) { c.DirichletAlpha = 0 }},
		{"dirichlet_total_alpha", func(c *Config) { c.DirichletTotalAlpha = -1 }},
		{"temperature", func(c *Config) { c.Temperature = -1 }},
		{"temperature_moves", func(c *Config) { c.TemperatureMoves = -1 }},
		{"final_temperature", func(c *Config) { c.FinalTemperature = -1 }},
		{"lcb", func(c *Config) { c.LCB = -1 }},
		{"lcb", func(c *Config) { c.LCB = MaxLCB + 1 }},
		{"lcb", func(c *Config) { c.LCB = math.NaN() }},
		{"gumbel.max_considered_actions", func(c *Config) { c.Gumbel.MaxConsideredActions = 0 }},
		{"gumbel.scale", func(c *Config) { c.Gumbel.Scale = -1 }},
		{"gumbel.c_visit", func(c *Config) { c.Gumbel.CVisit = -1 }},
		{"gumbel.c_scale", func(c *Config) { c.Gumbel.CScale = 0 }},
		{"gumbel.interior", func(c *Config) { c.Gumbel.Interior = "random" }},
		{"playout_cap.full_probability", func(c *Config) {
			c.PlayoutCap.Enabled, c.PlayoutCap.FullProbability = true, 0
		}},
		{"playout_cap.cheap_simulations", func(c *Config) {
			c.PlayoutCap.Enabled, c.PlayoutCap.CheapSimulations = true, c.Simulations
		}},
	}
	for _, tc := range tests {
		cfg := DefaultConfig()
		tc.edit(&cfg)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.field+" =") {
			t.Errorf("%s: err = %v, want it to name the field", tc.field, err)
		}
	}
	// Alpha is irrelevant without noise, and replaced by the total alpha.
	cfg := DefaultConfig()
	cfg.DirichletAlpha, cfg.DirichletEpsilon = 0, 0
	if err := cfg.Validate(); err != nil {
		t.Error(err)
	}
	cfg = DefaultConfig()
	cfg.DirichletAlpha, cfg.DirichletTotalAlpha = 0, 10
	if err := cfg.Validate(); err != nil {
		t.Error(err)
	}
}

func TestConfigYAML(t *testing.T) {
	src := `
mode: gumbel
simulations: 64
leaves_in_flight: 8
c_puct: 2.5
reuse_tree: false
gumbel:
  max_considered_actions: 8
  c_scale: 0.1
playout_cap:
  enabled: true
  cheap_simulations: 16
`
	cfg := DefaultConfig()
	if err := yaml.Unmarshal([]byte(src), &cfg); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	want := DefaultConfig()
	want.Mode, want.Simulations, want.LeavesInFlight, want.CPUCT, want.ReuseTree = ModeGumbel, 64, 8, 2.5, false
	want.Gumbel.MaxConsideredActions, want.Gumbel.CScale = 8, 0.1
	want.PlayoutCap.Enabled, want.PlayoutCap.CheapSimulations = true, 16
	if cfg != want {
		t.Errorf("got %+v\nwant %+v", cfg, want)
	}
	var bc BatcherConfig
	if err := yaml.Unmarshal([]byte("max_batch: 32\nmax_wait: 3ms\n"), &bc); err != nil {
		t.Fatal(err)
	}
	if bc != (BatcherConfig{MaxBatch: 32, MaxWait: 3 * time.Millisecond}) {
		t.Errorf("batcher config %+v", bc)
	}
}
