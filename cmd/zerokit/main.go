// Command zerokit trains, evaluates, exports and plays AlphaZero-style agents
// for the games in env/. Run "zerokit help" for the list of subcommands.
//
// It is package cli's Main with this repository's games: a game in a
// module of its own gets the same commands from a main like this one
// (docs/games.md).
package main

import (
	"os"

	"github.com/zerokit/zerokit/cli"
	// The games zerokit ships register themselves with env/games.
	_ "github.com/zerokit/zerokit/env/games/all"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
