package main

import (
	"slices"
	"testing"
)

// TestParseOpponent: -vs values and what they become; a budget gives the
// opponent an even split of it (-unweighted), so that the game's move
// weights, which belong to the agent measured, leave the baseline alone.
func TestParseOpponent(t *testing.T) {
	for _, tc := range []struct {
		in      string
		spec    string
		args    []string
		noClock bool
	}{
		{"greedy", "greedy", nil, false},
		{"alphabeta:time=2s@55s", "alphabeta:time=2s", []string{"-game-time", "55s", "-unweighted"}, false},
		{"alphabeta:depth=4@noclock", "alphabeta:depth=4", nil, true},
		{"alphabeta:time=1s@30s@noclock", "alphabeta:time=1s", []string{"-game-time", "30s", "-unweighted"}, true},
	} {
		o, err := parseOpponent(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if o.Spec != tc.spec || !slices.Equal(o.ServeArgs, tc.args) || o.NoClock != tc.noClock {
			t.Errorf("%s: got spec %q, serve args %q, noclock %v; want %q, %q, %v", tc.in, o.Spec, o.ServeArgs, o.NoClock, tc.spec, tc.args, tc.noClock)
		}
	}
	for _, bad := range []string{"@55s", "greedy@", "greedy@-1s", "greedy@55s@60s", "greedy@noclock@noclock", "module:"} {
		if _, err := parseOpponent(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
