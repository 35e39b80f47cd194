package cli

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
	same := func(*neural.Manifest) {}
	a, b := copyShippedAgent(t, same, ""), copyShippedAgent(t, same, "")
	other := copyShippedAgent(t, func(m *neural.Manifest) { m.Search.Simulations++ }, "")
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

// TestOwnAgentSpec checks that refbench plays an exported agent's own
// directory where its adapter would run the agent built into zerokit
// (which may be another), and leaves any other spec alone.
func TestOwnAgentSpec(t *testing.T) {
	same := func(*neural.Manifest) {}
	for _, tc := range []struct {
		name, config string // config: zerokit_player.json; "": the shipped agent's
		want         string // "DIR" stands for the directory's absolute path
	}{
		{"shipped adapter (default)", "", "net:path=DIR"},
		{"default with parameters", `{"agent": "default:sims=400,time=2s", "args": []}`, "net:path=DIR,sims=400,time=2s"},
		{"no agent named", `{"args": ["-game-time", "55s"]}`, "net:path=DIR"},
		{"another spec", `{"agent": "alphabeta:depth=3", "args": []}`, ""},
		{"the directory already", `{"agent": "net:path=/x/agent", "args": []}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyShippedAgent(t, same, tc.config)
			got, err := ownAgentSpec(dir, false)
			if want := strings.ReplaceAll(tc.want, "DIR", dir); err != nil || got != want {
				t.Errorf("ownAgentSpec = %q, %v; want %q", got, err, want)
			}
		})
	}
	// Without a manifest there is nothing else to play.
	if got, err := ownAgentSpec(t.TempDir(), false); err != nil || got != "" {
		t.Errorf("no manifest: %q, %v; want \"\"", got, err)
	}
	// A broken adapter configuration is reported.
	if _, err := ownAgentSpec(copyShippedAgent(t, same, "{"), false); err == nil || !strings.Contains(err.Error(), "zerokit_player.json") {
		t.Errorf("a broken zerokit_player.json: %v", err)
	}
	// A path an agent spec cannot hold is refused, not played as another
	// agent.
	comma := filepath.Join(t.TempDir(), "a,b")
	if err := os.Rename(copyShippedAgent(t, same, ""), comma); err != nil {
		t.Fatal(err)
	}
	if _, err := ownAgentSpec(comma, false); err == nil || !strings.Contains(err.Error(), "cannot hold its path") {
		t.Errorf("a path with a comma: %v", err)
	}
}

// copyShippedAgent copies the shipped Watch Your Back! agent (its weights,
// its manifest edited by edit, and config as its zerokit_player.json, ""
// for the shipped one) into a new directory and returns its path.
func copyShippedAgent(t *testing.T, edit func(*neural.Manifest), config string) string {
	t.Helper()
	shipped := filepath.Join("..", "agents", "wyb")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(shipped, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	dir := t.TempDir()
	m, err := neural.DecodeManifest(read("agent.json"))
	if err != nil {
		t.Fatal(err)
	}
	edit(&m)
	manifest, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	conf := read("zerokit_player.json")
	if config != "" {
		conf = []byte(config)
	}
	for name, b := range map[string][]byte{"weights.ckpt": read("weights.ckpt"), "agent.json": manifest, "zerokit_player.json": conf} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
