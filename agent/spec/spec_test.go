package spec

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/wyb"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    string // canonical form
		wantErr string
	}{
		{"random", "random", ""},
		{"  greedy ", "greedy", ""},
		{"alphabeta:depth=3", "alphabeta:depth=3", ""},
		{"alphabeta:time=500ms,seed=7", "alphabeta:time=500ms,seed=7", ""},
		{"net:path=/tmp/a:b/export,sims=64", "net:path=/tmp/a:b/export,sims=64", ""},
		{"net:path=x=y", "net:path=x=y", ""},
		{"", "", "missing agent kind"},
		{":depth=3", "", "missing agent kind"},
		{"Random", "", "not a lower-case word"},
		{"alpha-beta", "", "not a lower-case word"},
		{"alphabeta:", "", "nothing after"},
		{"alphabeta:depth", "", "not key=value"},
		{"alphabeta:depth=3,", "", "not key=value"},
		{"alphabeta:=3", "", "key \"\" is not"},
		{"alphabeta:Depth=3", "", "key \"Depth\" is not"},
		{"alphabeta:depth=", "", "empty value"},
		{"alphabeta:depth=3,depth=4", "", "given twice"},
	}
	for _, tc := range tests {
		s, err := Parse(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Parse(%q) error = %v, want one containing %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || s.String() != tc.want {
			t.Errorf("Parse(%q) = %q, %v; want %q", tc.in, s, err, tc.want)
		}
	}
}

