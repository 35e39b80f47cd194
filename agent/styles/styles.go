// Package styles holds opponents of distinct playing styles for the bench
// of real opponents (see docs/bench.md): players that are not zerokit's
// own alpha-beta, each with one defining habit that public course agents
// were seen to have.
//
// Watch Your Back! (alpha-beta on a style's evaluation):
//   - Centre holds the centre: material plus its pieces' closeness to the
//     centre, so that the shrinks take the other side's pieces;
//   - Locker keeps the board closed: material minus the opponent's
//     mobility, so the opponent has few moves and no capture is offered;
//   - Trader trades pieces whenever it can: with material level, fewer
//     pieces on the board is better, and contact with enemy pieces is
//     sought while placing.
//
// Squatter:
//   - Blocker answers every move so that the opponent never closes a
//     territory (alpha-beta on the opponent's score alone);
//   - Mirror plays the cell point-symmetric to the opponent's last move
//     (as the second player it keeps the board symmetric), and the
//     blocker's move where that cell is taken.
//
// The heuristics are values for env.Heuristic; Factories build the
// agents for package agent/spec.
package styles

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/env/wyb"
)

// pieceValue is the weight of one piece of material in the Watch Your
// Back! styles' evaluations: every style term together stays below it,
// so no style gives away a piece for its habit.
const pieceValue = 100

// Names of the styles, as agent spec kinds.
const (
	CentreName  = "centre"
	LockerName  = "locker"
	TraderName  = "trader"
	BlockerName = "blocker"
	MirrorName  = "mirror"
)

// wybState is s as a Watch Your Back! state.
func wybState(s env.State) *wyb.State { return s.(*wyb.State) }

// own returns player's and the opponent's piece bitboards.
func own(b wyb.Bitboards, player int) (mine, theirs uint64) {
	if player == 0 {
		return b.White, b.Black
	}
	return b.Black, b.White
}

