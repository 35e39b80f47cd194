package train

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/mcts"
)

// Stage is one stage of a run's recipe: from training step FromStep on,
// the settings it names replace the configuration's own (the ones it
// leaves out keep the value of the stage before it, or of the
// configuration). Stages let one invocation of "zerokit train" run a whole
// recipe, e.g. plain self-play first and a share of games against a
// sparring partner once the network can use them. Only settings that may
// change during a run can be staged (see withAdjustable); the learning
// rate's course over the run is the schedule's (optimizer.schedule).
type Stage struct {
	// Name labels the stage in the log, the progress display and the
	// metrics.
	Name string `yaml:"name"`
	// FromStep is the training step the stage starts at.
	FromStep int64 `yaml:"from_step"`
	// SparringAgent and SparringFraction replace selfplay.sparring_agent
	// and selfplay.sparring_fraction.
	SparringAgent    *string  `yaml:"sparring_agent,omitempty"`
	SparringFraction *float64 `yaml:"sparring_fraction,omitempty"`
	// RootValueWeight replaces buffer.root_value_weight.
	RootValueWeight *float64 `yaml:"root_value_weight,omitempty"`
	// EvalOpponents replaces eval.opponents.
	EvalOpponents []string `yaml:"eval_opponents,omitempty"`
}

// AveragingConfig sets the running mean of the network's weights that a
// run keeps as it trains (stochastic weight averaging, Izmailov et al.
// 2018; KataGo publishes such a mean rather than its last weights). The
// mean is the run's agent (see AgentConfig) once it exists: the weights of
// a run wander around a region, and their mean plays better than any one
// of them (measured: docs/results.md).
type AveragingConfig struct {
	// FromStep is the first training step whose checkpoint enters the mean
	// (0: no averaging).
	FromStep int64 `yaml:"from_step"`
	// Every adds the checkpoint of every this many steps to the mean; a
	// multiple of checkpoint.every. Default 1000.
	Every int64 `yaml:"every"`
}

// AgentConfig sets the run's ready-to-play agent, an exported agent
// directory (see "zerokit export") kept at RUN/agent and refreshed at
// every checkpoint: the running mean of the weights once averaging has
// begun, else the newest checkpoint. "net:path=RUN" and "zerokit play -run
// RUN" play it.
type AgentConfig struct {
	// Settings are the agent's search (simulations, move_time, mode,
	// leaves_in_flight, c_puct, reuse_tree, max_nodes, solver,
	// policy_temperature). Default mcts.ShippedAgentSettings: PUCT, 2000
	// simulations capped at 1s per move, MCTS-Solver, at most 200000
	// nodes.
	mcts.Settings `yaml:",inline"`
	// MaterialWeight and MaterialTerm blend a hand-written term into the
	// search's leaf values (agent.json's material_weight and
	// material_term; docs/search.md). Default 0.3 and "table", the shipped
	// Watch Your Back! agent's; material_weight 0 turns the term off.
	MaterialWeight float64 `yaml:"material_weight"`
	MaterialTerm   string  `yaml:"material_term"`
	// GameTime is the Python adapter's thinking budget per game, for the
	// 2018 course referee's 60 s (0: none). Default 55s. A Squatter
	// agent's Java player takes the 2015 course's for the referee's N
	// instead (export.CourseGameTime).
	GameTime time.Duration `yaml:"game_time"`
}

// DefaultAgentConfig returns the defaults of the agent section: the search
// of the best measured Watch Your Back! agent (neural.ShippedSettings) and
// DefaultGameTime.
func DefaultAgentConfig() AgentConfig {
	s := neural.ShippedSettings()
	return AgentConfig{Settings: s.Settings, MaterialWeight: s.MaterialWeight, MaterialTerm: s.MaterialTerm, GameTime: DefaultGameTime}
}

// DefaultGameTime is the default agent.game_time: the course referee's
// 60 s per game less a margin.
const DefaultGameTime = 55 * time.Second

// NeuralSettings returns the agent's search settings as a network agent's
// (with the game's tablebase, without symmetries). A material weight of 0
// turns the term off whatever material_term says.
func (a AgentConfig) NeuralSettings() neural.Settings {
	s := neural.Settings{Settings: a.Settings, MaterialWeight: a.MaterialWeight, MaterialTerm: a.MaterialTerm}
	s.ClearIdleMaterial(false, false)
	return s
}

// validateRecipe checks the stages, averaging and agent sections.
func (c Config) validateRecipe() error {
	names := map[string]bool{}
	for i, s := range c.Stages {
		at := fmt.Sprintf("stages[%d]", i)
		switch {
		case strings.TrimSpace(s.Name) == "" || strings.ContainsAny(s.Name, " \t\n"):
			return fmt.Errorf("%s.name = %q: want a name without spaces", at, s.Name)
		case names[s.Name]:
			return fmt.Errorf("%s.name = %q: listed twice", at, s.Name)
		case s.FromStep < 0:
			return fmt.Errorf("%s.from_step = %d: want a value >= 0", at, s.FromStep)
		case i > 0 && s.FromStep <= c.Stages[i-1].FromStep:
			return fmt.Errorf("%s.from_step = %d: want a step after stages[%d]'s %d", at, s.FromStep, i-1, c.Stages[i-1].FromStep)
		case s.SparringFraction != nil && (math.IsNaN(*s.SparringFraction) || *s.SparringFraction < 0 || *s.SparringFraction > 1):
			return fmt.Errorf("%s.sparring_fraction = %v: want a value in [0, 1]", at, *s.SparringFraction)
		case s.RootValueWeight != nil && !(*s.RootValueWeight >= 0 && *s.RootValueWeight <= 1):
			return fmt.Errorf("%s.root_value_weight = %v: want a value in [0, 1]", at, *s.RootValueWeight)
		}
		names[s.Name] = true
	}
	a := c.Averaging
	switch {
	case a.FromStep < 0:
		return fmt.Errorf("averaging.from_step = %d: want a value >= 0 (0: no averaging)", a.FromStep)
	case a.Every < 1:
		return fmt.Errorf("averaging.every = %d: want at least 1", a.Every)
	case a.Every%c.Checkpoint.Every != 0:
		return fmt.Errorf("averaging.every = %d: want a multiple of checkpoint.every (%d)", a.Every, c.Checkpoint.Every)
	}
	g := c.Agent
	if g.GameTime < 0 {
		return fmt.Errorf("agent.game_time = %v: want a value >= 0", g.GameTime)
	}
	if err := g.NeuralSettings().Validate(); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	return nil
}

// StageAt returns the configuration in force at training step step: c with
// the settings of every stage that has started by then applied in order,
// and the name of the newest of those stages ("" when none has started).
// Each stage's settings are checked by Validate, so the result is valid.
func (c Config) StageAt(step int64) (Config, string) {
	out := c
	out.Eval.Opponents = append([]string(nil), c.Eval.Opponents...)
	name := ""
	for _, s := range c.Stages {
		if s.FromStep > step {
			break
		}
		name = s.Name
		if s.SparringAgent != nil {
			out.SelfPlay.SparringAgent = *s.SparringAgent
		}
		if s.SparringFraction != nil {
			out.SelfPlay.SparringFraction = *s.SparringFraction
		}
		if s.RootValueWeight != nil {
			out.Buffer.RootValueWeight = *s.RootValueWeight
		}
		if s.EvalOpponents != nil {
			out.Eval.Opponents = append([]string(nil), s.EvalOpponents...)
		}
	}
	return out, name
}
