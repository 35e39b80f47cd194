package neural

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/mcts"
)

// DefaultSimulations is the simulation budget per move of an agent whose
// source (a checkpoint, or a spec) does not set one.
const DefaultSimulations = 128

// MaxSimulations bounds Settings.Simulations; a time-only budget
// (Simulations 0) searches at most this many simulations per move.
const MaxSimulations = 1 << 20

// MaxLeavesInFlight bounds Settings.LeavesInFlight.
const MaxLeavesInFlight = 256

// Settings are a network agent's search settings. The move is the most
// visited root child (ModePUCT) or the sequential-halving winner without
// Gumbel noise (ModeGumbel): the agent plays deterministically.
type Settings struct {
	// Simulations is the budget per move; with ReuseTree the visits kept
	// from the previous move come on top. 0 means no simulation limit, in
	// which case MoveTime must be set.
	Simulations int `json:"simulations"`
	// MoveTime caps each move's thinking time (0: none). A deadline on
	// the context passed to Act also ends the search; either way the agent
	// plays the best move found so far.
	MoveTime Duration `json:"move_time"`
	// Mode is mcts.ModePUCT or mcts.ModeGumbel.
	Mode mcts.Mode `json:"mode"`
	// LeavesInFlight is the number of leaves one search evaluates
	// together in one network batch (virtual loss keeps them apart).
	LeavesInFlight int `json:"leaves_in_flight"`
	// CPUCT is the PUCT exploration constant.
	CPUCT float64 `json:"c_puct"`
	// ReuseTree keeps the subtree of the position reached between moves.
	ReuseTree bool `json:"reuse_tree"`
	// MaxNodes, when positive, ends a search once its tree holds this
	// many nodes (mcts.Config.MaxNodes): it bounds the agent's memory,
	// about 100 bytes per node in all. 0 means no limit.
	MaxNodes int `json:"max_nodes,omitempty"`
	// Solver runs MCTS-Solver (mcts.Config.Solver): game-ending moves are
	// found one move ahead of every expanded position, proven results
	// propagate, and the agent plays a proven win when it has one and
	// never a proven loss while another move remains.
	Solver bool `json:"solver,omitempty"`
	// NoTablebase keeps the search from looking positions up in the
	// game's tablebase (env.TablebaseGame; for Watch Your Back! the solved
	// endgame after the second shrink without a turn limit, wyb.Endgame),
	// which it does by default: a position in the table is a leaf with its
	// exact value, and with Solver a proof.
	NoTablebase bool `json:"no_tablebase,omitempty"`
	// MaterialWeight, when positive, blends the game's material balance
	// into the search's leaf values (agent.MaterialUtility): 0 is the
	// network's value alone.
	MaterialWeight float64 `json:"material_weight,omitempty"`
	// MaterialScale is agent.MaterialUtility.Scale (0:
	// agent.DefaultMaterialScale).
	MaterialScale float64 `json:"material_scale,omitempty"`
	// MaterialTerm is agent.MaterialUtility.Term: the heuristic blended
	// in ("" or agent.TermMaterial: the material balance;
	// agent.TermShrink: the balance with pieces the next shrink eliminates
	// discounted; agent.TermEvaluation: the alpha-beta player's
	// evaluation).
	MaterialTerm string `json:"material_term,omitempty"`
	// AverageSymmetries evaluates every position under each of the
	// game's symmetries (SearchSymmetries: the exact ones and, for Watch
	// Your Back!, the approximate left-right mirror) and averages the
	// network's outputs (mcts.SymmetryAverage). It costs one network
	// evaluation per symmetry.
	AverageSymmetries bool `json:"average_symmetries,omitempty"`
	// PolicyTemperature flattens (above 1) the network's priors in the
	// search (mcts.Config.PolicyTemperature); 0 and 1 leave them as they
	// are.
	PolicyTemperature float64 `json:"policy_temperature,omitempty"`
}

// DefaultLeavesInFlight is the default Settings.LeavesInFlight. On a CPU a
// network call on 4 positions takes about as long as on 1, so 4 leaves per
// round make a search about twice as fast for a small loss of search
// efficiency per simulation (BenchmarkAct).
const DefaultLeavesInFlight = 4

// DefaultSettings are PUCT search with DefaultSimulations simulations, no
// time limit, DefaultLeavesInFlight leaves in flight and tree reuse.
func DefaultSettings() Settings {
	c := mcts.DefaultConfig()
	return Settings{
		Simulations:    DefaultSimulations,
		Mode:           mcts.ModePUCT,
		LeavesInFlight: DefaultLeavesInFlight,
		CPUCT:          c.CPUCT,
		ReuseTree:      true,
	}
}

