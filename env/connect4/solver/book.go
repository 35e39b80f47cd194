package solver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// BookHeader is the first line of a book's text.
const BookHeader = "# zerokit book v1"

// Entry is a solved position of a Book.
type Entry struct {
	// Moves are the columns played from the empty board, 0 the leftmost.
	Moves []int
	// Value is the position's exact value for the player to move.
	Value Value
	// Best are the columns that keep the value exactly: the fastest wins,
	// the draws, the slowest losses.
	Best []int
	// Keep are the columns that keep the result: that win when the
	// position is won, that do not lose when it is drawn, every playable
	// one when it is lost. Best is a subset.
	Keep []int
}

// Book holds solved positions that a Solver answers without searching:
// the early positions, which take minutes to solve. A position and its
// mirror image share one entry. A Book is read-only once a Solver uses it.
type Book struct {
	// Comments are the comment lines ReadBook read (without "# "), but
	// the header and the board.
	Comments []string
	g        *Geometry
	entries  []Entry
	keys     []uint64       // each entry's own position's key
	index    map[uint64]int // by the smaller of a position's key and its mirror's
}

// NewBook returns an empty book of g's board.
func NewBook(g *Geometry) *Book { return &Book{g: g, index: map[uint64]int{}} }

// Geometry is the book's board.
func (b *Book) Geometry() *Geometry { return b.g }

// Len is the number of entries.
func (b *Book) Len() int { return len(b.entries) }

// Entries returns the entries in the order they were added.
func (b *Book) Entries() []Entry { return slices.Clone(b.entries) }

// canonical is the key a position and its mirror share.
func canonical(p *Position) uint64 {
	m := p.Mirror()
	return min(p.Key(), m.Key())
}

// Has reports whether the book holds p or its mirror.
func (b *Book) Has(p Position) bool {
	_, ok := b.index[canonical(&p)]
	return ok
}

// Add checks e (its moves a legal game not over, its columns playable,
// Best within Keep, a value the position can have) and adds it. A
// position already in the book (or its mirror) is an error.
func (b *Book) Add(e Entry) error {
	p, err := b.g.FromMoves(e.Moves)
	if err != nil {
		return err
	}
	if p.HasFour() {
		return ErrGameOver
	}
	if p.moves == b.g.Cells() {
		return errors.New("solver: book entry: the board is full")
	}
	if v := b.g.ValueOf(e.Value.Score, p.moves); v != e.Value || e.Value.Score < -(b.g.Cells()-p.moves)/2 || e.Value.Score > (b.g.Cells()+1-p.moves)/2 {
		return fmt.Errorf("solver: book entry %s: value %v impossible with %d discs", digits(e.Moves), e.Value, p.moves)
	}
	for _, set := range [2][]int{e.Best, e.Keep} {
		if len(set) == 0 {
			return fmt.Errorf("solver: book entry %s: no moves", digits(e.Moves))
		}
		for i, c := range set {
			if c < 0 || c >= b.g.Columns || !p.CanPlay(c) {
				return fmt.Errorf("solver: book entry %s: column %d not playable", digits(e.Moves), c)
			}
			if i > 0 && set[i-1] >= c {
				return fmt.Errorf("solver: book entry %s: columns not in increasing order", digits(e.Moves))
			}
		}
	}
	for _, c := range e.Best {
		if !slices.Contains(e.Keep, c) {
			return fmt.Errorf("solver: book entry %s: best column %d does not keep the result", digits(e.Moves), c)
		}
	}
	k := canonical(&p)
	if _, ok := b.index[k]; ok {
		return fmt.Errorf("solver: book entry %s: the position (or its mirror) is already in the book", digits(e.Moves))
	}
	e.Moves, e.Best, e.Keep = slices.Clone(e.Moves), slices.Clone(e.Best), slices.Clone(e.Keep)
	b.index[k] = len(b.entries)
	b.entries = append(b.entries, e)
	b.keys = append(b.keys, p.Key())
	return nil
}

