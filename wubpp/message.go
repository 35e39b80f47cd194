package wubpp

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zerokit/zerokit/env/wyb"
)

// Head is the four-letter keyword that starts every message.
type Head string

// The protocol's message heads.
const (
	// Play asks the server for a game: "PLAY name [key]" (client).
	Play Head = "PLAY"
	// Okay acknowledges: the server's answer to PLAY, the client's to
	// GAME, INIT and UPD8.
	Okay Head = "OKAY"
	// Game announces a game: "GAME white black" (player names; server).
	Game Head = "GAME"
	// Init gives the client its colour: "INIT white|black" (server).
	Init Head = "INIT"
	// Turn asks for an action: "TURN n", n actions into the current
	// phase (server).
	Turn Head = "TURN"
	// Actn is the client's action: "ACTN place x y", "ACTN move xa ya
	// xb yb" or "ACTN pass".
	Actn Head = "ACTN"
	// Upd8 relays the opponent's action to a client, in ACTN's form
	// (server).
	Upd8 Head = "UPD8"
	// Erro ends a game on an error: "ERRO loser reason..." (server).
	Erro Head = "ERRO"
	// Over ends a game: "OVER winner" (server).
	Over Head = "OVER"
)

// Colour and result words of the messages. INIT, ERRO and OVER name
// players by colour; OVER names the winner or Draw.
const (
	White = "white"
	Black = "black"
	Draw  = "draw"
)

// ActionKind is the type of an action.
type ActionKind uint8

// The kinds of action.
const (
	// Place puts a piece on (X, Y) (placing phase).
	Place ActionKind = iota + 1
	// Move moves a piece from (X, Y) to (XB, YB) (moving phase).
	Move
	// Pass forfeits the turn (moving phase, with no legal move).
	Pass
)

// Action is an action as ACTN and UPD8 carry it. Coordinates are (column,
// row), as in the referee. It is syntax only: whether it is legal is for
// Referee and the game's rules to say.
type Action struct {
	Kind         ActionKind
	X, Y, XB, YB int
}

// String writes the action's words: "place x y", "move xa ya xb yb" or
// "pass".
func (a Action) String() string {
	switch a.Kind {
	case Place:
		return fmt.Sprintf("place %d %d", a.X, a.Y)
	case Move:
		return fmt.Sprintf("move %d %d %d %d", a.X, a.Y, a.XB, a.YB)
	case Pass:
		return "pass"
	}
	return fmt.Sprintf("ActionKind(%d)", a.Kind)
}

// Referee writes the action in the course referee's form, as JSON: [x, y],
// [[xa, ya], [xb, yb]] or null (what netreferee.py hands its Player, and
// what wyb.State.RefereeAction and "zerokit replay" read).
func (a Action) Referee() string {
	switch a.Kind {
	case Place:
		return fmt.Sprintf("[%d, %d]", a.X, a.Y)
	case Move:
		return fmt.Sprintf("[[%d, %d], [%d, %d]]", a.X, a.Y, a.XB, a.YB)
	}
	return "null"
}

// FromEngine converts a Watch Your Back! engine action (package env/wyb)
// to its message form.
func FromEngine(a int) (Action, error) {
	kind, xa, ya, xb, yb := wyb.DecodeAction(a)
	switch kind {
	case wyb.PlaceKind:
		return Action{Kind: Place, X: xa, Y: ya}, nil
	case wyb.StepKind, wyb.JumpKind:
		return Action{Kind: Move, X: xa, Y: ya, XB: xb, YB: yb}, nil
	case wyb.PassKind:
		return Action{Kind: Pass}, nil
	}
	return Action{}, fmt.Errorf("wubpp: %d is not a Watch Your Back! action", a)
}

// FromReferee converts an action in the referee's JSON form ("[3, 4]",
// "[[3, 4], [3, 5]]", "null") to its message form. Only the shape is
// checked (and that coordinates are on the board), not legality.
func FromReferee(text string) (Action, error) {
	a, err := wyb.ParseRefereeAction([]byte(text))
	if err != nil {
		return Action{}, fmt.Errorf("wubpp: %w", err)
	}
	return FromEngine(a)
}

// Message is one protocol message. Which fields are meaningful depends on
// Head; the others are zero.
type Message struct {
	Head Head
	// Name and Key of PLAY (Key is "" when none was given).
	Name, Key string
	// White and Black are GAME's player names.
	White, Black string
	// Colour is INIT's colour.
	Colour string
	// Turns is TURN's counter.
	Turns int
	// Action is ACTN's and UPD8's action.
	Action Action
	// Loser and Reason are ERRO's; Reason may contain spaces.
	Loser, Reason string
	// Winner is OVER's: White, Black or Draw.
	Winner string
}

// MaxWord bounds the length of a name, key or colour, in bytes.
const MaxWord = 64

