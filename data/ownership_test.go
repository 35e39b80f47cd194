package data

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
)

// ownedMNK is mnkGame whose states say who holds each cell (env.CellOwner):
// the player whose stone is on it.
type ownedMNK struct{ *mnkGame }

func (g ownedMNK) NewInitialState() env.State {
	return ownedMNKState{g.mnkGame.NewInitialState().(*mnkState)}
}

type ownedMNKState struct{ *mnkState }

func (s ownedMNKState) Clone() env.State { return ownedMNKState{s.mnkState.Clone().(*mnkState)} }

func (s ownedMNKState) CellOwners(dst []int8) {
	for i, v := range s.board {
		dst[i] = v - 1
	}
}

// finalOwners replays rec to its end and returns who holds each cell there.
func finalOwners(t *testing.T, g env.Game, rec *Record) []int8 {
	t.Helper()
	s := g.NewInitialState()
	for _, a := range rec.Actions {
		if err := s.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
	}
	out := make([]int8, g.ObservationShape().Cells())
	s.(env.CellOwner).CellOwners(out)
	return out
}

// TestSampleOwnership checks every sampled ownership row against its
// definition: the final holder of each cell, +1 for the player to move in
// the sampled position and -1 for the other, under the symmetry that the
// row's observation, policy and mask show.
func TestSampleOwnership(t *testing.T) {
	g := ownedMNK{newMNK(3, 3)}
	b := testBuffer(t, g, func(c *BufferConfig) { c.SnapshotEvery = 2 })
	rng := rand.New(rand.NewPCG(31, 0))
	type cand struct {
		p     Position
		final []int8
	}
	var cands []cand
	recs, games := addRandomGames(t, b, g, rng, 6)
	for k, pos := range games {
		final := finalOwners(t, g, recs[k])
		for _, p := range pos {
			cands = append(cands, cand{p, final})
		}
	}
	const n = 128
	out := newBatch(g, n, true)
	cells := g.ObservationShape().Cells()
	out.Ownership = make([]float32, n*cells)
	if err := b.Sample(n, out); err != nil {
		t.Fatal(err)
	}
	mixed := 0
	for i := range n {
		own := out.Ownership[i*cells : (i+1)*cells]
		found := false
		for _, c := range cands {
			for _, sym := range g.Symmetries() {
				if _, ok := sampledAs(g, out, i, c.p, sym); !ok {
					continue
				}
				want := make([]float32, cells)
				for cell, h := range c.final {
					switch {
					case h < 0:
					case int(h) == c.p.Player:
						want[sym.Cells[cell]] = 1
					default:
						want[sym.Cells[cell]] = -1
					}
				}
				found = found || reflect.DeepEqual(own, want)
			}
		}
		if !found {
			t.Fatalf("row %d: ownership %v is no buffered position's final holders under the row's symmetry", i, own)
		}
		var plus, minus bool
		for _, v := range own {
			plus, minus = plus || v == 1, minus || v == -1
		}
		if plus && minus {
			mixed++
		}
	}
	if mixed == 0 {
		t.Fatal("no row has cells of both players")
	}
}

func TestSampleOwnershipErrors(t *testing.T) {
	plain := newMNK(3, 3)
	owned := ownedMNK{newMNK(3, 3)}
	for _, tc := range []struct {
		name string
		g    env.Game
		own  int
		want string
	}{
		{"game without owners", plain, 4 * 9, "game mnk3_3 cannot say who holds its cells"},
		{"short", owned, 4*9 - 1, "Batch.Ownership has length 35, want 36 (4 × 9)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := testBuffer(t, tc.g, nil)
			if err := b.Add(playRandom(t, tc.g, rand.New(rand.NewPCG(32, 0)), 1)); err != nil {
				t.Fatal(err)
			}
			out := newBatch(tc.g, 4, false)
			out.Ownership = make([]float32, tc.own)
			if err := b.Sample(4, out); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Sample = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