// Lookup returns the entry of p, its columns mirrored when the book holds
// p's mirror image; Moves are the book's own.
func (b *Book) Lookup(p Position) (Entry, bool) {
	if b == nil || p.g != b.g && (p.g.Columns != b.g.Columns || p.g.Rows != b.g.Rows) {
		return Entry{}, false
	}
	i, ok := b.index[canonical(&p)]
	if !ok {
		return Entry{}, false
	}
	e := b.entries[i]
	if b.keys[i] == p.Key() {
		return e, true
	}
	flip := func(cs []int) []int {
		out := make([]int, len(cs))
		for i, c := range cs {
			out[len(cs)-1-i] = b.g.Columns - 1 - c
		}
		return out
	}
	e.Best, e.Keep = flip(e.Best), flip(e.Keep)
	return e, true
}

// Answer returns p's entry from the book: p's own (Lookup), or one
// derived from the entries of the positions one disc later when the book
// holds every one of them (a move that makes four or fills the board needs
// none). So a book of the second player's positions also answers the
// first player's positions between them. A derived entry has no Moves.
func (b *Book) Answer(p Position) (Entry, bool) {
	if b == nil {
		return Entry{}, false
	}
	if e, ok := b.Lookup(p); ok {
		return e, true
	}
	cells := b.g.Cells()
	if p.moves >= cells || p.HasFour() {
		return Entry{}, false
	}
	var scores [64]int
	score := b.g.MinScore() - 1
	for c := 0; c < b.g.Columns; c++ {
		if !p.CanPlay(c) {
			continue
		}
		v := (cells + 1 - p.moves) / 2
		if !p.IsWinningMove(c) {
			q := p
			q.PlayColumn(c)
			if q.moves == cells {
				v = 0
			} else if e, ok := b.Lookup(q); ok {
				v = -e.Value.Score
			} else {
				return Entry{}, false
			}
		}
		scores[c] = v
		score = max(score, v)
	}
	e := Entry{Value: b.g.ValueOf(score, p.moves)}
	for c := 0; c < b.g.Columns; c++ {
		if !p.CanPlay(c) {
			continue
		}
		if scores[c] == score {
			e.Best = append(e.Best, c)
		}
		if sign(scores[c]) == e.Value.Result {
			e.Keep = append(e.Keep, c)
		}
	}
	return e, true
}

// MovesString writes columns as digits, "-" for none (the empty board).
func MovesString(cs []int) string {
	if len(cs) == 0 {
		return "-"
	}
	return digits(cs)
}

func digits(cs []int) string {
	var sb strings.Builder
	for _, c := range cs {
		sb.WriteByte(byte('0' + c))
	}
	return sb.String()
}

// formatValue writes v as the book writes it: W, D or L and the discs to
// the end under perfect play.
func formatValue(v Value) string {
	switch v.Result {
	case Win:
		return "W" + strconv.Itoa(v.Plies)
	case Loss:
		return "L" + strconv.Itoa(v.Plies)
	}
	return "D" + strconv.Itoa(v.Plies)
}

// parseValue reads formatValue's text for a position with moves discs.
func (g *Geometry) parseValue(s string, moves int) (Value, error) {
	if len(s) < 2 {
		return Value{}, fmt.Errorf("value %q: want W, D or L and a number of discs", s)
	}
	n, err := strconv.Atoi(s[1:])
	if err != nil || n < 1 || n > g.Cells()-moves {
		return Value{}, fmt.Errorf("value %q: discs to the end not in [1, %d]", s, g.Cells()-moves)
	}
	var score int
	switch s[0] {
	case 'D':
		if n != g.Cells()-moves {
			return Value{}, fmt.Errorf("value %q: a draw lasts %d discs", s, g.Cells()-moves)
		}
	case 'W':
		score = (g.Cells() + 2 - (moves + n)) / 2
	case 'L':
		score = -(g.Cells() + 2 - (moves + n)) / 2
	default:
		return Value{}, fmt.Errorf("value %q: want W, D or L and a number of discs", s)
	}
	v := g.ValueOf(score, moves)
	if formatValue(v) != s {
		return Value{}, fmt.Errorf("value %q impossible with %d discs (the winner's parity)", s, moves)
	}
	return v, nil
}

