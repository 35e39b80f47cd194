package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestPythonAdapter builds zerokit and runs the Python adapter's tests
// (python/test_*.py: the referee adapter against a real zerokit serve, the
// referee test double) with python3 -m unittest.
func TestPythonAdapter(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the Python adapter tests (they build zerokit and play full games)")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found on PATH: skipping the Python adapter tests")
	}
	bin := buildNonetZerokit(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "python"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-m", "unittest", "discover", "-s", dir, "-t", dir, "-p", "test_*.py")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ZEROKIT_BIN="+bin, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 -m unittest: %v\n%s", err, out)
	}
	t.Logf("python3 -m unittest:\n%s", out)
}

// buildNonetZerokit builds zerokit without libtorch into a temporary
// directory, or skips the test when no go command is found. A libtorch
// binary takes about a second to start, and the Python tests start
// "zerokit serve" or "zerokit replay" again and again.
func buildNonetZerokit(t *testing.T) string {
	t.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			t.Skip("go command not found: cannot build zerokit for the Python tests")
		}
	}
	bin := filepath.Join(t.TempDir(), "zerokit")
	build := exec.Command(goBin, "build", "-tags", "nonet", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
