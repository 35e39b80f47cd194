package refbench

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Distinct counts the distinct games among those the agent played as
// colour ("white" or "black"): their distinct MovesSHA256 digests, with
// each game without one counted once.
func Distinct(games []Game, colour string) int {
	seen := map[string]bool{}
	n := 0
	for _, g := range games {
		if g.AgentColour != colour {
			continue
		}
		if g.MovesSHA256 == "" {
			n++
			continue
		}
		if !seen[g.MovesSHA256] {
			seen[g.MovesSHA256] = true
			n++
		}
	}
	return n
}

// MovesDigest is the SHA-256, in hex, of the lines of a referee's output
// for which keep returns true, one per line: the record of a game's moves
// without its timings.
func MovesDigest(out string, keep func(line string) bool) string {
	h := sha256.New()
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, "\r\n")
		if keep(line) {
			h.Write([]byte(line))
			h.Write([]byte{'\n'})
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
