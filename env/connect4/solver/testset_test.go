package solver

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

// The shipped test set (../positions.txt, written by zerokit positions
// with this solver) agrees with the plain negamax on its late positions:
// the value, its distance and the moves that keep it.
func TestShippedSetAgainstPlain(t *testing.T) {
	const minDiscs = 20
	f, err := os.Open("../positions.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g := geometry(t, 7, 6)
	sc := bufio.NewScanner(f)
	checked, lines := 0, 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		lines++
		fields := strings.Fields(line)
		if len(fields) != 3 {
			t.Fatalf("line %q", line)
		}
		if len(fields[0]) < minDiscs {
			continue
		}
		p, err := g.FromMoves(moves(fields[0]))
		if err != nil {
			t.Fatalf("%s: %v", fields[0], err)
		}
		v := g.ValueOf(plainScore(p), p.moves)
		want := fmt.Sprintf("%c%d", "LDW"[v.Result+1], v.Plies)
		var keep []byte
		for c := 0; c < g.Columns; c++ {
			if !p.CanPlay(c) {
				continue
			}
			mv := 1
			if !p.IsWinningMove(c) {
				q := p
				q.PlayColumn(c)
				mv = -plainScore(q)
			}
			if sign(mv) == v.Result {
				keep = append(keep, byte('0'+c))
			}
		}
		if fields[1] != want || fields[2] != string(keep) {
			t.Errorf("%s: the set says %s %s, the plain negamax %s %s", fields[0], fields[1], fields[2], want, keep)
		}
		checked++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of the set's %d positions have at least %d discs: checked", checked, lines, minDiscs)
	if checked < 20 {
		t.Errorf("only %d positions with at least %d discs checked", checked, minDiscs)
	}
}
