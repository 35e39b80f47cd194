package data

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestReplayRederivesStates(t *testing.T) {
	g := newMNK(4, 3)
	rng := rand.New(rand.NewPCG(11, 0))
	for range 50 {
		rec := playRandom(t, g, rng, 0.5)
		pos, err := Replay(g, rec)
		if err != nil {
			t.Fatal(err)
		}
		if len(pos) != len(rec.Actions) {
			t.Fatalf("%d positions for %d actions", len(pos), len(rec.Actions))
		}
		// Independently play the actions and compare every state.
		s := g.NewInitialState()
		for i, p := range pos {
			if p.Index != i || p.Action != rec.Actions[i] || p.State.MoveNumber() != i {
				t.Fatalf("position %d: index %d action %d move number %d", i, p.Index, p.Action, p.State.MoveNumber())
			}
			if p.State.Hash() != s.Hash() || p.State.String() != s.String() {
				t.Fatalf("position %d: state\n%v\nwant\n%v", i, p.State, s)
			}
			if p.Player != s.CurrentPlayer() || p.Value != rec.Returns[p.Player] {
				t.Fatalf("position %d: player %d value %v, want %d %v", i, p.Player, p.Value, s.CurrentPlayer(), rec.Returns[s.CurrentPlayer()])
			}
			if !reflect.DeepEqual(p.Move, rec.Moves[i]) {
				t.Fatalf("position %d: move %+v, want %+v", i, p.Move, rec.Moves[i])
			}
			if err := s.ApplyAction(rec.Actions[i]); err != nil {
				t.Fatal(err)
			}
		}
		// Clones are independent of each other.
		if len(pos) > 1 && pos[0].State.Hash() == pos[1].State.Hash() {
			t.Fatalf("positions 0 and 1 share a state")
		}
	}
}

func TestReplayRejects(t *testing.T) {
	g := newMNK(3, 3)
	base := func() *Record {
		// X plays 0, O 3, X 1, O 4, X 2: X wins on the top row.
		r := &Record{Game: g.Name(), Returns: [2]float32{1, -1}}
		for _, a := range []int{0, 3, 1, 4, 2} {
			r.Actions = append(r.Actions, a)
			r.Moves = append(r.Moves, Move{Policy: []ActionProb{{int32(a), 1}}, Full: true})
		}
		return r
	}
	if _, err := Replay(g, base()); err != nil {
		t.Fatalf("base game rejected: %v", err)
	}
	tests := []struct {
		name   string
		modify func(r *Record)
		want   string
	}{
		{"other game", func(r *Record) { r.Game = "wyb" }, `record is a "wyb" game, not "mnk3_3"`},
		{"invalid record", func(r *Record) { r.Moves = r.Moves[:2] }, "2 moves but 5 actions"},
		{"occupied cell", func(r *Record) { r.Actions[2] = 3; r.Moves[2].Policy[0].Action = 3 }, "move 2: action 3 (3) is illegal for player 0"},
		{"outside action space", func(r *Record) { r.Actions[1] = 9 }, "move 1: action 9 outside the action space [0, 9)"},
		{"illegal policy entry", func(r *Record) {
			r.Moves[3].Policy = []ActionProb{{0, 0.5}, {4, 0.5}}
		}, "move 3: policy gives probability 0.5 to illegal action 0"},
		{"policy outside action space", func(r *Record) {
			r.Moves[3].Policy = []ActionProb{{4, 0.5}, {12, 0.5}}
		}, "move 3: policy action 12 outside the action space"},
		{"move after the end", func(r *Record) {
			r.Actions = append(r.Actions, 5)
			r.Moves = append(r.Moves, Move{})
		}, "move 5: the game is already over after 5 moves"},
		{"wrong returns", func(r *Record) { r.Returns = [2]float32{0, 0} }, "recorded returns [0 0] differ from the final position's [1 -1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := base()
			tt.modify(r)
			_, err := Replay(g, r)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Replay() = %v, want error containing %q", err, tt.want)
			}
		})
	}
}

func TestReplayUnfinishedGameAndCallbackError(t *testing.T) {
	g := newMNK(3, 3)
	// A game stopped early (e.g. adjudicated) is replayed without a returns
	// check.
	r := &Record{Game: g.Name(), Actions: []int{4, 0}, Moves: make([]Move, 2), Returns: [2]float32{0, 0}}
	pos, err := Replay(g, r)
	if err != nil || len(pos) != 2 {
		t.Fatalf("Replay = %d positions, %v", len(pos), err)
	}
	stop := errors.New("stop")
	calls := 0
	err = Walk(g, r, func(Position) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("Walk = %v after %d calls, want the callback's error after 1", err, calls)
	}
}
