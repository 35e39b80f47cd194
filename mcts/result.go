package mcts

// The result of a search: the chosen move, policy target and statistics.

import (
	"fmt"
	"math"

	"github.com/zerokit/zerokit/env"
)

// Result is the outcome of one search. Slices are freshly allocated and
// indexed like Actions.
type Result struct {
	// Action is the move to play.
	Action int
	// Player is the player to move at the root.
	Player int
	// Actions are the legal actions at the root, in increasing order.
	Actions []int
	// Visits are the root children's visit counts, including visits kept
	// from earlier searches by tree reuse.
	Visits []int
	// Policy is the policy training target: the visit distribution in
	// ModePUCT, softmax(logits + sigma(completed Q)) in ModeGumbel.
	Policy []float32
	// Priors are the evaluator's root priors (at Config.PolicyTemperature),
	// without noise.
	Priors []float32
	// Q are the children's mean values from the root player's point of
	// view (0 for unvisited children).
	Q []float32
	// Value is the root's mean value for the player to move.
	Value float32
	// NetworkValue is the evaluator's value of the root.
	NetworkValue float32
	// Full reports a full search. Only full searches should be used as
	// policy targets (playout cap randomization).
	Full bool
	// Simulations is the number of simulations this search ran.
	Simulations int
	// Truncated reports a search stopped by its context's deadline, or by
	// Config.MaxNodes or Config.TreeMB (TreeFull), before its simulation
	// budget was spent: the result
	// is the best found so far (Simulations is below the budget). Its Policy is a poorer training
	// target than a complete search's.
	Truncated bool
	// Fallback reports a truncated search whose deadline passed before a
	// single simulation completed: Action is then a root move that ends
	// the game with a win or that the tablebase proves best, else the
	// move of highest prior (see Search.Run), and Policy the priors.
	Fallback bool
	// TreeFull reports a search stopped because its tree reached
	// Config.MaxNodes or its memory budget, Config.TreeMB.
	TreeFull bool
	// ReusedVisits is the root's visit count inherited from earlier
	// searches by tree reuse.
	ReusedVisits int
	// TreeSize is the number of nodes in the tree after the search, and
	// TreeBytes its memory (Search.TreeBytes).
	TreeSize  int
	TreeBytes int64
	// Proven reports that Config.Solver settled the root's game-theoretic
	// value: ProvenValue for the player to move (1 a win, -1 a loss, 0 a
	// draw), reached in ProvenMoves moves along the proof (the fastest win
	// among the proven ones, the longest resistance). A search whose root
	// is proven stops early.
	Proven      bool
	ProvenValue float32
	ProvenMoves int
}

// DensePolicy spreads Policy over the full action space of size numActions.
func (r Result) DensePolicy(numActions int) ([]float32, error) {
	out := make([]float32, numActions)
	for i, a := range r.Actions {
		if a < 0 || a >= numActions {
			return nil, fmt.Errorf("mcts: dense policy: action %d outside [0, %d)", a, numActions)
		}
		out[a] = r.Policy[i]
	}
	return out, nil
}

