package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// toolchain describes the libtorch the patched gotch is built against.
type toolchain struct {
	// libtorch is the unpacked libtorch directory, or "" for Debian's
	// libtorch-dev (headers under /usr/include, libraries on the default
	// linker path).
	libtorch string
	// includes are the extra -I directories for C++.
	includes []string
	// cuda reports whether libtorch has CUDA libraries to link.
	cuda bool
	// oldABI reports whether libtorch was built with the pre-C++11 string
	// ABI, which the C++ wrappers must then also use.
	oldABI bool
	// shared compiles the C++ layer into a shared library (sharedName)
	// that Go binaries link dynamically instead of the static archive, so
	// that it can be rebuilt against another libtorch (a CUDA one on a
	// machine without Go) and swapped in with LD_LIBRARY_PATH.
	shared bool
}

// debianTorchHeader is installed by Debian's libtorch-dev.
const debianTorchHeader = "/usr/include/torch/csrc/api/include/torch/torch.h"

// newToolchain inspects a libtorch directory ("" for Debian's packages).
func newToolchain(libtorch string) (toolchain, error) {
	if libtorch == "" {
		if _, err := os.Stat(debianTorchHeader); err != nil {
			return toolchain{}, fmt.Errorf("Debian libtorch-dev headers not found (%w); install libtorch-dev or set LIBTORCH", err)
		}
		return toolchain{includes: []string{"/usr/include/torch/csrc/api/include"}}, nil
	}
	abs, err := filepath.Abs(libtorch)
	if err != nil {
		return toolchain{}, fmt.Errorf("LIBTORCH %q: %w", libtorch, err)
	}
	// cgo refuses flags with these characters; fail here with a clear message.
	if strings.ContainsAny(abs, " \t\n'\"\\$@,;") {
		return toolchain{}, fmt.Errorf("LIBTORCH %q: path contains a character cgo flags cannot carry (space, quote, $, @, comma or semicolon)", abs)
	}
	header := filepath.Join(abs, "include/torch/csrc/api/include/torch/torch.h")
	if _, err := os.Stat(header); err != nil {
		return toolchain{}, fmt.Errorf("LIBTORCH %q is not an unpacked libtorch: %w", abs, err)
	}
	if _, err := os.Stat(filepath.Join(abs, "lib/libtorch_cpu.so")); err != nil {
		return toolchain{}, fmt.Errorf("LIBTORCH %q is not an unpacked libtorch: %w", abs, err)
	}
	tc := toolchain{
		libtorch: abs,
		includes: []string{filepath.Join(abs, "include"), filepath.Join(abs, "include/torch/csrc/api/include")},
	}
	if _, err := os.Stat(filepath.Join(abs, "lib/libtorch_cuda.so")); err == nil {
		tc.cuda = true
	}
	cfg, err := os.ReadFile(filepath.Join(abs, "share/cmake/Torch/TorchConfig.cmake"))
	if err == nil && bytes.Contains(cfg, []byte("_GLIBCXX_USE_CXX11_ABI=0")) {
		tc.oldABI = true
	}
	return tc, nil
}

// headerRoot is the directory holding libtorch's ATen/ and torch/ headers.
func (tc toolchain) headerRoot() string {
	if tc.libtorch == "" {
		return "/usr/include"
	}
	return filepath.Join(tc.libtorch, "include")
}

// cxxFlags are the flags the wrappers are compiled with (besides -I of the
// libtch directory itself).
func (tc toolchain) cxxFlags() []string {
	f := []string{"-std=c++17"}
	for _, inc := range tc.includes {
		f = append(f, "-I"+inc)
	}
	if tc.oldABI {
		f = append(f, "-D_GLIBCXX_USE_CXX11_ABI=0")
	}
	return f
}

