package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
)

const solveUsage = `usage: zerokit solve [-game connect4] [-moves DIGITS] [-time D]

Solves a position with the game's solver (Connect Four): its exact value
for the player to move (win, draw or loss, and in how many actions under
perfect play) and each legal move's value. -moves gives the actions from
the initial state as digits (Connect Four: columns, 0 the leftmost). It
says how many positions the search visited, and when the answer came from
the game's opening book with no search.
`

// runSolve implements "zerokit solve".
func runSolve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("solve", solveUsage, stderr)
	gameName := fs.String("game", "connect4", "game: "+games.Help(isSolvable))
	moves := fs.String("moves", "", "the actions from the initial state, one digit each")
	limit := fs.Duration("time", time.Minute, "give up after this long")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	game, err := games.ByName(*gameName)
	if err != nil {
		return fmt.Errorf("-game: %w", err)
	}
	sg, ok := game.(env.SolvableGame)
	if !ok {
		return fmt.Errorf("%s has no solver", game.Name())
	}
	sv, err := sg.NewSolver()
	if err != nil {
		return err
	}
	s := game.NewInitialState()
	for i, c := range *moves {
		if c < '0' || c > '9' {
			return fmt.Errorf("-moves %q: character %d is not a digit", *moves, i+1)
		}
		if err := s.ApplyAction(int(c - '0')); err != nil {
			return fmt.Errorf("-moves %q: move %d: %w", *moves, i+1, err)
		}
	}
	if s.IsTerminal() {
		return errors.New("-moves: the game is over")
	}
	ctx, cancel := context.WithTimeout(ctx, *limit)
	defer cancel()
	start := time.Now()
	sol, best, err := sv.Best(ctx, s)
	if err != nil {
		return fmt.Errorf("not solved: %w", err)
	}
	if ui, ok := game.(env.TextUI); ok {
		fmt.Fprint(stdout, ui.Board(s))
	}
	fmt.Fprintf(stdout, "value for the player to move: %s; best: %v (%.3f s%s)\n", solutionString(sol), best, time.Since(start).Seconds(), searched(sv, ", "))
	for _, a := range s.LegalActions(nil) {
		c := s.Clone()
		if err := c.ApplyAction(a); err != nil {
			return err
		}
		v := env.Solution{Value: int(c.Returns()[s.CurrentPlayer()]), Actions: 1}
		if !c.IsTerminal() {
			if v, err = sv.Solve(ctx, c); err != nil {
				return fmt.Errorf("move %s not solved: %w", s.ActionString(a), err)
			}
			v = env.Solution{Value: -v.Value, Actions: v.Actions + 1}
		} else if v.Value == 0 {
			v.Actions = 0
		}
		fmt.Fprintf(stdout, "  %s: %s\n", s.ActionString(a), solutionString(v))
	}
	if n := searched(sv, ""); n != "" {
		fmt.Fprintf(stdout, "in all: %s\n", n)
	}
	return nil
}

// searched says, when sv counts them, how many positions it searched and
// answered from its opening book: sep, then "from the opening book" (no
// search), or "N positions searched" and ", M from the opening book";
// "" when sv does not count them.
func searched(sv env.Solver, sep string) string {
	c, ok := sv.(interface {
		Nodes() int64
		BookAnswers() int64
	})
	switch {
	case !ok:
		return ""
	case c.Nodes() == 0 && c.BookAnswers() > 0:
		return sep + "from the opening book"
	case c.BookAnswers() > 0:
		return fmt.Sprintf("%s%d positions searched, %d from the opening book", sep, c.Nodes(), c.BookAnswers())
	}
	return fmt.Sprintf("%s%d positions searched", sep, c.Nodes())
}

// solutionString writes a solution as "win in 3", "draw", "loss in 4".
func solutionString(s env.Solution) string {
	switch {
	case s.Value > 0:
		return fmt.Sprintf("win in %d", s.Actions)
	case s.Value < 0:
		return fmt.Sprintf("loss in %d", s.Actions)
	}
	return "draw"
}
