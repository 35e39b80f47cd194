package torch

import (
	"math"
	"strings"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	ok := DefaultConfig()
	tests := []struct {
		name   string
		modify func(c *Config)
		want   string // substring of the error, "" for valid
	}{
		{"default", func(c *Config) {}, ""},
		{"small", func(c *Config) { *c = SmallConfig() }, ""},
		{"spatial", func(c *Config) { c.PolicyHead, c.PolicyPlanes = PolicySpatial, 9 }, ""},
		{"no blocks", func(c *Config) { c.Blocks = 0 }, ""},
		{"negative blocks", func(c *Config) { c.Blocks = -1 }, "blocks must be in [0, 64], got -1"},
		{"zero channels", func(c *Config) { c.Channels = 0 }, "channels must be in [1, 1024], got 0"},
		{"huge channels", func(c *Config) { c.Channels = 5000 }, "channels must be in [1, 1024], got 5000"},
		{"bad head", func(c *Config) { c.PolicyHead = "conv" }, `policy_head must be "dense" or "spatial", got "conv"`},
		{"planes on dense", func(c *Config) { c.PolicyPlanes = 2 }, "policy_planes is for the \"spatial\" policy head only"},
		{"value hidden", func(c *Config) { c.ValueHidden = 0 }, "value_hidden must be in"},
		{"threads", func(c *Config) { c.Threads = -2 }, "threads must be in [0, 256], got -2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.modify(&c)
			err := c.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestConfigWithDefaults(t *testing.T) {
	got := Config{Channels: 32, Threads: 2}.WithDefaults()
	want := DefaultConfig()
	want.Channels, want.Threads = 32, 2
	if got != want {
		t.Fatalf("WithDefaults = %+v, want %+v", got, want)
	}
}

func TestShapeValidate(t *testing.T) {
	dense := DefaultConfig()
	spatial := dense
	spatial.PolicyHead, spatial.PolicyPlanes = PolicySpatial, 2
	tests := []struct {
		name  string
		cfg   Config
		shape Shape
		want  string
	}{
		{"wyb", dense, Shape{Planes: 8, Height: 8, Width: 8, Actions: 577}, ""},
		{"spatial exact", spatial, Shape{Planes: 3, Height: 5, Width: 5, Actions: 50}, ""},
		{"spatial with pass", spatial, Shape{Planes: 3, Height: 5, Width: 5, Actions: 51}, ""},
		{"spatial too few actions", spatial, Shape{Planes: 3, Height: 5, Width: 5, Actions: 49}, "49 actions is fewer than the spatial policy head's 2 planes x 5x5 cells"},
		{"no planes", dense, Shape{Planes: 0, Height: 8, Width: 8, Actions: 1}, "model shape: planes must be in [1, 1024], got 0"},
		{"too wide", dense, Shape{Planes: 1, Height: 8, Width: 65, Actions: 1}, "model shape: width must be in [1, 64], got 65"},
		{"no actions", dense, Shape{Planes: 1, Height: 8, Width: 8}, "model shape: actions must be in"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.shape.Validate(tc.cfg)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestScheduleAt(t *testing.T) {
	tests := []struct {
		name string
		s    Schedule
		step int64
		want float64
	}{
		{"constant", Schedule{Kind: ScheduleConstant, LearningRate: 0.1}, 1000, 0.1},
		{"warmup first", Schedule{Kind: ScheduleConstant, LearningRate: 0.1, WarmupSteps: 10}, 0, 0.01},
		{"warmup mid", Schedule{Kind: ScheduleConstant, LearningRate: 0.1, WarmupSteps: 10}, 4, 0.05},
		{"warmup done", Schedule{Kind: ScheduleConstant, LearningRate: 0.1, WarmupSteps: 10}, 10, 0.1},
		{"step before", Schedule{Kind: ScheduleStep, LearningRate: 0.1, StepEvery: 100, StepFactor: 0.5}, 99, 0.1},
		{"step once", Schedule{Kind: ScheduleStep, LearningRate: 0.1, StepEvery: 100, StepFactor: 0.5}, 100, 0.05},
		{"step twice after warmup", Schedule{Kind: ScheduleStep, LearningRate: 0.1, WarmupSteps: 10, StepEvery: 100, StepFactor: 0.5}, 210, 0.025},
		{"cosine start", Schedule{Kind: ScheduleCosine, LearningRate: 0.1, TotalSteps: 100, MinLearningRate: 0.01}, 0, 0.1},
		{"cosine middle", Schedule{Kind: ScheduleCosine, LearningRate: 0.1, TotalSteps: 100, MinLearningRate: 0.02}, 50, 0.06},
		{"cosine end", Schedule{Kind: ScheduleCosine, LearningRate: 0.1, TotalSteps: 100, MinLearningRate: 0.01}, 100, 0.01},
		{"cosine after end", Schedule{Kind: ScheduleCosine, LearningRate: 0.1, TotalSteps: 100, MinLearningRate: 0.01}, 5000, 0.01},
		{"cosine warmup", Schedule{Kind: ScheduleCosine, LearningRate: 0.1, WarmupSteps: 20, TotalSteps: 120}, 70, 0.05},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.s.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if got := tc.s.At(tc.step); math.Abs(got-tc.want) > 1e-12 {
				t.Fatalf("At(%d) = %v, want %v", tc.step, got, tc.want)
			}
		})
	}
}

func TestTrainConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(c *TrainConfig)
		want   string
	}{
		{"default", func(c *TrainConfig) {}, ""},
		{"sgd", func(c *TrainConfig) { c.Optimizer, c.Nesterov = OptimizerSGD, true }, ""},
		{"unknown optimizer", func(c *TrainConfig) { c.Optimizer = "lamb" }, `optimizer must be "sgd", "adam" or "adamw", got "lamb"`},
		{"zero lr", func(c *TrainConfig) { c.Schedule.LearningRate = 0 }, "learning_rate must be positive"},
		{"bad kind", func(c *TrainConfig) { c.Schedule.Kind = "linear" }, `kind must be "constant", "step" or "cosine", got "linear"`},
		{"cosine without total", func(c *TrainConfig) { c.Schedule.Kind = ScheduleCosine }, "total_steps (0) must exceed warmup_steps (0)"},
		{"step without every", func(c *TrainConfig) { c.Schedule.Kind = ScheduleStep }, "step_every must be positive"},
		{"beta1", func(c *TrainConfig) { c.Beta1 = 1 }, "beta1 must be in [0, 1), got 1"},
		{"momentum", func(c *TrainConfig) { c.Optimizer, c.Momentum = OptimizerSGD, 1.5 }, "momentum must be in [0, 1), got 1.5"},
		{"nesterov without momentum", func(c *TrainConfig) { c.Optimizer, c.Nesterov, c.Momentum = OptimizerSGD, true, 0 }, "nesterov needs momentum"},
		{"negative decay", func(c *TrainConfig) { c.WeightDecay = -1 }, "weight_decay must be in [0, 1], got -1"},
		{"nan clip", func(c *TrainConfig) { c.GradClipNorm = math.NaN() }, "grad_clip_norm must be in"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultTrainConfig()
			tc.modify(&c)
			err := c.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
