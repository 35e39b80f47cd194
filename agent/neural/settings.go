package neural

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/mcts"
)

// Settings are a network agent's search settings. The move is the most
// visited root child (ModePUCT) or the sequential-halving winner without
// Gumbel noise (ModeGumbel): the agent plays deterministically.
type Settings struct {
	// Settings are the search's budget and parameters; their JSON keys
	// are the manifest's (simulations, move_time, mode, ...).
	mcts.Settings
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
	// in, one of those agent.TermHelp describes ("": agent.TermMaterial,
	// the material balance).
	MaterialTerm string `json:"material_term,omitempty"`
	// MaterialUntil is agent.MaterialUtility.Until: when positive, the
	// term is blended only into positions before that move number (24:
	// Watch Your Back!'s placing phase).
	MaterialUntil int `json:"material_until,omitempty"`
	// AverageSymmetries evaluates every position under each of the
	// game's symmetries (SearchSymmetries: the exact ones and, for Watch
	// Your Back!, the approximate left-right mirror) and averages the
	// network's outputs (mcts.SymmetryAverage). It costs one network
	// evaluation per symmetry.
	AverageSymmetries bool `json:"average_symmetries,omitempty"`
}

// DefaultSettings are the search settings of an agent whose source (a
// checkpoint, or a spec) sets none: mcts.AgentSettings, with the game's
// tablebase and without material or symmetries.
func DefaultSettings() Settings {
	return Settings{Settings: mcts.AgentSettings()}
}

// ShippedSettings are the search of the shipped Watch Your Back! agent
// (agents/wyb) and the default of a training run's agent:
// mcts.ShippedAgentSettings with the table term (agent.TermTable) blended
// in at ShippedMaterialWeight, which won as Black through the second shrink
// in the course referee (docs/results.md, sessions 26 and 27).
func ShippedSettings() Settings {
	return Settings{Settings: mcts.ShippedAgentSettings(), MaterialWeight: ShippedMaterialWeight, MaterialTerm: agent.TermTable}
}

// ShippedMaterialWeight is ShippedSettings' material weight.
const ShippedMaterialWeight = 0.3

// Validate reports the first bad field by its JSON name.
func (s Settings) Validate() error {
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("search settings: %s = %v: %s", field, v, want)
	}
	if err := s.Settings.Validate(); err != nil {
		return err
	}
	switch {
	case math.IsNaN(s.MaterialWeight) || s.MaterialWeight < 0 || s.MaterialWeight >= 1:
		return bad("material_weight", s.MaterialWeight, "want 0 (off) <= weight < 1")
	case math.IsNaN(s.MaterialScale) || math.IsInf(s.MaterialScale, 0) || s.MaterialScale < 0:
		return bad("material_scale", s.MaterialScale, "want a finite value > 0, or 0 for the default")
	case !agent.ValidTerm(s.MaterialTerm):
		return bad("material_term", fmt.Sprintf("%q", s.MaterialTerm), "want "+agent.TermNames())
	case s.MaterialTerm != "" && s.MaterialWeight == 0:
		return bad("material_term", fmt.Sprintf("%q", s.MaterialTerm), "has no effect with material_weight 0: set a weight too")
	case s.MaterialUntil < 0:
		return bad("material_until", s.MaterialUntil, "want a move number >= 0 (0: every move)")
	case s.MaterialUntil != 0 && s.MaterialWeight == 0:
		return bad("material_until", s.MaterialUntil, "has no effect with material_weight 0: set a weight too")
	}
	return nil
}

// ClearIdleMaterial clears the material term's name and move limit when
// its weight is 0, except those that termGiven and untilGiven say were set
// by the same override. A weight of 0 then turns off the term that a base
// (a shipped agent's search, say) had, while a term named with no weight
// stays an error for Validate to report.
func (s *Settings) ClearIdleMaterial(termGiven, untilGiven bool) {
	if s.MaterialWeight != 0 {
		return
	}
	if !termGiven {
		s.MaterialTerm = ""
	}
	if !untilGiven {
		s.MaterialUntil = 0
	}
}

// Utility is the material utility of these settings.
func (s Settings) Utility() agent.MaterialUtility {
	u := agent.MaterialUtility{Weight: s.MaterialWeight, Scale: s.MaterialScale, Term: s.MaterialTerm, Until: s.MaterialUntil}
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
	if s.WeightedBudget {
		parts = append(parts, "weighted")
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
	if s.Temperature > 0 {
		parts = append(parts, fmt.Sprintf("temp%g-%d", s.Temperature, s.TemperatureMoves))
	}
	if s.LCB > 0 {
		parts = append(parts, fmt.Sprintf("lcb%g", s.LCB))
	}
	if s.MaterialWeight > 0 {
		parts = append(parts, fmt.Sprintf("mat%g", s.MaterialWeight))
		if s.MaterialTerm != "" && s.MaterialTerm != agent.TermMaterial {
			parts = append(parts, s.MaterialTerm)
		}
		if s.MaterialUntil > 0 {
			parts = append(parts, fmt.Sprintf("until%d", s.MaterialUntil))
		}
	}
	return strings.Join(parts, "-")
}