// Validate reports the first bad field by its JSON name.
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
	case s.Mode != mcts.ModePUCT && s.Mode != mcts.ModeGumbel:
		return bad("mode", fmt.Sprintf("%q", s.Mode), `want "puct" or "gumbel"`)
	case s.Mode == mcts.ModeGumbel && s.Simulations == 0:
		return bad("simulations", 0, "gumbel search plans its simulations and needs a budget")
	case s.LeavesInFlight < 1 || s.LeavesInFlight > MaxLeavesInFlight:
		return bad("leaves_in_flight", s.LeavesInFlight, fmt.Sprintf("want 1 to %d", MaxLeavesInFlight))
	case math.IsNaN(s.CPUCT) || math.IsInf(s.CPUCT, 0) || s.CPUCT <= 0:
		return bad("c_puct", s.CPUCT, "want a finite value > 0")
	case !mcts.ValidPolicyTemperature(s.PolicyTemperature):
		return bad("policy_temperature", s.PolicyTemperature, mcts.PolicyTemperatureRange)
	case s.MaxNodes < 0:
		return bad("max_nodes", s.MaxNodes, "want 0 (no limit) or more")
	case math.IsNaN(s.MaterialWeight) || s.MaterialWeight < 0 || s.MaterialWeight >= 1:
		return bad("material_weight", s.MaterialWeight, "want 0 (off) <= weight < 1")
	case math.IsNaN(s.MaterialScale) || math.IsInf(s.MaterialScale, 0) || s.MaterialScale < 0:
		return bad("material_scale", s.MaterialScale, "want a finite value > 0, or 0 for the default")
	case !agent.ValidTerm(s.MaterialTerm):
		return bad("material_term", fmt.Sprintf("%q", s.MaterialTerm), fmt.Sprintf("want %q, %q or %q", agent.TermMaterial, agent.TermShrink, agent.TermEvaluation))
	case s.MaterialTerm != "" && s.MaterialWeight == 0:
		return bad("material_term", fmt.Sprintf("%q", s.MaterialTerm), "has no effect with material_weight 0: set a weight too")
	}
	return nil
}

// SearchConfig is the mcts configuration of these settings: no root noise,
// temperature 0, deterministic Gumbel.
func (s Settings) SearchConfig() mcts.Config {
	sims := s.Simulations
	if sims == 0 {
		sims = MaxSimulations
	}
	c := agent.EvalSearchConfig(sims)
	c.Mode = s.Mode
	c.LeavesInFlight = s.LeavesInFlight
	c.CPUCT = s.CPUCT
	c.ReuseTree = s.ReuseTree
	c.MaxNodes = s.MaxNodes
	c.Solver = s.Solver
	c.PolicyTemperature = s.PolicyTemperature
	return c
}

// Utility is the material utility of these settings.
func (s Settings) Utility() agent.MaterialUtility {
	u := agent.MaterialUtility{Weight: s.MaterialWeight, Scale: s.MaterialScale, Term: s.MaterialTerm}
	if u.Scale == 0 {
		u.Scale = agent.DefaultMaterialScale
	}
	return u
}

// Label describes the budget for agent names: "sims64", "1s" or
// "sims64-1s", with "-gumbel" for Gumbel search.
func (s Settings) Label() string {
	var parts []string
	if s.Simulations > 0 {
		parts = append(parts, fmt.Sprintf("sims%d", s.Simulations))
	}
	if s.MoveTime > 0 {
		parts = append(parts, time.Duration(s.MoveTime).String())
	}
	if s.Mode == mcts.ModeGumbel {
		parts = append(parts, "gumbel")
	}
	if s.Solver {
		parts = append(parts, "solver")
	}
	if s.NoTablebase {
		parts = append(parts, "notb")
	}
	if s.AverageSymmetries {
		parts = append(parts, "sym")
	}
	if t := s.PolicyTemperature; t > 0 && t != 1 {
		parts = append(parts, fmt.Sprintf("ptemp%g", t))
	}
	if s.MaterialWeight > 0 {
		parts = append(parts, fmt.Sprintf("mat%g", s.MaterialWeight))
		if s.MaterialTerm != "" && s.MaterialTerm != agent.TermMaterial {
			parts = append(parts, s.MaterialTerm)
		}
	}
	return strings.Join(parts, "-")
}

// Duration is a time.Duration written in JSON as a string such as "1.5s"
// ("0s" for none).
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

// String formats the duration like time.Duration.
func (d Duration) String() string { return time.Duration(d).String() }
