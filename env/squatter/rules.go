package squatter

import (
	"errors"
	"fmt"
)

// This file holds every rule of Squatter and every decision taken where the
// specification (/work/shared/rules/squatter.md, "Rules of the Game of
// Squatter", C. Leckie, 4 March 2015) is loose. Nothing elsewhere in the
// package decides a rule; the other files only encode, hash and print.
//
// # Board, players and notation
//
//   - The board is N x N, MinN <= N <= MaxN (the specification requires N > 5
//     and is tuned for N = 6).
//   - Cell (x, y) is column x, row y, 0-based from the top left; its index
//     and its action are y*N + x. The specification writes positions as
//     (row, column), so its (r, c) is our x = c, y = r. ActionString writes
//     "x,y".
//   - Player 0 is Black and moves first; player 1 is White. The
//     specification says "a player is chosen arbitrarily to make the first
//     move"; the toolkit's convention is that player 0 moves first, and we
//     name it Black because the specification lists Black first and its first
//     figure (9 Black pieces, 8 White) can only arise with Black moving first.
//     (Its final figure, 16 Black and 17 White, can only arise with White
//     first: the figures are separate illustrations, so the tests map colours
//     to players figure by figure.) The rules are the same for both colours,
//     so colour is only a name; the observation does not encode it.
//   - Players alternate strictly. There is no pass action (see Legal moves).
//
// # Cell states
//
// Every cell holds no piece or one piece (Black or White), and lies in no
// territory or in exactly one player's territory (territories never overlap,
// as the specification requires). A cell is free when it holds no piece and
// lies in no territory. A piece is live when it lies in no territory, and
// dead (the specification's "captured piece", drawn ⊖) when it lies in any
// territory, whoever owns it. Dead pieces stay on the board for ever; only
// live pieces form loops ("a loop is a sequence of adjacent pieces ... which
// do not lie in captured territory").
//
// # Loops and enclosure
//
// A loop is a cycle of 8-adjacent (orthogonally or diagonally adjacent) live
// pieces of one player; the board edge is not part of any loop. Rather than
// search for cycles, enclosure is computed on the complement, which is the
// exact dual of 8-connected loops: for player P,
//
//   - the background is every cell that is not a live P piece (free cells,
//     territory, opponent pieces and dead P pieces);
//   - outside(P) is the set of background cells that a 4-connected
//     (orthogonal) path through background cells links to the board edge,
//     i.e. a flood fill from the background cells of the edge. 4-connectivity
//     is forced: a diagonal step between two background cells may not cross
//     the diagonal link of a loop;
//   - the walls of P are the live P pieces on the edge or orthogonally next
//     to a cell of outside(P);
//   - everything else is enclosed by P, and the enclosed cells split into
//     regions: the 4-connected components of the enclosed cells.
//
// A region therefore also contains the live P pieces that lie strictly
// inside the outermost loop (not next to the outside). This is the
// specification's last figure: Black's two loops share a piece at (row 4,
// col 3); once Black also holds (5,3), that piece no longer touches the
// outside, and "the territory captured by Black has formed one big region,
// which includes one of its own pieces, rather than two smaller regions":
// 7 cells, of which 6 count.
//
// # Capture
//
//   - Captures are resolved after every placement, for the player who placed,
//     all regions at once from the same board. One placement may close
//     several loops and capture several regions ("it is possible for a player
//     to form more than one loop with one move").
//   - A region is captured only if at least one of its cells is not a piece
//     of the capturing player: an empty cell or an opponent piece (the
//     specification: "the enclosed territory contains at least one cell that
//     was free or occupied by the other player"; an empty cell that is
//     already territory was free before it was captured). A ring of P's pieces
//     around only P's own pieces (a solid block) captures nothing, and its
//     inner pieces stay live: the specification's top-left White block.
//   - Capturing a region makes all of its cells P's territory, whatever they
//     held before: free cells, pieces of both colours (which are now dead),
//     P's own earlier territory, and the opponent's territory, which thereby
//     changes hands ("captured cells can change hands if a loop by one player
//     is later encircled by a loop of the other player"). P's own pieces in
//     the region are dead as well: they lie in captured territory, do not
//     count for P and no longer form loops (which changes nothing for P, as
//     they lie inside P's walls), exactly like the figure's Black piece at
//     (4,3). An opponent region
//     always lies wholly inside or wholly outside a new region, because its
//     border pieces are orthogonally next to it and passable for P, so
//     territories never overlap.
//   - The opponent never captures anything on P's placement. Enclosure is
//     monotone in the live pieces: fewer live pieces of Q mean more
//     background, a larger outside(Q) and fewer enclosed cells. P's placement
//     puts a P piece (background for Q) on a free cell (background for Q),
//     and P's captures only kill Q's pieces and take Q's territory, so Q's
//     live pieces never grow and nothing new becomes enclosed for Q. Hence
//     no placement captures for both players, and a placement never gives
//     territory to the opponent. The fuzz test checks this against a slow
//     reference.
//
// # Legal moves, passing and the end of the game
//
//   - A player may place a piece on any free cell, and only there: never on
//     an occupied cell nor in captured territory of either player.
//   - Both players share the same free cells, so while a free cell remains
//     the player to move has a legal placement. A pass action is therefore
//     never needed and the action space is exactly the N*N placements.
//   - The game ends when no free cell remains.
//   - Termination: a placement turns a free cell into an occupied one, and a
//     capture only turns free cells into territory; territory can change
//     hands but is never released and pieces are never removed, so no cell
//     ever becomes free again. The number of free cells thus drops by at
//     least one per action, starting from N*N, and the game ends after at
//     most N*N actions (MaxGameLength).
//
// # Scoring
//
// A player's score is the number of cells in their territory that are empty
// or hold an opponent piece; their own pieces inside their own territory do
// not count ("the player only counts cells that were free or occupied by the
// opponent towards their total"). Cells that changed hands count only for
// their last owner. The higher score wins (+1, -1); equal scores are a draw
// (0, 0), including 0-0.
//
// # Invariants (checked after every action by the fuzz test)
//
//   - I1: every territory cell's orthogonal neighbours are territory of the
//     same player or live pieces of that player (the walls), so territory
//     never touches the edge and never touches the outside.
//   - I2: for each player P, outside(P) is exactly the background of P minus
//     P's territory. After P's resolution every enclosed region that holds an
//     empty cell or an opponent piece is P's; the opponent's moves only grow
//     outside(P), and a region the opponent takes from P is reached through
//     its now-dead walls.
//
// # Computing outside(P) incrementally (the only optimisation)
//
// resolve does not flood outside(P) from the edge. By I2, before P places on
// c, outside(P) is P's background minus P's territory, and c is in it (c is
// free). The placement removes c from the background; what else leaves
// outside(P) are the components of the rest that lose their link to the
// edge, and each of those holds an orthogonal neighbour of c (every 4-path
// they had to the edge went through c). Walk the eight cells around c in
// order (N, NE, E, SE, S, SW, W, NW; cells off the board count as
// background, joined through the virtual ring around the board):
// consecutive ring cells are orthogonal neighbours of each other, so the
// background cells of the ring form runs. If at most one run holds an
// orthogonal neighbour of c, every 4-path through c can be rerouted along
// that run, so outside(P) loses exactly c; then the only cells that can
// become enclosed are live P pieces orthogonally next to c that have just
// lost their last outside neighbour (the figure-4 case), and if there is
// none, nothing is captured and resolve stops. Otherwise resolve floods from
// each orthogonal neighbour of c in outside(P), stopping as soon as the
// flood touches the edge, and removes the components that never do. From
// the new outside(P), the walls, enclosed cells and regions follow as
// defined above; regions already wholly P's territory are left alone.

