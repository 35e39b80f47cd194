package web

import (
	"encoding/json"
	"net/http"
	"testing"

	// A game added in its own package; the page offers it as soon as it is
	// registered.
	_ "github.com/zerokit/zerokit/env/connect4"
)

// The page offers every registered game it can draw, beside its own list,
// and plays it: Connect Four's discs land on the bottom row.
func TestAddedGame(t *testing.T) {
	ts := newTestServer(t, Config{})
	code, b := do(t, ts, "GET", "/api/info", "")
	var info Info
	if err := json.Unmarshal(b, &info); code != http.StatusOK || err != nil {
		t.Fatalf("info: %d %v %s", code, err, b)
	}
	found := false
	for _, g := range info.Games {
		if g.Name == "connect4" {
			found = g.Title == "Connect Four" && g.Colours == [2]string{"X", "O"}
		}
	}
	if !found || len(info.Games) != 5 {
		t.Fatalf("the page offers %+v, want the four of its list and connect4", info.Games)
	}
	g := newGameID(t, ts, `{"game":"connect4-6x5","agent":"random"}`)
	if g.Width != 6 || g.Height != 5 || len(g.Position.Legal) != 6 {
		t.Fatalf("game %+v", g)
	}
	for i, m := range g.Position.Legal {
		if m.From != 4*6+i || m.To != m.From {
			t.Errorf("column %d lands on cell %d..%d, want %d", i, m.From, m.To, 4*6+i)
		}
	}
}
