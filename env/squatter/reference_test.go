package squatter

import (
	"math/rand/v2"
	"testing"
)

// refBoard is a slow, obviously-correct Squatter engine on plain arrays. It
// recomputes the mover's enclosure from scratch with breadth-first searches
// after every placement, without bitsets and without the flood-fill skip.
type refBoard struct {
	n      int
	piece  []int // -1 empty, else the player
	owner  []int // -1 not captured, else the territory's player
	toMove int
}

func newRef(n int) *refBoard {
	r := &refBoard{n: n, piece: make([]int, n*n), owner: make([]int, n*n)}
	for i := range r.piece {
		r.piece[i], r.owner[i] = -1, -1
	}
	return r
}

// neighbours4 returns the orthogonal neighbours of cell c on the board.
func (r *refBoard) neighbours4(c int) []int {
	x, y := c%r.n, c/r.n
	var out []int
	for _, d := range [4][2]int{{0, -1}, {1, 0}, {0, 1}, {-1, 0}} {
		nx, ny := x+d[0], y+d[1]
		if nx >= 0 && ny >= 0 && nx < r.n && ny < r.n {
			out = append(out, ny*r.n+nx)
		}
	}
	return out
}

func (r *refBoard) onEdge(c int) bool {
	x, y := c%r.n, c/r.n
	return x == 0 || y == 0 || x == r.n-1 || y == r.n-1
}

func (r *refBoard) free(c int) bool { return r.piece[c] < 0 && r.owner[c] < 0 }

func (r *refBoard) freeCount() int {
	k := 0
	for c := range r.piece {
		if r.free(c) {
			k++
		}
	}
	return k
}

// play places the mover's piece on c (which must be free) and resolves the
// mover's captures.
func (r *refBoard) play(c int) {
	r.piece[c] = r.toMove
	r.resolve(r.toMove)
	r.toMove = 1 - r.toMove
}

// resolve captures for p every enclosed region holding a cell that is not a
// p piece, and reports whether any cell changed owner.
func (r *refBoard) resolve(p int) bool {
	n2 := r.n * r.n
	live := make([]bool, n2)
	for c := range live {
		live[c] = r.piece[c] == p && r.owner[c] < 0
	}
	outside := make([]bool, n2)
	var queue []int
	for c := range n2 {
		if r.onEdge(c) && !live[c] {
			outside[c] = true
			queue = append(queue, c)
		}
	}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		for _, d := range r.neighbours4(c) {
			if !live[d] && !outside[d] {
				outside[d] = true
				queue = append(queue, d)
			}
		}
	}
	enclosed := make([]bool, n2)
	for c := range n2 {
		if outside[c] {
			continue
		}
		wall := live[c] && r.onEdge(c)
		for _, d := range r.neighbours4(c) {
			wall = wall || (live[c] && outside[d])
		}
		enclosed[c] = !wall
	}
	seen := make([]bool, n2)
	changed := false
	for start := range n2 {
		if !enclosed[start] || seen[start] {
			continue
		}
		region := []int{start}
		seen[start] = true
		for i := 0; i < len(region); i++ {
			for _, d := range r.neighbours4(region[i]) {
				if enclosed[d] && !seen[d] {
					seen[d] = true
					region = append(region, d)
				}
			}
		}
		counts := false
		for _, c := range region {
			counts = counts || r.piece[c] != p
		}
		if !counts {
			continue
		}
		for _, c := range region {
			if r.owner[c] != p {
				r.owner[c] = p
				changed = true
			}
		}
	}
	return changed
}

func (r *refBoard) score(p int) int {
	k := 0
	for c := range r.piece {
		if r.owner[c] == p && r.piece[c] != p {
			k++
		}
	}
	return k
}

func (r *refBoard) clone() *refBoard {
	return &refBoard{n: r.n, piece: append([]int(nil), r.piece...), owner: append([]int(nil), r.owner...), toMove: r.toMove}
}

// scratchHash recomputes s's Zobrist hash from its cells.
func scratchHash(s *State) uint64 {
	g := s.g
	var h uint64
	for c := range g.cells {
		cs := s.CellAt(c)
		if cs.Piece >= 0 {
			h ^= g.zPiece[cs.Piece][c]
		}
		if cs.Owner >= 0 {
			h ^= g.zTerr[cs.Owner][c]
		}
	}
	if s.toMove == 1 {
		h ^= g.zSide
	}
	return h
}

