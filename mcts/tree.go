package mcts

import (
	"math"

	"github.com/zerokit/zerokit/env"
)

// Node states.
const (
	// stUnvisited: an edge whose position has not been created yet.
	stUnvisited uint8 = iota
	// stPending: the position exists and its evaluation is in flight.
	stPending
	// stExpanded: evaluated, with one child per legal action.
	stExpanded
	// stTerminal: the game is over at this position.
	stTerminal
	// stRepeated: the position repeats one on its path from the root (see
	// env.RepetitionKeyer); the search scores it as a draw and goes no
	// deeper.
	stRepeated
	// stSolved: the position is in the search's tablebase
	// (Search.SetTablebase): its exact value is known and the search goes
	// no deeper.
	stSolved
)

// node is one position of the tree and the edge leading to it. Nodes live
// in one arena slice and refer to each other by index; the children of a
// node are contiguous, so expansion is one append and there are no maps or
// per-node allocations besides the position itself.
type node struct {
	// state is the position, created when the edge is first traversed.
	state env.State
	// w0 is the sum of backed-up values from player 0's point of view.
	// Keeping one fixed point of view makes backup correct whatever the
	// order of turns (passes, extra moves): the value for player p is w0
	// for p = 0 and -w0 for p = 1 (the games are two-player zero-sum).
	w0 float64
	// prior is the evaluator's probability of the move into this node.
	prior float32
	// value is the evaluator's value for the player to move (expanded
	// nodes) or player 0's return (terminal nodes).
	value  float32
	parent int32
	first  int32 // index of the first child
	nchild int32
	action int32
	visits int32 // completed simulations through this node
	vl     int32 // simulations in flight through this node (virtual loss)
	player int8  // player to move once expanded
	status uint8
	// proven marks a node whose game-theoretic value is known (Config.Solver):
	// every terminal node, and an expanded node proven by its children.
	proven bool
	// proof is the proven value from player 0's point of view.
	proof float32
	// depth is the number of moves to the game's end under the proof:
	// the fastest proven win for the winner, the longest resistance for
	// the loser.
	depth uint16
}

// setTerminal marks n, whose position st is over, terminal with player
// 0's return as its value; with solver (Config.Solver) it is also proven.
func (n *node) setTerminal(st env.State, solver bool) {
	n.status = stTerminal
	n.value = st.Returns()[0]
	if solver {
		n.proven, n.proof = true, n.value
	}
}

// setSolved marks n, whose position st the tablebase values at value for
// the player to move with actions to the end, solved: its value is the
// exact one from player 0's point of view; with solver it is also proven.
func (n *node) setSolved(st env.State, value float32, actions int, solver bool) {
	n.status = stSolved
	n.value = value
	if st.CurrentPlayer() == 1 {
		n.value = -value
	}
	if solver {
		n.proven, n.proof, n.depth = true, n.value, uint16(min(actions, math.MaxUint16-1))
	}
}

// tree is the arena. The root, when present, is nodes[0].
type tree struct {
	nodes []node
	spare []node // second arena, swapped in by advance
}

func (t *tree) empty() bool { return len(t.nodes) == 0 }

// reset drops every node, releasing the positions to the garbage collector
// but keeping the arena's memory.
func (t *tree) reset() {
	clear(t.nodes)
	t.nodes = t.nodes[:0]
}

// setRoot starts a fresh tree at s (which the tree then owns).
func (t *tree) setRoot(s env.State) {
	t.reset()
	t.nodes = append(t.nodes, node{state: s, parent: -1, status: stPending, player: int8(s.CurrentPlayer())})
}

// child returns the index of the child of n reached by action, or -1.
func (t *tree) child(n int32, action int) int32 {
	nd := &t.nodes[n]
	for i := nd.first; i < nd.first+nd.nchild; i++ {
		if int(t.nodes[i].action) == action {
			return i
		}
	}
	return -1
}

// advance makes the root's child for action the new root, copying its
// subtree into the spare arena (breadth first, which keeps every node's
// children contiguous) and discarding everything else. It reports whether
// any statistics were kept; if not, the tree is empty.
func (t *tree) advance(action int) bool {
	if t.empty() || t.nodes[0].status != stExpanded {
		t.reset()
		return false
	}
	c := t.child(0, action)
	if c < 0 || t.nodes[c].status != stExpanded {
		t.reset()
		return false
	}
	out := t.spare[:0]
	out = append(out, t.nodes[c])
	out[0].parent = -1
	for i := 0; i < len(out); i++ {
		first, n := out[i].first, out[i].nchild
		if out[i].status != stExpanded {
			out[i].first, out[i].nchild = 0, 0
			continue
		}
		out[i].first = int32(len(out))
		for k := first; k < first+n; k++ {
			ch := t.nodes[k]
			ch.parent = int32(i)
			out = append(out, ch)
		}
	}
	t.reset()
	t.nodes, t.spare = out, t.nodes
	return true
}

// backup adds one completed visit with value v0 (player 0's view) to n and
// its ancestors.
func (t *tree) backup(n int32, v0 float64) {
	for n >= 0 {
		nd := &t.nodes[n]
		nd.visits++
		nd.w0 += v0
		n = nd.parent
	}
}

// addVirtual adds d in-flight visits to n and its ancestors.
func (t *tree) addVirtual(n int32, d int32) {
	for n >= 0 {
		nd := &t.nodes[n]
		nd.vl += d
		n = nd.parent
	}
}

// sign is +1 for player 0 and -1 for player 1: w0 * sign is the value sum
// from player p's point of view.
func sign(p int8) float64 {
	if p == 1 {
		return -1
	}
	return 1
}
