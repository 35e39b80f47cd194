package web

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/selfplay/gamestore"
)

// newGameT builds the named game.
func newGameT(t testing.TB, name string) env.Game {
	t.Helper()
	c, err := games.ConfigFromName(name)
	if err != nil {
		t.Fatal(err)
	}
	g, err := games.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// randomGame plays a seeded random game of the named game, at most
// maxActions long, and returns its actions and final state.
func randomGame(t testing.TB, name string, seed uint64, maxActions int) ([]int, env.State) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	s := newGameT(t, name).NewInitialState()
	var actions []int
	for !s.IsTerminal() && len(actions) < maxActions {
		legal := s.LegalActions(nil)
		a := legal[r.IntN(len(legal))]
		if err := s.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
		actions = append(actions, a)
	}
	return actions, s
}

// refereeLine writes a Watch Your Back! game as the net-server's
// games.jsonl line.
func refereeLine(t testing.TB, actions []int) string {
	t.Helper()
	raw := make([]json.RawMessage, len(actions))
	for i, a := range actions {
		raw[i] = json.RawMessage(wyb.RefereeAction(a))
	}
	b, err := json.Marshal(map[string]any{"id": 7, "white": "alice", "black": "bob", "winner": "White", "actions": raw,
		"start": time.Unix(0, 0).UTC()})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// transcript writes a Watch Your Back! game as zerokit replay prints it.
func transcript(t testing.TB, actions []int) string {
	t.Helper()
	s := wyb.New(wyb.Options{}).NewState()
	var sb strings.Builder
	sb.WriteString("=== game 0\n" + s.RefereeString() + "\n")
	for _, a := range actions {
		if err := s.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
		sb.WriteString(s.RefereeString() + "\n")
	}
	sb.WriteString("winner: " + s.RefereeWinner() + "!\n")
	return sb.String()
}

// selfPlayRecord builds a self-play record of a random game, with root
// values.
func selfPlayRecord(t testing.TB, name string, seed uint64) *data.Record {
	t.Helper()
	g := newGameT(t, name)
	actions, s := randomGame(t, name, seed, 1000)
	rec := &data.Record{Game: g.Name(), EncodingVersion: g.EncodingVersion(), Actions: actions, Returns: s.Returns(),
		Meta: data.Meta{NetworkStep: 42, Seed: seed, Time: time.Unix(1700000000, 0).UTC()}}
	for _, a := range actions {
		rec.Moves = append(rec.Moves, data.Move{Policy: []data.ActionProb{{Action: int32(a), Prob: 1}}, Full: true, HasRootValue: true, RootValue: 0.25})
	}
	return rec
}

// writeRun makes a run directory with metrics lines and self-play games:
// one compacted shard and one pending game.
func writeRun(t testing.TB, dir string, metrics []string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "metrics.jsonl"), []byte(strings.Join(metrics, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _, err := gamestore.Open(filepath.Join(dir, "games"))
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 3; i++ {
		if err := st.Add(i, selfPlayRecord(t, "squatter6", uint64(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := st.Compact(3); err != nil {
		t.Fatal(err)
	}
	if err := st.Add(3, selfPlayRecord(t, "wyb", 9)); err != nil {
		t.Fatal(err)
	}
}
