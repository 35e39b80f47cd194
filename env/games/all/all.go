// Package all registers every game of this repository with package
// env/games; programs import it for its side effect:
//
//	import _ "github.com/zerokit/zerokit/env/games/all"
package all

import (
	// Each game's package registers it in its init function.
	_ "github.com/zerokit/zerokit/env/connect4"
	_ "github.com/zerokit/zerokit/env/squatter"
	_ "github.com/zerokit/zerokit/env/tictactoe"
	_ "github.com/zerokit/zerokit/env/wyb"
)
