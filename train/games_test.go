package train

// The tests name every game of the repository; programs import the games
// they ship the same way (see package env/games).
import _ "github.com/zerokit/zerokit/env/games/all"
