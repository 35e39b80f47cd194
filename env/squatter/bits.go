package squatter

import "math/bits"

// words is the number of 64-bit words in a bitset. Three words hold 192
// cells, enough for MaxN x MaxN boards.
const words = 3

// bitset is a set of cells, bit i standing for cell i = y*N + x. It is a
// value type: copying a bitset copies the set. Bits at or beyond N*N are
// always zero in the sets a State keeps.
type bitset [words]uint64

// single returns the set holding only cell i.
func single(i int) bitset {
	var b bitset
	b[i>>6] = 1 << uint(i&63)
	return b
}

// has reports whether cell i is in b.
func (b bitset) has(i int) bool { return b[i>>6]>>uint(i&63)&1 != 0 }

// set adds cell i to b.
func (b *bitset) set(i int) { b[i>>6] |= 1 << uint(i&63) }

// and returns the intersection of b and o.
func (b bitset) and(o bitset) bitset { return bitset{b[0] & o[0], b[1] & o[1], b[2] & o[2]} }

// or returns the union of b and o.
func (b bitset) or(o bitset) bitset { return bitset{b[0] | o[0], b[1] | o[1], b[2] | o[2]} }

// andNot returns the cells of b that are not in o.
func (b bitset) andNot(o bitset) bitset {
	return bitset{b[0] &^ o[0], b[1] &^ o[1], b[2] &^ o[2]}
}

// empty reports whether b holds no cell.
func (b bitset) empty() bool { return b[0]|b[1]|b[2] == 0 }

// count returns the number of cells in b.
func (b bitset) count() int {
	return bits.OnesCount64(b[0]) + bits.OnesCount64(b[1]) + bits.OnesCount64(b[2])
}

// lowest returns the smallest cell in b, or -1 when b is empty.
func (b bitset) lowest() int {
	for w, x := range b {
		if x != 0 {
			return w<<6 + bits.TrailingZeros64(x)
		}
	}
	return -1
}

// shl moves every cell i to i+k, 0 < k < 64. Cells moved past the last word
// are dropped.
func (b bitset) shl(k uint) bitset {
	r := 64 - k
	return bitset{b[0] << k, b[1]<<k | b[0]>>r, b[2]<<k | b[1]>>r}
}

// shr moves every cell i to i-k, 0 < k < 64. Cells moved below 0 are
// dropped.
func (b bitset) shr(k uint) bitset {
	r := 64 - k
	return bitset{b[0]>>k | b[1]<<r, b[1]>>k | b[2]<<r, b[2] >> k}
}

// appendCells appends the cells of b to dst in increasing order.
func (b bitset) appendCells(dst []int) []int {
	for w, x := range b {
		for x != 0 {
			dst = append(dst, w<<6+bits.TrailingZeros64(x))
			x &= x - 1
		}
	}
	return dst
}

// zobristXor returns the XOR of keys[i] over the cells i of b.
func (b bitset) zobristXor(keys []uint64) uint64 {
	var h uint64
	for w, x := range b {
		for x != 0 {
			h ^= keys[w<<6+bits.TrailingZeros64(x)]
			x &= x - 1
		}
	}
	return h
}

// expand4 returns the cells orthogonally next to a cell of x.
func (g *Game) expand4(x bitset) bitset {
	n := uint(g.n)
	if g.cells <= 64 {
		w := x[0]
		return bitset{(w<<n | w>>n | (w<<1)&g.notCol0[0] | (w>>1)&g.notColLast[0]) & g.board[0]}
	}
	e := x.shl(1).and(g.notCol0)
	w := x.shr(1).and(g.notColLast)
	return x.shl(n).or(x.shr(n)).or(e).or(w).and(g.board)
}

// flood returns the cells of pass reachable from seed∩pass by orthogonal
// steps within pass.
func (g *Game) flood(seed, pass bitset) bitset {
	if g.cells <= 64 {
		x, _ := g.grow64(seed[0]&pass[0], pass[0], false)
		return bitset{x}
	}
	x := seed.and(pass)
	for {
		nx := x.or(g.expand4(x).and(pass))
		if nx == x {
			return x
		}
		x = nx
	}
}

// floodToEdge grows the component of pass holding seed by orthogonal steps
// and reports whether it touches the board edge, stopping as soon as it
// does (the returned set is then only part of the component).
func (g *Game) floodToEdge(seed int, pass bitset) (bitset, bool) {
	if g.cells <= 64 {
		x, atEdge := g.grow64(1<<uint(seed), pass[0], true)
		return bitset{x}, atEdge
	}
	x := single(seed)
	for {
		if !x.and(g.edge).empty() {
			return x, true
		}
		nx := x.or(g.expand4(x).and(pass))
		if nx == x {
			return x, false
		}
		x = nx
	}
}

// grow64 is flood (stopAtEdge false) or floodToEdge (stopAtEdge true) for
// boards of at most 64 cells, on single words: x grows within pass, which
// must lie on the board.
func (g *Game) grow64(x, pass uint64, stopAtEdge bool) (uint64, bool) {
	n := uint(g.n)
	notCol0, notColLast, edge := g.notCol0[0], g.notColLast[0], g.edge[0]
	for {
		if stopAtEdge && x&edge != 0 {
			return x, true
		}
		nx := x | (x<<n|x>>n|(x<<1)&notCol0|(x>>1)&notColLast)&pass
		if nx == x {
			return x, false
		}
		x = nx
	}
}