// ldFlags are the linker flags for the libtorch libraries.
func (tc toolchain) ldFlags() []string {
	var f []string
	if tc.libtorch != "" {
		lib := filepath.Join(tc.libtorch, "lib")
		f = append(f, "-L"+lib, "-Wl,-rpath,"+lib)
	}
	f = append(f, "-lstdc++", "-ltorch", "-lc10", "-ltorch_cpu")
	if tc.cuda {
		// Nothing references libtorch_cuda directly: without --no-as-needed
		// the linker drops it and CUDA devices are never registered.
		f = append(f, "-Wl,--no-as-needed", "-ltorch_cuda", "-lc10_cuda", "-Wl,--as-needed")
	}
	// The image helpers compiled into the wrappers call libm directly.
	return append(f, "-lm")
}

// describe names the libtorch for generated-file headers.
func (tc toolchain) describe() string {
	if tc.libtorch == "" {
		return "Debian libtorch-dev"
	}
	kind := "CPU"
	if tc.cuda {
		kind = "CUDA"
	}
	return fmt.Sprintf("%s libtorch at %s", kind, tc.libtorch)
}

// originalLibGo is the start of gotch v0.9.1's libtch/lib.go; anything else
// means the module is not the release this patch was written for.
const originalLibGo = "package libtch\n\n// #cgo LDFLAGS: -lstdc++ -ltorch -lc10 -ltorch_cpu -L${SRCDIR}/libtorch/lib\n"

// writeLibGo replaces libtch/lib.go with cgo flags for tc.
func writeLibGo(dir string, tc toolchain) error {
	path := filepath.Join(dir, "libtch", "lib.go")
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(old, []byte(originalLibGo)) {
		return fmt.Errorf("%s: unexpected content (not gotch v0.9.1's lib.go?); first line: %q", path, firstLine(old))
	}
	return os.WriteFile(path, []byte(libGo(tc)), 0o644)
}

// archiveName is the static library the C++ layer is compiled into, in
// libtch; lib.go links it.
const archiveName = "libzerokit_torch_api.a"

// sharedName is the shared library the C++ layer is compiled into instead
// with -wrapper shared (also its SONAME); lib.go links it with a run path
// to libtch that LD_LIBRARY_PATH overrides.
const sharedName = "libzerokit_torch_api.so"

// libName is the library lib.go links.
func (tc toolchain) libName() string {
	if tc.shared {
		return sharedName
	}
	return archiveName
}

// goLDFlags are the cgo LDFLAGS of lib.go. The static archive needs
// libtorch's libraries on the Go link line; the shared library carries
// them as its own dependencies, so a Go binary depends on it alone and
// takes whichever build of it the dynamic loader finds first.
func (tc toolchain) goLDFlags() []string {
	if tc.shared {
		// RUNPATH (new dtags), unlike RPATH, yields to LD_LIBRARY_PATH.
		return []string{"-L${SRCDIR}", "-lzerokit_torch_api", "-Wl,-rpath,${SRCDIR}", "-Wl,--enable-new-dtags"}
	}
	return append([]string{"${SRCDIR}/" + archiveName}, tc.ldFlags()...)
}

func libGo(tc toolchain) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Code generated by zerokit scripts/gotchpatch for %s. DO NOT EDIT.\n\n", tc.describe())
	b.WriteString("package libtch\n\n")
	fmt.Fprintf(&b, "// The C++ layer (cxx/torch_api.cpp) is compiled once by scripts/setup.sh into\n// %s, with: %s\n", tc.libName(), strings.Join(tc.cxxFlags(), " "))
	// -O1: the C side of the cgo calls is argument copying; cgo compiles
	// it, and its probes of 2,500 names, with these flags.
	b.WriteString("\n// #cgo CFLAGS: -I${SRCDIR} -O1 -Wall -Wno-unused-variable -Wno-deprecated-declarations -Wno-sign-compare -Wno-unused-function\n")
	fmt.Fprintf(&b, "// #cgo LDFLAGS: %s\n", strings.Join(tc.goLDFlags(), " "))
	b.WriteString("import \"C\"\n")
	return b.String()
}

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
