package main

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/zerokit/zerokit/web"
)

// Every game the page offers is registered in the module (a game the
// program does not import would be listed without colours, and fail).
func TestPageGamesRegistered(t *testing.T) {
	srv, err := newServer(&networks{})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/api/info", nil))
	var info web.Info
	if err := json.Unmarshal(rec.Body.Bytes(), &info); err != nil {
		t.Fatalf("%v: %s", err, rec.Body)
	}
	if len(info.Games) < 4 {
		t.Fatalf("the page offers %d games: %+v", len(info.Games), info.Games)
	}
	for _, g := range info.Games {
		if g.Colours[0] == "" || g.Colours[1] == "" {
			t.Errorf("game %s (%s) cannot be played: not registered", g.Name, g.Title)
		}
	}
}
