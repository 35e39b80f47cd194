package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/zerokit/zerokit/env/wyb"
)

const replayUsage = `usage: zerokit replay < games.jsonl

Replays Watch Your Back! games written in the official referee's action
form and prints the referee's transcript. Each non-blank input line is one
game: a JSON array of actions, [x, y] to place, [[xa, ya], [xb, yb]] to
move, null to forfeit. For game N (counting non-blank lines from 0) it
prints "=== game N", then the referee's str(game) (8 board lines and the
progress line) before the first action and after each action, then
"winner: W!", "winner: B!" or "winner: draw!".

An illegal action prints "invalid action (W): <reason>" (or (B)), then the
referee's verdict "winner: B!" (or W: the other player wins), and the
replay goes on with the next game. Actions after the end of a game are
reported the same way ("invalid action (..): the game is over (...)")
followed by the game's real winner. A game whose actions run out before it
ends prints "winner: None!" (the referee's winner while a game is in
progress). No turn limit is applied, as in the referee.

A line may also be a JSON object with the actions in its "actions" field:
the game records of "zerokit net-server" (games.jsonl) replay as they are.
Such a game is numbered by its "id", as the server numbers it. When its
actions end before the game does and it holds the server's result
("winner", and "reason" for a game ended early: a timeout, a
disconnection, an unexpected message, a shutdown), the replay prints
"ended by the server: <reason>", then the recorded winner ("winner: W!",
"winner: B!", "winner: draw!", or "winner: none (abandoned)!" for a game
the server abandoned) instead of the referee's "winner: None!".

A line that is neither a JSON array nor such an object stops the replay with an error naming the
line number (1-based), after everything before it has been printed.

flags:
`

// runReplay implements "zerokit replay".
func runReplay(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("replay", replayUsage, stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return fmt.Errorf("unexpected arguments %q (games are read from stdin)", fs.Args())
	}
	out := bufio.NewWriterSize(stdout, 1<<16)
	err := replayGames(ctx, stdin, out)
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("writing output: %w", ferr)
	}
	return err
}

// replayGames reads games from r, one per line, and writes their
// transcripts to w.
func replayGames(ctx context.Context, r io.Reader, w *bufio.Writer) error {
	in := bufio.NewReaderSize(r, 1<<16)
	game := wyb.New(wyb.Options{TurnLimit: 0})
	n := 0
	for lineNo := 1; ; lineNo++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, rerr := in.ReadBytes('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return fmt.Errorf("reading stdin line %d: %w", lineNo, rerr)
		}
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			g, err := parseGameLine(trimmed)
			if err != nil {
				return fmt.Errorf("stdin line %d: %w", lineNo, err)
			}
			if g.id == nil {
				g.id = &n
			}
			if err := replayGame(w, game.NewState(), g); err != nil {
				return err
			}
			n++
		}
		if rerr != nil { // io.EOF
			return nil
		}
	}
}

// replayed is one game to replay: its actions and, from a net-server
// record, its number and the server's result.
type replayed struct {
	actions []json.RawMessage
	id      *int
	// winner is the recorded winner (white, black, draw, or "" for an
	// abandoned game), nil if the line has none; reason why it ended
	// early.
	winner *string
	reason string
}

// parseGameLine reads a line: a JSON array of actions, or an object with
// an "actions" array (the actions themselves are validated while
// replaying).
func parseGameLine(line []byte) (replayed, error) {
	if line[0] == '{' {
		var rec struct {
			ID      *int               `json:"id"`
			Actions *[]json.RawMessage `json:"actions"`
			Winner  *string            `json:"winner"`
			Reason  string             `json:"reason"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			return replayed{}, fmt.Errorf("malformed JSON game record: %w", err)
		}
		if rec.Actions == nil {
			return replayed{}, errors.New("JSON game record without \"actions\"")
		}
		if w := rec.Winner; w != nil && *w != "white" && *w != "black" && *w != "draw" && *w != "" {
			return replayed{}, fmt.Errorf("JSON game record with winner %q (want white, black, draw or \"\")", *w)
		}
		return replayed{actions: *rec.Actions, id: rec.ID, winner: rec.Winner, reason: rec.Reason}, nil
	}
	if line[0] != '[' {
		return replayed{}, fmt.Errorf("not a JSON array of actions (starts with %q)", truncate(line, 20))
	}
	var actions []json.RawMessage
	if err := json.Unmarshal(line, &actions); err != nil {
		return replayed{}, fmt.Errorf("malformed JSON array of actions: %w", err)
	}
	return replayed{actions: actions}, nil
}

// recordedWinner is the winner line of a server's result.
var recordedWinner = map[string]string{"white": "W", "black": "B", "draw": "draw", "": "none (abandoned)"}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// replayGame writes the transcript of one game.
func replayGame(w *bufio.Writer, s *wyb.State, g replayed) error {
	n := *g.id
	fmt.Fprintf(w, "=== game %d\n", n)
	writeState(w, s)
	for i, raw := range g.actions {
		if s.IsTerminal() {
			fmt.Fprintf(w, "invalid action (%s): action %d (%s): the game is over\n", s.RefereeColour(), i, compact(raw))
			break
		}
		a, err := s.RefereeAction(raw)
		if err != nil {
			// The referee declares the other player the winner.
			other := "B"
			if s.RefereeColour() == "B" {
				other = "W"
			}
			_, werr := fmt.Fprintf(w, "invalid action (%s): %v\nwinner: %s!\n", s.RefereeColour(), err, other)
			return werr
		}
		if err := s.ApplyAction(a); err != nil {
			return fmt.Errorf("game %d action %d (%s): internal error: validated action rejected: %w", n, i, compact(raw), err)
		}
		writeState(w, s)
	}
	winner := s.RefereeWinner()
	if !s.IsTerminal() && g.winner != nil {
		// The server ended the game before its end: its verdict stands.
		if g.reason != "" {
			fmt.Fprintf(w, "ended by the server: %s\n", g.reason)
		}
		winner = recordedWinner[*g.winner]
	}
	_, err := fmt.Fprintf(w, "winner: %s!\n", winner)
	return err
}

func writeState(w *bufio.Writer, s *wyb.State) {
	w.WriteString(s.RefereeString())
	w.WriteByte('\n')
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
