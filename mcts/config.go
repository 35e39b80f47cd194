package mcts

import (
	"errors"
	"fmt"
	"math"
)

// Mode selects the root search algorithm.
type Mode string

const (
	// ModePUCT is AlphaZero search: PUCT selection everywhere, Dirichlet
	// noise on the root priors, the move sampled from the visit counts with
	// the temperature schedule, and the visit distribution as policy target.
	ModePUCT Mode = "puct"
	// ModeGumbel is Gumbel root search (Danihelka et al. 2022, as mctx's
	// gumbel_muzero_policy): Gumbel-top-k sampling of root actions,
	// sequential halving over the simulation budget, the halving winner as
	// move and the completed-Q improved policy as policy target.
	ModeGumbel Mode = "gumbel"
)

// FPUMode is how unvisited children are valued during selection (first-play
// urgency).
type FPUMode string

const (
	// FPUReduction values an unvisited child at the parent's mean value
	// minus a reduction that grows with the prior mass already explored:
	// Q_parent - r * sqrt(sum of priors of visited children), as in Leela
	// Chess Zero and KataGo. The parent's mean includes its own network
	// evaluation, so the first child of a fresh node is valued at the
	// network's value. This is the default: it makes search prefer
	// refining good moves over trying low-prior ones, and it does not
	// assume an optimistic or pessimistic value scale.
	FPUReduction FPUMode = "reduction"
	// FPUAbsolute values every unvisited child at the fixed FPUValue (from
	// the selecting player's point of view): 0 is OpenSpiel's AlphaZero,
	// -1 ("assume a loss") the AlphaZero pseudocode, +1 forces every root
	// move to be tried once.
	FPUAbsolute FPUMode = "absolute"
)

// PolicyTemperatureRange describes the values ValidPolicyTemperature
// accepts, for error messages.
const PolicyTemperatureRange = "want 0 (none), or 0.05 to 20"

// ValidPolicyTemperature reports whether t is a usable
// Config.PolicyTemperature: 0 (none), or from 0.05 to 20.
func ValidPolicyTemperature(t float64) bool {
	return t == 0 || (t >= 0.05 && t <= 20)
}

// Interior selection rules for ModeGumbel.
const (
	// InteriorImprovedPolicy selects at non-root nodes by mctx's
	// deterministic rule: argmax_a pi'(a) - N(a)/(1+sum N), where pi' =
	// softmax(logits + sigma(completed Q)) is the improved policy.
	InteriorImprovedPolicy = "improved_policy"
	// InteriorPUCT selects at non-root nodes by the same PUCT rule as
	// ModePUCT.
	InteriorPUCT = "puct"
)

