package cli

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env/wyb"
)

var oracleDir = filepath.Join("..", "..", "shared", "oracle-sample")

// oracleLines returns the "actions" of each line of a gzipped JSON-lines
// oracle file as compact JSON, plus the decoded records.
func oracleLines(t *testing.T, name string) ([]string, []map[string]json.RawMessage) {
	t.Helper()
	f, err := os.Open(filepath.Join(oracleDir, name))
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("oracle vectors not present: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	var recs []map[string]json.RawMessage
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := json.Compact(&b, rec["actions"]); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b.String())
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines, recs
}

func replay(t *testing.T, input string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := runReplay(context.Background(), nil, strings.NewReader(input), &out, &errOut)
	return out.String(), err
}

// TestReplayTranscripts reproduces the referee's transcripts byte for byte.
func TestReplayTranscripts(t *testing.T) {
	games, _ := oracleLines(t, "traces.jsonl.gz")
	f, err := os.Open(filepath.Join(oracleDir, "transcripts.txt.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	got, err := replay(t, strings.Join(games, "\n")+"\n")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				t.Fatalf("transcript differs at line %d: got %q, want %q", i+1, g[i], w[i])
			}
		}
		t.Fatalf("transcript has %d lines, want %d", len(g), len(w))
	}
}

// TestReplayInvalid checks that each illegal action is reported after the
// right number of states, followed by the referee's verdict.
func TestReplayInvalid(t *testing.T) {
	games, recs := oracleLines(t, "invalid.jsonl.gz")
	got, err := replay(t, strings.Join(games, "\n")+"\n")
	if err != nil {
		t.Fatal(err)
	}
	sections := strings.Split(got, "=== game ")[1:]
	if len(sections) != len(games) {
		t.Fatalf("%d sections for %d games", len(sections), len(games))
	}
	for k, sec := range sections {
		var bad int
		if err := json.Unmarshal(recs[k]["bad_index"], &bad); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(sec, "\n"), "\n")
		states := 0
		for i, ln := range lines {
			if strings.HasSuffix(ln, " phase") || ln == "game over!" {
				states++
			}
			if strings.HasPrefix(ln, "invalid action (") {
				if states != bad+1 {
					t.Errorf("case %d: rejected after %d states, want %d", k, states, bad+1)
				}
				mover, winner := ln[len("invalid action (")], ""
				if i+1 < len(lines) {
					winner = lines[i+1]
				}
				want := map[byte]string{'W': "winner: B!", 'B': "winner: W!"}[mover]
				if winner != want || i+2 != len(lines) {
					t.Errorf("case %d: after %q comes %q (line %d of %d), want %q last", k, ln, winner, i+2, len(lines), want)
				}
				break
			}
			if i == len(lines)-1 {
				t.Errorf("case %d: no invalid action line", k)
			}
		}
	}
}

