package mcts

// MCTS-Solver: proving nodes won or lost and choosing among proven moves.

import (
	"fmt"
	"math"

	"github.com/zerokit/zerokit/env"
)

// solved looks st, the position of the new node i, up in the tablebase
// and, if it is there, gives node i the position and marks it solved.
func (s *Search) solved(i int32, st env.State) bool {
	if s.tb == nil {
		return false
	}
	v, n, ok := s.tb.Probe(st)
	if ok {
		s.t.attach(i, st)
		s.t.nodes[i].setSolved(st, v, n, s.cfg.Solver)
	}
	return ok
}

// lookAhead (Config.Solver) plays every move of the freshly expanded node
// n, marks the children where the game ends as terminal and proven and
// those in the tablebase as solved and proven, and proves n and its
// ancestors where that settles them.
func (s *Search) lookAhead(n int32) error {
	nd := &s.t.nodes[n]
	parent := nd.state
	found := false
	for i := nd.first; i < nd.first+nd.nchild; i++ {
		action := s.t.nodes[i].action
		st := parent.Clone()
		if err := st.ApplyAction(int(action)); err != nil {
			return fmt.Errorf("mcts: applying legal action %d: %w", action, err)
		}
		if !st.IsTerminal() {
			found = s.solved(i, st) || found
			continue
		}
		s.t.attach(i, st)
		s.t.nodes[i].setTerminal(st, true)
		found = true
	}
	if found {
		s.prove(n)
	}
	return nil
}

// prove marks n proven if its children settle its value (one of them is a
// proven win for the player to move at n, or all are proven), then does the
// same for its ancestors, stopping at the first node that stays unproven or
// unchanged. A node proven already may still learn a faster win: a leaf
// in flight below it when it was proven can prove more of its children.
func (s *Search) prove(n int32) {
	for n >= 0 {
		nd := &s.t.nodes[n]
		if nd.status != stExpanded {
			return
		}
		sg := sign(nd.player)
		best, settled := math.Inf(-1), true
		var winDepth, lossDepth uint16 = math.MaxUint16, 0
		for i := nd.first; i < nd.first+nd.nchild; i++ {
			ch := &s.t.nodes[i]
			if !ch.proven {
				settled = false
				continue
			}
			v := sg * float64(ch.proof)
			best = max(best, v)
			if v >= 1 {
				winDepth = min(winDepth, ch.depth)
			}
			lossDepth = max(lossDepth, ch.depth)
		}
		var depth uint16
		switch {
		case best >= 1:
			depth = winDepth + 1
		case settled:
			depth = min(lossDepth, math.MaxUint16-1) + 1
		default:
			return
		}
		proof := float32(sg * best)
		if nd.proven && nd.proof == proof && nd.depth == depth {
			return
		}
		nd.proven, nd.proof, nd.depth = true, proof, depth
		n = nd.parent
	}
}

// solvedChoice (Config.Solver) overrides the move chosen among the root's
// children: it returns the index of the fastest proven win if there is
// one; else, if chosen is a proven loss, the most visited child that is
// not (ties to the higher prior) or, when every child is a proven loss,
// the one that resists longest (a fallible opponent may still miss the
// win); else chosen.
func (s *Search) solvedChoice(chosen int) int {
	root := &s.t.nodes[0]
	children := s.t.nodes[root.first : root.first+root.nchild]
	sg := sign(root.player)
	more := func(i, j int) bool { // i more visited than j, ties to the higher prior
		return children[i].visits > children[j].visits ||
			(children[i].visits == children[j].visits && children[i].prior > children[j].prior)
	}
	win, alive, lost := -1, -1, -1
	for i := range children {
		ch := &children[i]
		switch {
		case ch.proven && sg*float64(ch.proof) >= 1:
			if win < 0 || ch.depth < children[win].depth || (ch.depth == children[win].depth && more(i, win)) {
				win = i
			}
		case ch.proven && sg*float64(ch.proof) <= -1:
			if lost < 0 || ch.depth > children[lost].depth || (ch.depth == children[lost].depth && more(i, lost)) {
				lost = i
			}
		default:
			if alive < 0 || more(i, alive) {
				alive = i
			}
		}
	}
	ch := &children[chosen]
	switch {
	case win >= 0:
		return win
	case !ch.proven || sg*float64(ch.proof) > -1:
		return chosen
	case alive >= 0:
		return alive
	}
	return lost
}
