package mcts

import (
	"errors"
	"fmt"
	"math"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/zerokit/zerokit/env"
)

// MaxSimulations bounds Settings.Simulations; a time-only budget
// (Simulations 0) searches at most this many simulations per move.
const MaxSimulations = 1 << 20

// MaxLeavesInFlight bounds Settings.LeavesInFlight.
const MaxLeavesInFlight = 256

// Settings are a player's search settings: its budget and the Config
// fields that players tune, written with the same keys in YAML
// configurations and in the JSON of exported agents' manifests. Config
// turns them into the full search configuration, the rest of which is
// PlayConfig's. A player plays deterministically: the most visited root
// child (ModePUCT) or the sequential-halving winner without Gumbel noise
// (ModeGumbel). The presets (AgentSettings, ShippedAgentSettings,
// EvalSettings) are in presets.go.
type Settings struct {
	// Simulations is the budget per move; with ReuseTree the visits kept
	// from the previous move come on top. 0 means no simulation limit, in
	// which case MoveTime must be set.
	Simulations int `json:"simulations" yaml:"simulations"`
	// MoveTime caps each move's thinking time (0: none). A deadline on
	// the context of the move also ends the search; either way the player
	// plays the best move found so far.
	MoveTime Duration `json:"move_time" yaml:"move_time"`
	// Mode is ModePUCT or ModeGumbel.
	Mode Mode `json:"mode" yaml:"mode"`
	// LeavesInFlight is the number of leaves one search evaluates
	// together in one network batch (Config.LeavesInFlight).
	LeavesInFlight int `json:"leaves_in_flight" yaml:"leaves_in_flight"`
	// CPUCT is the PUCT exploration constant (Config.CPUCT).
	CPUCT float64 `json:"c_puct" yaml:"c_puct"`
	// ReuseTree keeps the subtree of the position reached between moves.
	ReuseTree bool `json:"reuse_tree" yaml:"reuse_tree"`
	// MaxNodes, when positive, ends a search once its tree holds this
	// many nodes (Config.MaxNodes). 0 means no limit; TreeMB bounds the
	// tree's memory either way.
	MaxNodes int `json:"max_nodes,omitempty" yaml:"max_nodes"`
	// TreeMB is the tree's memory budget in MiB (Config.TreeMB): the
	// search stops growing its tree there, whatever the position and the
	// time. 0 means the default, DefaultTreeMB: every player's tree is
	// bounded.
	TreeMB int `json:"tree_mb,omitempty" yaml:"tree_mb"`
	// Solver runs MCTS-Solver (Config.Solver): game-ending moves are
	// found one move ahead of every expanded position, proven results
	// propagate, and the player plays a proven win when it has one and
	// never a proven loss while another move remains.
	Solver bool `json:"solver,omitempty" yaml:"solver"`
	// PolicyTemperature flattens (above 1) the network's priors in the
	// search (Config.PolicyTemperature); 0 and 1 leave them as they are.
	PolicyTemperature float64 `json:"policy_temperature,omitempty" yaml:"policy_temperature"`
	// WeightedBudget multiplies each move's simulations and move time by
	// its position's time weight (Config.WeightedBudget, BudgetWeight).
	WeightedBudget bool `json:"weighted_budget,omitempty" yaml:"weighted_budget"`
	// Temperature, with TemperatureMoves > 0, samples the move of the first
	// TemperatureMoves moves of a game (by State.MoveNumber, both sides'
	// moves) with probability proportional to N^(1/Temperature) of the
	// root's visits (Config.Temperature), seeded by the player's seed; PUCT
	// only. 0 plays the most visited move. A player that varies its opening
	// among the moves its search rates nearly alike: noise that makes
	// matches between deterministic players more than one game without
	// the random moves of opening=N.
	Temperature float64 `json:"temperature,omitempty" yaml:"temperature"`
	// TemperatureMoves is the number of moves played at Temperature.
	TemperatureMoves int `json:"temperature_moves,omitempty" yaml:"temperature_moves"`
	// LCB, when positive, plays the root move of highest lower confidence
	// bound, Q minus LCB standard errors, among the moves with at least
	// LCBMinVisitShare of the most visited one's visits (Config.LCB); PUCT
	// only. 0 plays the most visited move.
	LCB float64 `json:"lcb,omitempty" yaml:"lcb"`
}

// MaxTemperature bounds Settings.Temperature.
const MaxTemperature = 10

