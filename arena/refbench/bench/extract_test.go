package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes a repository at mirrors/o+r/repo with files committed and
// returns the commit.
func gitRepo(t *testing.T, mirrors string, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := filepath.Join(mirrors, "o+r", "repo")
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q")
	run("add", ".")
	run("commit", "-q", "-m", "agent")
	return run("rev-parse", "HEAD")
}

func TestExtract(t *testing.T) {
	mirrors, dest := t.TempDir(), t.TempDir()
	commit := gitRepo(t, mirrors, map[string]string{
		"player.py":      "class Player: pass\r\n",
		"lib/board.py":   "X = 1\n",
		"notes/todo.txt": "not extracted\n",
	})
	m := Manifest{Version: Version, Agents: []Agent{
		{Name: "a", Game: WYB, Repo: "o/r", Commit: commit, Files: []string{"player.py", "lib"}, Module: "player", Runs: true, Why: "plays"},
		{Name: "whole", Game: WYB, Repo: "o/r", Commit: commit, Files: []string{"."}, Module: "player", Runs: true, Why: "plays"},
		{Name: "gone", Game: WYB, Repo: "o/none", Commit: commit, Files: []string{"."}, Module: "player", Runs: true, Why: "plays"},
		{Name: "badcommit", Game: WYB, Repo: "o/r", Commit: strings.Repeat("0", 40), Files: []string{"."}, Module: "player", Runs: true, Why: "plays"},
		{Name: "broken", Game: WYB, Repo: "o/r", Commit: commit, Files: []string{"."}, Module: "player", Runs: false, Why: "fails"},
	}}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	got, err := Extract(context.Background(), m, mirrors, dest, false)
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, e := range got {
		status[e.Name] = e.Status
	}
	want := map[string]string{"a": "extracted", "whole": "extracted", "gone": "failed", "badcommit": "failed"}
	for name, s := range want {
		if status[name] != s {
			t.Errorf("%s: %q, want %q (all: %v)", name, status[name], s, got)
		}
	}
	if _, ok := status["broken"]; ok {
		t.Error("an agent that does not run was extracted without all")
	}
	// Unmodified, and only the files listed.
	if b, err := os.ReadFile(filepath.Join(dest, "a", "player.py")); err != nil || string(b) != "class Player: pass\r\n" {
		t.Errorf("player.py = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dest, "a", "lib", "board.py")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dest, "a", "notes")); err == nil {
		t.Error("notes/ extracted, not listed")
	}
	if _, err := os.Stat(filepath.Join(dest, "whole", "notes", "todo.txt")); err != nil {
		t.Error(err)
	}
	again, err := Extract(context.Background(), m, mirrors, dest, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range again {
		if (e.Name == "a" || e.Name == "whole") && e.Status != "up to date" {
			t.Errorf("second extraction of %s: %s", e.Name, e.Status)
		}
		if e.Name == "broken" && e.Status != "extracted" {
			t.Errorf("with all, broken: %s", e.Status)
		}
	}
}

func TestSnapshotDir(t *testing.T) {
	mirrors := t.TempDir()
	if _, err := SnapshotDir(mirrors, "o/r"); err == nil {
		t.Error("no snapshot: no error")
	}
	bare := filepath.Join(mirrors, "o+r", "repo")
	if err := os.MkdirAll(bare, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bare, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := SnapshotDir(mirrors, "o/r"); err != nil || d != bare {
		t.Errorf("SnapshotDir = %q, %v; want %q", d, err, bare)
	}
}