// Free reports whether the cell holds no piece and lies in no territory.
func (c CellState) Free() bool { return !c.OffBoard && c.Piece < 0 && c.Owner < 0 }

// Live reports whether the cell holds a piece that lies in no territory; only
// live pieces form loops.
func (c CellState) Live() bool { return c.Piece >= 0 && c.Owner < 0 }

// IsLegal implements env.State: action is a free cell and the game is on.
func (s *State) IsLegal(action int) bool {
	return action >= 0 && action < s.g.cells && s.free.has(action)
}

// illegal explains why action may not be played, or returns nil.
func (s *State) illegal(action int) error {
	switch {
	case s.free.empty():
		return errors.New("game is over (no free cell left)")
	case action < 0 || action >= s.g.cells:
		return fmt.Errorf("action %d out of range [0, %d)", action, s.g.cells)
	case s.free.has(action):
		return nil
	}
	cs := s.CellAt(action)
	if cs.Piece >= 0 {
		return fmt.Errorf("cell %s is occupied by %s", s.ActionString(action), playerName(cs.Piece))
	}
	return fmt.Errorf("cell %s lies in %s's captured territory", s.ActionString(action), playerName(cs.Owner))
}

// ApplyAction implements env.State: the player to move places a piece on
// the free cell action, then captures whatever the piece encloses.
func (s *State) ApplyAction(action int) error {
	if err := s.illegal(action); err != nil {
		return fmt.Errorf("squatter: %w", err)
	}
	p := s.toMove
	s.pieces[p].set(action)
	s.free = s.free.andNot(single(action))
	s.hash ^= s.g.zPiece[p][action]
	s.resolve(p, action)
	s.toMove ^= 1
	s.hash ^= s.g.zSide
	s.moves++
	return nil
}