// Centrality is the sum over the pieces in m of their closeness to the
// centre of the 8x8 board: 14 minus twice the Manhattan distance of the
// square's centre to the board's (7 for a centre square, 0 for a corner).
func Centrality(m uint64) int {
	total := 0
	for m != 0 {
		sq := bits.TrailingZeros64(m)
		m &= m - 1
		x, y := sq%8, sq/8
		total += 14 - abs(2*x-7) - abs(2*y-7)
	}
	return total / 2
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// CentreEval is the centre-holder's evaluation: material (wyb.Material)
// times pieceValue plus the player's Centrality minus the opponent's.
func CentreEval(s env.State, player int) float64 {
	w := wybState(s)
	mine, theirs := own(w.Board(), player)
	return pieceValue*wyb.Material(s, player) + float64(Centrality(mine)-Centrality(theirs))
}

// Board shifts, with the squares that wrap around masked off (bit y*8+x).
const (
	fileA uint64 = 0x0101010101010101
	fileH uint64 = 0x8080808080808080
)

func up(b uint64) uint64    { return b >> 8 }
func down(b uint64) uint64  { return b << 8 }
func left(b uint64) uint64  { return (b &^ fileA) >> 1 }
func right(b uint64) uint64 { return (b &^ fileH) << 1 }

// Mobility counts the moving-phase moves of the pieces in m on board b: a
// step to an adjacent empty live square, or a jump over an adjacent piece
// to the empty live square beyond, in each of the four directions.
func Mobility(b wyb.Bitboards, m uint64) int {
	occupied := b.White | b.Black
	empty := b.Live &^ (occupied | b.Corners)
	n := 0
	for _, shift := range []func(uint64) uint64{up, down, left, right} {
		n += bits.OnesCount64(shift(m) & empty)
		n += bits.OnesCount64(shift(shift(m)&occupied) & empty)
	}
	return n
}

// LockerEval is the locker's evaluation: material times pieceValue minus
// the opponent's Mobility (its own counts a quarter as much, so it still
// prefers to keep some moves).
func LockerEval(s env.State, player int) float64 {
	w := wybState(s)
	b := w.Board()
	mine, theirs := own(b, player)
	return pieceValue*wyb.Material(s, player) - float64(Mobility(b, theirs)) + float64(Mobility(b, mine))/4
}

// Contact counts the pairs of orthogonally adjacent squares holding one
// piece of m and one of o.
func Contact(m, o uint64) int {
	return bits.OnesCount64(up(m)&o) + bits.OnesCount64(down(m)&o) + bits.OnesCount64(left(m)&o) + bits.OnesCount64(right(m)&o)
}

// TraderEval is the trader's evaluation: material times pieceValue, minus
// 10 per piece on the board or in hand of either side (so that an even
// trade gains 20), plus the Contact of its pieces with the opponent's.
func TraderEval(s env.State, player int) float64 {
	w := wybState(s)
	mine, theirs := own(w.Board(), player)
	total := w.Pieces(0) + w.Pieces(1) + w.ToPlace(0) + w.ToPlace(1)
	return pieceValue*wyb.Material(s, player) - 10*float64(total) + float64(Contact(mine, theirs))
}

// Factory builds the agents of the style name for game, searching depth
// plies (0: the style's default, 3 for Watch Your Back! and 2 for
// Squatter's blocker).
func Factory(game env.Game, name string, depth int) (agent.Factory, error) {
	if depth < 0 {
		return nil, fmt.Errorf("styles: %s: depth %d, want 0 or more", name, depth)
	}
	switch name {
	case CentreName, LockerName, TraderName:
		if _, ok := game.(*wyb.Game); !ok {
			return nil, fmt.Errorf("styles: %s plays Watch Your Back!, not %s", name, game.Name())
		}
		eval := map[string]env.HeuristicFunc{CentreName: CentreEval, LockerName: LockerEval, TraderName: TraderEval}[name]
		if depth == 0 {
			depth = 3
		}
		return alphaBeta(game, name, eval, depth), nil
	case BlockerName, MirrorName:
		g, ok := game.(*squatter.Game)
		if !ok {
			return nil, fmt.Errorf("styles: %s plays Squatter, not %s", name, game.Name())
		}
		if depth == 0 {
			depth = 2
		}
		block := alphaBeta(game, BlockerName, BlockerEval, depth)
		if name == BlockerName {
			return block, nil
		}
		return func(seed uint64) (agent.Agent, error) {
			b, err := block(seed)
			if err != nil {
				return nil, err
			}
			return &Mirror{n: g.N(), fallback: b}, nil
		}, nil
	}
	return nil, fmt.Errorf("styles: unknown style %q", name)
}

// alphaBeta is a Factory of alpha-beta on the style evaluation eval to
// depth, named after the style. A style's evaluation is its own view of a
// position, not a zero-sum one (the trader likes trades, which its
// opponent need not): the search scores every position with eval from the
// style's side, negated for the other's, so the opponent is modelled as
// minimising what the style maximises.
func alphaBeta(game env.Game, name string, eval env.HeuristicFunc, depth int) agent.Factory {
	return func(seed uint64) (agent.Agent, error) {
		st := &styled{}
		h := env.HeuristicFunc(func(s env.State, player int) float64 {
			v := eval(s, st.side)
			if player != st.side {
				return -v
			}
			return v
		})
		ab, err := agent.NewAlphaBeta(game, h, agent.AlphaBetaConfig{Depth: depth, Seed: seed, Name: fmt.Sprintf("%s-d%d", name, depth)})
		if err != nil {
			return nil, err
		}
		st.Agent = ab
		return st, nil
	}
}

// styled is an alpha-beta player on a style's evaluation, which it takes
// from its own side: the side it moves for.
type styled struct {
	agent.Agent
	side int
}

// Act records the side to move and searches.
func (st *styled) Act(ctx context.Context, s env.State) (int, error) {
	if p := s.CurrentPlayer(); p >= 0 {
		st.side = p
	}
	return st.Agent.Act(ctx, s)
}
