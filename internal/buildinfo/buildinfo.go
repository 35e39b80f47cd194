// Package buildinfo reports what this program was built from, for the
// provenance records of trained agents and of their matches.
package buildinfo

import "runtime/debug"

// Revision returns the source revision this program was built from (with
// "+dirty" for a modified work tree), or "" when the build recorded none
// ("go run" and test binaries record none).
func Revision() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return revision(info.Settings)
}

// revision reads the revision from a build's settings.
func revision(settings []debug.BuildSetting) string {
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "+dirty"
	}
	return rev
}