// result builds the Result of a finished search.
func (s *Search) result(state env.State, full bool, sims, reused int) Result {
	root := &s.t.nodes[0]
	n := int(root.nchild)
	children := s.t.nodes[root.first : root.first+root.nchild]
	sg := sign(root.player)
	res := Result{
		Player:       int(root.player),
		Actions:      make([]int, n),
		Visits:       make([]int, n),
		Policy:       make([]float32, n),
		Priors:       make([]float32, n),
		Q:            make([]float32, n),
		Value:        float32(sg * root.w0 / float64(root.visits)),
		NetworkValue: root.value,
		Full:         full,
		Simulations:  sims,
		ReusedVisits: reused,
		TreeSize:     len(s.t.nodes),
		TreeBytes:    s.t.bytes(),
	}
	if root.proven {
		res.Proven, res.ProvenValue, res.ProvenMoves = true, float32(sg*float64(root.proof)), int(root.depth)
	}
	total := 0
	for i := range children {
		ch := &children[i]
		res.Actions[i] = int(ch.action)
		res.Visits[i] = int(ch.visits)
		res.Priors[i] = ch.prior
		if ch.visits > 0 {
			res.Q[i] = float32(sg * ch.w0 / float64(ch.visits))
		}
		total += int(ch.visits)
	}
	var chosen int
	switch s.cfg.Mode {
	case ModeGumbel:
		chosen = s.gumbelResult(res.Policy)
	default:
		for i := range res.Policy {
			res.Policy[i] = float32(res.Visits[i]) / float32(max(total, 1))
		}
		tau := s.cfg.TemperatureAt(state.MoveNumber())
		chosen = s.pickByVisits(res, tau)
		if s.cfg.LCB > 0 && tau < 1e-6 {
			chosen = pickByLCB(children, sg, s.cfg.LCB, chosen)
		}
	}
	if s.cfg.Solver {
		chosen = s.solvedChoice(chosen)
		if s.cfg.Mode == ModePUCT && (root.proven || total == 0) {
			// The proven move is the target (a root proven at expansion
			// has no visits to count).
			clear(res.Policy)
			res.Policy[chosen] = 1
		}
	}
	res.Action = res.Actions[chosen]
	return res
}

// MaxLCB bounds Config.LCB and Settings.LCB (standard errors).
const MaxLCB = 10

// LCBMinVisitShare is the share of the most visited root child's visits
// that a child needs to be played by its lower confidence bound
// (Config.LCB): fewer, and its value is too uncertain to trust (KataGo's
// minVisitPropForLCB is 0.15).
const LCBMinVisitShare = 0.15

// The prior of a child's value spread in pickByLCB: a standard deviation
// of lcbPriorStdev counted as lcbPriorWeight visits, so that a child whose
// few values happen to agree is not taken as certain (KataGo's
// utilityStdevPrior and its weight).
const (
	lcbPriorStdev  = 0.4
	lcbPriorWeight = 2
)

// pickByLCB returns the index of the root child of highest lower
// confidence bound, Q - z x stderr(Q), among the children with at least
// LCBMinVisitShare of mostVisited's visits; mostVisited (the index of the
// most visited child) wins ties. sg is sign(root.player): Q and the bound
// are the root player's. The standard error is sqrt(var/N), var being the
// sample variance of the child's N backed-up values shrunk towards
// lcbPriorStdev^2 with weight lcbPriorWeight.
func pickByLCB(children []node, sg, z float64, mostVisited int) int {
	need := max(1, int32(math.Ceil(LCBMinVisitShare*float64(children[mostVisited].visits))))
	best, bestLCB := mostVisited, math.Inf(-1)
	for i := range children {
		ch := &children[i]
		if ch.visits < need {
			continue
		}
		n := float64(ch.visits)
		q := sg * ch.w0 / n
		v := max(0, float64(ch.w2)/n-q*q)
		v = (v*n + lcbPriorStdev*lcbPriorStdev*lcbPriorWeight) / (n + lcbPriorWeight)
		lcb := q - z*math.Sqrt(v/n)
		if lcb > bestLCB || (lcb == bestLCB && i == mostVisited) {
			best, bestLCB = i, lcb
		}
	}
	return best
}

// pickByVisits samples a child with probability proportional to
// N^(1/tau), or takes the most visited (ties to the higher prior, then the
// lower action) when tau is 0.
func (s *Search) pickByVisits(res Result, tau float64) int {
	best := 0
	for i := range res.Visits {
		if res.Visits[i] > res.Visits[best] ||
			(res.Visits[i] == res.Visits[best] && res.Priors[i] > res.Priors[best]) {
			best = i
		}
	}
	if tau < 1e-6 || res.Visits[best] == 0 {
		return best
	}
	logMax := math.Log(float64(res.Visits[best]))
	weights := make([]float64, len(res.Visits))
	sum := 0.0
	for i, v := range res.Visits {
		if v > 0 {
			weights[i] = math.Exp((math.Log(float64(v)) - logMax) / tau)
			sum += weights[i]
		}
	}
	u := s.rng.Float64() * sum
	for i, w := range weights {
		if u < w {
			return i
		}
		u -= w
	}
	return best
}
