package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/gamefile"
)

const reviewUsage = `usage: zerokit review [flags] FILE...

Reviews Watch Your Back! games with the exact search the agent runs before
the second shrink, which ends at the solved endgame (the table) and at the
ends of games. A FILE ("-": stdin) is any game file "zerokit web" replays:
the course referee's transcript (what referee.py prints, kept by refbench
-keep as referee.out; the actions are recovered from consecutive boards),
zerokit replay's output, or JSON lines of referee-form actions (eval
-record with -game wyb-nolimit, net-server's games.jsonl). The games must
be under the referee's rules (no turn limit).

For each move from action -from on (actions of both players so far) by
the players -colour names, reviewed from the last backwards so that each
search uses what the later ones proved, it prints what the search proved
within -time and -nodes: the value of the move played for its player
(wins, draws or loses, under best play on both sides, the table's after
the second shrink), or "not proven"; and, when another move was proven
better, that move ("a mistake"); and between the shrinks what the table
says of the position before the move were the second shrink to come now
(wyb.Endgame.ShrinkNow: the pieces where they stand, White to move, as
after the real one). The game's line says what the table says after the
real second shrink. Then, per player, the first move proven and the
mistakes. A game lost at the shrink with no mistake proven was
decided before the moves the search can settle. The second shrink comes
after action 215 (moving turn 192).

flags:
`

// reviewedMove is one reviewed move.
type reviewedMove struct {
	number int // actions before it
	colour string
	played int
	text   string
	rev    agent.Review
	took   time.Duration
}

func runReview(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("review", reviewUsage, stderr)
	from := fs.Int("from", wyb.PlacingTurns+wyb.SecondShrink-26, "first move to review, as the number of actions before it (default: 13 moves of each player before the second shrink)")
	colour := fs.String("colour", "both", "whose moves to review: W, B or both")
	perMove := fs.Duration("time", 5*time.Second, "search time per move (0: no limit; then set -nodes)")
	nodes := fs.Int("nodes", 0, "positions searched per move at most (0: no limit; then set -time)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() == 0:
		fs.Usage()
		return errors.New("no game file named (a referee.py transcript, another game file zerokit web reads, or - for stdin)")
	case *from < 0:
		return fmt.Errorf("-from %d: want an action number >= 0", *from)
	case *colour != "W" && *colour != "B" && *colour != "both":
		return fmt.Errorf("-colour %q: want W, B or both", *colour)
	case *perMove < 0:
		return fmt.Errorf("-time %v: want a duration >= 0", *perMove)
	case *nodes < 0:
		return fmt.Errorf("-nodes %d: want 0 (no limit) or more", *nodes)
	case *perMove == 0 && *nodes == 0:
		return errors.New("-time 0 and -nodes 0: a move's search would have no bound; set one")
	}
	tb := wyb.NewEndgame()
	reviewer, err := agent.NewReviewer(tb)
	if err != nil {
		return err
	}
	for _, name := range fs.Args() {
		if err := reviewFile(ctx, reviewer, tb, name, stdin, stdout, *from, *colour, *perMove, *nodes); err != nil {
			return err
		}
	}
	return nil
}

// reviewFile reviews the games of one file and prints them.
func reviewFile(ctx context.Context, r *agent.Reviewer, tb *wyb.Endgame, name string, stdin io.Reader, w io.Writer, from int, colour string, perMove time.Duration, nodes int) error {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return err
	}
	games, err := gamefile.Parse(b, reviewGame, name)
	if err != nil {
		return err
	}
	for _, g := range games {
		if g.Game != reviewGame {
			return fmt.Errorf("%s: %s is a game of %s: review needs Watch Your Back! under the referee's rules (%s), whose endgame is solved", name, g.Label, g.Game, reviewGame)
		}
		if err := reviewGameActions(ctx, r, tb, g, w, from, colour, perMove, nodes); err != nil {
			return err
		}
	}
	return nil
}

// reviewGame is the game review knows: Watch Your Back! with no turn
// limit, as the referee plays it.
const reviewGame = "wyb-nolimit"

