package gamefile

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/env"
	_ "github.com/zerokit/zerokit/env/games/all"
	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/selfplay/gamestore"
)

// Each format the toolkit writes reads back as the game that was played.
func TestParse(t *testing.T) {
	long, _ := randomGame(t, "wyb-nolimit", 11, 400) // long enough to shrink
	if len(long) < 24+129 {
		t.Fatalf("the random game ended after %d actions, before the first shrink", len(long))
	}
	sq, _ := randomGame(t, "squatter7", 5, 100)
	rec1, rec2 := selfPlayRecord(t, "squatter6", 1), selfPlayRecord(t, "squatter6", 2)
	pending := pendingBytes(t, 4, rec1)
	tests := []struct {
		name, file, game string
		want             [][]int
		players          [2]string
		result           string
		sameBoards       bool // the file has boards, not actions
	}{
		{"net-server games.jsonl", refereeLine(t, long) + "\n\n" + refereeLine(t, long[:30]) + "\n", "", [][]int{long, long[:30]}, [2]string{"alice", "bob"}, "White", false},
		{"referee transcript", transcript(t, long), "", [][]int{long}, [2]string{}, "", true},
		{"two transcripts", transcript(t, long[:50]) + transcript(t, long[:20]), "", [][]int{long[:50], long[:20]}, [2]string{}, "", true},
		{"eval -record, notation", mustJSON(t, notation(t, "squatter7", sq)) + "\n", "squatter7", [][]int{sq}, [2]string{}, "", false},
		{"action numbers", fmt.Sprintf(`{"game":"squatter7","actions":%s}`, mustJSON(t, sq)), "", [][]int{sq}, [2]string{}, "", false},
		{"self-play shard", string(shardBytes(t, rec1, rec2)), "", [][]int{rec1.Actions, rec2.Actions}, [2]string{}, "returns", false},
		{"pending self-play game", string(pending), "", [][]int{rec1.Actions}, [2]string{}, "returns", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.file), tc.game, "f")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d games, want %d", len(got), len(tc.want))
			}
			for i, g := range got {
				if g.Note != "" {
					t.Errorf("game %d: note %q", i, g.Note)
				}
				if tc.sameBoards {
					// Two suicidal placements leave the same board: a
					// transcript tells positions, not always actions.
					if a, b := boards(t, g.Game, g.Actions), boards(t, g.Game, tc.want[i]); a != b {
						t.Errorf("game %d: positions\n%s\nwant\n%s", i, a, b)
					}
				} else if fmt.Sprint(g.Actions) != fmt.Sprint(tc.want[i]) {
					t.Errorf("game %d: actions %v, want %v", i, g.Actions, tc.want[i])
				}
				if g.Players != tc.players || !strings.HasPrefix(g.Result, tc.result) {
					t.Errorf("game %d: players %q, result %q; want %q, %q", i, g.Players, g.Result, tc.players, tc.result)
				}
			}
		})
	}
}

