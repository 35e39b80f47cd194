package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestRevision(t *testing.T) {
	const rev = "c2c6460aa1b2c3d4e5f60718293a4b5c6d7e8f90"
	for _, c := range []struct {
		name     string
		settings []debug.BuildSetting
		want     string
	}{
		{"none recorded", nil, ""},
		{"clean", []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "false"}}, rev},
		{"modified", []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, {Key: "vcs.revision", Value: rev}}, rev + "+dirty"},
		{"modified without a revision", []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}, ""},
	} {
		if got := revision(c.settings); got != c.want {
			t.Errorf("%s: revision = %q, want %q", c.name, got, c.want)
		}
	}
}
