package gamefile

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env/games"
	_ "github.com/zerokit/zerokit/env/games/all"
	"github.com/zerokit/zerokit/gamefile/gamefiletest"
)

// Each format the toolkit writes reads back as the game that was played.
func TestParse(t *testing.T) {
	long, _ := gamefiletest.RandomGame(t, "wyb-nolimit", 11, 400) // long enough to shrink
	if len(long) < 24+129 {
		t.Fatalf("the random game ended after %d actions, before the first shrink", len(long))
	}
	sq, _ := gamefiletest.RandomGame(t, "squatter7", 5, 100)
	rec1, rec2 := gamefiletest.SelfPlayRecord(t, "squatter6", 1), gamefiletest.SelfPlayRecord(t, "squatter6", 2)
	pending := gamefiletest.Pending(t, 4, rec1)
	tests := []struct {
		name, file, game string
		want             [][]int
		players          [2]string
		result           string
		sameBoards       bool // the file has boards, not actions
	}{
		{"net-server games.jsonl", gamefiletest.RefereeLine(t, long) + "\n\n" + gamefiletest.RefereeLine(t, long[:30]) + "\n", "", [][]int{long, long[:30]}, [2]string{"alice", "bob"}, "White", false},
		{"referee transcript", gamefiletest.Transcript(t, long), "", [][]int{long}, [2]string{}, "", true},
		{"two transcripts", gamefiletest.Transcript(t, long[:50]) + gamefiletest.Transcript(t, long[:20]), "", [][]int{long[:50], long[:20]}, [2]string{}, "", true},
		{"eval -record, notation", mustJSON(t, notation(t, "squatter7", sq)) + "\n", "squatter7", [][]int{sq}, [2]string{}, "", false},
		{"action numbers", fmt.Sprintf(`{"game":"squatter7","actions":%s}`, mustJSON(t, sq)), "", [][]int{sq}, [2]string{}, "", false},
		{"self-play shard", string(gamefiletest.Shard(t, rec1, rec2)), "", [][]int{rec1.Actions, rec2.Actions}, [2]string{}, "returns", false},
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
	short, _ := gamefiletest.RandomGame(t, "wyb-nolimit", 4, 30)
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
		{"transcript of another game", gamefiletest.Transcript(t, short), "squatter6", "no game found"},
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
		got, err := Parse(b, game, "fuzz")
		if err != nil {
			return
		}
		for _, g := range got {
			// A parsed game replays: its actions were checked.
			gm, err := games.ByName(g.Game)
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

// boards lists the referee's boards of a game's positions.
func boards(t *testing.T, name string, actions []int) string {
	t.Helper()
	s := gamefiletest.Game(t, name).NewInitialState()
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

// notation writes a game's actions in the game's notation.
func notation(t *testing.T, name string, actions []int) []string {
	t.Helper()
	s := gamefiletest.Game(t, name).NewInitialState()
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
