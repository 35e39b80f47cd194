package wyb

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// legalActions lists the legal actions of the reference model by naive
// loops over the grid, in increasing order (rows, columns, then the
// directions Up, Down, Left, Right): an enumeration independent of the
// engine's bitboards.
func (g *refGame) legalActions() []int {
	if g.phase == "completed" {
		return nil
	}
	p := g.piece()
	var out []int
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			if g.phase == "placing" {
				if g.grid[y][x] == '-' && !(p == 'W' && y > 5) && !(p == 'B' && y < 2) {
					out = append(out, square(x, y))
				}
				continue
			}
			if g.grid[y][x] != p {
				continue
			}
			for dir := 0; dir < 4; dir++ {
				dx, dy := dirDX[dir], dirDY[dir]
				switch g.at(x+dx, y+dy) {
				case '-':
					out = append(out, firstMove+square(x, y)*8+dir*2)
				case 'W', 'B':
					if g.at(x+2*dx, y+2*dy) == '-' {
						out = append(out, firstMove+square(x, y)*8+dir*2+1)
					}
				}
			}
		}
	}
	if g.phase == "moving" && len(out) == 0 {
		out = append(out, PassAction)
	}
	return out
}

// diffPolicy picks the next action of a differential test game from the
// legal actions. Besides uniform play, the policies crowd the centre (so
// that late boards fill up, pieces get stuck and players must forfeit)
// or prefer steps (so that games reach both shrinks).
type diffPolicy int

const (
	policyUniform diffPolicy = iota // RandomLegal, applied with PlayRandom
	policyCrowd                     // place in the centre, move towards it
	policySteps                     // steps before jumps
	numPolicies
)

// centreDistance is the distance of square sq from the centre of the board,
// doubled (so that it is an integer).
func centreDistance(sq int) int {
	x, y := sq%Size, sq/Size
	return abs(2*x-7) + abs(2*y-7)
}

func (pol diffPolicy) choose(rng *rand.Rand, s *State, legal []int) int {
	pick := legal
	switch {
	case pol == policyCrowd && legal[0] != PassAction:
		// Avoid eliminations, and among the remaining actions take the
		// ones in the central 4x4 while placing, or the two moves ending
		// closest to the centre.
		var quiet []int
		for _, a := range legal {
			c := *s
			c.apply(a)
			if c.Pieces(0)+c.Pieces(1) == s.Pieces(0)+s.Pieces(1)+b2i(s.Phase() == Placing) {
				quiet = append(quiet, a)
			}
		}
		if len(quiet) > 0 {
			pick = quiet
		}
		if s.Phase() == Placing {
			var centre []int
			for _, a := range pick {
				if x, y := a%Size, a/Size; x >= 2 && x <= 5 && y >= 2 && y <= 5 {
					centre = append(centre, a)
				}
			}
			if len(centre) > 0 {
				pick = centre
			}
			break
		}
		pick = slices.Clone(pick)
		dist := func(a int) int {
			_, _, _, tx, ty := DecodeAction(a)
			return centreDistance(square(tx, ty))
		}
		slices.SortStableFunc(pick, func(a, b int) int { return dist(a) - dist(b) })
		pick = pick[:min(2, len(pick))]
	case pol == policySteps && s.Phase() == Moving:
		var steps []int
		for _, a := range legal {
			if kind, _, _, _, _ := DecodeAction(a); kind == StepKind {
				steps = append(steps, a)
			}
		}
		if len(steps) > 0 {
			pick = steps
		}
	}
	return pick[rng.IntN(len(pick))]
}

// diffCoverage counts the situations a differential test run went
// through, so that the test can insist that it exercised them.
type diffCoverage struct {
	actions, forfeits, captures, shrinks, jumps, limitEnds int
}

