package cli

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env/wyb"
)

// mistakeTranscript plays seeded random games under the referee's rules
// until one reaches, a few actions before the second shrink, a position
// with a move the reviewer proves worse than another; it plays that move,
// goes on at random to the end or 30 actions more, and returns what
// referee.py would print, the mistake's action number, its player and
// its text.
func mistakeTranscript(t *testing.T) (transcript string, number int, colour, text string) {
	t.Helper()
	tb := wyb.NewEndgame()
	for seed := uint64(1); seed < 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		s := wyb.New(wyb.Options{TurnLimit: 0}).NewState()
		var sb strings.Builder
		fmt.Fprintf(&sb, "%s\n", s.RefereeString())
		number = -1
		for i := 0; !s.IsTerminal() && (number < 0 || i < number+30); i++ {
			legal := s.LegalActions(nil)
			a := legal[rng.IntN(len(legal))]
			if number < 0 && i >= wyb.PlacingTurns+wyb.SecondShrink-8 && i < wyb.PlacingTurns+wyb.SecondShrink {
				r, err := agent.NewReviewer(tb)
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range legal {
					if rev, err := r.Move(context.Background(), s, b, 1_000_000); err == nil && rev.Better >= 0 {
						a, number, colour, text = b, i, s.RefereeColour(), s.ActionString(b)
						break
					}
				}
			}
			if err := s.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&sb, "time: 0.010s (this turn), 1.000s (total)\n%s\n", s.RefereeString())
		}
		if number >= 0 {
			fmt.Fprintf(&sb, "winner: %s!\n", s.RefereeWinner())
			return sb.String(), number, colour, text
		}
	}
	t.Fatal("no random game reached a provable mistake before the second shrink")
	return
}

// TestReviewCommand: review recovers a transcript's moves and reports the
// mistake planted in it, with the first move proven per player; bad
// flags and transcripts are refused with the problem named.
func TestReviewCommand(t *testing.T) {
	transcript, number, colour, text := mistakeTranscript(t)
	path := filepath.Join(t.TempDir(), "referee.out")
	if err := os.WriteFile(path, []byte(transcript), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runCmd(t, runReview, "-from", fmt.Sprint(number-4), "-colour", colour, "-nodes", "2000000", "-time", "0", path)
	if err != nil {
		t.Fatalf("review: %v\n%s", err, stderr)
	}
	line := fmt.Sprintf("action %d %s %s: ", number, colour, text)
	i := strings.Index(out, line)
	if i < 0 || !strings.Contains(strings.SplitN(out[i:], "\n", 2)[0], "; a mistake: ") || !strings.Contains(strings.SplitN(out[i:], "\n", 2)[0], "; were the second shrink now: ") {
		t.Fatalf("no mistake reported at %q:\n%s", line, out)
	}
	if !strings.Contains(out, fmt.Sprintf("%s: first move proven at action", colour)) || !strings.Contains(out, "mistakes proven at actions [") ||
		!strings.Contains(out, fmt.Sprint(number)) {
		t.Fatalf("summary lacks the first proven move or the mistake:\n%s", out)
	}
	t.Logf("%s", out)
	other := map[string]string{"W": "B", "B": "W"}[colour]
	if regexp.MustCompile(`(?m)^  (action \d+ ` + other + ` |` + other + `: )`).MatchString(out) {
		t.Fatalf("-colour %s reviewed %s's moves:\n%s", colour, other, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "no game file named"},
		{[]string{"-colour", "red", path}, `-colour "red"`},
		{[]string{"-from", "-1", path}, "-from -1"},
		{[]string{"-time", "0", path}, "would have no bound"},
		{[]string{"-nodes", "-3", path}, "-nodes -3"},
		{[]string{filepath.Join(t.TempDir(), "missing.out")}, "no such file"},
	} {
		if _, _, err := runCmd(t, runReview, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("review %q: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
	// A transcript with a board missing is reviewed up to it, with a
	// note naming the line.
	lines := strings.Split(transcript, "\n")
	broken := filepath.Join(t.TempDir(), "broken.out")
	if err := os.WriteFile(broken, []byte(strings.Join(append(lines[:10:10], lines[20:]...), "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, err := runCmd(t, runReview, "-from", "0", "-nodes", "100", broken); err != nil || !strings.Contains(out, ": 0 actions, no result") || !strings.Contains(out, "  note: the board at line 11 does not follow") {
		t.Errorf("a transcript with a board missing: %v\n%s", err, out)
	}
	// A game past the second shrink: its line gives the table's verdict
	// there.
	var past []int
	var verdict string
	table := wyb.NewEndgame()
	for seed := uint64(1); verdict == "" && seed < 100; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		st := wyb.New(wyb.Options{TurnLimit: 0}).NewState()
		past = past[:0]
		for !st.IsTerminal() && len(past) < wyb.PlacingTurns+wyb.SecondShrink+4 {
			if v, _, ok := table.Probe(st); ok && verdict == "" {
				verdict = fmt.Sprintf("the table after the second shrink: %s %s", st.RefereeColour(), valueWord(v))
			}
			legal := st.LegalActions(nil)
			a := legal[rng.IntN(len(legal))]
			past = append(past, a)
			if err := st.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
		}
	}
	if verdict == "" {
		t.Fatal("no random game reached the table")
	}
	pastFile := filepath.Join(t.TempDir(), "past.jsonl")
	if err := os.WriteFile(pastFile, []byte(fmt.Sprintf(`{"game":"wyb-nolimit","actions":%s}`, strings.ReplaceAll(fmt.Sprint(past), " ", ","))+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, err := runCmd(t, runReview, "-from", "1000", "-nodes", "1", pastFile); err != nil || !strings.Contains(strings.SplitN(out, "\n", 2)[0], verdict) {
		t.Errorf("a game past the second shrink: %v\n%s\nwant %q on its line", err, out, verdict)
	}
	// Games of another game are refused.
	ttt := filepath.Join(t.TempDir(), "ttt.jsonl")
	if err := os.WriteFile(ttt, []byte(`{"game":"tictactoe","actions":[4,0,8]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, runReview, ttt); err == nil || !strings.Contains(err.Error(), "a game of tictactoe") {
		t.Errorf("a tic-tac-toe game: error %v, want one naming the game", err)
	}
}
