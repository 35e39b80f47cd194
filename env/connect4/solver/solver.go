package solver

import (
	"context"
	"fmt"
)

// Result is a position's game-theoretic value for the player to move.
type Result int

// The three results.
const (
	Loss Result = -1
	Draw Result = 0
	Win  Result = 1
)

func (r Result) String() string {
	switch r {
	case Win:
		return "win"
	case Loss:
		return "loss"
	}
	return "draw"
}

// Value is a position's exact value: Score in Pons' units (see the
// package documentation) and what it means.
type Value struct {
	Score int
	// Result is the sign of Score.
	Result Result
	// Plies is the number of discs from the position to the end under
	// perfect play, the winner's four included: the winner's fastest win,
	// the loser's longest resistance; for a draw the board's empty cells.
	Plies int
}

func (v Value) String() string {
	if v.Result == Draw {
		return "draw"
	}
	return fmt.Sprintf("%s in %d", v.Result, v.Plies)
}

// ValueOf decodes score, the score of a position with moves discs on g's
// board.
func (g *Geometry) ValueOf(score, moves int) Value {
	v := Value{Score: score}
	switch {
	case score == 0:
		v.Plies = g.Cells() - moves
		return v
	case score > 0:
		v.Result = Win
	default:
		v.Result, score = Loss, -score
	}
	// |score| = (cells+2-t)/2, rounded down, where t is the discs on the
	// board once the winner has four; t has the winner's parity.
	t := g.Cells() + 2 - 2*score
	winnerParity := (moves + 1) % 2 // the mover's next disc
	if v.Result == Loss {
		winnerParity = moves % 2
	}
	if t%2 != winnerParity {
		t--
	}
	v.Plies = t - moves
	return v
}

// Solver searches positions of one Geometry. It keeps a transposition
// table between searches (positions met again are solved faster), so it
// is not safe for concurrent use: use one Solver per goroutine.
type Solver struct {
	g     *Geometry
	tt    table
	nodes int64
	// bookAnswers counts the positions answered from book.
	bookAnswers int64
	ctx         context.Context
	stop        bool
	book        *Book
}

// SetBook makes the solver answer from b, without searching, the
// positions that b answers (Book.Answer): Solve, Result, Keeping and Best.
// A nil b removes the book. b must be of the solver's board.
func (s *Solver) SetBook(b *Book) error {
	if b != nil && (b.g.Columns != s.g.Columns || b.g.Rows != s.g.Rows) {
		return fmt.Errorf("solver: a %dx%d book given to a %dx%d solver", b.g.Columns, b.g.Rows, s.g.Columns, s.g.Rows)
	}
	s.book = b
	return nil
}

// Book is the solver's book, nil when it has none.
func (s *Solver) Book() *Book { return s.book }

// lookup answers p from the book (Book.Answer), after the checks of start.
func (s *Solver) lookup(p Position) (Entry, bool) {
	if s.book == nil || p.g != s.g || p.HasFour() {
		return Entry{}, false
	}
	e, ok := s.book.Answer(p)
	if ok {
		s.bookAnswers++
	}
	return e, ok
}

// BookAnswers is the number of positions the solver answered from its
// book since it was made.
func (s *Solver) BookAnswers() int64 { return s.bookAnswers }

// DefaultTableBits is the default log2 of the transposition table's
// entries (9 bytes each: 2^22 is about 38 MB).
const DefaultTableBits = 22

// New returns a solver for g's board with a table of 2^tableBits entries
// (DefaultTableBits when 0; at most 30).
func New(g *Geometry, tableBits int) (*Solver, error) {
	if tableBits == 0 {
		tableBits = DefaultTableBits
	}
	if tableBits < 4 || tableBits > 30 {
		return nil, fmt.Errorf("solver: table bits %d out of range [4, 30]", tableBits)
	}
	return &Solver{g: g, tt: newTable(tableBits)}, nil
}

// Geometry is the solver's board.
func (s *Solver) Geometry() *Geometry { return s.g }

// Nodes is the number of positions searched since the solver was made.
func (s *Solver) Nodes() int64 { return s.nodes }

// start prepares a search under ctx.
func (s *Solver) start(ctx context.Context, p *Position) error {
	if p.g != s.g {
		return fmt.Errorf("solver: a %dx%d position given to a %dx%d solver", p.g.Columns, p.g.Rows, s.g.Columns, s.g.Rows)
	}
	if p.HasFour() {
		return ErrGameOver
	}
	s.ctx, s.stop = ctx, false
	return ctx.Err()
}

// Solve returns the exact value of p, whose game must not be over (a
// full board is a draw). It returns ctx's error if ctx ends first.
func (s *Solver) Solve(ctx context.Context, p Position) (Value, error) {
	if e, ok := s.lookup(p); ok {
		return e.Value, nil
	}
	if err := s.start(ctx, &p); err != nil {
		return Value{}, err
	}
	score, err := s.solve(&p, s.g.MinScore()-1, s.g.MaxScore()+1)
	if err != nil {
		return Value{}, err
	}
	return s.g.ValueOf(score, p.moves), nil
}