// playDiffGame plays one game with the engine and the reference model side
// by side and fails at the first difference in the legal actions, the
// board, the turn, the phase or the result. It stops after maxDiffSteps
// actions: without a turn limit, games can cycle forever.
func playDiffGame(t *testing.T, seed uint64, pol diffPolicy, limit int, cov *diffCoverage) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, uint64(pol)))
	s := New(Options{TurnLimit: limit}).NewState()
	ref := newRefGame(s.TurnLimit())
	var legal []int
	for step := 0; step <= maxDiffSteps; step++ {
		legal = s.LegalActions(legal)
		if want := ref.legalActions(); !slices.Equal(legal, want) {
			t.Fatalf("seed %d policy %d step %d: legal actions\n%v\nreference\n%v\n%s", seed, pol, step, legal, want, s.RefereeString())
		}
		for y := 0; y < Size; y++ {
			for x := 0; x < Size; x++ {
				if got, want := s.At(x, y), refCell(ref.grid[y][x]); got != want {
					t.Fatalf("seed %d policy %d step %d: square (%d, %d) is %d, reference %d\n%s", seed, pol, step, x, y, got, want, s.RefereeString())
				}
			}
		}
		if s.Turn() != ref.turns || s.IsTerminal() != (ref.phase == "completed") ||
			(!s.IsTerminal() && s.Phase().String() != ref.phase) || s.Outcome().String() != refWinner(ref.winner) {
			t.Fatalf("seed %d policy %d step %d: turn %d %v outcome %v, reference turn %d %s winner %q",
				seed, pol, step, s.Turn(), s.Phase(), s.Outcome(), ref.turns, ref.phase, ref.winner)
		}
		if s.Hash() != s.recomputeHash() {
			t.Fatalf("seed %d policy %d step %d: incremental hash %#x, recomputed %#x", seed, pol, step, s.Hash(), s.recomputeHash())
		}
		if s.IsTerminal() {
			if s.TurnLimit() > 0 && s.Turn() >= s.TurnLimit() && s.Pieces(0) >= 2 && s.Pieces(1) >= 2 {
				cov.limitEnds++
			}
			return
		}
		if n := s.NumLegal(); n != len(legal) {
			t.Fatalf("seed %d step %d: NumLegal %d, %d legal actions", seed, step, n, len(legal))
		}
		if k := rng.IntN(len(legal)); s.NthLegal(k) != legal[k] {
			t.Fatalf("seed %d step %d: NthLegal(%d) = %d, want %d", seed, step, k, s.NthLegal(k), legal[k])
		}
		var a int
		before := s.Pieces(0) + s.Pieces(1)
		if pol == policyUniform {
			r := rng.Uint64()
			a = s.RandomLegal(r)
			if !slices.Contains(legal, a) {
				t.Fatalf("seed %d step %d: RandomLegal(%#x) = %d is not legal %v", seed, step, r, a, legal)
			}
			if got := s.PlayRandom(r); got != a {
				t.Fatalf("seed %d step %d: PlayRandom(%#x) played %d, RandomLegal chose %d", seed, step, r, got, a)
			}
		} else {
			a = pol.choose(rng, s, legal)
			if err := s.ApplyAction(a); err != nil {
				t.Fatalf("seed %d step %d: legal action %s: %v", seed, step, FormatAction(a), err)
			}
		}
		shrinksBefore := ref.nShrinks
		ref.update(a)
		cov.actions++
		cov.shrinks += ref.nShrinks - shrinksBefore
		if a == PassAction {
			cov.forfeits++
		}
		if kind, _, _, _, _ := DecodeAction(a); kind == JumpKind {
			cov.jumps++
		}
		if s.Pieces(0)+s.Pieces(1) < before {
			cov.captures++
		}
	}
}

// maxDiffSteps bounds the length of a differential test game.
const maxDiffSteps = 600

func refCell(c byte) Cell {
	switch c {
	case 'W':
		return White
	case 'B':
		return Black
	case 'X':
		return Corner
	case ' ':
		return Removed
	}
	return Empty
}

func refWinner(w string) string {
	if w == "" {
		return "None"
	}
	return w
}

// TestManyGamesAgainstReference plays many seeded games with several
// policies and turn limits, comparing at every turn the engine's legal
// actions (LegalActions, NumLegal, NthLegal, RandomLegal), board, turn,
// phase, result and hash with the naive reference model (ref_test.go),
// which follows the official referee's code. It insists that the games
// went through forfeits, captures, jumps, both shrinks and turn-limit
// endings.
func TestManyGamesAgainstReference(t *testing.T) {
	games := 900
	if testing.Short() {
		games = 90
	}
	var cov diffCoverage
	for i := 0; i < games; i++ {
		limit := 0 // the referee's game, no turn limit
		switch i / int(numPolicies) % 3 {
		case 1:
			limit = DefaultTurnLimit
		case 2:
			limit = 1 + i*7%250
		}
		playDiffGame(t, uint64(i), diffPolicy(i%int(numPolicies)), limit, &cov)
	}
	t.Logf("%d games, %+v", games, cov)
	for name, n := range map[string]int{
		"forfeits": cov.forfeits, "captures": cov.captures, "jumps": cov.jumps,
		"shrinks": cov.shrinks, "turn-limit endings": cov.limitEnds,
	} {
		if n == 0 {
			t.Errorf("no %s in %d games: the policies no longer reach them", name, games)
		}
	}
}

// TestSelectBit checks selectBit against a naive scan.
func TestSelectBit(t *testing.T) {
	words := []uint64{1, 1 << 63, 0x8000000000000001, ^uint64(0), 0xff00, 0x0101010101010101, 0x00ff00ff00ff00ff}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 300; i++ {
		words = append(words, rng.Uint64()&rng.Uint64(), rng.Uint64()|rng.Uint64())
	}
	for _, w := range words {
		k := 0
		for i := 0; i < 64; i++ {
			if w>>i&1 == 0 {
				continue
			}
			if got := selectBit(w, k); got != i {
				t.Fatalf("selectBit(%#x, %d) = %d, want %d", w, k, got, i)
			}
			k++
		}
		if k != bits.OnesCount64(w) {
			t.Fatalf("%#x: counted %d bits", w, k)
		}
	}
}
