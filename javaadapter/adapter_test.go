package javaadapter

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestSourcesAreTheFiles(t *testing.T) {
	src, err := Sources()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ZerokitPlayer.java", "ZerokitOpponent.java"} {
		want, err := os.ReadFile(filepath.Join("zerokit", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(src[name], want) {
			t.Errorf("embedded %s (%d bytes) differs from the file (%d bytes)", name, len(src[name]), len(want))
		}
	}
	if !bytes.Contains(src["ZerokitPlayer.java"], []byte("public class ZerokitPlayer implements Player")) {
		t.Error("ZerokitPlayer.java does not declare the player class")
	}
}

func TestCoursePackageNamesWhatIsMissing(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "aiproj", "squatter"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "aiproj", "squatter", "Player.java"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := CoursePackage(dir)
	if err == nil || !strings.Contains(err.Error(), "Move.java") {
		t.Errorf("CoursePackage of a partial package: %v, want an error naming Move.java", err)
	}
}

// coursePackage is the course's package beside the repository, or skips.
func coursePackage(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "referee-squatter")
	if _, err := CoursePackage(dir); err != nil {
		t.Skipf("the 2015 Squatter referee is not beside the repository: %v", err)
	}
	if _, err := exec.LookPath("javac"); err != nil {
		t.Skip("javac not found on PATH (scripts/test-deps.sh installs default-jdk-headless)")
	}
	return dir
}

// TestBuildAndJar compiles the course's package and the player with javac
// (-Werror: no warnings either) and packs the player's classes.
func TestBuildAndJar(t *testing.T) {
	course := coursePackage(t)
	out := t.TempDir()
	_, player, err := Build(context.Background(), "", course, out)
	if err != nil {
		t.Fatal(err)
	}
	jar := filepath.Join(out, JarName)
	if err := WriteJar(player, jar); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(jar)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	have := map[string]bool{}
	for _, f := range zr.File {
		have[f.Name] = true
	}
	for _, want := range []string{"META-INF/MANIFEST.MF", "zerokit/ZerokitPlayer.class", "zerokit/ZerokitOpponent.class"} {
		if !have[want] {
			t.Errorf("jar lacks %s (has %v)", want, have)
		}
	}
	if have["aiproj/squatter/Player.class"] {
		t.Error("jar holds the course's classes")
	}
}

func TestBuildWithoutJavac(t *testing.T) {
	_, _, err := Build(context.Background(), filepath.Join(t.TempDir(), "no-javac"), t.TempDir(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "default-jdk-headless") {
		t.Errorf("Build without javac: %v, want an error saying what to install", err)
	}
}
