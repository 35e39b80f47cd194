package protocol

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/squatter"
)

func startSquatter(t *testing.T, n int) *client {
	t.Helper()
	g, err := squatter.New(n)
	if err != nil {
		t.Fatal(err)
	}
	game, codec := g.Referee()
	newAgent := func(int) (agent.Agent, error) { return lastCell{}, nil }
	return startGameSession(t, Config{Game: game, Codec: codec}, newAgent)
}

// lastCell plays the last free cell (bottom right first).
type lastCell struct{}

func (lastCell) Name() string { return "last-cell" }

func (lastCell) Act(_ context.Context, s env.State) (int, error) {
	legal := s.LegalActions(nil)
	if len(legal) == 0 {
		return 0, errors.New("no legal action")
	}
	return legal[len(legal)-1], nil
}

// TestSquatterSession plays the opponent's moves of the 2015 referee (as
// "P Row Col") against the served agent: the rules reject occupied and
// captured cells, the codec a wrong P and cells off the board, and
// status reports the board and, at the end, the winner.
func TestSquatterSession(t *testing.T) {
	c := startSquatter(t, 6)
	defer c.close()
	if got := c.call("status"); !strings.HasPrefix(got, "error no game") {
		t.Errorf("status before init = %q", got)
	}
	if got := c.call("init black"); got != "ok" {
		t.Fatalf("init black = %q", got)
	}
	if got := c.call("status"); got != "0 ++++++/++++++/++++++/++++++/++++++/++++++" {
		t.Errorf("status of the empty board = %q", got)
	}
	// White (the opponent) draws a diamond around (2, 2) while the agent
	// fills the bottom row from the right.
	played := map[string]bool{}
	reply := func() {
		t.Helper()
		got := c.call("action " + strconv.Itoa(len(played)))
		f := strings.Fields(got)
		if len(f) != 3 || f[0] != "2" {
			t.Fatalf("agent's action = %q, want \"2 Row Col\"", got)
		}
		played[f[1]+" "+f[2]] = true
	}
	for _, cell := range []string{"1 2", "2 1", "2 3", "3 2"} {
		if got := c.call("update 1 " + cell); got != "ok" {
			t.Fatalf("update 1 %s = %q", cell, got)
		}
		played[cell] = true
		reply()
	}
	status := c.call("status")
	if played["2 2"] || !strings.HasPrefix(status, "0 ") || strings.Split(status[2:], "/")[2][2] != '-' {
		t.Fatalf("status after the diamond = %q, want (2, 2) captured and empty", status)
	}
	for _, tc := range []struct{ move, err string }{
		{"1 1 2", "cell (row 1, col 2) is occupied by a white piece"},
		{"1 2 2", "cell (row 2, col 2) lies in white's captured territory"},
		{"2 0 0", "P is 2, but white (P = 1) is to move"},
		{"1 6 0", "off the 6x6 board"},
		{"1 0", "three integers"},
	} {
		if got := c.call("update " + tc.move); !strings.HasPrefix(got, "error") || !strings.Contains(got, tc.err) {
			t.Errorf("update %s = %q, want an error containing %q", tc.move, got, tc.err)
		}
	}
	if got := c.call("status"); got != status {
		t.Errorf("rejected moves changed the game: status %q, was %q", got, status)
	}
	// Play the game out: the opponent takes the first free cell.
	for {
		rows := strings.Split(strings.Fields(status)[1], "/")
		move := ""
		for r, row := range rows {
			if i := strings.IndexByte(row, '+'); i >= 0 && move == "" {
				move = "1 " + string(rune('0'+r)) + " " + string(rune('0'+i))
			}
		}
		if move == "" {
			break
		}
		if got := c.call("update " + move); got != "ok" {
			t.Fatalf("update %s = %q", move, got)
		}
		played[move[2:]] = true
		if status = c.call("status"); status[0] != '0' {
			break
		}
		reply()
		if status = c.call("status"); status[0] != '0' {
			break
		}
	}
	if w := status[0]; w != '1' && w != '2' && w != '3' || strings.Contains(status, "+") {
		t.Errorf("final status %q: want a winner and no free cell", status)
	}
	if got := c.call("update 1 0 0"); !strings.Contains(got, "game is over") {
		t.Errorf("update after the end = %q", got)
	}
	if got := c.call("status"); got != status {
		t.Errorf("status after the end = %q, want %q", got, status)
	}
}

func TestStatusNeedsAJudgingReferee(t *testing.T) {
	c := startSession(t, 1)
	defer c.close()
	if got := c.call("init white"); got != "ok" {
		t.Fatal(got)
	}
	if got := c.call("status"); !strings.Contains(got, "status is not part of this game's referee protocol") {
		t.Errorf("status for Watch Your Back! = %q", got)
	}
}
