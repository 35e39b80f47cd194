package connect4_test

// The tests build Connect Four by name, so they register the games a
// program registers: this repository's, as cmd/zerokit does.
import _ "github.com/zerokit/zerokit/env/games/all"
