// Package relpath writes absolute paths relative to a directory, so that
// records (command lines, an agent's provenance) name files as they lie
// beside the repository, not by the absolute paths of the machine that made
// them.
package relpath

import (
	"os"
	"path/filepath"
)

// To returns path relative to dir when both are absolute and such a path
// exists; otherwise path unchanged.
func To(dir, path string) string {
	if dir == "" || !filepath.IsAbs(dir) || !filepath.IsAbs(path) {
		return path
	}
	if rel, err := filepath.Rel(dir, path); err == nil {
		return rel
	}
	return path
}

// ToWorkingDir is To with the process's working directory; path unchanged
// when that is unknown.
func ToWorkingDir(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	return To(wd, path)
}