func TestReplayEdgeCases(t *testing.T) {
	// A short game: White places twice with Black capturing nothing.
	initial := "X - - - - - - X\n- - - - - - - -\n- - - - - - - -\n- - - - - - - -\n" +
		"- - - - - - - -\n- - - - - - - -\n- - - - - - - -\nX - - - - - - X\n"
	cases := []struct {
		name    string
		input   string
		want    []string // lines that must appear, in order
		wantErr string   // substring of the error, "" for none
	}{
		{
			name:  "incomplete game ends with the referee's None winner",
			input: "[[3, 4]]\n",
			want:  []string{"=== game 0", "0 turns into the placing phase", "1 turns into the placing phase", "winner: None!"},
		},
		{
			name:  "blank lines are skipped and games numbered consecutively",
			input: "[]\n\n   \n[]",
			want:  []string{"=== game 0", "winner: None!", "=== game 1", "winner: None!"},
		},
		{
			name:  "illegal first action",
			input: "[[3, 7]]\n[null]\n",
			want: []string{"=== game 0", "0 turns into the placing phase",
				"invalid action (W): place (3, 7) is outside White's starting zone (rows 0-5)", "winner: B!",
				"=== game 1", "invalid action (W): cannot forfeit in the placing phase", "winner: B!"},
		},
		{
			name:    "malformed line stops with its line number after the earlier games",
			input:   "[]\n[[1, 2]\n[]\n",
			want:    []string{"=== game 0", "winner: None!"},
			wantErr: "stdin line 2",
		},
		{
			name:    "a line that is not an array",
			input:   "\"actions\"\n",
			wantErr: "stdin line 1: not a JSON array",
		},
		{
			name:  "net-server game records replay by their actions, numbered by their ids",
			input: "{\"id\": 12, \"white\": \"a\", \"actions\": [[3, 4], [3, 7]]}\n",
			want:  []string{"=== game 12", "1 turns into the placing phase", "2 turns into the placing phase", "winner: None!"},
		},
		{
			name: "a game the server ended early keeps its recorded result",
			input: `{"id":7,"white":"a","black":"b","winner":"black","reason":"ran out of time (60s per game)","actions":[[3,4]]}` + "\n" +
				`{"id":3,"white":"a","black":"b","winner":"white","reason":"disconnected","actions":[]}` + "\n" +
				`{"id":9,"white":"a","black":"b","winner":"","reason":"server shutting down, game abandoned","actions":[[3,4],[3,3]]}` + "\n",
			want: []string{"=== game 7", "1 turns into the placing phase", "ended by the server: ran out of time (60s per game)\nwinner: B!",
				"=== game 3", "ended by the server: disconnected\nwinner: W!",
				"=== game 9", "2 turns into the placing phase", "ended by the server: server shutting down, game abandoned\nwinner: none (abandoned)!"},
		},
		{
			name:    "a record with an unknown winner",
			input:   `{"id":1,"winner":"W","actions":[]}` + "\n",
			wantErr: `stdin line 1: JSON game record with winner "W"`,
		},
		{
			name:    "a record without actions",
			input:   "{\"id\": 1}\n",
			wantErr: "stdin line 1: JSON game record without \"actions\"",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := replay(t, c.input)
			if c.wantErr == "" && err != nil {
				t.Fatalf("error %v", err)
			}
			if c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("error %v, want one containing %q", err, c.wantErr)
			}
			if _, board, _ := strings.Cut(got, "\n"); len(c.want) > 0 && !strings.HasPrefix(board, initial) {
				t.Errorf("output does not start with the initial board:\n%s", got)
			}
			rest := got
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (in order):\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			if strings.Contains(c.name, "malformed") && strings.Count(got, "=== game") != 1 {
				t.Errorf("games after the malformed line were replayed:\n%s", got)
			}
		})
	}
}

// TestReplayAfterGameOver plays a sample game with one extra action.
func TestReplayAfterGameOver(t *testing.T) {
	games, _ := oracleLines(t, "traces.jsonl.gz")
	g := games[0]
	extra := g[:len(g)-1] + ",null]"
	got, err := replay(t, extra+"\n")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	n := len(lines)
	if n < 3 || lines[n-3] != "game over!" || !strings.HasPrefix(lines[n-2], "invalid action (") ||
		!strings.Contains(lines[n-2], "the game is over") || !strings.HasPrefix(lines[n-1], "winner: ") {
		t.Errorf("unexpected ending:\n%s", strings.Join(lines[max(0, n-5):], "\n"))
	}
}

func TestReplayRejectsArguments(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := runReplay(context.Background(), []string{"games.jsonl"}, strings.NewReader(""), &out, &errOut); err == nil {
		t.Error("positional argument accepted")
	}
}

// FuzzParseGameLine: no input line panics the replay's parser, and a line
// it accepts has its actions (and, from a record, a known winner).
func FuzzParseGameLine(f *testing.F) {
	f.Add([]byte(`[[3,4],null,[[1,2],[1,3]]]`))
	f.Add([]byte(`{"id":7,"winner":"black","reason":"ran out of time","actions":[[3,4]]}`))
	f.Add([]byte(`{"id":7,"winner":"W","actions":[]}`))
	f.Add([]byte(`{"actions":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			return
		}
		g, err := parseGameLine(b)
		if err != nil {
			return
		}
		if g.winner != nil {
			if _, ok := recordedWinner[*g.winner]; !ok {
				t.Fatalf("accepted winner %q", *g.winner)
			}
		}
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		n := 0
		if g.id == nil {
			g.id = &n
		}
		if err := replayGame(w, wyb.New(wyb.Options{}).NewState(), g); err != nil {
			t.Fatal(err)
		}
	})
}
