package connect4

import (
	_ "embed"

	"github.com/zerokit/zerokit/env"
)

// positions is the test set of the standard board: positions from games
// between weak and strong players with their exact values, written by
// zerokit positions (its first lines give the command).
//
//go:embed positions.txt
var positions []byte

var _ env.TestPositioner = (*Game)(nil)

// TestPositions returns the shipped position set of the standard 7x6
// board (env.TestPositioner), nil for other boards.
func (g *Game) TestPositions() []byte {
	if g.cols != DefaultColumns || g.rows != DefaultRows || len(positions) == 0 {
		return nil
	}
	return positions
}
