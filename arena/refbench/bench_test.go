package refbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGameAgentSpec(t *testing.T) {
	o := Options{}
	if s, err := o.GameAgentSpec("net:path=/a", 3); err != nil || s != "net:path=/a" {
		t.Errorf("no opening: %q, %v", s, err)
	}
	o.AgentOpening = 2
	for _, tc := range []struct {
		base  string
		index int
		want  string
	}{
		{"net:path=/a,sims=0", 0, "net:path=/a,sims=0,opening=2,seed=1"},
		{"net:path=/a", 1, "net:path=/a,opening=2,seed=1"}, // a colour-swapped pair shares its seed
		{"default:seed=9,opening=7", 4, "default:opening=2,seed=3"},
	} {
		if got, err := o.GameAgentSpec(tc.base, tc.index); err != nil || got != tc.want {
			t.Errorf("GameAgentSpec(%q, %d) = %q, %v; want %q", tc.base, tc.index, got, err, tc.want)
		}
	}
	if _, err := o.GameAgentSpec("", 0); err == nil {
		t.Error("an opening without the agent's spec: no error")
	}
	// A temperature replaces the random opening.
	o.AgentTemperature, o.AgentTemperatureMoves = 0.5, 8
	for _, tc := range []struct {
		base  string
		index int
		want  string
	}{
		{"net:path=/a", 1, "net:path=/a,temp=0.5,tempmoves=8,seed=1"},
		{"default:opening=2,temp=1,tempmoves=2,seed=4", 5, "default:temp=0.5,tempmoves=8,seed=3"},
	} {
		if got, err := o.GameAgentSpec(tc.base, tc.index); err != nil || got != tc.want {
			t.Errorf("GameAgentSpec(%q, %d) = %q, %v; want %q", tc.base, tc.index, got, err, tc.want)
		}
	}
	// One colour: each game its own seed, game k that of pair k.
	o.Colour = "black"
	for index, want := range []string{"net:path=/a,temp=0.5,tempmoves=8,seed=1", "net:path=/a,temp=0.5,tempmoves=8,seed=2"} {
		if got, err := o.GameAgentSpec("net:path=/a", index); err != nil || got != want {
			t.Errorf("Black only: GameAgentSpec(net:path=/a, %d) = %q, %v; want %q", index, got, err, want)
		}
	}
}

func TestDistinctAndDigest(t *testing.T) {
	out := "Referee version 1.2\ntime: 0.5s\nboard A\n1 turns into the placing phase\nspace: 3MB\nwinner: W!\n"
	same := "Referee version 1.2\ntime: 0.9s\nboard A\n1 turns into the placing phase\nspace: 9MB\nwinner: W!\n"
	other := "Referee version 1.2\nboard B\n1 turns into the placing phase\nwinner: W!\n"
	a, b, c := MovesDigest(out, isMoveRecord), MovesDigest(same, isMoveRecord), MovesDigest(other, isMoveRecord)
	if a != b {
		t.Error("games differing only in timings have different digests")
	}
	if a == c {
		t.Error("different games have the same digest")
	}
	games := []Game{
		{AgentColour: "white", MovesSHA256: a}, {AgentColour: "white", MovesSHA256: a}, {AgentColour: "white", MovesSHA256: c},
		{AgentColour: "black", MovesSHA256: a}, {AgentColour: "black"}, {AgentColour: "black"},
	}
	if w, bl := Distinct(games, "white"), Distinct(games, "black"); w != 2 || bl != 3 {
		t.Errorf("Distinct = %d as White, %d as Black; want 2 and 3", w, bl)
	}
	for i := range games {
		games[i].Outcome = Draw
	}
	m := (&Options{}).summarise("x", games)
	if m.DistinctAsWhite != 2 || m.DistinctAsBlack != 3 {
		t.Errorf("summarise: distinct %d, %d", m.DistinctAsWhite, m.DistinctAsBlack)
	}
}

// TestRootOpponent checks a multi-file opponent: its folder's entries are
// linked into the game's directory, and its module name is checked.
func TestRootOpponent(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "player.py"), []byte("class Player: pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "referee.out"), []byte("theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gdir := t.TempDir()
	if err := linkEntries(root, gdir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(gdir, "player.py")); err != nil {
		t.Error(err)
	}
	if _, err := os.Lstat(filepath.Join(gdir, "referee.out")); err == nil {
		t.Error("the agent's referee.out was linked over the game's")
	}
	for name, ok := range map[string]bool{"player": true, "Players.Player_MCTS": true, "my-player": false, "a..b": false, "": false} {
		if validModuleName(name) != ok {
			t.Errorf("validModuleName(%q) = %v", name, !ok)
		}
	}
	o := Options{Referee: os.Args[0], Agent: t.TempDir(), Opponents: []Opponent{{Module: "my-player", Root: root}}}
	if err := os.WriteFile(filepath.Join(o.Agent, "__init__.py"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := o.checkPython(); err == nil || !strings.Contains(err.Error(), "not a dotted Python module name") {
		t.Errorf("checkPython = %v", err)
	}
	o.Opponents[0].Module = "player"
	o.Opponents[0].Label = "theirs"
	if err := o.checkPython(); err != nil && !strings.Contains(err.Error(), "python interpreter") {
		t.Errorf("checkPython = %v", err)
	}
	if got := o.Opponents[0].Name(); got != "theirs" {
		t.Errorf("Name = %q", got)
	}
}
