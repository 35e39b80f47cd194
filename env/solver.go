package env

import "context"

// Solution is the exact game-theoretic value of a position.
type Solution struct {
	// Value is the result for the player to move under perfect play by
	// both sides: +1 a win, 0 a draw, -1 a loss.
	Value int
	// Actions is the number of actions from the position to the end of
	// the game under perfect play: the winner's fastest win, the loser's
	// longest resistance; for a draw, the actions the game can still last.
	Actions int
}

// Solver finds the exact value of a game's positions by search (a
// perfect player). Its searches can take long: ctx bounds them, and each
// method returns ctx's error when ctx ends first. A Solver keeps tables
// between calls and is not safe for concurrent use.
type Solver interface {
	// Solve returns the exact value of s, which must not be terminal.
	Solve(ctx context.Context, s State) (Solution, error)
	// Keeping returns the value of s (Solution.Value alone, faster to
	// find) and the legal actions that keep it: that win when s is won,
	// that do not lose when it is drawn, every one when it is lost.
	Keeping(ctx context.Context, s State) (value int, actions []int, err error)
	// Best returns the exact value of s and the legal actions that keep
	// it exactly: the fastest wins, the draws, the slowest losses.
	Best(ctx context.Context, s State) (Solution, []int, error)
}

// SolvableGame is implemented by a Game with a Solver.
type SolvableGame interface {
	// NewSolver returns a fresh solver, or an error saying why the game
	// (with its options) has none.
	NewSolver() (Solver, error)
}

// TestPositioner is implemented by a Game that ships positions with their
// exact values, for measuring an agent against perfect play (zerokit
// accuracy): the text of a position set (package arena's form), or nil
// when the game (with its options) ships none.
type TestPositioner interface {
	TestPositions() []byte
}
