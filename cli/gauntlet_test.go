package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSplitSpecs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"random", []string{"random"}},
		{"random,greedy", []string{"random", "greedy"}},
		{"random,alphabeta:depth=3,seed=2,greedy", []string{"random", "alphabeta:depth=3,seed=2", "greedy"}},
		{" random , mcts:sims=50,rollouts=2 ", []string{"random", "mcts:sims=50,rollouts=2"}},
		{"net:path=/a/b=c,sims=4", []string{"net:path=/a/b=c,sims=4"}},
		{"net:path=/x:y,time=1s", []string{"net:path=/x:y,time=1s"}},
		{",,random,,", []string{"random"}},
		{"", nil},
	}
	for _, tc := range tests {
		if got := splitSpecs(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitSpecs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEvenlySpaced(t *testing.T) {
	tests := []struct {
		n, limit int
		want     []int
	}{
		{5, 0, []int{0, 1, 2, 3, 4}},
		{5, 9, []int{0, 1, 2, 3, 4}},
		{10, 3, []int{0, 5, 9}},
		{10, 1, []int{9}},
		{4, 2, []int{0, 3}},
		{7, 6, []int{0, 2, 3, 4, 5, 6}},
	}
	for _, tc := range tests {
		if got := evenlySpaced(tc.n, tc.limit); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("evenlySpaced(%d, %d) = %v, want %v", tc.n, tc.limit, got, tc.want)
		}
	}
}

func TestGauntletBaselines(t *testing.T) {
	dir := t.TempDir()
	out, stderr, err := runCmd(t, runGauntlet, "-game", "tictactoe", "-players", "random,greedy,mcts:sims=30,seed=2",
		"-games", "4", "-parallel", "2", "-out", dir)
	if err != nil {
		t.Fatalf("gauntlet: %v\n%s", err, stderr)
	}
	for _, want := range []string{"random", "greedy", "mcts:sims=30,seed=2", "wrote ratings.txt, gauntlet.json"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "gauntlet: 3/3") {
		t.Errorf("no progress: %q", stderr)
	}
	text, err := os.ReadFile(filepath.Join(dir, "ratings.txt"))
	if err != nil || !strings.Contains(out, string(text)) {
		t.Errorf("ratings.txt (%v) is not the printed table", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "gauntlet.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Game     string `json:"game"`
		Entrants []struct{ Name string }
		Result   struct {
			Matches []json.RawMessage `json:"matches"`
			Ratings struct {
				Anchor  string `json:"anchor"`
				Ratings []struct {
					Name string  `json:"name"`
					Elo  float64 `json:"elo"`
				} `json:"ratings"`
			} `json:"ratings"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Game != "tictactoe" || len(rep.Entrants) != 3 || len(rep.Result.Matches) != 3 || rep.Result.Ratings.Anchor != "random" {
		t.Errorf("gauntlet.json: %+v", rep)
	}
	for _, r := range rep.Result.Ratings.Ratings {
		if r.Name == "random" && r.Elo != 0 {
			t.Errorf("random rated %v, want the anchor 0", r.Elo)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "elo.png")); err == nil {
		t.Error("elo.png written without checkpoints")
	}
}

func TestGauntletErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-players", "random,greedy"}, "-out is required"},
		{[]string{"-out", dir}, "give -players, -run or both"},
		{[]string{"-out", dir, "-players", "random"}, "at least two players"},
		{[]string{"-out", dir, "-players", "random,bogus"}, `unknown kind "bogus"`},
		{[]string{"-out", dir, "-run", filepath.Join(dir, "norun")}, "not a training run directory"},
		{[]string{"-out", dir, "-players", "random,greedy", "-games", "0"}, "-games"},
	}
	for _, tc := range tests {
		_, _, err := runCmd(t, runGauntlet, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("gauntlet %q: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}

func TestGauntletInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	// stderr: the header, then one line per pairing; cancel after the first.
	stderr := &cancelAfter{cancel: cancel, lines: 2}
	err := runGauntlet(ctx, []string{"-game", "tictactoe", "-players", "random,greedy,mcts:sims=30",
		"-games", "4", "-prior-draws", "1", "-out", dir}, strings.NewReader(""), &out, stderr)
	if err != nil {
		t.Fatalf("interrupted gauntlet: %v", err)
	}
	if !strings.Contains(out.String(), "interrupted: 1 of the 3 pairings were played in full") {
		t.Errorf("output does not say the gauntlet was interrupted:\n%s", out.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "gauntlet.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Interrupted bool `json:"interrupted"`
		Result      struct {
			Matches []json.RawMessage `json:"matches"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || len(rep.Result.Matches) != 1 {
		t.Errorf("gauntlet.json: interrupted %v, %d matches", rep.Interrupted, len(rep.Result.Matches))
	}
}
