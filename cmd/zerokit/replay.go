package main

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

A line may also be a JSON object with the actions in its "actions" field
(other fields are ignored): the game records of "zerokit net-server"
(games.jsonl) replay as they are.

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
			actions, err := parseGameLine(trimmed)
			if err != nil {
				return fmt.Errorf("stdin line %d: %w", lineNo, err)
			}
			if err := replayGame(w, game.NewState(), n, actions); err != nil {
				return err
			}
			n++
		}
		if rerr != nil { // io.EOF
			return nil
		}
	}
}

// parseGameLine splits a line into its actions; the line must be a JSON
// array, or an object with an "actions" array (the actions themselves are
// validated while replaying).
func parseGameLine(line []byte) ([]json.RawMessage, error) {
	if line[0] == '{' {
		var rec struct {
			Actions *[]json.RawMessage `json:"actions"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("malformed JSON game record: %w", err)
		}
		if rec.Actions == nil {
			return nil, errors.New("JSON game record without \"actions\"")
		}
		return *rec.Actions, nil
	}
	if line[0] != '[' {
		return nil, fmt.Errorf("not a JSON array of actions (starts with %q)", truncate(line, 20))
	}
	var actions []json.RawMessage
	if err := json.Unmarshal(line, &actions); err != nil {
		return nil, fmt.Errorf("malformed JSON array of actions: %w", err)
	}
	return actions, nil
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// replayGame writes the transcript of one game.
func replayGame(w *bufio.Writer, s *wyb.State, n int, actions []json.RawMessage) error {
	fmt.Fprintf(w, "=== game %d\n", n)
	writeState(w, s)
	for i, raw := range actions {
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
	_, err := fmt.Fprintf(w, "winner: %s!\n", s.RefereeWinner())
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
