package wyb

import (
	"fmt"
	"strings"
)

// refGame is a deliberately naive model of the official referee's game
// (a [y][x] grid of symbols, explicit loops), written independently of the
// bitboard engine so that the two can be cross-checked move by move.
type refGame struct {
	grid     [8][8]byte // 'W', 'B', 'X', '-', ' '
	nShrinks int
	turns    int
	phase    string // "placing", "moving", "completed"
	count    map[byte]int
	winner   string
	limit    int
}

func newRefGame(limit int) *refGame {
	g := &refGame{phase: "placing", count: map[byte]int{'W': 0, 'B': 0}, limit: limit}
	for y := range g.grid {
		for x := range g.grid[y] {
			g.grid[y][x] = '-'
		}
	}
	for _, c := range [][2]int{{0, 0}, {7, 0}, {7, 7}, {0, 7}} {
		g.grid[c[1]][c[0]] = 'X'
	}
	return g
}

func (g *refGame) piece() byte {
	if g.turns%2 == 0 {
		return 'W'
	}
	return 'B'
}

func other(p byte) byte {
	if p == 'W' {
		return 'B'
	}
	return 'W'
}

func (g *refGame) within(x, y int) bool {
	return x >= 0 && x <= 7 && y >= 0 && y <= 7 && g.grid[y][x] != ' '
}

func (g *refGame) at(x, y int) byte {
	if !g.within(x, y) {
		return 0
	}
	return g.grid[y][x]
}

func isEnemyOf(target, v byte) bool {
	switch target {
	case 'W':
		return v == 'B' || v == 'X'
	case 'B':
		return v == 'W' || v == 'X'
	}
	return false
}

func (g *refGame) surrounded(x, y, dx, dy int) bool {
	p := g.grid[y][x]
	return isEnemyOf(p, g.at(x+dx, y+dy)) && isEnemyOf(p, g.at(x-dx, y-dy))
}

func (g *refGame) eliminateAbout(x, y int) {
	p := g.grid[y][x]
	for _, d := range [][2]int{{-1, 0}, {1, 0}, {0, 1}, {0, -1}} {
		tx, ty := x+d[0], y+d[1]
		t := g.at(tx, ty)
		isTarget := (p == 'X' && (t == 'W' || t == 'B')) || (p != 'X' && t == other(p))
		if isTarget && g.surrounded(tx, ty, -d[0], -d[1]) {
			g.grid[ty][tx] = '-'
			g.count[t]--
		}
	}
	if p == 'W' || p == 'B' {
		if g.surrounded(x, y, 1, 0) || g.surrounded(x, y, 0, 1) {
			g.grid[y][x] = '-'
			g.count[p]--
		}
	}
}

// legal reports whether engine action a is legal, by the referee's checks
// on its referee form.
func (g *refGame) legal(a int) bool {
	if g.phase == "completed" {
		return false
	}
	kind, xa, ya, xb, yb := DecodeAction(a)
	p := g.piece()
	switch g.phase {
	case "placing":
		if kind != PlaceKind {
			return false
		}
		if !g.within(xa, ya) || (p == 'W' && ya > 5) || (p == 'B' && ya < 2) {
			return false
		}
		return g.grid[ya][xa] == '-'
	default:
		switch kind {
		case PassKind:
			return !g.hasMoves()
		case StepKind, JumpKind:
		default:
			return false
		}
		if !g.within(xa, ya) || !g.within(xb, yb) || g.grid[ya][xa] != p || g.grid[yb][xb] != '-' {
			return false
		}
		if kind == StepKind {
			return true
		}
		m := g.grid[(ya+yb)/2][(xa+xb)/2]
		return m == 'W' || m == 'B'
	}
}

func (g *refGame) hasMoves() bool {
	p := g.piece()
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			if g.grid[y][x] != p {
				continue
			}
			for _, d := range [][2]int{{0, 1}, {1, 0}, {0, -1}, {-1, 0}} {
				if g.at(x+d[0], y+d[1]) == '-' {
					return true
				}
				if g.at(x+2*d[0], y+2*d[1]) == '-' {
					return true
				}
			}
		}
	}
	return false
}

// update plays a legal action.
func (g *refGame) update(a int) {
	kind, xa, ya, xb, yb := DecodeAction(a)
	p := g.piece()
	switch kind {
	case PlaceKind:
		g.grid[ya][xa] = p
		g.count[p]++
		g.eliminateAbout(xa, ya)
	case StepKind, JumpKind:
		g.grid[yb][xb] = p
		g.grid[ya][xa] = '-'
		g.eliminateAbout(xb, yb)
	}
	g.turns++
	if g.phase == "placing" && g.turns == 24 {
		g.phase = "moving"
		g.turns = 0
	}
	if g.phase == "moving" {
		g.checkWin()
		if g.phase != "completed" && (g.turns == 128 || g.turns == 192) {
			g.shrink()
			g.checkWin()
		}
		if g.phase != "completed" && g.limit > 0 && g.turns >= g.limit {
			switch {
			case g.count['W'] > g.count['B']:
				g.winner = "W"
			case g.count['B'] > g.count['W']:
				g.winner = "B"
			default:
				g.winner = "draw"
			}
			g.phase = "completed"
		}
	}
}

func (g *refGame) checkWin() {
	w, b := g.count['W'], g.count['B']
	switch {
	case w >= 2 && b >= 2:
		return
	case w < 2 && b >= 2:
		g.winner = "B"
	case b < 2 && w >= 2:
		g.winner = "W"
	default:
		g.winner = "draw"
	}
	g.phase = "completed"
}

func (g *refGame) shrink() {
	s := g.nShrinks
	for i := s; i < 8-s; i++ {
		for _, sq := range [][2]int{{i, s}, {s, i}, {i, 7 - s}, {7 - s, i}} {
			x, y := sq[0], sq[1]
			if v := g.grid[y][x]; v == 'W' || v == 'B' {
				g.count[v]--
			}
			g.grid[y][x] = ' '
		}
	}
	g.nShrinks++
	s = g.nShrinks
	for _, c := range [][2]int{{s, s}, {s, 7 - s}, {7 - s, 7 - s}, {7 - s, s}} {
		x, y := c[0], c[1]
		if v := g.grid[y][x]; v == 'W' || v == 'B' {
			g.count[v]--
		}
		g.grid[y][x] = 'X'
		g.eliminateAbout(x, y)
	}
}

func (g *refGame) String() string {
	var sb strings.Builder
	for y := 0; y < 8; y++ {
		row := make([]string, 8)
		for x := 0; x < 8; x++ {
			c := g.grid[y][x]
			switch c {
			case 'W':
				c = 'O'
			case 'B':
				c = '@'
			}
			row[x] = string(c)
		}
		sb.WriteString(strings.Join(row, " "))
		sb.WriteByte('\n')
	}
	if g.phase == "completed" {
		sb.WriteString("game over!")
	} else {
		fmt.Fprintf(&sb, "%d turns into the %s phase", g.turns, g.phase)
	}
	return sb.String()
}
