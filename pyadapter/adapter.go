// Package pyadapter embeds the Python referee adapter (zerokit_player.py), so
// that "zerokit export" can write it into a self-contained agent directory
// without the source tree.
package pyadapter

import (
	"embed"
	"fmt"
)

// PlayerModuleName is the file name of the referee adapter module.
const PlayerModuleName = "zerokit_player.py"

//go:embed zerokit_player.py
var files embed.FS

// PlayerModule returns the source of the referee adapter module.
func PlayerModule() ([]byte, error) {
	b, err := files.ReadFile(PlayerModuleName)
	if err != nil {
		return nil, fmt.Errorf("pyadapter: embedded %s: %w", PlayerModuleName, err)
	}
	return b, nil
}
