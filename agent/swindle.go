package agent

import (
	"github.com/zerokit/zerokit/env"
)

// swindle is the agent's contempt in a drawn endgame: in a position the
// tablebase calls a draw, every drawing move keeps the draw, but they
// differ in the chances they leave the opponent to go wrong. swindle
// returns the drawing move after which the largest share of the
// opponent's replies lose (by the table), preferring the search's choice
// among equals; ok is false when s is not a drawn table position, when no
// drawing move sets a trap, or when a position after a move is not in the
// table (the table then cannot vouch for the draw).
//
// A player whose opponent never errs loses nothing by it; a fallible
// opponent (a depth-limited alpha-beta player cannot see a table loss
// that lies beyond its horizon) is given the most chances to err, where
// the search alone, all drawing moves being worth 0, picks among them by
// visits.
func swindle(s env.State, tb env.Tablebase, searched int) (action int, ok bool) {
	v, _, in := tb.Probe(s)
	if !in || v != 0 {
		return 0, false
	}
	me := s.CurrentPlayer()
	// value returns st's value for me, or false when unknown.
	value := func(st env.State) (float32, bool) {
		if st.IsTerminal() {
			return st.Returns()[me], true
		}
		w, _, in := tb.Probe(st)
		if !in {
			return 0, false
		}
		if st.CurrentPlayer() != me {
			w = -w
		}
		return w, true
	}
	best, bestShare := -1, 0.0
	var replies []int
	for _, a := range s.LegalActions(nil) {
		next := s.Clone()
		if next.ApplyAction(a) != nil {
			return 0, false
		}
		w, known := value(next)
		if !known {
			return 0, false
		}
		if w != 0 || next.IsTerminal() {
			continue // a draw position has no winning move; skip the losing ones
		}
		replies = next.LegalActions(replies)
		traps := 0
		for _, r := range replies {
			after := next.Clone()
			if after.ApplyAction(r) != nil {
				return 0, false
			}
			w, known := value(after)
			if !known {
				return 0, false
			}
			if w > 0 {
				traps++
			}
		}
		share := float64(traps) / float64(len(replies))
		if share > bestShare || (share == bestShare && share > 0 && a == searched) {
			best, bestShare = a, share
		}
	}
	if best < 0 {
		return 0, false
	}
	return best, true
}
