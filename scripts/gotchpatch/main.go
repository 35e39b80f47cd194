// Command gotchpatch adapts a copy of github.com/sugarme/gotch v0.9.1 to the
// libtorch installed on this machine. scripts/setup.sh runs it on a fresh
// copy of the module; it is not meant to be run by hand.
//
// It makes these changes, each of which fails loudly when the text it
// expects is not found (a different gotch release needs a new look):
//
//  1. libtch/lib.go gets cgo flags for the local libtorch: Debian's
//     libtorch-dev by default, or the unpacked libtorch given by -libtorch
//     (CUDA libraries are linked only when that libtorch has them).
//  2. Go-side bugs of gotch are fixed (see gopatch.go), and a small file of
//     extra wrappers (thread count, seeding, grad mode, autocast) is added,
//     with the C++ functions autocast needs (autocast.go).
//  3. With -prune-for, the generated operators that the given module's code
//     cannot reach are left out (prune.go): most of the build time.
//  4. The C++ layer is compiled once into a static library that lib.go
//     links (see archive.go), so Go builds only compile the cgo glue.
//     Generated C++ wrappers that do not compile against this libtorch are
//     found from the compiler's diagnostics and their bodies replaced by a
//     throw inside gotch's error-catching macro, so the C symbol still
//     exists and a call returns an error (stubs.go).
//
// With -shared-from it derives, from a patched copy, a copy whose C++ layer
// is a shared library (shared.go): binaries built against it can run on a
// machine without Go with that library rebuilt against the machine's
// libtorch (scripts/build-torch-wrapper.sh; scripts/gpu-bundle.sh).
//
// The output depends only on the input copy, the flags and the compiler's
// diagnostics, so a re-run produces byte-identical files.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gotchpatch:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gotchpatch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "writable copy of the gotch module to patch in place (required)")
	libtorch := fs.String("libtorch", "", "unpacked libtorch directory (with include/ and lib/); empty for Debian's libtorch-dev")
	cxx := fs.String("cxx", "g++", "C++ compiler")
	ar := fs.String("ar", "ar", "archiver")
	maxPasses := fs.Int("max-passes", 4, "maximum number of compile-and-stub passes")
	pruneFor := fs.String("prune-for", "", "remove the generated operators that the Go code of this module (zerokit's) cannot reach (prune.go); empty keeps them all")
	sharedFrom := fs.String("shared-from", "", "instead of patching, make -dir a copy of this patched gotch that links its C++ layer as a shared library (see shared.go)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("-dir is required")
	}
	tc, err := newToolchain(*libtorch)
	if err != nil {
		return err
	}
	if *sharedFrom != "" {
		tc.shared = true
		return deriveShared(ctx, *sharedFrom, *dir, *cxx, tc, stdout)
	}
	if err := writeLibGo(*dir, tc); err != nil {
		return err
	}
	if err := patchGoSide(*dir); err != nil {
		return err
	}
	if err := addAutocast(*dir); err != nil {
		return err
	}
	if *pruneFor != "" {
		st, err := pruneGenerated(*dir, *pruneFor)
		if err != nil {
			return fmt.Errorf("pruning for %s: %w", *pruneFor, err)
		}
		fmt.Fprintf(stdout, "gotchpatch: kept %d of %d generated Go functions and %d of %d C++ wrappers, those the Go code under %s can reach\n",
			st.goKept, st.goAll, st.cxxKept, st.cxxAll, *pruneFor)
	}
	stubbed, sum, err := buildArchive(ctx, *dir, *cxx, *ar, tc, *maxPasses, stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "gotchpatch: %d generated wrappers stubbed (not available in this libtorch)\n", len(stubbed))
	return writeExtra(*dir, sum)
}
