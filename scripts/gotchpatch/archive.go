package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// buildArchive compiles gotch's C++ layer once, here, instead of on every
// Go build mode (-race, -cover, ... each recompile a cgo package's C++
// sources: minutes and 2.5 GB of memory for this one): torch_api.cpp moves
// to libtch/cxx (out of the cgo package), is compiled with cxx into a static
// library in libtch (or a shared one, tc.shared), and lib.go links that. It returns the library's
// SHA-256, which goes into a Go source file of libtch so that the Go build
// cache notices when the library changes.
func buildArchive(ctx context.Context, dir, cxx, ar string, tc toolchain, log io.Writer) (string, error) {
	libtch := filepath.Join(dir, "libtch")
	src := filepath.Join(libtch, "cxx", "torch_api.cpp")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(filepath.Join(libtch, "torch_api.cpp"), src); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp("", "gotchpatch")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	obj := filepath.Join(tmp, "torch_api.o")
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	args := append([]string{"-c", "-O2", "-fPIC", "-w",
		// The object must not depend on where it is built, so that a
		// re-run gives the same bytes: a fixed seed, and a fixed name for
		// the (temporary) directory in __FILE__ strings.
		"-frandom-seed=torch_api.cpp", "-ffile-prefix-map=" + absDir + "=gotch-v0.9.1",
		"-I" + libtch}, tc.cxxFlags()...)
	args = append(args, "torch_api.cpp", "-o", obj)
	fmt.Fprintf(log, "gotchpatch: compiling the C++ wrappers (1-3 minutes, 2.5 GB of memory)\n")
	start := time.Now()
	if err := runTool(ctx, filepath.Dir(src), cxx, args...); err != nil {
		return "", err
	}
	fmt.Fprintf(log, "gotchpatch: compiled in %s\n", time.Since(start).Round(time.Second))
	lib := filepath.Join(libtch, tc.libName())
	if tc.shared {
		link := append([]string{"-shared", "-o", lib, obj, "-Wl,-soname," + sharedName}, tc.ldFlags()...)
		if err := runTool(ctx, libtch, cxx, link...); err != nil {
			return "", err
		}
	} else if err := runTool(ctx, libtch, ar, "rcsD", lib, obj); err != nil {
		// rcsD: a deterministic archive (no timestamps, owners or modes).
		return "", err
	}
	data, err := os.ReadFile(lib)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
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
