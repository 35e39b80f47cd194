package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// knownStubsText lists, for toolchains met before, the generated wrappers
// that do not compile with them. It only saves time: with a toolchain's
// list, buildArchive stubs those wrappers before its first compile (one
// pass of about 20 s on 2 cores instead of two); without one, or if more
// fail, the compiler's diagnostics find them as before. Add a toolchain's
// list with the output of gotchpatch -print-known.
//
//go:embed known-stubs.txt
var knownStubsText string

// toolchainKey identifies what decides which wrappers compile: libtorch's
// declarations of its operators and the compiler.
func toolchainKey(ctx context.Context, cxx string, tc toolchain) (string, error) {
	h := sha256.New()
	root := tc.headerRoot()
	for _, f := range []string{"torch/csrc/api/include/torch/version.h", "ATen/Functions.h", "ATen/core/TensorBody.h"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return "", fmt.Errorf("libtorch header: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	for _, arg := range []string{"-dumpfullversion", "-dumpmachine"} {
		out, err := exec.CommandContext(ctx, cxx, arg).Output()
		if err != nil {
			return "", fmt.Errorf("%s %s: %w", cxx, arg, err)
		}
		fmt.Fprintf(h, "%s %s", arg, out)
	}
	fmt.Fprintf(h, "flags %s\n", strings.Join(tc.cxxFlags()[1:], " ")) // without -std, which is fixed
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// knownStubs returns the wrappers listed for key in text (nil if none).
// Its format: "toolchain KEY DESCRIPTION" lines, each followed by wrapper
// names, one per line; "#" starts a comment line.
func knownStubs(text, key string) ([]string, error) {
	var names []string
	in := false
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, "toolchain "):
			f := strings.Fields(l)
			in = len(f) >= 2 && f[1] == key
		case strings.HasPrefix(l, "atg_") && !strings.ContainsAny(l, " \t"):
			if in {
				names = append(names, l)
			}
		default:
			return nil, fmt.Errorf("known-stubs.txt:%d: unexpected line %q", n, l)
		}
	}
	return names, nil
}

// stubNames stubs the named wrappers of text that it has (pruning may have
// removed others) and returns how many.
func stubNames(text string, names []string) (string, int, error) {
	ws, err := parseWrappers(strings.Split(text, "\n"))
	if err != nil {
		return "", 0, err
	}
	line := map[string]int{}
	for _, w := range ws {
		line[w.name] = w.protectOpen + 1 // the first line inside PROTECT(
	}
	var blamed []int
	for _, n := range names {
		if l, ok := line[n]; ok {
			blamed = append(blamed, l)
		}
	}
	if len(blamed) == 0 {
		return text, 0, nil
	}
	sort.Ints(blamed)
	out, _, err := stub(text, blamed)
	return out, len(blamed), err
}

// printKnown writes the section of known-stubs.txt for key and the stubbed
// wrappers.
func printKnown(w io.Writer, key string, tc toolchain, cxx string, stubbed []string) {
	names := append([]string(nil), stubbed...)
	sort.Strings(names)
	fmt.Fprintf(w, "toolchain %s %s, %s\n", key, tc.describe(), cxx)
	for _, n := range names {
		fmt.Fprintln(w, n)
	}
}