// Config holds the search parameters. Start from DefaultConfig and override
// fields (it unmarshals from YAML with the tags shown); Validate reports the
// first bad field by its YAML name.
type Config struct {
	// Mode is "puct" or "gumbel".
	Mode Mode `yaml:"mode"`
	// Simulations is the number of simulations of a full search. With tree
	// reuse, visits inherited from earlier searches come on top.
	Simulations int `yaml:"simulations"`
	// WeightedBudget multiplies a full search's simulations by its
	// position's time weight (BudgetWeight: Watch Your Back!'s moves
	// before the shrinks weigh up to 3), so that the extra time a clock
	// allots such moves (env.TimeWeighter) is searched, not left unused
	// once the ordinary budget is spent. MaxNodes still bounds the tree.
	// A player's setting (Settings.WeightedBudget); self-play leaves it
	// off.
	WeightedBudget bool `yaml:"-"`
	// LeavesInFlight is how many leaves one search selects (using virtual
	// loss) before waiting for their evaluations, which run concurrently;
	// with a Batcher they join one network batch. 1 is plain sequential
	// search.
	LeavesInFlight int `yaml:"leaves_in_flight"`
	// VirtualLoss is the value, as a loss for the selecting player, that
	// each in-flight visit adds to a node's statistics during selection.
	// 0 keeps only the extra visit count (which still lowers the
	// exploration bonus).
	VirtualLoss float64 `yaml:"virtual_loss"`

	// CPUCT is the exploration constant c_init of PUCT:
	// U = c(N) * P * sqrt(N_parent) / (1 + N_child).
	CPUCT float64 `yaml:"c_puct"`
	// CPUCTBase, when positive, grows the constant with the parent's visits
	// as in AlphaZero: c(N) = CPUCT + log((1 + N + base) / base). 0 keeps
	// it constant.
	CPUCTBase float64 `yaml:"c_puct_base"`
	// PolicyTemperature, when positive and not 1, flattens (above 1) or
	// sharpens (below 1) the network's priors at every expanded node:
	// P'(a) is proportional to P(a)^(1/T), as Leela Chess Zero's policy
	// softmax temperature does. A flatter prior makes the search try the
	// moves the network ranks low sooner. 0 and 1 leave the priors as
	// they are.
	PolicyTemperature float64 `yaml:"policy_temperature"`

	// FPUMode is "reduction" or "absolute"; see FPUReduction and
	// FPUAbsolute.
	FPUMode FPUMode `yaml:"fpu_mode"`
	// FPUReduction is the reduction r of FPUReduction mode at non-root
	// nodes.
	FPUReduction float64 `yaml:"fpu_reduction"`
	// RootFPUReduction is the reduction at the root; smaller than
	// FPUReduction so that noise-boosted moves get tried.
	RootFPUReduction float64 `yaml:"root_fpu_reduction"`
	// FPUValue is the value of unvisited children in FPUAbsolute mode.
	FPUValue float64 `yaml:"fpu_value"`

	// DirichletAlpha is the concentration of the root noise in ModePUCT
	// (AlphaZero: 0.3 chess, 0.15 shogi, 0.03 Go).
	DirichletAlpha float64 `yaml:"dirichlet_alpha"`
	// DirichletTotalAlpha, when positive, replaces DirichletAlpha with
	// DirichletTotalAlpha / (number of legal root actions), as KataGo does,
	// so that the noise has the same shape however many moves are legal.
	DirichletTotalAlpha float64 `yaml:"dirichlet_total_alpha"`
	// DirichletEpsilon is the weight of the noise: P' = (1-e) P + e eta.
	// 0 disables noise (evaluation games).
	DirichletEpsilon float64 `yaml:"dirichlet_epsilon"`

	// Temperature is the move-selection temperature for the first
	// TemperatureMoves moves of a game (by State.MoveNumber) in ModePUCT:
	// the move is sampled with probability proportional to N^(1/tau).
	// ModeGumbel ignores the schedule: its move is the sequential-halving
	// winner, already a sample when Gumbel.Scale > 0.
	Temperature float64 `yaml:"temperature"`
	// TemperatureMoves is the number of moves played at Temperature.
	TemperatureMoves int `yaml:"temperature_moves"`
	// FinalTemperature applies from move TemperatureMoves on; 0 means the
	// most visited move.
	FinalTemperature float64 `yaml:"final_temperature"`

	// LCB, when positive, plays the root child of highest lower confidence
	// bound, Q - LCB x (the standard error of Q), among those with at least
	// LCBMinVisitShare of the most visited child's visits, instead of the
	// most visited child, whenever the move temperature is 0 (ModePUCT
	// only). A move whose value the search found clearly higher, but
	// late, is then played although its visits have not yet caught up
	// (KataGo and Leela Chess Zero select their moves so). 0 plays the
	// most visited child.
	LCB float64 `yaml:"lcb"`

	// ReuseTree keeps the subtree of the played move between searches
	// (Search.Advance).
	ReuseTree bool `yaml:"reuse_tree"`
	// MaxNodes, when positive, ends a search early once its tree holds
	// this many nodes (a node is one legal move of an expanded position,
	// about 64 bytes, plus a position for the visited ones): it bounds
	// the memory of long searches. The result is then Truncated, like a
	// search stopped by its deadline. 0 means no limit.
	MaxNodes int `yaml:"max_nodes"`
	// TreeMB, when positive, is the tree's memory budget in MiB: its
	// arena of nodes (NodeBytes each, the arena's unused capacity
	// included) and the positions its nodes hold. The arena never grows
	// past it, and a search stops, Truncated and TreeFull like one
	// stopped by MaxNodes, before a round could take the tree over it.
	// Tree reuse keeps the memory of the subtree it keeps. 0 means no
	// budget.
	TreeMB int `yaml:"tree_mb"`

	// Solver turns on MCTS-Solver (Winands et al. 2008, OpenSpiel's
	// MCTSBot solve=True): when a node is expanded, every child is played
	// out one move to find the game-ending ones, and proven results
	// propagate up the tree. A node is proven when one of its children is
	// a proven win for its player to move, or when all of its children are
	// proven (its value is then the best of theirs). A proven node is
	// never searched below again (each visit backs up its proven value),
	// selection values a proven child at its proven value, and the move
	// played is a proven win if there is one and never a proven loss
	// while an unproven move remains. It finds game-ending replies that
	// the network's prior gives almost no weight to, at the cost of one
	// Clone and ApplyAction per legal move of each expanded node.
	Solver bool `yaml:"solver"`

	// Gumbel configures ModeGumbel.
	Gumbel GumbelConfig `yaml:"gumbel"`
	// PlayoutCap configures KataGo's playout cap randomization.
	PlayoutCap PlayoutCapConfig `yaml:"playout_cap"`
}

