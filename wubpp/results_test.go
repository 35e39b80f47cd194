package wubpp

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/agent"
)

func TestTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	tab, err := NewTable(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	games := []Record{
		{White: "a", Black: "b", Winner: White},
		{White: "b", Black: "a", Winner: Draw},
		{White: "a", Black: "c", Winner: Black},
		{White: "a", Black: "a", Winner: White}, // against oneself: not counted
		{White: "a", Black: "b"},                // abandoned: not counted
	}
	for _, g := range games {
		if err := tab.Add(g); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string][3]int{"a": {1, 1, 1}, "b": {0, 1, 1}, "c": {1, 0, 0}}
	check := func(tab *Table) {
		t.Helper()
		st := tab.Standings()
		sum := 0.0
		for i, s := range st {
			if w := want[s.Name]; [3]int{s.Wins, s.Draws, s.Losses} != w {
				t.Errorf("%s: %d-%d-%d, want %v", s.Name, s.Wins, s.Draws, s.Losses, w)
			}
			if i > 0 && st[i-1].Elo < s.Elo {
				t.Errorf("not sorted by Elo: %+v", st)
			}
			sum += s.Elo
		}
		if len(st) != 3 || math.Abs(sum-3*InitialElo) > 1e-9 {
			t.Errorf("standings %+v: want 3 players, Elo summing to %d", st, 3*InitialElo)
		}
		// a beat b (+16), drew b, lost to c: c gained most.
		if st[0].Name != "c" {
			t.Errorf("leader %s, want c", st[0].Name)
		}
	}
	check(tab)
	saved := readTableFile(t, path)
	if saved.Games != 3 || !slices.Equal(saved.Players, tab.Standings()) {
		t.Errorf("saved table %+v, want 3 games and %+v", saved, tab.Standings())
	}
	// A table rebuilt from the games is the same.
	again, err := NewTable(path, games)
	if err != nil {
		t.Fatal(err)
	}
	check(again)
	if !slices.Equal(again.Standings(), tab.Standings()) {
		t.Errorf("rebuilt %+v, counted %+v", again.Standings(), tab.Standings())
	}
	var buf bytes.Buffer
	if err := again.WriteText(&buf); err != nil || !strings.Contains(buf.String(), "1-1-1") {
		t.Errorf("WriteText: %v\n%s", err, buf.String())
	}
	// No temporary file is left next to it.
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Errorf("directory holds %d files, want results.json alone", len(ents))
	}
}

func readTableFile(t *testing.T, path string) tableFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f tableFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

func TestGameLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "games.jsonl")
	log, recs, err := OpenGameLog(path)
	if err != nil || len(recs) != 0 {
		t.Fatalf("OpenGameLog: %d, %v", len(recs), err)
	}
	for id := uint64(1); id <= 2; id++ {
		if err := log.Write(Record{ID: id, White: "a", Black: "b", Winner: White, Actions: []json.RawMessage{json.RawMessage("[3, 4]")}}); err != nil {
			t.Fatal(err)
		}
	}
	log.Close()
	// A crash in the middle of a record leaves half a line.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"id":3,"wh`)
	f.Close()
	log, recs, err = OpenGameLog(path)
	if err != nil || len(recs) != 2 || recs[1].ID != 2 || recs[1].Winner != White || recs[1].White != "a" || recs[1].Black != "b" {
		t.Fatalf("reopened: %+v, %v; want the 2 records", recs, err)
	}
	if err := log.Write(Record{ID: 3, White: "a", Black: "b", Actions: []json.RawMessage{}}); err != nil {
		t.Fatal(err)
	}
	log.Close()
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("log:\n%s", b)
	}
	for i, l := range lines {
		var r Record
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.ID != uint64(i+1) {
			t.Errorf("line %d %q: %+v, %v", i+1, l, r, err)
		}
	}
}

// TestHouse plays two clients against the house agent: one game in each
// colour.
func TestHouse(t *testing.T) {
	house := &House{
		Name:     "house",
		NewAgent: func(int) (agent.Agent, error) { return agent.NewRandom(7), nil },
		Match:    func(key string) bool { return key == "bot" },
	}
	addr, records := startServer(t, ServerConfig{House: house})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	colours := map[string]bool{}
	for i := range 2 {
		res, err := join(ctx, t, addr, "me", "bot", uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		if res.Winner == "" || (res.White == "house") == (res.Black == "house") {
			t.Fatalf("game %d: %+v", i, res)
		}
		colours[res.Colour] = true
	}
	if len(colours) != 2 || len(records()) != 2 {
		t.Errorf("colours played %v, %d records; want both colours, 2 records", colours, len(records()))
	}
}

// TestGameLogIDs: ids go on after the largest one in the log, not after
// the number of its lines: games end out of order, so after a crash some
// ids below the largest are missing, and must not be reused.
func TestGameLogIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "games.jsonl")
	log, _, err := OpenGameLog(path)
	if err != nil {
		t.Fatal(err)
	}
	// Games 1 and 4 ended; 2 and 3 were in progress when the server died.
	for _, id := range []uint64{4, 1} {
		if err := log.Write(Record{ID: id, White: "a", Black: "b", Winner: Black, Actions: []json.RawMessage{}}); err != nil {
			t.Fatal(err)
		}
	}
	log.Close()
	log, recs, err := OpenGameLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if got := LastID(recs); got != 4 {
		t.Fatalf("LastID = %d, want 4", got)
	}
	addr, records := startServer(t, ServerConfig{FirstID: LastID(recs)})
	playPair(t, addr, "")
	if got := records(); len(got) != 1 || got[0].ID != 5 {
		t.Errorf("next games %+v, want one numbered 5", got)
	}
}

// TestGameLogErrors: a log line that is not a game record is an error
// naming the line, and the file is not touched; only a last line without
// its newline (a crash mid-write) is dropped.
func TestGameLogErrors(t *testing.T) {
	good := `{"id":1,"white":"a","black":"b","winner":"white","actions":[]}` + "\n"
	for _, c := range []struct{ name, text, want string }{
		{"not JSON", good + "{oops\n", "line 2: not a game record"},
		{"no id", `{"white":"a","black":"b","winner":"white"}` + "\n", "line 1: game record without an id"},
		{"bad winner", `{"id":3,"white":"a","black":"b","winner":"W"}` + "\n", `game 3: winner "W"`},
		{"no name", `{"id":3,"white":"","black":"b","winner":"white"}` + "\n", "game 3: a player without a name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "games.jsonl")
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := OpenGameLog(path)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("err %v, want one naming %s and %q", err, path, c.want)
			}
			if b, _ := os.ReadFile(path); string(b) != c.text {
				t.Errorf("the log was changed to %q", b)
			}
		})
	}
}

// FuzzParseRecord: no line of a games log panics the reader, and a line
// it accepts is a record that passes its checks and survives a round
// trip.
func FuzzParseRecord(f *testing.F) {
	f.Add([]byte(`{"id":1,"white":"a","black":"b","winner":"white","actions":[[3,4]]}` + "\n"))
	f.Add([]byte(`{"id":2,"white":"a","black":"b","winner":"","reason":"server shutting down, game abandoned","actions":[]}`))
	f.Add([]byte(`{"id":0}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseRecord(b)
		if err != nil {
			return
		}
		if r.ID == 0 || r.White == "" || r.Black == "" {
			t.Fatalf("accepted %+v", r)
		}
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		again, err := parseRecord(out)
		if err != nil || again.ID != r.ID || again.Winner != r.Winner || again.White != r.White {
			t.Fatalf("round trip: %+v, %v; want %+v", again, err, r)
		}
	})
}
