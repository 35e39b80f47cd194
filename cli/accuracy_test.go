package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// positions writes a set with the solver and accuracy scores agents on
// it: perfect keeps every value, random does not; games without a solver
// or a set say so.
func TestPositionsAndAccuracy(t *testing.T) {
	dir := t.TempDir()
	set := filepath.Join(dir, "set.txt")
	out, stderr, err := runCmd(t, runPositions, "-game", "connect4-5x4", "-n", "12", "-min-discs", "4", "-max-discs", "12",
		"-players", "random,alphabeta:depth=2", "-parallel", "2", "-out", set, "-q")
	if err != nil {
		t.Fatalf("positions: %v\n%s", err, stderr)
	}
	if !strings.Contains(out, "wrote 12 positions") {
		t.Errorf("positions said %q", out)
	}
	data, err := os.ReadFile(set)
	if err != nil || !strings.Contains(string(data), "# written by: zerokit positions -game connect4-5x4") {
		t.Fatalf("the set lacks its command (%v):\n%s", err, data)
	}
	jsonPath := filepath.Join(dir, "acc.json")
	out, stderr, err = runCmd(t, runAccuracy, "-game", "connect4-5x4", "-agent", "perfect", "-positions", set, "-bucket", "4", "-json", jsonPath, "-q")
	if err != nil {
		t.Fatalf("accuracy: %v\n%s", err, stderr)
	}
	if !strings.Contains(out, "value kept in 12/12 = 1.000") || !strings.Contains(out, "4-7") {
		t.Errorf("accuracy of perfect:\n%s", out)
	}
	var rep struct {
		All struct{ Kept, Positions int }
	}
	if b, err := os.ReadFile(jsonPath); err != nil || json.Unmarshal(b, &rep) != nil || rep.All.Kept != 12 {
		t.Errorf("JSON report %+v (%v)", rep, err)
	}
	out, _, err = runCmd(t, runAccuracy, "-game", "connect4-5x4", "-agent", "random:seed=2", "-positions", set, "-q")
	if err != nil || !strings.Contains(out, "missed:") {
		t.Errorf("accuracy of random: %v\n%s", err, out)
	}
	// The shipped set of the 7x6 board, its late positions only.
	out, stderr, err = runCmd(t, runAccuracy, "-agent", "alphabeta:depth=2", "-min-discs", "30", "-n", "200", "-q")
	if err != nil || !strings.Contains(out, "alphabeta:depth=2 on connect4: value kept in") {
		t.Errorf("accuracy on the shipped set: %v\n%s%s", err, out, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-game", "tictactoe", "-agent", "random"}, "ships no position set"},
		{[]string{"-game", "connect4-5x4", "-agent", "random"}, "ships no position set"},
		{[]string{"-game", "connect4-5x4", "-agent", "random", "-positions", filepath.Join(dir, "none")}, "no such file"},
		{[]string{"-game", "connect4", "-agent", "random", "-positions", set}, "not \"connect4\""},
		{[]string{"-game", "connect4"}, "-agent is required"},
	} {
		if _, _, err := runCmd(t, runAccuracy, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("accuracy %v: %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, _, err := runCmd(t, runPositions, "-game", "wyb", "-out", filepath.Join(dir, "w.txt"), "-n", "1", "-min-discs", "1", "-max-discs", "2"); err == nil || !strings.Contains(err.Error(), "no solver") {
		t.Errorf("positions for wyb: %v", err)
	}
}

// solve gives a position's value and each move's.
func TestSolve(t *testing.T) {
	out, stderr, err := runCmd(t, runSolve, "-game", "connect4-5x4", "-moves", "121212")
	if err != nil {
		t.Fatalf("solve: %v\n%s", err, stderr)
	}
	for _, want := range []string{"value for the player to move: win in 1; best: [1]", "  1: win in 1\n", "  0: ", " positions searched)\n", "in all: "} {
		if !strings.Contains(out, want) {
			t.Errorf("solve's output lacks %q:\n%s", want, out)
		}
	}
	// The standard board's book answers the fourth disc after the centre
	// opening with no search.
	out, stderr, err = runCmd(t, runSolve, "-moves", "333330")
	if err != nil {
		t.Fatalf("solve: %v\n%s", err, stderr)
	}
	for _, want := range []string{"value for the player to move: win in 35; best: [2 4] (", "s, from the opening book)\n", "  0: draw\n", "in all: from the opening book\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("solve -moves 333330: output lacks %q:\n%s", want, out)
		}
	}
	for _, tc := range []struct{ args, want string }{
		{"-game wyb", "wyb has no solver"},
		{"-moves 12x", "character 3 is not a digit"},
		{"-moves 0000000", "column 0 is full"},
		{"-moves 1212121", "the game is over"},
	} {
		if _, _, err := runCmd(t, runSolve, strings.Fields(tc.args)...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("solve %s: %v, want %q", tc.args, err, tc.want)
		}
	}
}