// GumbelConfig holds the parameters of Gumbel root search. The names follow
// the paper: sigma(q) = (CVisit + max_b N(b)) * CScale * q, with q the
// completed Q-values rescaled to [0, 1] by their min and max over the node's
// children.
type GumbelConfig struct {
	// MaxConsideredActions is m, the number of root actions sampled without
	// replacement by Gumbel-top-k (mctx default 16).
	MaxConsideredActions int `yaml:"max_considered_actions"`
	// Scale multiplies the Gumbel noise; 1 samples the policy, 0 makes the
	// search deterministic (evaluation games).
	Scale float64 `yaml:"scale"`
	// CVisit is c_visit (50 in the paper and mctx).
	CVisit float64 `yaml:"c_visit"`
	// CScale is c_scale (1.0 in the paper for Go and chess; mctx's
	// value_scale defaults to 0.1).
	CScale float64 `yaml:"c_scale"`
	// Interior is the selection rule below the root: "improved_policy"
	// (mctx, the default) or "puct".
	Interior string `yaml:"interior"`
}

// PlayoutCapConfig holds the parameters of playout cap randomization
// (Wu 2019, KataGo): each search is full with probability FullProbability
// and cheap otherwise. Cheap searches use CheapSimulations simulations and
// no exploration noise, and their results are flagged so that they are not
// used as policy targets.
type PlayoutCapConfig struct {
	// Enabled turns randomization on; when off every search is full.
	Enabled bool `yaml:"enabled"`
	// FullProbability is the probability of a full search (KataGo: 0.25).
	FullProbability float64 `yaml:"full_probability"`
	// CheapSimulations is the budget of a cheap search (must be below
	// Simulations).
	CheapSimulations int `yaml:"cheap_simulations"`
}