// Result returns only whether p is won, drawn or lost for the mover,
// which is faster to find than the exact score.
func (s *Solver) Result(ctx context.Context, p Position) (Result, error) {
	if e, ok := s.lookup(p); ok {
		return e.Value.Result, nil
	}
	if err := s.start(ctx, &p); err != nil {
		return 0, err
	}
	score, err := s.solve(&p, -1, 1)
	if err != nil {
		return 0, err
	}
	return sign(score), nil
}

func sign(score int) Result {
	switch {
	case score > 0:
		return Win
	case score < 0:
		return Loss
	}
	return Draw
}

// solve narrows the score of p to one value between lo and hi by null
// window searches; bounds beyond the position's own are tightened to them.
// It assumes start was called.
func (s *Solver) solve(p *Position, lo, hi int) (int, error) {
	cells := s.g.Cells()
	if p.moves == cells {
		return 0, nil
	}
	if p.CanWinNext() {
		return (cells + 1 - p.moves) / 2, nil
	}
	min, max := -(cells-p.moves)/2, (cells+1-p.moves)/2
	if lo > min {
		min = lo
	}
	if hi < max {
		max = hi
	}
	for min < max {
		med := min + (max-min)/2
		if med <= 0 && min/2 < med {
			med = min / 2
		} else if med >= 0 && max/2 > med {
			med = max / 2
		}
		r := s.negamax(p, med, med+1)
		if s.stop {
			return 0, s.ctx.Err()
		}
		if r <= med {
			max = r
		} else {
			min = r
		}
	}
	return min, nil
}

// checkEvery is how many nodes pass between looks at the context.
const checkEvery = 1 << 12

// negamax returns the score of p if it lies in (alpha, beta), else a bound
// on the far side of the window: at most alpha when the score is at most
// alpha, at least beta when it is at least beta. The mover in p must not
// be able to make four at once.
func (s *Solver) negamax(p *Position, alpha, beta int) int {
	s.nodes++
	if s.nodes%checkEvery == 0 && s.ctx.Err() != nil {
		s.stop = true
	}
	if s.stop {
		return 0
	}
	cells := s.g.Cells()
	next := p.nonLosing()
	if next == 0 {
		return -(cells - p.moves) / 2 // every move lets the opponent win
	}
	if p.moves >= cells-2 {
		return 0 // neither player can make four with the last two discs
	}
	if min := -(cells - 2 - p.moves) / 2; alpha < min {
		alpha = min // the opponent cannot win with their next disc
		if alpha >= beta {
			return alpha
		}
	}
	if max := (cells - 1 - p.moves) / 2; beta > max {
		beta = max // nor can the mover with this one
		if alpha >= beta {
			return beta
		}
	}
	key := p.Key()
	if v, lower, ok := s.tt.get(key); ok {
		if lower {
			if v > alpha {
				alpha = v
				if alpha >= beta {
					return alpha
				}
			}
		} else if v < beta {
			beta = v
			if alpha >= beta {
				return beta
			}
		}
	}
	var moves sorter
	for _, c := range s.g.order {
		if m := next & s.g.ColumnMask(c); m != 0 {
			moves.add(m, p.moveScore(m))
		}
	}
	for i := 0; i < moves.n; i++ {
		q := *p
		q.play(moves.move[i])
		score := -s.negamax(&q, -beta, -alpha)
		if s.stop {
			return 0
		}
		if score >= beta {
			s.tt.put(key, score, true)
			return score
		}
		if score > alpha {
			alpha = score
		}
	}
	s.tt.put(key, alpha, false)
	return alpha
}

// sorter keeps at most 8 moves in decreasing score, ties in insertion
// order (the centre first).
type sorter struct {
	n     int
	move  [8]uint64
	score [8]int
}

func (m *sorter) add(move uint64, score int) {
	i := m.n
	for ; i > 0 && m.score[i-1] < score; i-- {
		m.move[i], m.score[i] = m.move[i-1], m.score[i-1]
	}
	m.move[i], m.score[i] = move, score
	m.n++
}

// table is the transposition table: bounds on scores by position key,
// the newest kept on a collision.
type table struct {
	keys  []uint64
	vals  []int8 // the bound
	kinds []bool // true: a lower bound, false: an upper bound
	shift uint
}

func newTable(bits int) table {
	n := 1 << uint(bits)
	return table{keys: make([]uint64, n), vals: make([]int8, n), kinds: make([]bool, n), shift: uint(64 - bits)}
}

func (t *table) index(key uint64) uint64 { return (key * 0x9e3779b97f4a7c15) >> t.shift }

// The table stores key+1, so that its zero entries match no position
// (no key is all ones: a column's key bits never are).

func (t *table) get(key uint64) (v int, lower, ok bool) {
	i := t.index(key)
	if t.keys[i] != key+1 {
		return 0, false, false
	}
	return int(t.vals[i]), t.kinds[i], true
}

func (t *table) put(key uint64, v int, lower bool) {
	i := t.index(key)
	t.keys[i], t.vals[i], t.kinds[i] = key+1, int8(v), lower
}
