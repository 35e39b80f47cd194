package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// deriveShared makes dir a copy of the patched gotch at from (made by this
// program for the same libtorch) whose Go packages link the C++ layer as a
// shared library, libtch/libzerokit_torch_api.so, instead of the static
// archive. The library is linked from from's archive (its object is
// position-independent), so nothing is recompiled. A binary built against
// dir loads the library through a run path to dir that LD_LIBRARY_PATH
// overrides: scripts/build-torch-wrapper.sh rebuilds the same C functions
// against another libtorch, on a machine without Go.
func deriveShared(ctx context.Context, from, dir, cxx string, tc toolchain, log io.Writer) error {
	archive, err := filepath.Abs(filepath.Join(from, "libtch", archiveName))
	if err != nil {
		return err
	}
	if _, err := os.Stat(archive); err != nil {
		return fmt.Errorf("-shared-from %s: not a patched gotch: %w", from, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := copyTree(from, dir); err != nil {
		return fmt.Errorf("copying %s: %w", from, err)
	}
	libtch := filepath.Join(dir, "libtch")
	if err := os.Remove(filepath.Join(libtch, archiveName)); err != nil {
		return err
	}
	lib := filepath.Join(libtch, sharedName)
	link := append([]string{"-shared", "-o", lib, "-Wl,--whole-archive", archive, "-Wl,--no-whole-archive",
		"-Wl,-soname," + sharedName}, tc.ldFlags()...)
	if err := runTool(ctx, libtch, cxx, link...); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(libtch, "lib.go"), []byte(libGo(tc)), 0o644); err != nil {
		return err
	}
	data, err := os.ReadFile(lib)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	fmt.Fprintf(log, "gotchpatch: %s links %s\n", dir, lib)
	return writeExtra(dir, hex.EncodeToString(sum[:]))
}

// copyTree copies the regular files and directories under from to to.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}
