package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/zerokit/zerokit/env"
)

// Review is what the exact search (the solver the agent runs before the
// table, exactSolver) proves about one move of a game: the value of the
// move played and, when that is not a win, a move proven better.
type Review struct {
	// Solved reports whether the played move's value was proven.
	Solved bool
	// Value is the played move's value for the player who made it when
	// Solved: 1 a win, 0 a draw, -1 a loss, under best play from there on
	// (the table's after the second shrink).
	Value float32
	// Better is a legal move proven better than the one played, or -1
	// when none was found; BetterValue is a lower bound of its value.
	Better      int
	BetterValue float32
	// Complete reports whether every other move was settled against the
	// played one: with Better -1, no better move exists.
	Complete bool
	// Nodes is the number of positions the search visited.
	Nodes int
}

// Reviewer reviews the moves of games with the exact search, keeping one
// transposition table for all of them (reviewing a game's moves from the
// last backwards lets each search use what the later ones proved). It
// is not safe for concurrent use.
type Reviewer struct {
	tb env.Tablebase
	tt *exactTable
}

// NewReviewer returns a Reviewer whose searches end at the positions of
// tb (the game's solved endgame) and at the ends of games.
func NewReviewer(tb env.Tablebase) (*Reviewer, error) {
	if tb == nil {
		return nil, errors.New("agent: reviewing moves needs the game's tablebase")
	}
	return &Reviewer{tb: tb, tt: newExactTable()}, nil
}

// Move reviews played, a legal action of s, searching at most nodes
// positions (0: no limit) until ctx ends. What it could not prove within
// them is reported as such (Solved, Complete false), not as an error;
// errors are for an action that is not legal or a state that is over.
func (r *Reviewer) Move(ctx context.Context, s env.State, played int, nodes int) (Review, error) {
	if s.IsTerminal() {
		return Review{}, errors.New("agent: the game is over: no move to review")
	}
	if !s.IsLegal(played) {
		return Review{}, fmt.Errorf("agent: action %d is not legal here", played)
	}
	if nodes <= 0 {
		nodes = int(^uint(0) >> 1)
	}
	x := &exactSolver{ctx: ctx, tb: r.tb, tt: r.tt, limit: nodes}
	rev := Review{Better: -1}
	v, err := x.actionValue(s, played, -1, 1)
	rev.Nodes = x.nodes
	if err != nil {
		return rev, budgetOr(err)
	}
	rev.Solved, rev.Value = true, v
	best := v
	rev.Complete = true
	for _, a := range s.LegalActions(nil) {
		if best >= 1 {
			break
		}
		if a == played {
			continue
		}
		v, err := x.actionValue(s, a, best, 1)
		rev.Nodes = x.nodes
		if err != nil {
			rev.Complete = false
			return rev, budgetOr(err)
		}
		if v > best {
			best, rev.Better, rev.BetterValue = v, a, v
		}
	}
	return rev, nil
}

// budgetOr is nil for a search that ran out of nodes or time, else err.
func budgetOr(err error) error {
	if errors.Is(err, errExactBudget) {
		return nil
	}
	return err
}