// Validate checks every field and returns an error naming the first bad one.
func (c Config) Validate() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("mcts config: %s = %v: %s", field, v, want)
	}
	switch c.Mode {
	case ModePUCT, ModeGumbel:
	default:
		return bad("mode", fmt.Sprintf("%q", c.Mode), `want "puct" or "gumbel"`)
	}
	if c.Simulations < 1 {
		return bad("simulations", c.Simulations, "want at least 1")
	}
	if c.MaxNodes < 0 {
		return bad("max_nodes", c.MaxNodes, "want 0 (no limit) or more")
	}
	if c.TreeMB < 0 || c.TreeMB > MaxTreeMB {
		return bad("tree_mb", c.TreeMB, fmt.Sprintf("want 0 (no budget) to %d", MaxTreeMB))
	}
	if c.LeavesInFlight < 1 {
		return bad("leaves_in_flight", c.LeavesInFlight, "want at least 1")
	}
	if !finite(c.VirtualLoss) || c.VirtualLoss < 0 {
		return bad("virtual_loss", c.VirtualLoss, "want a finite value >= 0")
	}
	if !finite(c.CPUCT) || c.CPUCT <= 0 {
		return bad("c_puct", c.CPUCT, "want a finite value > 0")
	}
	if !finite(c.CPUCTBase) || c.CPUCTBase < 0 {
		return bad("c_puct_base", c.CPUCTBase, "want a finite value >= 0 (0 disables)")
	}
	if !ValidPolicyTemperature(c.PolicyTemperature) {
		return bad("policy_temperature", c.PolicyTemperature, PolicyTemperatureRange)
	}
	switch c.FPUMode {
	case FPUReduction, FPUAbsolute:
	default:
		return bad("fpu_mode", fmt.Sprintf("%q", c.FPUMode), `want "reduction" or "absolute"`)
	}
	if !finite(c.FPUReduction) || c.FPUReduction < 0 {
		return bad("fpu_reduction", c.FPUReduction, "want a finite value >= 0")
	}
	if !finite(c.RootFPUReduction) || c.RootFPUReduction < 0 {
		return bad("root_fpu_reduction", c.RootFPUReduction, "want a finite value >= 0")
	}
	if !finite(c.FPUValue) || c.FPUValue < -1 || c.FPUValue > 1 {
		return bad("fpu_value", c.FPUValue, "want a value in [-1, 1]")
	}
	if !finite(c.DirichletEpsilon) || c.DirichletEpsilon < 0 || c.DirichletEpsilon > 1 {
		return bad("dirichlet_epsilon", c.DirichletEpsilon, "want a value in [0, 1]")
	}
	if !finite(c.DirichletTotalAlpha) || c.DirichletTotalAlpha < 0 {
		return bad("dirichlet_total_alpha", c.DirichletTotalAlpha, "want a finite value >= 0 (0 disables)")
	}
	if c.DirichletEpsilon > 0 && c.DirichletTotalAlpha == 0 && (!finite(c.DirichletAlpha) || c.DirichletAlpha <= 0) {
		return bad("dirichlet_alpha", c.DirichletAlpha, "want a finite value > 0 when dirichlet_epsilon > 0")
	}
	if !finite(c.Temperature) || c.Temperature < 0 {
		return bad("temperature", c.Temperature, "want a finite value >= 0")
	}
	if c.TemperatureMoves < 0 {
		return bad("temperature_moves", c.TemperatureMoves, "want a value >= 0")
	}
	if !finite(c.FinalTemperature) || c.FinalTemperature < 0 {
		return bad("final_temperature", c.FinalTemperature, "want a finite value >= 0")
	}
	if !finite(c.LCB) || c.LCB < 0 || c.LCB > MaxLCB {
		return bad("lcb", c.LCB, fmt.Sprintf("want 0 (the most visited move) to %d standard errors", MaxLCB))
	}
	g := c.Gumbel
	if g.MaxConsideredActions < 1 {
		return bad("gumbel.max_considered_actions", g.MaxConsideredActions, "want at least 1")
	}
	if !finite(g.Scale) || g.Scale < 0 {
		return bad("gumbel.scale", g.Scale, "want a finite value >= 0")
	}
	if !finite(g.CVisit) || g.CVisit < 0 {
		return bad("gumbel.c_visit", g.CVisit, "want a finite value >= 0")
	}
	if !finite(g.CScale) || g.CScale <= 0 {
		return bad("gumbel.c_scale", g.CScale, "want a finite value > 0")
	}
	switch g.Interior {
	case InteriorImprovedPolicy, InteriorPUCT:
	default:
		return bad("gumbel.interior", fmt.Sprintf("%q", g.Interior), `want "improved_policy" or "puct"`)
	}
	p := c.PlayoutCap
	if p.Enabled {
		if !finite(p.FullProbability) || p.FullProbability <= 0 || p.FullProbability > 1 {
			return bad("playout_cap.full_probability", p.FullProbability, "want a value in (0, 1]")
		}
		if p.CheapSimulations < 1 || p.CheapSimulations >= c.Simulations {
			return bad("playout_cap.cheap_simulations", p.CheapSimulations,
				fmt.Sprintf("want a value in [1, simulations=%d)", c.Simulations))
		}
	}
	return nil
}

// TemperatureAt returns the move-selection temperature for a position with
// the given move number.
func (c Config) TemperatureAt(moveNumber int) float64 {
	if moveNumber < c.TemperatureMoves {
		return c.Temperature
	}
	return c.FinalTemperature
}

// MaxTreeMB bounds Config.TreeMB and Settings.TreeMB: a tebibyte.
const MaxTreeMB = 1 << 20

// ErrTerminal is returned when a search is asked to run on a finished game.
var ErrTerminal = errors.New("mcts: cannot search a terminal state")
