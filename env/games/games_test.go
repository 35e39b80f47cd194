package games

import (
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	tests := []struct {
		cfg      Config
		wantName string
		wantErr  string
	}{
		{cfg: DefaultConfig("wyb"), wantName: "wyb"},
		{cfg: DefaultConfig("squatter"), wantName: "squatter6"},
		{cfg: Config{Name: "squatter", Size: 8}, wantName: "squatter8"},
		{cfg: DefaultConfig("tictactoe"), wantName: "tictactoe"},
		{cfg: Config{Name: "squatter", Size: 3}, wantErr: "game.size"},
		{cfg: Config{Name: "wyb", TurnLimit: -1}, wantErr: "game.turn_limit"},
		{cfg: Config{Name: "chess"}, wantErr: `unknown game "chess"`},
		{cfg: Config{}, wantErr: "game.name: missing"},
	}
	for _, tc := range tests {
		g, err := New(tc.cfg)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("New(%+v) error = %v, want one containing %q", tc.cfg, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("New(%+v): %v", tc.cfg, err)
			continue
		}
		if g.Name() != tc.wantName {
			t.Errorf("New(%+v).Name() = %q, want %q", tc.cfg, g.Name(), tc.wantName)
		}
		if s := g.NewInitialState(); s.IsTerminal() || len(s.LegalActions(nil)) == 0 {
			t.Errorf("%s: initial state has no legal action", g.Name())
		}
	}
}
