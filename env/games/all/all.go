// Package all registers every game of this repository with package
// env/games; programs import it for its side effect:
//
//	import _ "github.com/zerokit/zerokit/env/games/all"
//
// The games' own packages register nothing when imported: libraries (the
// referee adapters, the course's network protocol) import them for their
// rules, and a program, not a library, chooses the games it offers. A
// program that wants only some of them registers those itself:
//
//	func init() { games.Register(wyb.Registration()) }
package all

import (
	"github.com/zerokit/zerokit/env/connect4"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/env/wyb"
)

func init() {
	games.Register(connect4.Registration())
	games.Register(squatter.Registration())
	games.Register(tictactoe.Registration())
	games.Register(wyb.Registration())
}
