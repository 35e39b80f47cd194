package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent/neural"
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

// TestAgentID checks that refbench's name for an agent, which -resume
// compares, tells apart two agents with the same weights and different
// searches, and names the same agent the same way wherever it lies.
func TestAgentID(t *testing.T) {
	shipped := filepath.Join("..", "..", "agents", "wyb")
	manifest, err := os.ReadFile(filepath.Join(shipped, "agent.json"))
	if err != nil {
		t.Fatal(err)
	}
	// copyAgent copies the shipped agent with its manifest edited by edit.
	copyAgent := func(edit func(*neural.Manifest)) string {
		dir := t.TempDir()
		for _, name := range []string{"weights.ckpt", "zerokit_player.json"} {
			b, err := os.ReadFile(filepath.Join(shipped, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		m, err := neural.DecodeManifest(manifest)
		if err != nil {
			t.Fatal(err)
		}
		edit(&m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "agent.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	same := func(*neural.Manifest) {}
	a, b := copyAgent(same), copyAgent(same)
	other := copyAgent(func(m *neural.Manifest) { m.Search.Simulations++ })
	idA := agentID(a)
	if !strings.HasPrefix(idA, "weights sha256 ") || !strings.Contains(idA, "serve -game-time 55s") {
		t.Errorf("agentID = %q; want the weights' SHA-256, the search and the adapter's serve arguments", idA)
	}
	if idB := agentID(b); idB != idA {
		t.Errorf("two copies of one agent: %q and %q", idA, idB)
	}
	if idO := agentID(other); idO == idA {
		t.Errorf("another search, same weights: both named %q", idA)
	}
	// No manifest: the directory's path.
	dir := t.TempDir()
	if got := agentID(dir); got != dir {
		t.Errorf("agentID of a directory without a manifest = %q, want %q", got, dir)
	}
}