// pickMove chooses a legal action at random; half the time it prefers a
// free cell next to one of the mover's pieces, which closes far more loops
// than uniform play.
func pickMove(rng *rand.Rand, s *State, legal []int) int {
	if rng.IntN(2) == 0 {
		own := s.pieces[s.toMove]
		var near []int
		for _, c := range legal {
			for _, nb := range s.g.ring[c] {
				if nb >= 0 && own.has(int(nb)) {
					near = append(near, c)
					break
				}
			}
		}
		if len(near) > 0 {
			return near[rng.IntN(len(near))]
		}
	}
	return legal[rng.IntN(len(legal))]
}

// onion is a scripted player pair that makes territory change hands: around
// a random centre it lays square rings at distance 1, 2, 3, ... (clipped to
// the board), the odd rings for player 0 and the even ones for player 1, each
// player building its rings from the inside out in a random order. Ring k+1
// closes after ring k and so captures it; noise percent of the moves are
// uniformly random instead.
type onion struct {
	rng   *rand.Rand
	plan  [2][]int
	noise int
}

func newOnion(rng *rand.Rand, n, noise int) *onion {
	o := &onion{rng: rng, noise: noise}
	cx, cy := rng.IntN(n), rng.IntN(n)
	for k := 1; k < n; k++ {
		x0, y0, x1, y1 := max(cx-k, 0), max(cy-k, 0), min(cx+k, n-1), min(cy+k, n-1)
		var ring []int
		for x := x0; x <= x1; x++ {
			ring = append(ring, y0*n+x, y1*n+x)
		}
		for y := y0 + 1; y < y1; y++ {
			ring = append(ring, y*n+x0, y*n+x1)
		}
		rng.Shuffle(len(ring), func(i, j int) { ring[i], ring[j] = ring[j], ring[i] })
		o.plan[(k+1)%2] = append(o.plan[(k+1)%2], ring...)
	}
	return o
}

func (o *onion) pick(s *State, legal []int) int {
	p := s.toMove
	if o.rng.IntN(100) >= o.noise {
		for len(o.plan[p]) > 0 {
			c := o.plan[p][0]
			o.plan[p] = o.plan[p][1:]
			if s.IsLegal(c) {
				return c
			}
		}
	}
	return legal[o.rng.IntN(len(legal))]
}

// gameStats counts the actions of a game that captured territory and those
// that took territory from the opponent.
type gameStats struct{ captures, handChanges int }

// checkAgainstReference plays one game from seed on an n x n board and
// compares the engine with the reference after every action. Seeds divisible
// by 3 play the near-biased random players of pickMove, the others the onion.
func checkAgainstReference(t *testing.T, n int, seed uint64) gameStats {
	t.Helper()
	g := mustGame(t, n)
	s := g.NewState()
	ref := newRef(n)
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	pick := func(s *State, legal []int) int { return pickMove(rng, s, legal) }
	if seed%3 != 0 {
		pick = newOnion(rng, n, rng.IntN(10)).pick
	}
	var legal []int
	var stats gameStats
	for !s.IsTerminal() {
		if s.MoveNumber() >= g.MaxGameLength() {
			t.Fatalf("seed %d: %d actions without the game ending", seed, s.MoveNumber())
		}
		legal = s.LegalActions(legal)
		if len(legal) != ref.freeCount() || len(legal) != s.FreeCount() {
			t.Fatalf("seed %d move %d: %d legal actions, FreeCount %d, reference %d free",
				seed, s.MoveNumber(), len(legal), s.FreeCount(), ref.freeCount())
		}
		// An illegal action is refused and changes nothing.
		if bad := rng.IntN(g.cells); !s.IsLegal(bad) {
			before := *s
			if err := s.ApplyAction(bad); err == nil {
				t.Fatalf("seed %d: illegal action %s accepted", seed, s.ActionString(bad))
			}
			if *s != before {
				t.Fatalf("seed %d: refused action %s changed the state", seed, s.ActionString(bad))
			}
		}
		a := pick(s, legal)
		if !ref.free(a) {
			t.Fatalf("seed %d: engine offers %s, which the reference says is not free", seed, s.ActionString(a))
		}
		mover := s.toMove
		terrBefore, oppBefore := s.Territory(mover), s.Territory(1-mover)
		if err := s.ApplyAction(a); err != nil {
			t.Fatalf("seed %d: legal action %s: %v", seed, s.ActionString(a), err)
		}
		ref.play(a)
		if s.Territory(mover) != terrBefore {
			stats.captures++
		}
		if s.Territory(1-mover) < oppBefore {
			stats.handChanges++
		}
		for c := range g.cells {
			cs := s.CellAt(c)
			if cs.Piece != ref.piece[c] || cs.Owner != ref.owner[c] {
				t.Fatalf("seed %d move %d (%s by %d): cell %s engine piece %d owner %d, reference piece %d owner %d\n%s",
					seed, s.MoveNumber(), s.ActionString(a), mover, s.ActionString(c),
					cs.Piece, cs.Owner, ref.piece[c], ref.owner[c], s)
			}
		}
		for p := range 2 {
			if s.Score(p) != ref.score(p) {
				t.Fatalf("seed %d: score %d = %d, reference %d", seed, p, s.Score(p), ref.score(p))
			}
			if s.Territory(p) > n*n || s.Score(p) > s.Territory(p) {
				t.Fatalf("seed %d: player %d territory %d, score %d", seed, p, s.Territory(p), s.Score(p))
			}
		}
		if h := scratchHash(s); h != s.Hash() {
			t.Fatalf("seed %d move %d: hash %x, from scratch %x", seed, s.MoveNumber(), s.Hash(), h)
		}
		// Resolution is idempotent, and the placement captured nothing
		// for the opponent.
		if c := ref.clone(); c.resolve(mover) || c.resolve(1-mover) {
			t.Fatalf("seed %d move %d: a second resolution changed the board\n%s", seed, s.MoveNumber(), s)
		}
		checkInvariants(t, s)
	}
	if s.MoveNumber() > g.MaxGameLength() {
		t.Fatalf("seed %d: game lasted %d > %d actions", seed, s.MoveNumber(), g.MaxGameLength())
	}
	ret := s.Returns()
	d := s.Score(0) - s.Score(1)
	if (d > 0 && ret != [2]float32{1, -1}) || (d < 0 && ret != [2]float32{-1, 1}) || (d == 0 && ret != [2]float32{}) {
		t.Fatalf("seed %d: scores %d-%d but returns %v", seed, s.Score(0), s.Score(1), ret)
	}
	if s.CurrentPlayer() != -1 || len(s.LegalActions(legal)) != 0 {
		t.Fatalf("seed %d: terminal state has player %d and legal actions", seed, s.CurrentPlayer())
	}
	return stats
}

