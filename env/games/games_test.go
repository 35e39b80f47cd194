package games_test

import (
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
	_ "github.com/zerokit/zerokit/env/games/all"
	"github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/env/wyb"
)

func TestNew(t *testing.T) {
	tests := []struct {
		cfg      games.Config
		wantName string
		wantErr  string
	}{
		{cfg: games.DefaultConfig("wyb"), wantName: "wyb"},
		{cfg: games.DefaultConfig("squatter"), wantName: "squatter6"},
		{cfg: games.Config{Name: "squatter", Params: squatter.Params{Size: 8}}, wantName: "squatter8"},
		{cfg: games.DefaultConfig("tictactoe"), wantName: "tictactoe"},
		{cfg: games.Config{Name: "squatter", Params: squatter.Params{Size: 3}}, wantErr: "game.size"},
		{cfg: games.Config{Name: "wyb", Params: wyb.Options{TurnLimit: -1}}, wantErr: "game.turn_limit"},
		{cfg: games.Config{Name: "chess"}, wantErr: `unknown game "chess"`},
		{cfg: games.Config{}, wantErr: "game.name: missing"},
	}
	for _, tc := range tests {
		g, err := games.New(tc.cfg)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("games.New(%+v) error = %v, want one containing %q", tc.cfg, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("games.New(%+v): %v", tc.cfg, err)
			continue
		}
		if g.Name() != tc.wantName {
			t.Errorf("games.New(%+v).Name() = %q, want %q", tc.cfg, g.Name(), tc.wantName)
		}
		if s := g.NewInitialState(); s.IsTerminal() || len(s.LegalActions(nil)) == 0 {
			t.Errorf("%s: initial state has no legal action", g.Name())
		}
	}
}

// Every game registers its hand-written evaluations and its terminal
// notation beside env.Game, so agents and commands need no game switch.
func TestGamesImplementOptionalInterfaces(t *testing.T) {
	for _, name := range []string{"wyb", "squatter", "tictactoe"} {
		g, err := games.New(games.DefaultConfig(name))
		if err != nil {
			t.Fatal(err)
		}
		h, ok := g.(env.Heuristics)
		if !ok {
			t.Errorf("%s: not env.Heuristics", name)
			continue
		}
		s := g.NewInitialState()
		for _, e := range []env.Heuristic{h.Material(), h.ShrinkMaterial(), h.Evaluation()} {
			if a, b := e.Evaluate(s, 0), e.Evaluate(s, 1); a != -b {
				t.Errorf("%s: initial evaluations %v and %v are not antisymmetric", name, a, b)
			}
		}
		ui, ok := g.(env.TextUI)
		if !ok {
			t.Errorf("%s: not env.TextUI", name)
			continue
		}
		a := s.LegalActions(nil)[0]
		if got, err := ui.ParseMove(s, ui.FormatMove(s, a)); err != nil || got != a {
			t.Errorf("%s: ParseMove(FormatMove(%d)) = %d, %v", name, a, got, err)
		}
	}
}

// Every game can be drawn on a grid: each legal action's cells lie on the
// board, and the initial position's cells are in range.
func TestGamesImplementGrid(t *testing.T) {
	for _, cfg := range []games.Config{games.DefaultConfig("wyb"), {Name: "squatter", Params: squatter.Params{Size: 7}}, games.DefaultConfig("tictactoe")} {
		g, err := games.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		grid, ok := g.(env.Grid)
		if !ok {
			t.Errorf("%s: not env.Grid", g.Name())
			continue
		}
		w, h := grid.GridSize()
		s := g.NewInitialState()
		for step := 0; step < 40 && !s.IsTerminal(); step++ {
			for _, a := range s.LegalActions(nil) {
				from, to := grid.ActionCells(s, a)
				if from < -1 || from >= w*h || to < -1 || to >= w*h || (from < 0) != (to < 0) {
					t.Fatalf("%s: action %s: cells %d, %d on a %dx%d grid", g.Name(), s.ActionString(a), from, to, w, h)
				}
				if from >= 0 && from == to && grid.GridCell(s, to%w, to/w).Piece >= 0 {
					t.Fatalf("%s: placement %s on an occupied cell", g.Name(), s.ActionString(a))
				}
			}
			legal := s.LegalActions(nil)
			if err := s.ApplyAction(legal[(step*7)%len(legal)]); err != nil {
				t.Fatal(err)
			}
		}
		pieces := 0
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				if grid.GridCell(s, x, y).Piece >= 0 {
					pieces++
				}
			}
		}
		if pieces == 0 {
			t.Errorf("%s: no piece on the board after %d moves", g.Name(), s.MoveNumber())
		}
	}
}