func parseColumns(s string) ([]int, error) {
	cs := make([]int, len(s))
	for i := range s {
		if s[i] < '0' || s[i] > '9' {
			return nil, fmt.Errorf("%q: character %d is not a column digit", s, i+1)
		}
		cs[i] = int(s[i] - '0')
	}
	return cs, nil
}

// ReadBook reads a book of g's board written by Book.Write, checking
// every entry as Add does. It names the line of the first error.
func ReadBook(r io.Reader, g *Geometry) (*Book, error) {
	b := NewBook(g)
	sc := bufio.NewScanner(r)
	line := 0
	size := fmt.Sprintf("# board: %dx%d", g.Columns, g.Rows)
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		switch {
		case line == 1 && text != BookHeader:
			return nil, fmt.Errorf("book: line 1: want %q, have %q", BookHeader, text)
		case strings.HasPrefix(text, "# board:") && text != size:
			return nil, fmt.Errorf("book: line %d: %q, but the solver's board is %dx%d", line, text, g.Columns, g.Rows)
		case strings.HasPrefix(text, "#"):
			if line > 1 && !strings.HasPrefix(text, "# board:") {
				b.Comments = append(b.Comments, strings.TrimPrefix(strings.TrimPrefix(text, "#"), " "))
			}
			continue
		case text == "":
			continue
		}
		f := strings.Fields(text)
		if len(f) != 4 {
			return nil, fmt.Errorf("book: line %d: want MOVES VALUE BEST KEEP, have %d fields", line, len(f))
		}
		var e Entry
		var err error
		if f[0] != "-" {
			if e.Moves, err = parseColumns(f[0]); err != nil {
				return nil, fmt.Errorf("book: line %d: moves %w", line, err)
			}
		}
		f = f[1:]
		if len(e.Moves) > g.Cells() {
			return nil, fmt.Errorf("book: line %d: %d moves on a board of %d cells", line, len(e.Moves), g.Cells())
		}
		if e.Value, err = g.parseValue(f[0], len(e.Moves)); err != nil {
			return nil, fmt.Errorf("book: line %d: %w", line, err)
		}
		if e.Best, err = parseColumns(f[1]); err != nil {
			return nil, fmt.Errorf("book: line %d: best %w", line, err)
		}
		if e.Keep, err = parseColumns(f[2]); err != nil {
			return nil, fmt.Errorf("book: line %d: keep %w", line, err)
		}
		if err := b.Add(e); err != nil {
			return nil, fmt.Errorf("book: line %d: %w", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("book: %w", err)
	}
	if line == 0 {
		return nil, errors.New("book: empty, want the line " + BookHeader)
	}
	return b, nil
}

// Write writes the book as text: the header, the board, comments (each
// line prefixed with "# "), and one line an entry, by number of discs and
// then by moves (so that the text does not depend on the order of Add):
//
//	MOVES VALUE BEST KEEP      e.g. 3 L40 0123456 0123456
//
// MOVES is "-" for the empty board; VALUE is W, D or L and the discs to
// the end under perfect play.
func (b *Book) Write(w io.Writer, comments []string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n# board: %dx%d\n", BookHeader, b.g.Columns, b.g.Rows)
	for _, c := range comments {
		fmt.Fprintf(bw, "# %s\n", c)
	}
	sorted := slices.Clone(b.entries)
	slices.SortFunc(sorted, func(x, y Entry) int {
		if len(x.Moves) != len(y.Moves) {
			return len(x.Moves) - len(y.Moves)
		}
		return slices.Compare(x.Moves, y.Moves)
	})
	for _, e := range sorted {
		fmt.Fprintf(bw, "%s %s %s %s\n", MovesString(e.Moves), formatValue(e.Value), digits(e.Best), digits(e.Keep))
	}
	return bw.Flush()
}

// SolveEntry solves p for a book with s: its exact value, its best
// columns and the columns that keep its result.
func (s *Solver) SolveEntry(ctx context.Context, moves []int) (Entry, error) {
	p, err := s.g.FromMoves(moves)
	if err != nil {
		return Entry{}, err
	}
	v, best, err := s.best(ctx, p)
	if err != nil {
		return Entry{}, err
	}
	_, keep, err := s.keeping(ctx, p)
	if err != nil {
		return Entry{}, err
	}
	return Entry{Moves: slices.Clone(moves), Value: v, Best: best, Keep: keep}, nil
}

// Mover selects the positions of a book by the player to move.
type Mover int

// The movers.
const (
	BothMovers Mover = iota
	FirstMover
	SecondMover
)

// BookPositions lists, breadth first and columns from the centre
// outwards (the likeliest lines first), the positions reachable from the position after prefix with at most
// maxDiscs discs, the game not over, whose mover is mover: one of each
// pair of mirror images (the first met), each as its moves.
func (g *Geometry) BookPositions(prefix []int, maxDiscs int, mover Mover) ([][]int, error) {
	root, err := g.FromMoves(prefix)
	if err != nil {
		return nil, err
	}
	if root.HasFour() {
		return nil, ErrGameOver
	}
	type node struct {
		p     Position
		moves []int
	}
	seen := map[uint64]bool{canonical(&root): true}
	level := []node{{root, slices.Clone(prefix)}}
	var out [][]int
	for len(level) > 0 {
		next := []node(nil)
		for _, n := range level {
			switch {
			case mover == BothMovers,
				mover == FirstMover && n.p.moves%2 == 0,
				mover == SecondMover && n.p.moves%2 == 1:
				out = append(out, n.moves)
			}
			if n.p.moves >= maxDiscs || n.p.moves == g.Cells() {
				continue
			}
			for _, c := range g.order {
				if !n.p.CanPlay(c) || n.p.IsWinningMove(c) {
					continue
				}
				q := n.p
				q.PlayColumn(c)
				if q.moves == g.Cells() {
					continue // a full board: nothing to choose
				}
				k := canonical(&q)
				if seen[k] {
					continue
				}
				seen[k] = true
				next = append(next, node{q, append(slices.Clone(n.moves), c)})
			}
		}
		level = next
	}
	return out, nil
}

// BuildConfig configures BuildBook.
type BuildConfig struct {
	// Book receives the new entries; positions it holds are skipped.
	Book *Book
	// Positions are the positions to solve, as moves (BookPositions).
	Positions [][]int
	// Workers solve positions at the same time, each with its own table
	// of 2^TableBits entries (0: DefaultTableBits).
	Workers   int
	TableBits int
	// Added, when set, is called after each entry is added to Book, one
	// call at a time, with the time its search took: to save the book. An
	// error stops the build.
	Added func(e Entry, took time.Duration) error
}

// BuildBook solves cfg.Positions missing from cfg.Book, Workers at a
// time, and adds them. When ctx ends it returns ctx's error, the entries
// finished so far added; a position being solved then is dropped.
func BuildBook(ctx context.Context, cfg BuildConfig) error {
	if cfg.Book == nil {
		return errors.New("solver: BuildBook without a book")
	}
	if cfg.Workers < 1 {
		return fmt.Errorf("solver: %d workers", cfg.Workers)
	}
	g := cfg.Book.g
	var todo [][]int
	for _, m := range cfg.Positions {
		p, err := g.FromMoves(m)
		if err != nil {
			return err
		}
		if !cfg.Book.Has(p) {
			todo = append(todo, m)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan []int)
	type result struct {
		e    Entry
		took time.Duration
		err  error
	}
	results := make(chan result)
	var solvers []*Solver
	for range min(cfg.Workers, max(1, len(todo))) {
		s, err := New(g, cfg.TableBits)
		if err != nil {
			return err
		}
		solvers = append(solvers, s)
	}
	var wg sync.WaitGroup
	for _, s := range solvers {
		wg.Go(func() {
			for m := range jobs {
				start := time.Now()
				e, err := s.SolveEntry(ctx, m)
				results <- result{e, time.Since(start), err}
			}
		})
	}
	go func() {
		defer close(jobs)
		for _, m := range todo {
			select {
			case jobs <- m:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	var first error
	for r := range results {
		if first != nil {
			continue
		}
		if r.err == nil {
			r.err = cfg.Book.Add(r.e)
		}
		if r.err == nil && cfg.Added != nil {
			r.err = cfg.Added(r.e, r.took)
		}
		if r.err != nil {
			first = r.err
			cancel()
		}
	}
	if first == nil {
		first = ctx.Err()
	}
	return first
}
