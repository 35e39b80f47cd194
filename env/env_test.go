package env

import (
	"fmt"
	"slices"
	"testing"
)

func TestSquareSymmetries(t *testing.T) {
	// On 3x3 (cells 0 1 2 / 3 4 5 / 6 7 8), rot90 takes column x, row y
	// to column 2-y, row x: the top-left corner to the top-right one.
	rot90 := []int{2, 5, 8, 1, 4, 7, 0, 3, 6}
	if got := SquareSymmetries(3)[1]; got.Name != "rot90" || !slices.Equal(got.Cells, rot90) {
		t.Errorf("3x3 %s = %v, want rot90 %v", got.Name, got.Cells, rot90)
	}
	for _, n := range []int{2, 3, 6, 13} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			syms := SquareSymmetries(n)
			if len(syms) != 8 {
				t.Fatalf("%d symmetries, want 8", len(syms))
			}
			id := Identity(n*n, n*n)
			if !slices.Equal(syms[0].Cells, id.Cells) {
				t.Errorf("first symmetry %s is not the identity", syms[0].Name)
			}
			seen := map[string]bool{}
			for _, s := range syms {
				if !slices.Equal(s.Actions, s.Cells) || &s.Actions[0] == &s.Cells[0] {
					t.Errorf("%s: actions %v, want a copy of the cells %v", s.Name, s.Actions, s.Cells)
				}
				sorted := slices.Sorted(slices.Values(s.Cells))
				if !slices.Equal(sorted, id.Cells) {
					t.Errorf("%s: %v is not a permutation", s.Name, s.Cells)
				}
				seen[fmt.Sprint(s.Cells)] = true
			}
			// A group: eight distinct maps, closed under composition.
			if len(seen) != 8 {
				t.Errorf("%d distinct symmetries, want 8", len(seen))
			}
			for _, a := range syms {
				for _, b := range syms {
					ab := make([]int, n*n)
					for c := range ab {
						ab[c] = a.Cells[b.Cells[c]]
					}
					if !seen[fmt.Sprint(ab)] {
						t.Errorf("%s after %s is not a symmetry", a.Name, b.Name)
					}
				}
			}
		})
	}
	a, b := SquareSymmetries(3), SquareSymmetries(3)
	a[1].Cells[0] = -1
	if b[1].Cells[0] == -1 {
		t.Error("two calls share a slice")
	}
}
