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
	"strconv"
	"sync"
	"time"
)

// cxxOpt is the optimisation level of the C++ layer. Its functions only
// convert arguments and call into libtorch, where the time goes; -O1 compiles
// in 30 s of the reference machine's CPU what -O2 did in 42 (libtorch's
// headers take another 17 s per unit at any level).
const cxxOpt = "-O1"

// buildArchive compiles gotch's C++ layer once, here, instead of on every
// Go build mode (-race, -cover, ... each recompile a cgo package's C++
// sources: minutes and 2.5 GB of memory for this one): torch_api.cpp moves
// to libtch/cxx (out of the cgo package) and is compiled, as parts units
// in parallel (parts.go), into a static library in libtch (or a shared one,
// tc.shared) that lib.go links. Generated wrappers that do not compile
// against this libtorch are found from the compiler's diagnostics and stubbed
// (stubs.go), and their parts compiled again, at most maxPasses times. It
// returns the names stubbed and the library's SHA-256, which goes into a Go
// source file of libtch so that the Go build cache notices when the library
// changes.
func buildArchive(ctx context.Context, dir, cxx, ar string, tc toolchain, parts, maxPasses int, known []string, log io.Writer) (stubbed []string, sum string, err error) {
	libtch := filepath.Join(dir, "libtch")
	cxxDir := filepath.Join(libtch, "cxx")
	src := filepath.Join(cxxDir, "torch_api.cpp")
	if err := os.MkdirAll(cxxDir, 0o755); err != nil {
		return nil, "", err
	}
	if err := os.Rename(filepath.Join(libtch, "torch_api.cpp"), src); err != nil {
		return nil, "", err
	}
	for _, g := range []struct {
		path  string
		guard func(string) (string, error)
	}{
		{src, guardHandWritten},
		{filepath.Join(libtch, "torch_api.h"), guardHeader},
		{filepath.Join(libtch, generatedFile), func(s string) (string, error) { return guardGenerated(s, parts) }},
	} {
		if err := rewriteFile(g.path, g.guard); err != nil {
			return nil, "", err
		}
	}
	if len(known) > 0 {
		n := 0
		err := rewriteFile(filepath.Join(libtch, generatedFile), func(text string) (string, error) {
			out, k, err := stubNames(text, known)
			n = k
			return out, err
		})
		if err != nil {
			return nil, "", err
		}
		if n > 0 {
			stubbed = append(stubbed, known...)
			fmt.Fprintf(log, "gotchpatch: stubbed %d wrappers known not to compile with this libtorch and compiler (known-stubs.txt)\n", n)
		}
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
	objs := make([]string, parts)
	pending := make([]int, parts)
	for k := range objs {
		objs[k] = filepath.Join(tmp, fmt.Sprintf("torch_api-%02d.o", k))
		pending[k] = k
	}
	fmt.Fprintf(log, "gotchpatch: compiling the C++ wrappers (%d unit(s) in parallel, %s; 20-60 s, 1.5 GB of memory each)\n", parts, cxxOpt)
	start := time.Now()
	for pass := 1; ; pass++ {
		diags := compileParts(ctx, cxxDir, cxx, tc, absDir, pending, objs)
		var failed []int
		var diag []byte
		for i, d := range diags {
			if d.err == nil {
				continue
			}
			var exitErr *exec.ExitError
			if !errors.As(d.err, &exitErr) {
				return nil, "", fmt.Errorf("running %s: %w", cxx, d.err)
			}
			failed = append(failed, pending[i])
			diag = append(diag, d.out...)
		}
		if len(failed) == 0 {
			break
		}
		blamed, errCount := errorLines(diag)
		if len(blamed) == 0 {
			return nil, "", fmt.Errorf("%s failed with %d errors, none in generated wrappers:\n%s", cxx, errCount, tail(diag, 60))
		}
		if pass > maxPasses {
			return nil, "", fmt.Errorf("still %d compile errors after %d passes:\n%s", errCount, maxPasses, tail(diag, 60))
		}
		var names []string
		err := rewriteFile(filepath.Join(libtch, generatedFile), func(text string) (string, error) {
			out, n, err := stub(text, blamed)
			names = n
			return out, err
		})
		if err != nil {
			return nil, "", fmt.Errorf("pass %d: %w\n%s", pass, err, tail(diag, 40))
		}
		stubbed = append(stubbed, names...)
		fmt.Fprintf(log, "gotchpatch: pass %d: %d compile errors in %d units, stubbed %d wrappers\n", pass, errCount, len(failed), len(names))
		pending = failed
	}
	fmt.Fprintf(log, "gotchpatch: compiled in %s\n", time.Since(start).Round(time.Second))
	lib := filepath.Join(libtch, tc.libName())
	if tc.shared {
		link := append([]string{"-shared", "-o", lib}, objs...)
		link = append(link, "-Wl,-soname,"+sharedName)
		if err := runTool(ctx, libtch, cxx, append(link, tc.ldFlags()...)...); err != nil {
			return nil, "", err
		}
	} else if err := runTool(ctx, libtch, ar, append([]string{"rcsD", lib}, objs...)...); err != nil {
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

// compiled is the outcome of compiling one part.
type compiled struct {
	out []byte
	err error
}

// compileParts compiles the given parts of torch_api.cpp (in cxxDir) into
// objs[k], all at once, and returns each one's diagnostics.
func compileParts(ctx context.Context, cxxDir, cxx string, tc toolchain, absDir string, parts []int, objs []string) []compiled {
	res := make([]compiled, len(parts))
	var wg sync.WaitGroup
	for i, k := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := append([]string{"-c", cxxOpt, "-fPIC", "-w",
				// The object must not depend on where it is built, so
				// that a re-run gives the same bytes: a fixed seed, and a
				// fixed name for the (temporary) directory in __FILE__
				// strings.
				"-frandom-seed=torch_api.cpp-" + strconv.Itoa(k), "-ffile-prefix-map=" + absDir + "=gotch-v0.9.1",
				"-I" + filepath.Dir(cxxDir), "-D" + partMacro + "=" + strconv.Itoa(k)}, tc.cxxFlags()...)
			args = append(args, "torch_api.cpp", "-o", objs[k])
			cmd := exec.CommandContext(ctx, cxx, args...)
			cmd.Dir = cxxDir
			var out bytes.Buffer
			cmd.Stdout = &out
			cmd.Stderr = &out
			err := cmd.Run()
			res[i] = compiled{out.Bytes(), err}
		}()
	}
	wg.Wait()
	return res
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