// Parse reads one message line (without its newline). It splits the line
// as wubpp.py does: blanks around the line are ignored, the head is its
// first four characters and the parts are the blank-separated words after
// them; parts beyond those a message uses are ignored, as wubpp.py ignores
// them. Unlike wubpp.py it checks everything else: a missing part, a
// number that is not a decimal integer, an unknown head or action type, a
// word longer than MaxWord bytes or text that is not UTF-8 is an error
// saying what is wrong. Parse never panics.
func Parse(line string) (Message, error) {
	if !utf8.ValidString(line) {
		return Message{}, errors.New("message is not valid UTF-8")
	}
	line = strings.TrimSpace(line)
	if line == "" {
		return Message{}, errors.New("empty message")
	}
	if len(line) < 4 {
		return Message{}, fmt.Errorf("unknown message %q", clip(line))
	}
	m := Message{Head: Head(line[:4])}
	parts := strings.Fields(line[4:])
	need := func(n int, form string) error {
		if len(parts) < n {
			return fmt.Errorf("%s needs %d part(s): %s %s", m.Head, n, m.Head, form)
		}
		for _, p := range parts[:n] {
			if len(p) > MaxWord {
				return fmt.Errorf("%s: %q is longer than %d bytes", m.Head, clip(p), MaxWord)
			}
		}
		return nil
	}
	switch m.Head {
	case Play:
		if err := need(1, "name [key]"); err != nil {
			return Message{}, err
		}
		m.Name = parts[0]
		if len(parts) > 1 {
			if len(parts[1]) > MaxWord {
				return Message{}, fmt.Errorf("PLAY: key %q is longer than %d bytes", clip(parts[1]), MaxWord)
			}
			m.Key = parts[1]
		}
	case Okay:
	case Game:
		if err := need(2, "white black"); err != nil {
			return Message{}, err
		}
		m.White, m.Black = parts[0], parts[1]
	case Init:
		if err := need(1, "white|black"); err != nil {
			return Message{}, err
		}
		m.Colour = parts[0]
	case Turn:
		if err := need(1, "n"); err != nil {
			return Message{}, err
		}
		n, err := number(parts[0])
		if err != nil {
			return Message{}, fmt.Errorf("TURN: %w", err)
		}
		m.Turns = n
	case Actn, Upd8:
		a, err := parseAction(parts)
		if err != nil {
			return Message{}, fmt.Errorf("%s: %w", m.Head, err)
		}
		m.Action = a
	case Erro:
		if err := need(1, "loser reason"); err != nil {
			return Message{}, err
		}
		m.Loser, m.Reason = parts[0], strings.Join(parts[1:], " ")
	case Over:
		if err := need(1, "winner"); err != nil {
			return Message{}, err
		}
		m.Winner = parts[0]
	default:
		return Message{}, fmt.Errorf("unknown message head %q (want PLAY, OKAY, GAME, INIT, TURN, ACTN, UPD8, ERRO or OVER)", clip(line[:4]))
	}
	return m, nil
}

// parseAction reads ACTN's and UPD8's parts.
func parseAction(parts []string) (Action, error) {
	if len(parts) == 0 {
		return Action{}, errors.New("missing action: want place x y, move xa ya xb yb or pass")
	}
	var a Action
	var n int
	switch parts[0] {
	case "place":
		a.Kind, n = Place, 2
	case "move":
		a.Kind, n = Move, 4
	case "pass":
		return Action{Kind: Pass}, nil
	default:
		return Action{}, fmt.Errorf("unknown action type %q: want place x y, move xa ya xb yb or pass", clip(parts[0]))
	}
	if len(parts) < 1+n {
		return Action{}, fmt.Errorf("%s needs %d coordinates, got %d", parts[0], n, len(parts)-1)
	}
	dst := [4]*int{&a.X, &a.Y, &a.XB, &a.YB}
	for i := range n {
		v, err := number(parts[1+i])
		if err != nil {
			return Action{}, fmt.Errorf("%s: %w", parts[0], err)
		}
		*dst[i] = v
	}
	return a, nil
}

// maxNumber bounds the integers of messages: far beyond any board
// coordinate or turn counter, small enough to print and compare safely.
const maxNumber = 1 << 30

// number reads a decimal integer, as Python's int() does for what a
// client sends (an optional sign, digits), within ±maxNumber.
func number(s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < -maxNumber || v > maxNumber {
		return 0, fmt.Errorf("%q is not an integer in [%d, %d]", clip(s), -maxNumber, maxNumber)
	}
	return v, nil
}

// String writes the message as one line, without the newline.
func (m Message) String() string {
	switch m.Head {
	case Play:
		// netreferee.py sends "PLAY name " (a trailing blank) without a
		// key; Parse reads both forms the same.
		if m.Key == "" {
			return "PLAY " + m.Name
		}
		return "PLAY " + m.Name + " " + m.Key
	case Game:
		return "GAME " + m.White + " " + m.Black
	case Init:
		return "INIT " + m.Colour
	case Turn:
		return "TURN " + strconv.Itoa(m.Turns)
	case Actn, Upd8:
		return string(m.Head) + " " + m.Action.String()
	case Erro:
		if m.Reason == "" {
			return "ERRO " + m.Loser
		}
		return "ERRO " + m.Loser + " " + oneLine(m.Reason)
	case Over:
		return "OVER " + m.Winner
	}
	return string(m.Head)
}

// clip shortens s for an error message.
func clip(s string) string {
	const n = 40
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// oneLine flattens s onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
