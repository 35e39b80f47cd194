package wubpp

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/agent"
)

func TestTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	tab, err := OpenTable(path)
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
	// The table survives a restart.
	again, err := OpenTable(path)
	if err != nil {
		t.Fatal(err)
	}
	check(again)
	var buf bytes.Buffer
	if err := again.WriteText(&buf); err != nil || !strings.Contains(buf.String(), "1-1-1") {
		t.Errorf("WriteText: %v\n%s", err, buf.String())
	}
	// No temporary file is left next to it.
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Errorf("directory holds %d files, want results.json alone", len(ents))
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenTable(path); err == nil {
		t.Error("a corrupt table was accepted")
	}
}

func TestGameLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "games.jsonl")
	log, n, err := OpenGameLog(path)
	if err != nil || n != 0 {
		t.Fatalf("OpenGameLog: %d, %v", n, err)
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
	log, n, err = OpenGameLog(path)
	if err != nil || n != 2 {
		t.Fatalf("reopened: %d records, %v; want 2", n, err)
	}
	if err := log.Write(Record{ID: 3, Actions: []json.RawMessage{}}); err != nil {
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