// reviewGameActions reviews one game's moves and prints them.
func reviewGameActions(ctx context.Context, r *agent.Reviewer, tb *wyb.Endgame, g gamefile.Game, w io.Writer, from int, colour string, perMove time.Duration, nodes int) error {
	name, actions := g.Label, g.Actions
	// The position before each action, and the moves to review.
	states := make([]*wyb.State, len(actions))
	s := wyb.New(wyb.Options{TurnLimit: 0}).NewState()
	var todo []reviewedMove
	table := "" // the table's verdict after the second shrink
	for i, a := range actions {
		if v, _, ok := tb.Probe(s); ok && table == "" {
			table = fmt.Sprintf("; the table after the second shrink: %s %s", s.RefereeColour(), valueWord(v))
		}
		states[i] = s.Clone().(*wyb.State)
		if c := s.RefereeColour(); i >= from && (colour == "both" || colour == c) {
			todo = append(todo, reviewedMove{number: i, colour: c, played: a, text: s.ActionString(a)})
		}
		if err := s.ApplyAction(a); err != nil {
			return fmt.Errorf("%s: action %d: %w", name, i, err)
		}
	}
	fmt.Fprintf(w, "%s: %d actions, %s%s\n", name, len(actions), transcriptResult(s), table)
	if g.Note != "" {
		fmt.Fprintf(w, "  note: %s\n", g.Note)
	}
	for i := len(todo) - 1; i >= 0; i-- {
		m := &todo[i]
		mctx, cancel := ctx, context.CancelFunc(func() {})
		if perMove > 0 {
			mctx, cancel = context.WithTimeout(ctx, perMove)
		}
		start := time.Now()
		var err error
		m.rev, err = r.Move(mctx, states[m.number], m.played, nodes)
		m.took = time.Since(start)
		cancel()
		if err != nil {
			return fmt.Errorf("%s: action %d: %w", name, m.number, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	type firsts struct {
		first    *reviewedMove
		mistakes []int
	}
	by := map[string]*firsts{"W": {}, "B": {}}
	for i := range todo {
		m := &todo[i]
		now := ""
		if v, ok := tb.ShrinkNow(states[m.number], states[m.number].CurrentPlayer()); ok {
			now = "; were the second shrink now: " + valueWord(v)
		}
		fmt.Fprintf(w, "  action %d %s %s: %s%s (%d positions, %.1fs)\n", m.number, m.colour, m.text, reviewText(states[m.number], m.rev), now, m.rev.Nodes, m.took.Seconds())
		f := by[m.colour]
		if m.rev.Solved && f.first == nil {
			f.first = m
		}
		if m.rev.Better >= 0 {
			f.mistakes = append(f.mistakes, m.number)
		}
	}
	for _, c := range []string{"W", "B"} {
		if colour != "both" && colour != c {
			continue
		}
		f := by[c]
		switch {
		case f.first == nil:
			fmt.Fprintf(w, "  %s: no move proven", c)
		default:
			fmt.Fprintf(w, "  %s: first move proven at action %d (%s)", c, f.first.number, valueWord(f.first.rev.Value))
		}
		if len(f.mistakes) == 0 {
			fmt.Fprintln(w, "; no mistake proven")
		} else {
			fmt.Fprintf(w, "; mistakes proven at actions %v\n", f.mistakes)
		}
	}
	return nil
}

// transcriptResult describes how a transcript's game ended.
func transcriptResult(last *wyb.State) string {
	switch w := last.RefereeWinner(); w {
	case "W", "B":
		return "winner " + w
	case "draw":
		return "a draw"
	default:
		return "no result in the transcript (it ends before the game: a player out of time or memory, or stopped)"
	}
}

// reviewText is a review's line: the played move's value and a better
// move.
func reviewText(s *wyb.State, rev agent.Review) string {
	if !rev.Solved {
		return "not proven"
	}
	text := valueWord(rev.Value)
	if rev.Better >= 0 {
		text += fmt.Sprintf("; a mistake: %s %s", s.ActionString(rev.Better), valueWord(rev.BetterValue))
		if rev.BetterValue < 1 {
			text += " at least"
		}
	} else if !rev.Complete {
		text += "; the other moves not all settled"
	}
	return text
}

// valueWord names a proven value for the player who moved.
func valueWord(v float32) string {
	switch {
	case v > 0:
		return "wins"
	case v < 0:
		return "loses"
	}
	return "draws"
}
