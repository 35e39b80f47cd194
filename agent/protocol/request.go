package protocol

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Command is the verb of a request line.
type Command int

// The protocol's commands.
const (
	// CmdInit starts a new game: "init white" or "init black".
	CmdInit Command = iota + 1
	// CmdAction asks the agent for its action: "action <turns>".
	CmdAction
	// CmdUpdate reports the opponent's action: "update <referee action>".
	CmdUpdate
	// CmdQuit ends the session: "quit".
	CmdQuit
	// CmdStatus asks for the game's result and board in the referee's
	// terms, for a referee that leaves judging to its players
	// (env.RefereeJudge): "status".
	CmdStatus
	// CmdLocked asks whether the game is locked (env.Locker): "locked".
	CmdLocked
)

// String returns the command's keyword.
func (c Command) String() string {
	switch c {
	case CmdInit:
		return "init"
	case CmdAction:
		return "action"
	case CmdUpdate:
		return "update"
	case CmdQuit:
		return "quit"
	case CmdStatus:
		return "status"
	case CmdLocked:
		return "locked"
	}
	return fmt.Sprintf("Command(%d)", int(c))
}

// Request is one parsed request line.
type Request struct {
	Cmd Command
	// Colour is the argument of init ("white", "black", ...; the Codec
	// decides which names are valid).
	Colour string
	// Turns is the argument of action: the referee's turn counter.
	Turns int
	// Action is the argument of update: the opponent's action in the
	// referee's text form, not yet parsed (the Codec does that).
	Action string
}

// ParseRequest parses one request line (without its trailing newline; a
// trailing carriage return and surrounding blanks are ignored). Keywords
// are lower case. The error says what is wrong with the line.
func ParseRequest(line string) (Request, error) {
	if !utf8.ValidString(line) {
		return Request{}, fmt.Errorf("request is not valid UTF-8")
	}
	line = strings.Trim(line, " \t\r")
	if line == "" {
		return Request{}, fmt.Errorf("empty request; expected one of: init, action, update, status, quit")
	}
	verb, rest, _ := strings.Cut(line, " ")
	rest = strings.Trim(rest, " \t")
	switch verb {
	case "init":
		if rest == "" {
			return Request{}, fmt.Errorf("init needs a colour, e.g. \"init white\"")
		}
		if strings.ContainsAny(rest, " \t") {
			return Request{}, fmt.Errorf("init takes one argument (a colour), got %q", rest)
		}
		return Request{Cmd: CmdInit, Colour: rest}, nil
	case "action":
		if rest == "" {
			return Request{}, fmt.Errorf("action needs the referee's turn counter, e.g. \"action 0\"")
		}
		n, err := parseTurns(rest)
		if err != nil {
			return Request{}, err
		}
		return Request{Cmd: CmdAction, Turns: n}, nil
	case "update":
		if rest == "" {
			return Request{}, fmt.Errorf("update needs the opponent's action, e.g. \"update [3, 4]\"")
		}
		return Request{Cmd: CmdUpdate, Action: rest}, nil
	case "quit":
		if rest != "" {
			return Request{}, fmt.Errorf("quit takes no argument, got %q", rest)
		}
		return Request{Cmd: CmdQuit}, nil
	case "status":
		if rest != "" {
			return Request{}, fmt.Errorf("status takes no argument, got %q", rest)
		}
		return Request{Cmd: CmdStatus}, nil
	case "locked":
		if rest != "" {
			return Request{}, fmt.Errorf("locked takes no argument, got %q", rest)
		}
		return Request{Cmd: CmdLocked}, nil
	}
	return Request{}, fmt.Errorf("unknown command %q; expected one of: init, action, update, status, locked, quit", clip(verb, 40))
}

// maxTurns bounds the turn counter so that parsing never overflows.
const maxTurns = 1 << 30

func parseTurns(s string) (int, error) {
	if len(s) > 10 {
		return 0, fmt.Errorf("turn counter %q is not a non-negative integer below %d", clip(s, 40), maxTurns)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("turn counter %q is not a non-negative integer", clip(s, 40))
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n >= maxTurns {
		return 0, fmt.Errorf("turn counter %q is not a non-negative integer below %d", clip(s, 40), maxTurns)
	}
	return n, nil
}

// clip shortens s to at most n bytes (on a rune boundary) for error
// messages, marking the cut with "...".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
