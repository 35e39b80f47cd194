package bench

import (
	"strings"
	"testing"
)

const goodAgent = `{"name": "a", "game": "wyb", "repo": "o/r", "commit": "0123456789abcdef0123456789abcdef01234567",
	"files": ["player.py"], "module": "player", "runs": true, "why": "plays"}`

func TestParse(t *testing.T) {
	m, err := Parse([]byte(`{"version": 1, "agents": [` + goodAgent + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Runnable(WYB)) != 1 || len(m.Runnable(Squatter)) != 0 {
		t.Errorf("Runnable: %v", m.Runnable(WYB))
	}
	for _, tc := range []struct {
		name, agent, want string
	}{
		{"bad name", `"name": "A b"`, "name: want a lower-case word"},
		{"bad repo", `"repo": "nobody"`, `repo "nobody": want owner/name`},
		{"held out", `"repo": "abardac/SI7"`, "held out of the bench"},
		{"short commit", `"commit": "0123abc"`, "want 40 lower-case hex digits"},
		{"no files", `"files": []`, "no files to extract"},
		{"escaping file", `"files": ["../x"]`, "want a clean path inside the tree"},
		{"absolute file", `"files": ["/etc/passwd"]`, "want a relative path"},
		{"no why", `"why": " "`, "say why it runs or not"},
		{"bad module", `"module": "my-player"`, "want a dotted Python module name"},
		{"bad game", `"game": "chess"`, `game "chess"`},
		{"bad env", `"env": ["x"]`, "want KEY=VALUE"},
		{"java for python", `"class": "a.B"`, "class and sources are for Squatter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(`{"version": 1, "agents": [` + override(goodAgent, tc.agent) + `]}`))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	squatter := `{"name": "s", "game": "squatter", "repo": "o/s", "commit": "0123456789abcdef0123456789abcdef01234567",
		"files": ["src"], "class": "p.Player", "sources": ["src/p/Player.java"], "runs": true, "why": "plays"}`
	if _, err := Parse([]byte(`{"version": 1, "agents": [` + squatter + `]}`)); err != nil {
		t.Errorf("a Squatter agent: %v", err)
	}
	for _, tc := range []struct{ name, agent, want string }{
		{"course copy", `"sources": ["src/aiproj/squatter/Move.java"]`, "the course's package"},
		{"not java", `"sources": ["src/p/Player.class"]`, "want a relative .java path"},
		{"no class", `"class": ""`, "want a Java class name"},
	} {
		if _, err := Parse([]byte(`{"version": 1, "agents": [` + override(squatter, tc.agent) + `]}`)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	for _, tc := range []struct{ name, text, want string }{
		{"version", `{"version": 2, "agents": [` + goodAgent + `]}`, "version 2"},
		{"no agents", `{"version": 1, "agents": []}`, "no agents"},
		{"unknown field", `{"version": 1, "agents": [], "extra": 1}`, "unknown field"},
		{"twice", `{"version": 1, "agents": [` + goodAgent + `,` + goodAgent + `]}`, "given twice"},
		{"trailing", `{"version": 1, "agents": [` + goodAgent + `]} {}`, "text after"},
		{"not json", `version 1`, "invalid character"},
	} {
		if _, err := Parse([]byte(tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// override replaces the fields of agent (a JSON object) given in fields.
func override(agent, fields string) string {
	// A later duplicate key wins in encoding/json.
	return strings.TrimSuffix(strings.TrimSpace(agent), "}") + ", " + fields + "}"
}

// TestShippedManifest loads the repository's manifest: valid, with at
// least the public agents the bench needs.
func TestShippedManifest(t *testing.T) {
	m, err := Load("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(m.Runnable(WYB)); n < 5 {
		t.Errorf("%d Watch Your Back! agents run, want at least 5", n)
	}
	if n := len(m.Runnable(Squatter)); n < 2 {
		t.Errorf("%d Squatter agents run, want at least 2", n)
	}
}
