package mcts

import (
	"math"
	"reflect"
	"slices"
	"unsafe"

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
	// w2 is the sum of the squares of the backed-up values: with w0 and
	// visits, the spread of the values below this node (Config.LCB). A
	// float32 fills the struct's padding, so the node stays 72 bytes; its
	// rounding (about 1e-7 of the sum per visit) is far below what a
	// confidence bound needs.
	w2 float32
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

// nodeBytes is the size of one node in the arena.
const nodeBytes = int64(unsafe.Sizeof(node{}))

// NodeBytes is the memory of one tree node, not counting its position: a
// node is one legal move of an expanded position. The tree's memory
// (Result.TreeBytes) is its arena of nodes plus the positions of the nodes
// that hold one (the visited ones, and with Config.Solver the children that
// end the game or that the tablebase knows).
const NodeBytes = int(nodeBytes)

// tree is the arena. The root, when present, is nodes[0]. A node's
// children come after it in the arena, so that a pass in index order
// meets every parent before its children.
type tree struct {
	nodes []node
	// states counts the nodes holding a position, and stateBytes is the
	// memory of one position (stateSize of the root's).
	states     int
	stateBytes int64
	// budget, when positive, is the memory the tree may use (Config.TreeMB):
	// the arena never grows past what it leaves (growArena).
	budget int64
	// keep is advance's scratch: bit i marks node i as kept.
	keep []uint64
	// maxChildren is the most children of an expanded node so far.
	maxChildren int
}

func (t *tree) empty() bool { return len(t.nodes) == 0 }

// reset drops every node, releasing the positions to the garbage collector
// but keeping the arena's memory.
func (t *tree) reset() {
	clear(t.nodes)
	t.nodes = t.nodes[:0]
	t.states = 0
}

// bytes is the tree's memory: the arena's capacity (what it holds
// allocated, used or not), the positions, and advance's scratch.
func (t *tree) bytes() int64 {
	return int64(cap(t.nodes))*nodeBytes + int64(t.states)*t.stateBytes + int64(cap(t.keep))*8
}

// attach gives node i the position st and counts it.
func (t *tree) attach(i int32, st env.State) {
	if t.nodes[i].state == nil {
		t.states++
	}
	t.nodes[i].state = st
}

// detach takes node i's position away.
func (t *tree) detach(i int32) {
	if t.nodes[i].state != nil {
		t.states--
		t.nodes[i].state = nil
	}
}

// growArena makes room in the arena for n more nodes. Without a budget it
// grows as append does. With one it never grows past the nodes that the
// budget leaves beside the positions (unless the n nodes need it: the
// search stops before that can happen, Search.full), by a quarter at a
// time and by half the room left near that limit, so that little of the
// arena lies unused when the tree fills its budget.
func (t *tree) growArena(n int) {
	need := len(t.nodes) + n
	if need <= cap(t.nodes) {
		return
	}
	if t.budget <= 0 {
		t.nodes = slices.Grow(t.nodes, n)
		return
	}
	c := cap(t.nodes)
	step := c/4 + 1024
	limit := (t.budget - int64(t.states)*t.stateBytes - int64(cap(t.keep))*8) / nodeBytes
	if room := int(max(limit, 0)) - c; step > room/2 {
		step = room / 2
	}
	grown := make([]node, len(t.nodes), max(c+step, need))
	copy(grown, t.nodes)
	clear(t.nodes)
	t.nodes = grown
}

// stateSize is the memory of the position s: the value its pointer points
// to (the games' positions are flat structs that Clone copies), rounded up
// to 16 bytes like the allocator's size classes.
func stateSize(s env.State) int64 {
	ty := reflect.TypeOf(s)
	size := ty.Size()
	if ty.Kind() == reflect.Pointer {
		size = ty.Elem().Size()
	}
	return int64(max(size, 16)+15) &^ 15
}

// setRoot starts a fresh tree at s (which the tree then owns).
func (t *tree) setRoot(s env.State) {
	t.reset()
	t.stateBytes = stateSize(s)
	t.nodes = append(t.nodes, node{state: s, parent: -1, status: stPending, player: int8(s.CurrentPlayer())})
	t.states = 1
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

// advance makes the root's child for action the new root, keeping its
// subtree and discarding everything else. It reports whether any
// statistics were kept; if not, the tree is empty.
//
// It works in place, in the arena's order: one pass marks the subtree
// (a node is in it when its parent is, and parents come first), a second
// moves each kept node down to the next free index, which keeps every
// node's children contiguous and after it, and points the node's children
// (not yet moved) at its new index and its parent at its first child's.
// The tree thus never needs a second arena.
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
	n := int32(len(t.nodes))
	t.keep = grow(t.keep, (int(n)+63)/64)
	clear(t.keep)
	marked := func(i int32) bool { return t.keep[i/64]&(1<<(i%64)) != 0 }
	t.keep[c/64] |= 1 << (c % 64)
	for i := c + 1; i < n; i++ {
		if p := t.nodes[i].parent; p >= c && marked(p) {
			t.keep[i/64] |= 1 << (i % 64)
		}
	}
	j, states := int32(0), 0
	for i := c; i < n; i++ {
		if !marked(i) {
			continue
		}
		nd := t.nodes[i]
		if i == c {
			nd.parent = -1
		} else if p := &t.nodes[nd.parent]; p.first == i {
			// nd.parent is already the parent's new index; i is its
			// first child.
			p.first = j
		}
		if nd.status == stExpanded {
			for k := nd.first; k < nd.first+nd.nchild; k++ {
				t.nodes[k].parent = j
			}
		} else {
			nd.first, nd.nchild = 0, 0
		}
		if nd.state != nil {
			states++
		}
		t.nodes[j] = nd
		j++
	}
	clear(t.nodes[j:])
	t.nodes = t.nodes[:j]
	t.states = states
	return true
}

// backup adds one completed visit with value v0 (player 0's view) to n and
// its ancestors.
func (t *tree) backup(n int32, v0 float64) {
	for n >= 0 {
		nd := &t.nodes[n]
		nd.visits++
		nd.w0 += v0
		nd.w2 += float32(v0 * v0)
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
