// Package gamefiletest writes, for tests, the game files that package
// gamefile reads: random games as the course referee's transcript, as the
// net-server's JSON lines, and as self-play records, shards and pending
// games. The games it names must be registered (import env/games/all).
package gamefiletest

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

// Game builds the named game.
func Game(t testing.TB, name string) env.Game {
	t.Helper()
	g, err := games.ByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// RandomGame plays a seeded random game of the named game, at most
// maxActions long, and returns its actions and final state.
func RandomGame(t testing.TB, name string, seed uint64, maxActions int) ([]int, env.State) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	s := Game(t, name).NewInitialState()
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

// RefereeLine writes a Watch Your Back! game as a line of the net-server's
// games.jsonl, White alice and Black bob.
func RefereeLine(t testing.TB, actions []int) string {
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

// Transcript writes a Watch Your Back! game as zerokit replay prints it:
// the referee's board and progress line after each action.
func Transcript(t testing.TB, actions []int) string {
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

// SelfPlayRecord builds a self-play record of a random game of the named
// game, with root values.
func SelfPlayRecord(t testing.TB, name string, seed uint64) *data.Record {
	t.Helper()
	g := Game(t, name)
	actions, s := RandomGame(t, name, seed, 1000)
	rec := &data.Record{Game: g.Name(), EncodingVersion: g.EncodingVersion(), Actions: actions, Returns: s.Returns(),
		Meta: data.Meta{NetworkStep: 42, Seed: seed, Time: time.Unix(1700000000, 0).UTC()}}
	for _, a := range actions {
		rec.Moves = append(rec.Moves, data.Move{Policy: []data.ActionProb{{Action: int32(a), Prob: 1}}, Full: true, HasRootValue: true, RootValue: 0.25})
	}
	return rec
}

// Shard writes recs as one shard and returns its bytes.
func Shard(t testing.TB, recs ...*data.Record) []byte {
	t.Helper()
	w, err := data.NewWriter(t.TempDir(), 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	path, err := w.Flush()
	if err != nil {
		t.Fatal(err)
	}
	return readFile(t, path)
}

// Pending stores rec as the self-play store's pending game index and
// returns the file's bytes.
func Pending(t testing.TB, index int64, rec *data.Record) []byte {
	t.Helper()
	dir := t.TempDir()
	st, _, err := gamestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Add(index, rec); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.zkg"))
	if err != nil || len(files) != 1 {
		t.Fatalf("pending files %q, %v: want one", files, err)
	}
	return readFile(t, files[0])
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