// testRegistry has one kind recording its parameters.
func testRegistry(t *testing.T, got *[]any) *Registry {
	t.Helper()
	r := &Registry{}
	err := r.Register("probe", Kind{
		Summary: "test kind",
		Keys:    map[string]string{"n": "an int", "d": "a duration", "f": "a float", "s": "a string", "b": "a switch"},
		New: func(_ env.Game, p Params) (agent.Factory, error) {
			n, err := p.Int("n", 5, 1, 10)
			if err != nil {
				return nil, err
			}
			d, err := p.Duration("d", time.Second)
			if err != nil {
				return nil, err
			}
			f, err := p.Float("f", 0.5, 0, 1)
			if err != nil {
				return nil, err
			}
			b, err := p.Bool("b", true)
			if err != nil {
				return nil, err
			}
			*got = []any{n, d, f, p.String("s", "def"), p.Has("s"), b}
			return agent.RandomFactory(), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestBuild(t *testing.T) {
	game := wyb.New(wyb.Options{})
	tests := []struct {
		in       string
		wantVals []any
		wantSeed uint64
		wantErr  string
	}{
		{"probe", []any{5, time.Second, 0.5, "def", false, true}, DefaultSeed, ""},
		{"probe:n=10,d=250ms,f=1,s=x,b=0,seed=42", []any{10, 250 * time.Millisecond, 1.0, "x", true, false}, 42, ""},
		{"probe:b=1", []any{5, time.Second, 0.5, "def", false, true}, DefaultSeed, ""},
		{"probe:b=yes", nil, 0, "b=yes: want 1 (on) or 0 (off)"},
		{"nope", nil, 0, "unknown kind \"nope\" (known: probe)"},
		{"probe:m=1", nil, 0, "kind probe has no key \"m\" (known: b, d, f, n, opening, s, seed)"},
		{"probe:opening=2", []any{5, time.Second, 0.5, "def", false, true}, DefaultSeed, ""},
		{"probe:opening=-1", nil, 0, "opening=-1: want an integer in [0, 1000]"},
		{"probe:n=11", nil, 0, "n=11: want an integer in [1, 10]"},
		{"probe:n=x", nil, 0, "n=x: want an integer"},
		{"probe:d=5", nil, 0, "d=5: want a duration"},
		{"probe:d=-1s", nil, 0, "want a positive duration"},
		{"probe:f=NaN", nil, 0, "f=NaN: want a number"},
		{"probe:f=2", nil, 0, "f=2: want a number in [0, 1]"},
		{"probe:seed=-1", nil, 0, "seed=-1: want an unsigned integer"},
	}
	for _, tc := range tests {
		var got []any
		r := testRegistry(t, &got)
		b, err := r.Build(game, tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Build(%q) error = %v, want one containing %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Build(%q): %v", tc.in, err)
			continue
		}
		if b.Seed != tc.wantSeed {
			t.Errorf("Build(%q) seed = %d, want %d", tc.in, b.Seed, tc.wantSeed)
		}
		if len(got) != len(tc.wantVals) {
			t.Fatalf("Build(%q) params %v, want %v", tc.in, got, tc.wantVals)
		}
		for i := range got {
			if got[i] != tc.wantVals[i] {
				t.Errorf("Build(%q) param %d = %v, want %v", tc.in, i, got[i], tc.wantVals[i])
			}
		}
	}
}

func TestRegister(t *testing.T) {
	r := &Registry{}
	newF := func(env.Game, Params) (agent.Factory, error) { return agent.RandomFactory(), nil }
	if err := r.Register("a", Kind{New: newF}); err != nil {
		t.Fatal(err)
	}
	for name, k := range map[string]Kind{
		"a":    {New: newF},
		"B":    {New: newF},
		"c":    {},
		"d":    {New: newF, Keys: map[string]string{"seed": "x"}},
		"o":    {New: newF, Keys: map[string]string{"opening": "x"}},
		"e f":  {New: newF},
		"":     {New: newF},
		"9lib": {New: newF},
	} {
		if err := r.Register(name, k); err == nil {
			t.Errorf("Register(%q) succeeded", name)
		}
	}
}

func TestBuildFailingKind(t *testing.T) {
	r := &Registry{}
	_ = r.Register("net", Kind{New: func(env.Game, Params) (agent.Factory, error) { return nil, errors.New("no bundle") }})
	if _, err := r.Build(wyb.New(wyb.Options{}), "net"); err == nil || !strings.Contains(err.Error(), "no bundle") {
		t.Errorf("Build = %v, want the constructor's error", err)
	}
}

// TestDefaultKinds builds each baseline agent for Watch Your Back! and lets
// it choose a legal opening action.
func TestDefaultKinds(t *testing.T) {
	game := wyb.New(wyb.Options{})
	r := Default()
	if got := strings.Join(r.Names(), ","); got != "alphabeta,blocker,centre,greedy,locker,mcts,mirror,perfect,random,trader" {
		t.Errorf("Default kinds = %s", got)
	}
	for _, text := range []string{"random", "random:seed=3", "greedy", "alphabeta:depth=1", "alphabeta:time=20ms,seed=2", "alphabeta:depth=2,tt=10", "mcts:sims=20", "mcts:sims=8,rollouts=2,seed=3",
		"centre", "locker:depth=2", "trader:opening=4,seed=2"} {
		b, err := r.Build(game, text)
		if err != nil {
			t.Errorf("Build(%q): %v", text, err)
			continue
		}
		a, err := b.NewAgent(0)
		if err != nil {
			t.Errorf("%s: NewAgent: %v", text, err)
			continue
		}
		s := game.NewInitialState()
		act, err := a.Act(context.Background(), s)
		if err != nil || !s.IsLegal(act) {
			t.Errorf("%s (%s): Act = %d, %v; want a legal action", text, a.Name(), act, err)
		}
	}
	// Watch Your Back! has no solver: no perfect player.
	if _, err := r.Build(game, "perfect"); err == nil || !strings.Contains(err.Error(), "no perfect player") {
		t.Errorf("Build(perfect) for Watch Your Back!: %v", err)
	}
	for _, text := range []string{"alphabeta:depth=-1", "alphabeta:tt=3", "alphabeta:time=0s", "random:depth=1", "mcts:sims=0", "mcts:rollouts=x", "perfect:time=0s",
		"blocker", "mirror", "centre:depth=0", "random:opening=x"} {
		if _, err := r.Build(game, text); err == nil {
			t.Errorf("Build(%q) succeeded", text)
		}
	}
	if !strings.Contains(r.Help(), "alphabeta: ") || !strings.Contains(r.Help(), "depth=") {
		t.Errorf("Help lacks alphabeta's keys:\n%s", r.Help())
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"random", "alphabeta:depth=3,seed=1", "net:path=a,sims=64", ":", "a:b=c,", "a:=,="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse(text)
		if err != nil {
			return
		}
		// The canonical form parses back to the same spec.
		s2, err := Parse(s.String())
		if err != nil {
			t.Fatalf("Parse(%q) ok but its canonical form %q fails: %v", text, s, err)
		}
		if s2.String() != s.String() {
			t.Errorf("round trip %q -> %q -> %q", text, s, s2)
		}
		for _, p := range s.Params {
			if p.Value == "" || strings.Contains(p.Value, ",") || !isWord(p.Key) {
				t.Errorf("Parse(%q) param %+v", text, p)
			}
		}
	})
}
