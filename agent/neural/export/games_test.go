package export_test

// The tests name games (checkpoints record theirs), which programs
// register: this repository's, as cmd/zerokit does.
import _ "github.com/zerokit/zerokit/env/games/all"
