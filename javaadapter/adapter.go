// Package javaadapter embeds the Java player of the 2015 Squatter course referee
// (zerokit/ZerokitPlayer.java, a class implementing aiproj.squatter.Player
// that runs "zerokit serve"), so that "zerokit export" can write it into an
// agent directory, and builds it: Build compiles it with javac against the
// course's package, and WriteJar packs the classes.
package javaadapter

import (
	"archive/zip"
	"bytes"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zerokit/zerokit/internal/atomicfile"
)

// Class names of the player and of its second, separately configured copy.
const (
	PlayerClass   = "zerokit.ZerokitPlayer"
	OpponentClass = "zerokit.ZerokitOpponent"
)

// Config names: a class configured under NAME reads NAME.properties, the
// system properties NAME.KEY and the environment variables NAME_KEY.
const (
	PlayerConfig   = "zerokit_player"
	OpponentConfig = "zerokit_opponent"
)

// JarName is the file name of the compiled player.
const JarName = "zerokit-player.jar"

//go:embed zerokit/*.java
var files embed.FS

// Sources returns the Java source files by base name
// (ZerokitPlayer.java, ...).
func Sources() (map[string][]byte, error) {
	entries, err := files.ReadDir("zerokit")
	if err != nil {
		return nil, fmt.Errorf("javaadapter: embedded sources: %w", err)
	}
	out := make(map[string][]byte, len(entries))
	for _, e := range entries {
		b, err := files.ReadFile(path.Join("zerokit", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("javaadapter: embedded %s: %w", e.Name(), err)
		}
		out[e.Name()] = b
	}
	return out, nil
}

// WriteSources writes the Java sources into dir.
func WriteSources(dir string) error {
	src, err := Sources()
	if err != nil {
		return err
	}
	for name, b := range src {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// CoursePackage returns the course's Java sources in dir, which holds
// aiproj/squatter/{Referee,Player,Move,Piece}.java (the course's package
// as the course gave it, e.g. shared/referee-squatter), or an error naming
// what is missing.
func CoursePackage(dir string) ([]string, error) {
	var out []string
	for _, name := range []string{"Player", "Move", "Piece", "Referee"} {
		p := filepath.Join(dir, "aiproj", "squatter", name+".java")
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return nil, fmt.Errorf("javaadapter: %s is not the course's Squatter package: no file %s", dir, p)
		}
		out = append(out, p)
	}
	return out, nil
}

// Build compiles the course's package in course (see CoursePackage) into
// out/course and the player's sources (the embedded ones, written to
// out/src) into out/player, with the javac executable ("" finds javac on
// PATH). It returns the class-path entries of both.
func Build(ctx context.Context, javac, course, out string) (coursePath, playerPath string, err error) {
	if javac == "" {
		javac = "javac"
	}
	if _, err := exec.LookPath(javac); err != nil {
		return "", "", fmt.Errorf("javaadapter: no Java compiler (install a JDK, e.g. Debian's default-jdk-headless): %w", err)
	}
	courseSrc, err := CoursePackage(course)
	if err != nil {
		return "", "", err
	}
	coursePath, playerPath = filepath.Join(out, "course"), filepath.Join(out, "player")
	srcDir := filepath.Join(out, "src")
	for _, d := range []string{coursePath, playerPath, srcDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", "", err
		}
	}
	if err := javacRun(ctx, javac, append([]string{"-nowarn", "-d", coursePath}, courseSrc...)); err != nil {
		return "", "", fmt.Errorf("javaadapter: compiling the course's package in %s: %w", course, err)
	}
	if err := WriteSources(srcDir); err != nil {
		return "", "", err
	}
	src, err := filepath.Glob(filepath.Join(srcDir, "*.java"))
	if err != nil {
		return "", "", err
	}
	if err := Compile(ctx, javac, coursePath, playerPath, src); err != nil {
		return "", "", fmt.Errorf("javaadapter: compiling the zerokit player: %w", err)
	}
	return coursePath, playerPath, nil
}

// Compile compiles the player's sources src against the course's classes
// in coursePath into out, with the javac executable ("" finds javac on
// PATH), warnings being errors.
func Compile(ctx context.Context, javac, coursePath, out string, src []string) error {
	if javac == "" {
		javac = "javac"
	}
	return javacRun(ctx, javac, append([]string{"-Xlint:all", "-Werror", "-cp", coursePath, "-d", out}, src...))
}

func javacRun(ctx context.Context, javac string, args []string) error {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, javac, args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w: %s", javac, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// WriteJar packs the class files under classes into the jar file path
// (atomically), with a manifest.
func WriteJar(classes, path string) error {
	var names []string
	err := filepath.WalkDir(classes, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".class") {
			names = append(names, p)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("javaadapter: %w", err)
	}
	if len(names) == 0 {
		return fmt.Errorf("javaadapter: no class files under %s", classes)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name string, b []byte) error {
		w, err := zw.Create(name)
		if err == nil {
			_, err = w.Write(b)
		}
		return err
	}
	if err := add("META-INF/MANIFEST.MF", []byte("Manifest-Version: 1.0\r\nCreated-By: zerokit\r\n\r\n")); err != nil {
		return err
	}
	for _, p := range names {
		rel, err := filepath.Rel(classes, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := add(filepath.ToSlash(rel), b); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("javaadapter: %w", err)
	}
	return nil
}
