//go:build !(js && wasm)

package main

import (
	"flag"
	"fmt"
	"os"
)

// On the host the command only measures (-bench): the site is built for
// js/wasm (scripts/web-static.sh).
func main() {
	sims := flag.Int("sims", 200, "simulations per search")
	searches := flag.Int("searches", 20, "searches, one per move of a game")
	flag.Parse()
	if err := bench(os.Stdout, *sims, *searches); err != nil {
		fmt.Fprintln(os.Stderr, "zerokit-wasm:", err)
		os.Exit(1)
	}
}
