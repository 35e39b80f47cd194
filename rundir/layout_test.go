package rundir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	root := t.TempDir()
	write := func(path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(root, "net.ckpt")
	write(file)
	agent := filepath.Join(root, "agent")
	write(filepath.Join(agent, AgentManifest))
	run := Run{Dir: filepath.Join(root, "run")}
	cks := run.Checkpoints()
	cks.KeepLast = 2
	for _, step := range []int64{10, 20} {
		write(cks.Path(step))
		write(cks.StatePath(step))
		if err := cks.Commit(step); err != nil {
			t.Fatal(err)
		}
	}
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		want       Target
		err        error
	}{
		{"checkpoint file", file, Target{Kind: CheckpointFile, Path: file}, nil},
		{"exported agent", agent, Target{Kind: AgentDir, Path: agent}, nil},
		{"run directory", run.Dir, Target{Kind: RunDir, Path: cks.Path(20), Step: 20}, nil},
		{"empty directory", empty, Target{}, ErrNoNetwork},
		{"missing", filepath.Join(root, "nope"), Target{}, fs.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolve(tc.path)
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("Resolve(%s) error %v, want %v", tc.path, err, tc.err)
			}
			if got != tc.want {
				t.Fatalf("Resolve(%s) = %+v, want %+v", tc.path, got, tc.want)
			}
		})
	}
}

func TestRunPaths(t *testing.T) {
	r := Run{Dir: "d"}
	for _, tc := range []struct{ got, want string }{
		{r.Config(), filepath.Join("d", ConfigFile)},
		{r.Meta(), filepath.Join("d", MetaFile)},
		{r.Metrics(), filepath.Join("d", MetricsFile)},
		{r.Log(), filepath.Join("d", LogFile)},
		{r.Games(), filepath.Join("d", GamesDir)},
		{r.Checkpoints().Dir, filepath.Join("d", CheckpointsDir)},
	} {
		if tc.got != tc.want {
			t.Errorf("path %s, want %s", tc.got, tc.want)
		}
	}
}
