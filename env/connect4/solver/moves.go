package solver

import "context"

// Keeping returns p's result and the columns whose move keeps it: those
// that win when p is won, those that do not lose when it is drawn, every
// playable column when it is lost.
func (s *Solver) Keeping(ctx context.Context, p Position) (Result, []int, error) {
	if e, ok := s.lookup(p); ok {
		return e.Value.Result, e.Keep, nil
	}
	return s.keeping(ctx, p)
}

func (s *Solver) keeping(ctx context.Context, p Position) (Result, []int, error) {
	res, err := s.Result(ctx, p)
	if err != nil {
		return 0, nil, err
	}
	var keep []int
	for c := 0; c < s.g.Columns; c++ {
		if !p.CanPlay(c) {
			continue
		}
		switch {
		case res == Loss:
		case p.IsWinningMove(c):
		default:
			q := p
			q.PlayColumn(c)
			// The move keeps a win when the child is lost (score <= -1),
			// a draw when the child is not won (score <= 0).
			bound := -1
			if res == Draw {
				bound = 0
			}
			score, err := s.solve(&q, bound, bound+1)
			if err != nil {
				return 0, nil, err
			}
			if score > bound {
				continue
			}
		}
		keep = append(keep, c)
	}
	return res, keep, nil
}

// Best returns p's exact value and the columns that keep it exactly: the
// fastest wins, the draws, or the slowest losses.
func (s *Solver) Best(ctx context.Context, p Position) (Value, []int, error) {
	if e, ok := s.lookup(p); ok {
		return e.Value, e.Best, nil
	}
	return s.best(ctx, p)
}

func (s *Solver) best(ctx context.Context, p Position) (Value, []int, error) {
	v, err := s.Solve(ctx, p)
	if err != nil {
		return Value{}, nil, err
	}
	cells := s.g.Cells()
	var best []int
	for c := 0; c < s.g.Columns; c++ {
		if !p.CanPlay(c) {
			continue
		}
		if p.IsWinningMove(c) {
			if (cells+1-p.moves)/2 == v.Score {
				best = append(best, c)
			}
			continue
		}
		q := p
		q.PlayColumn(c)
		// The child's score is at least -v.Score; the move is best when
		// it is at most that.
		score, err := s.solve(&q, -v.Score, -v.Score+1)
		if err != nil {
			return Value{}, nil, err
		}
		if score <= -v.Score {
			best = append(best, c)
		}
	}
	return v, best, nil
}

// MoveValues returns the exact value, for the player to move in p, of
// playing each column (ok false for a full one): slower than Best, which
// finds the best columns without the others' exact values.
func (s *Solver) MoveValues(ctx context.Context, p Position) (vals []Value, ok []bool, err error) {
	if err := s.start(ctx, &p); err != nil {
		return nil, nil, err
	}
	cells := s.g.Cells()
	vals, ok = make([]Value, s.g.Columns), make([]bool, s.g.Columns)
	for c := 0; c < s.g.Columns; c++ {
		if !p.CanPlay(c) {
			continue
		}
		ok[c] = true
		if p.IsWinningMove(c) {
			vals[c] = s.g.ValueOf((cells+1-p.moves)/2, p.moves)
			continue
		}
		q := p
		q.PlayColumn(c)
		score, err := s.solve(&q, s.g.MinScore()-1, s.g.MaxScore()+1)
		if err != nil {
			return nil, nil, err
		}
		vals[c] = s.g.ValueOf(-score, p.moves)
	}
	return vals, ok, nil
}