// checkInvariants checks I1 and I2 of rules.go: territories do not overlap,
// never touch the edge, and border only their own territory or their
// owner's live pieces; and each player's outside, flooded from the edge, is
// their background minus their territory.
func checkInvariants(t *testing.T, s *State) {
	t.Helper()
	g := s.g
	if !s.terr[0].and(s.terr[1]).empty() {
		t.Fatalf("territories overlap\n%s", s)
	}
	for p := range 2 {
		if !s.terr[p].and(g.edge).empty() {
			t.Fatalf("player %d's territory touches the edge\n%s", p, s)
		}
		live := s.live(p)
		background := g.board.andNot(live)
		if g.flood(g.edge, background) != background.andNot(s.terr[p]) {
			t.Fatalf("I2 fails for player %d\n%s", p, s)
		}
		for _, c := range s.terr[p].appendCells(nil) {
			if !g.n4[c].andNot(s.terr[p]).andNot(live).empty() {
				t.Fatalf("player %d's territory cell %s borders a cell that is neither its territory nor its live piece\n%s",
					p, s.ActionString(c), s)
			}
		}
	}
}

// TestAgainstReference plays seeded games on every supported size.
func TestAgainstReference(t *testing.T) {
	var total gameStats
	for n := MinN; n <= MaxN; n++ {
		games := 60
		if n > 9 {
			games = 24
		}
		for seed := range uint64(games) {
			st := checkAgainstReference(t, n, seed)
			total.captures += st.captures
			total.handChanges += st.handChanges
		}
	}
	// The comparison only means something if captures, and captures of
	// the opponent's territory, happen.
	if total.captures < 500 || total.handChanges < 40 {
		t.Fatalf("only %d capturing actions, %d taking territory from the opponent", total.captures, total.handChanges)
	}
	t.Logf("%d capturing actions, %d taking territory from the opponent", total.captures, total.handChanges)
}

// FuzzRandomGame plays a game chosen by a seed and a board size and checks
// it against the reference after every action.
func FuzzRandomGame(f *testing.F) {
	f.Add(uint64(1), uint8(0))
	f.Add(uint64(2), uint8(2))
	f.Add(uint64(3), uint8(MaxN-MinN))
	f.Fuzz(func(t *testing.T, seed uint64, size uint8) {
		n := MinN + int(size)%(MaxN-MinN+1)
		checkAgainstReference(t, n, seed)
	})
}
