// Command nim is zerokit for Nim, a game written outside zerokit's module:
// every zerokit command (train, eval, play, serve, export, web, ...) for
// the games this program registers. Its whole zerokit is the call to
// cli.Main; its game is the import of package nim, which registers Nim
// with env/games.
//
//	go build ./cmd/nim && ./nim train -config nim-tiny.yaml -run runs/nim
package main

import (
	"os"

	"github.com/zerokit/zerokit/cli"

	// Nim registers itself with zerokit's env/games.
	_ "example.com/nim"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