// Bad files are refused with an error that names the problem, and an
// illegal action keeps the game up to it, with a note.
func TestParseErrors(t *testing.T) {
	short, _ := randomGame(t, "wyb-nolimit", 4, 30)
	for _, tc := range []struct {
		name, file, game, want string
	}{
		{"empty", "", "", "empty"},
		{"not a game", "hello, world\n", "", "not a game"},
		{"malformed JSON", `{"actions": [[1,2],`, "", "malformed JSON"},
		{"record without actions", `{"white":"a"}`, "", `without "actions"`},
		{"truncated shard", "ZKSHARD\x01\x05abc", "", "shard"},
		{"damaged pending game", "ZKGAME\x00\x01garbage", "", "f"},
		{"unknown game", `[1,2]`, "chess", "unknown game"},
		{"transcript of another game", transcript(t, short), "squatter6", "no game found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.file), tc.game, "f")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %+v, %v; want an error containing %q", got, err, tc.want)
			}
		})
	}
	got, err := Parse([]byte(`[[3,4],[3,3],[3,4]]`), "", "f")
	if err != nil || len(got) != 1 || len(got[0].Actions) != 2 || !strings.Contains(got[0].Note, "action 2") {
		t.Errorf("illegal third action: %+v, %v", got, err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`[[3,4],[3,3],null]`), "")
	f.Add([]byte(`{"game":"squatter6","actions":["1,2",3]}`), "")
	f.Add([]byte("X - - - - - - X\n- - -\n\n\n\n\n\nX - - - - - - X\n0 turns into the placing phase\n"), "wyb")
	f.Add([]byte("ZKSHARD\x01"), "")
	f.Add([]byte("ZKGAME\x00\x01"), "")
	f.Fuzz(func(t *testing.T, b []byte, game string) {
		games, err := Parse(b, game, "fuzz")
		if err != nil {
			return
		}
		for _, g := range games {
			// A parsed game replays: its actions were checked.
			gm, err := newGame(g.Game)
			if err != nil {
				t.Fatalf("game %q of unknown game %q: %v", g.Label, g.Game, err)
			}
			s := gm.NewInitialState()
			for i, a := range g.Actions {
				if err := s.ApplyAction(a); err != nil {
					t.Fatalf("game %q parsed but action %d does not replay: %v", g.Label, i, err)
				}
			}
		}
	})
}

// randomGame plays a seeded random game of the named game, at most
// maxActions long, and returns its actions and final state.
func randomGame(t testing.TB, name string, seed uint64, maxActions int) ([]int, env.State) {
	t.Helper()
	g, err := newGame(name)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 7))
	s := g.NewInitialState()
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

// boards lists the referee's boards of a game's positions.
func boards(t *testing.T, name string, actions []int) string {
	t.Helper()
	g, err := newGame(name)
	if err != nil {
		t.Fatal(err)
	}
	s := g.NewInitialState()
	sb := strings.Builder{}
	sb.WriteString(s.String() + "\n")
	for _, a := range actions {
		if err := s.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
		sb.WriteString(s.String() + "\n")
	}
	return sb.String()
}

// refereeLine writes a Watch Your Back! game as the net-server's
// games.jsonl line.
func refereeLine(t testing.TB, actions []int) string {
	t.Helper()
	raw := make([]json.RawMessage, len(actions))
	for i, a := range actions {
		raw[i] = json.RawMessage(wyb.RefereeAction(a))
	}
	return mustJSON(t, map[string]any{"id": 7, "white": "alice", "black": "bob", "winner": "White", "actions": raw,
		"start": time.Unix(0, 0).UTC()})
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
	g, err := newGame(name)
	if err != nil {
		t.Fatal(err)
	}
	actions, s := randomGame(t, name, seed, 1000)
	rec := &data.Record{Game: g.Name(), EncodingVersion: g.EncodingVersion(), Actions: actions, Returns: s.Returns(),
		Meta: data.Meta{NetworkStep: 42, Seed: seed, Time: time.Unix(1700000000, 0).UTC()}}
	for _, a := range actions {
		rec.Moves = append(rec.Moves, data.Move{Policy: []data.ActionProb{{Action: int32(a), Prob: 1}}, Full: true, HasRootValue: true, RootValue: 0.25})
	}
	return rec
}

// shardBytes writes recs as one shard and returns its bytes.
func shardBytes(t *testing.T, recs ...*data.Record) []byte {
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
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pendingBytes writes rec as the self-play store's pending game index and
// returns the file's bytes.
func pendingBytes(t *testing.T, index int64, rec *data.Record) []byte {
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
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// notation writes a game's actions in the game's notation.
func notation(t *testing.T, name string, actions []int) []string {
	t.Helper()
	g, err := newGame(name)
	if err != nil {
		t.Fatal(err)
	}
	s := g.NewInitialState()
	var out []string
	for _, a := range actions {
		out = append(out, s.ActionString(a))
		if err := s.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