// live returns p's live pieces: those lying in no territory.
func (s *State) live(p int) bitset {
	return s.pieces[p].andNot(s.terr[0].or(s.terr[1]))
}

// separates reports whether the background around c (cells that are not
// in live, or off the board) splits into two or more runs holding an
// orthogonal neighbour of c, so that a piece on c may cut some background
// off from the edge.
func (g *Game) separates(live bitset, c int) bool {
	var m uint8
	for k, nb := range g.ring[c] {
		if nb < 0 || !live.has(int(nb)) {
			m |= 1 << uint(k)
		}
	}
	return g.orthRuns[m] >= 2
}

// resolve captures, after p placed a piece on c, every region that p
// encloses and that holds an empty cell or an opponent piece (see "Loops and
// enclosure", "Capture" and "Computing outside(P) incrementally").
func (s *State) resolve(p, c int) {
	g := s.g
	q := 1 - p
	live := s.live(p)
	// I2: outside(p) was p's background minus p's territory; c has left it.
	outside := g.board.andNot(live).andNot(s.terr[p])
	if !g.separates(live, c) {
		// outside(p) lost only c; the only cells that can newly become
		// enclosed are live orthogonal neighbours of c that have just lost
		// their last outside neighbour. Without one, nothing is captured.
		interior := false
		for k := 0; k < 8; k += 2 {
			d := int(g.ring[c][k])
			if d >= 0 && live.has(d) && !g.edge.has(d) && g.n4[d].and(outside).empty() {
				interior = true
			}
		}
		if !interior {
			return
		}
	} else {
		var open bitset
		for k := 0; k < 8; k += 2 {
			o := int(g.ring[c][k])
			if o < 0 || !outside.has(o) || open.has(o) {
				continue
			}
			comp, atEdge := g.floodToEdge(o, outside)
			if atEdge {
				open = open.or(comp)
			} else {
				outside = outside.andNot(comp)
			}
		}
	}
	walls := live.and(g.edge.or(g.expand4(outside)))
	enclosed := g.board.andNot(outside).andNot(walls)
	pending := enclosed.andNot(s.terr[p])
	for !pending.empty() {
		region := g.flood(single(pending.lowest()), enclosed)
		pending = pending.andNot(region)
		if region.andNot(s.pieces[p]).empty() {
			continue // only p's own pieces: not territory
		}
		s.hash ^= region.andNot(s.terr[p]).zobristXor(g.zTerr[p])
		s.hash ^= region.and(s.terr[q]).zobristXor(g.zTerr[q])
		s.terr[p] = s.terr[p].or(region)
		s.terr[q] = s.terr[q].andNot(region)
		s.free = s.free.andNot(region)
	}
}

// Score returns the cells that count for player, which must be 0 or 1:
// cells of the player's territory that are empty or hold an opponent piece.
func (s *State) Score(player int) int {
	return s.terr[player].andNot(s.pieces[player]).count()
}

// Territory returns the number of cells in the territory of player (0 or
// 1), including the player's own pieces there, which do not count towards
// Score.
func (s *State) Territory(player int) int { return s.terr[player].count() }

// FreeCount returns the number of free cells, which is also the number of
// legal actions.
func (s *State) FreeCount() int { return s.free.count() }

// IsTerminal implements env.State: the game ends when no free cell remains.
func (s *State) IsTerminal() bool { return s.free.empty() }

// Returns implements env.State: +1 to the player with the higher score, -1
// to the other, 0 each on equal scores; zeros before the end.
func (s *State) Returns() [2]float32 {
	if !s.IsTerminal() {
		return [2]float32{}
	}
	switch a, b := s.Score(0), s.Score(1); {
	case a > b:
		return [2]float32{1, -1}
	case a < b:
		return [2]float32{-1, 1}
	}
	return [2]float32{}
}
