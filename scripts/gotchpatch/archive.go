package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// cxxOpt is the optimisation level of the C++ layer. Its functions only
// convert arguments and call into libtorch, where the time goes; -O1
// compiled all 2,500 wrappers in 30 s of the reference machine's CPU where
// -O2 took 42 (libtorch's headers take another 17 s at any level).
const cxxOpt = "-O1"

// buildArchive compiles gotch's C++ layer once, here, instead of on every
// Go build mode (-race, -cover, ... each recompile a cgo package's C++
// sources: minutes and 1.5 GB of memory for this one): torch_api.cpp moves
// to libtch/cxx (out of the cgo package) and is compiled into a static
// library in libtch (or a shared one, tc.shared) that lib.go links.
// Generated wrappers that do not compile against this libtorch are found
// from the compiler's diagnostics and stubbed (stubs.go), and the unit
// compiled again, at most maxPasses times. It returns the names stubbed and
// the library's SHA-256, which goes into a Go source file of libtch so that
// the Go build cache notices when the library changes.
func buildArchive(ctx context.Context, dir, cxx, ar string, tc toolchain, maxPasses int, log io.Writer) (stubbed []string, sum string, err error) {
	libtch := filepath.Join(dir, "libtch")
	cxxDir := filepath.Join(libtch, "cxx")
	src := filepath.Join(cxxDir, "torch_api.cpp")
	if err := os.MkdirAll(cxxDir, 0o755); err != nil {
		return nil, "", err
	}
	if err := os.Rename(filepath.Join(libtch, "torch_api.cpp"), src); err != nil {
		return nil, "", err
	}
	tmp, err := os.MkdirTemp("", "gotchpatch")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(tmp)
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", err
	}
	obj := filepath.Join(tmp, "torch_api.o")
	fmt.Fprintf(log, "gotchpatch: compiling the C++ wrappers (%s; 20-60 s, 1.5 GB of memory)\n", cxxOpt)
	start := time.Now()
	for pass := 1; ; pass++ {
		diag, err := compileUnit(ctx, cxxDir, cxx, tc, absDir, obj)
		if err == nil {
			break
		}
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			return nil, "", fmt.Errorf("running %s: %w", cxx, err)
		}
		blamed, errCount := errorLines(diag)
		if len(blamed) == 0 {
			return nil, "", fmt.Errorf("%s failed with %d errors, none in generated wrappers:\n%s", cxx, errCount, tail(diag, 60))
		}
		if pass > maxPasses {
			return nil, "", fmt.Errorf("still %d compile errors after %d passes:\n%s", errCount, maxPasses, tail(diag, 60))
		}
		var names []string
		err = rewriteFile(filepath.Join(libtch, generatedFile), func(text string) (string, error) {
			out, n, err := stub(text, blamed)
			names = n
			return out, err
		})
		if err != nil {
			return nil, "", fmt.Errorf("pass %d: %w\n%s", pass, err, tail(diag, 40))
		}
		stubbed = append(stubbed, names...)
		fmt.Fprintf(log, "gotchpatch: pass %d: %d compile errors, stubbed %d wrappers\n", pass, errCount, len(names))
	}
	fmt.Fprintf(log, "gotchpatch: compiled in %s\n", time.Since(start).Round(time.Second))
	lib := filepath.Join(libtch, tc.libName())
	if tc.shared {
		link := append([]string{"-shared", "-o", lib, obj, "-Wl,-soname," + sharedName}, tc.ldFlags()...)
		if err := runTool(ctx, libtch, cxx, link...); err != nil {
			return nil, "", err
		}
	} else if err := runTool(ctx, libtch, ar, "rcsD", lib, obj); err != nil {
		// rcsD: a deterministic archive (no timestamps, owners or modes).
		return nil, "", err
	}
	data, err := os.ReadFile(lib)
	if err != nil {
		return nil, "", err
	}
	h := sha256.Sum256(data)
	return stubbed, hex.EncodeToString(h[:]), nil
}

// compileUnit compiles torch_api.cpp (in cxxDir) into obj and returns the
// compiler's diagnostics.
func compileUnit(ctx context.Context, cxxDir, cxx string, tc toolchain, absDir, obj string) ([]byte, error) {
	args := append([]string{"-c", cxxOpt, "-fPIC", "-w",
		// The object must not depend on where it is built, so that a
		// re-run gives the same bytes: a fixed seed, and a fixed name for
		// the (temporary) directory in __FILE__ strings.
		"-frandom-seed=torch_api.cpp", "-ffile-prefix-map=" + absDir + "=gotch-v0.9.1",
		"-I" + filepath.Dir(cxxDir)}, tc.cxxFlags()...)
	args = append(args, "torch_api.cpp", "-o", obj)
	cmd := exec.CommandContext(ctx, cxx, args...)
	cmd.Dir = cxxDir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return out.Bytes(), err
}

// rewriteFile replaces the text of path by f's result.
func rewriteFile(path string, f func(string) (string, error)) error {
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := f(string(text))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

func runTool(ctx context.Context, dir, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w\n%s", name, err, tail(out.Bytes(), 40))
	}
	return nil
}