// Validate reports the first bad field by its key.
func (s Settings) Validate() error {
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("search settings: %s = %v: %s", field, v, want)
	}
	switch {
	case s.Simulations < 0 || s.Simulations > MaxSimulations:
		return bad("simulations", s.Simulations, fmt.Sprintf("want 0 (no limit) to %d", MaxSimulations))
	case s.MoveTime < 0:
		return bad("move_time", s.MoveTime, "want a duration >= 0 (0: none)")
	case s.Simulations == 0 && s.MoveTime == 0:
		return errors.New("search settings: no budget: set simulations, move_time or both")
	case s.Mode != ModePUCT && s.Mode != ModeGumbel:
		return bad("mode", fmt.Sprintf("%q", s.Mode), `want "puct" or "gumbel"`)
	case s.Mode == ModeGumbel && s.Simulations == 0:
		return bad("simulations", 0, "gumbel search plans its simulations and needs a budget")
	case s.LeavesInFlight < 1 || s.LeavesInFlight > MaxLeavesInFlight:
		return bad("leaves_in_flight", s.LeavesInFlight, fmt.Sprintf("want 1 to %d", MaxLeavesInFlight))
	case math.IsNaN(s.CPUCT) || math.IsInf(s.CPUCT, 0) || s.CPUCT <= 0:
		return bad("c_puct", s.CPUCT, "want a finite value > 0")
	case !ValidPolicyTemperature(s.PolicyTemperature):
		return bad("policy_temperature", s.PolicyTemperature, PolicyTemperatureRange)
	case s.MaxNodes < 0:
		return bad("max_nodes", s.MaxNodes, "want 0 (no limit) or more")
	case s.TreeMB < 0 || s.TreeMB > MaxTreeMB:
		return bad("tree_mb", s.TreeMB, fmt.Sprintf("want 0 (the default, %d) to %d", DefaultTreeMB, MaxTreeMB))
	case math.IsNaN(s.Temperature) || s.Temperature < 0 || s.Temperature > MaxTemperature:
		return bad("temperature", s.Temperature, fmt.Sprintf("want 0 (the most visited move) to %d", MaxTemperature))
	case s.TemperatureMoves < 0:
		return bad("temperature_moves", s.TemperatureMoves, "want 0 or more")
	case (s.Temperature > 0) != (s.TemperatureMoves > 0):
		return bad("temperature", s.Temperature, fmt.Sprintf("with temperature_moves = %d: set both, or neither", s.TemperatureMoves))
	case math.IsNaN(s.LCB) || s.LCB < 0 || s.LCB > MaxLCB:
		return bad("lcb", s.LCB, fmt.Sprintf("want 0 (the most visited move) to %d standard errors", MaxLCB))
	case s.LCB > 0 && s.Mode == ModeGumbel:
		return bad("lcb", s.LCB, "gumbel search plays its sequential-halving winner: a lower confidence bound needs puct")
	case s.Temperature > 0 && s.Mode == ModeGumbel:
		return bad("temperature", s.Temperature, "gumbel search plays its sequential-halving winner: a temperature needs puct")
	}
	return nil
}

// Config is the search configuration of these settings: PlayConfig (no
// root noise, temperature 0, deterministic Gumbel) with the settings'
// fields, MaxSimulations simulations when Simulations is 0 (a
// time-only budget) and a tree of DefaultTreeMB when TreeMB is 0. MoveTime is the caller's to apply, as a deadline on
// the context of each move.
func (s Settings) Config() Config {
	sims := s.Simulations
	if sims == 0 {
		sims = MaxSimulations
	}
	c := PlayConfig(sims)
	c.Mode = s.Mode
	c.LeavesInFlight = s.LeavesInFlight
	c.CPUCT = s.CPUCT
	c.ReuseTree = s.ReuseTree
	c.MaxNodes = s.MaxNodes
	c.TreeMB = s.TreeMB
	if c.TreeMB == 0 {
		c.TreeMB = DefaultTreeMB
	}
	c.Solver = s.Solver
	c.PolicyTemperature = s.PolicyTemperature
	c.WeightedBudget = s.WeightedBudget
	c.Temperature = s.Temperature
	c.TemperatureMoves = s.TemperatureMoves
	c.LCB = s.LCB
	return c
}

// MoveTimeAt is the move time of the move from state: MoveTime, times the
// state's BudgetWeight with WeightedBudget.
func (s Settings) MoveTimeAt(state env.State) time.Duration {
	d := time.Duration(s.MoveTime)
	if s.WeightedBudget {
		d = time.Duration(float64(d) * BudgetWeight(state))
	}
	return d
}

// BudgetWeight is the weight of the move from state in a weighted budget
// (Config.WeightedBudget): its time weight (env.TimeWeighter) when the
// game has them, at least 1; else 1.
func BudgetWeight(state env.State) float64 {
	if w, ok := state.(env.TimeWeighter); ok {
		return max(1, w.TimeWeight())
	}
	return 1
}

// Duration is a time.Duration written in JSON and YAML as a string such as
// "1.5s" ("0s" for none).
type Duration time.Duration

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration %q: want a duration such as 500ms or 2s", b)
	}
	*d = Duration(v)
	return nil
}

// UnmarshalYAML implements yaml.Unmarshaler: UnmarshalText, with the
// line of a bad value in the error.
func (d *Duration) UnmarshalYAML(value *yaml.Node) error {
	if value.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration such as 500ms or 2s", value.Line)
	}
	if err := d.UnmarshalText([]byte(value.Value)); err != nil {
		return fmt.Errorf("line %d: %w", value.Line, err)
	}
	return nil
}

// String formats the duration like time.Duration.
func (d Duration) String() string { return time.Duration(d).String() }
