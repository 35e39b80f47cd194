package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// outArrayBytes is the size of every C output array: libtorch wrappers write
// at most 7 tensor handles into it.
const outArrayBytes = "64"

// lineEdit rewrites every line of file matching re; want is the exact number
// of matches expected in gotch v0.9.1, so that a different release fails
// loudly instead of being half patched.
type lineEdit struct {
	file string
	why  string
	re   *regexp.Regexp
	want int
	// rewrite returns the replacement for lines[i] (matched as m); it may
	// look at the following lines.
	rewrite func(m []string, lines []string, i int) []string
}

// mallocZero matches gotch's C output arrays, allocated with malloc(0) (a
// heap overflow as soon as the C side writes a handle) and never freed.
var mallocZero = regexp.MustCompile(`^(\s*)(\w+) := \(\*lib\.Ctensor\)\(unsafe\.Pointer\(C\.malloc\(0\)\)\)\s*$`)

// fixMalloc sizes the array for the handles the C side writes and frees it
// when the function returns (the handles are read before that).
func fixMalloc(m []string, lines []string, i int) []string {
	indent, name := m[1], m[2]
	out := []string{fmt.Sprintf("%s%s := (*lib.Ctensor)(C.malloc(%s)) // zerokit: was malloc(0)", indent, name, outArrayBytes)}
	free := fmt.Sprintf("defer C.free(unsafe.Pointer(%s))", name)
	if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) == free {
		return out
	}
	return append(out, indent+free)
}

// goEdits are the fixes applied to gotch v0.9.1's Go sources, and one to
// its generated C++ wrappers (before pruning and compiling).
var goEdits = []lineEdit{
	{
		file: "ts/tensor-generated.go", why: "malloc(0) output arrays in generated ops",
		re: mallocZero, want: 2447, rewrite: fixMalloc,
	},
	{
		file: "ts/patch.go", why: "malloc(0) output arrays in hand-written ops",
		re: mallocZero, want: 4, rewrite: fixMalloc,
	},
	{
		file: "ts/tensor.go", why: "malloc(0) output arrays in hand-written ops",
		re: mallocZero, want: 2, rewrite: fixMalloc,
	},
	{
		// In-place ops return a new handle to the same tensor; the old
		// handle (a heap-allocated torch::Tensor) was never deleted.
		file: "ts/tensor-generated.go", why: "in-place ops leaking the replaced handle",
		re: regexp.MustCompile(`^(\s*)ts\.ctensor = \*ptr\s*$`), want: 260,
		rewrite: func(m []string, _ []string, _ int) []string {
			return []string{m[1] + "lib.AtFree(ts.ctensor) // zerokit: free the replaced handle", m[0]}
		},
	},
	{
		// A 100 KB Go allocation per tensor, meant to make the collector
		// run finalizers sooner; it costs ~20 us per op. Callers must free
		// tensors explicitly (MustDrop), which the finalizer still backs up.
		file: "ts/tensor.go", why: "100 KB Go allocation per tensor",
		re: regexp.MustCompile(`^(\s*)x\.d = new\(bigStruct\)\s*$`), want: 1,
		rewrite: func(m []string, _ []string, _ int) []string {
			return []string{m[1] + "// zerokit: no 100 KB bigStruct per tensor (free tensors explicitly)"}
		},
	},
	{
		// Float64Values left its converted copy to the collector; on a loss
		// tensor that copy keeps the whole autograd graph alive.
		file: "ts/tensor.go", why: "Float64Values leaking its temporary",
		re: regexp.MustCompile(`^(\s*)// float64Ts\.MustDrop\(\)\s*$`), want: 1,
		rewrite: func(m []string, _ []string, _ int) []string {
			return []string{m[1] + "float64Ts.MustDrop() // zerokit: was commented out (leak)"}
		},
	},
	{
		// PyTorch 2 deprecates pin_memory's device argument and prints a
		// warning at every call (one per staging buffer: thousands in a
		// GPU run's log). Without it, memory is pinned for the default
		// accelerator, as with it, in libtorch 1.x and 2.x alike.
		file: "libtch/" + generatedFile, why: "pin_memory's deprecated device argument",
		re: regexp.MustCompile(`^(\s*)auto outputs__ = self->pin_memory\(device_of_int\(device\)\);\s*$`), want: 1,
		rewrite: func(m []string, _ []string, _ int) []string {
			return []string{m[1] + "(void)device; auto outputs__ = self->pin_memory(); // zerokit: no deprecated device argument"}
		},
	},
}

// patchGoSide applies goEdits to the module copy in dir.
func patchGoSide(dir string) error {
	byFile := map[string][]lineEdit{}
	var order []string
	for _, e := range goEdits {
		if _, ok := byFile[e.file]; !ok {
			order = append(order, e.file)
		}
		byFile[e.file] = append(byFile[e.file], e)
	}
	for _, f := range order {
		err := rewriteFile(filepath.Join(dir, f), func(text string) (string, error) {
			return applyEdits(text, byFile[f])
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// applyEdits applies edits to text, line by line, and checks each matched
// exactly as often as expected.
func applyEdits(text string, edits []lineEdit) (string, error) {
	lines := strings.Split(text, "\n")
	counts := make([]int, len(edits))
	out := make([]string, 0, len(lines)+len(lines)/8)
	for i, l := range lines {
		replaced := false
		for k, e := range edits {
			m := e.re.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			counts[k]++
			out = append(out, e.rewrite(m, lines, i)...)
			replaced = true
			break
		}
		if !replaced {
			out = append(out, l)
		}
	}
	for k, e := range edits {
		if counts[k] != e.want {
			return "", fmt.Errorf("patch %q matched %d lines, expected %d (not gotch v0.9.1?)", e.why, counts[k], e.want)
		}
	}
	return strings.Join(out, "\n"), nil
}

// extraFile adds the wrappers gotch v0.9.1 lacks although the C functions
// exist. Callers must stay on one OS thread (runtime.LockOSThread) between
// an op and LastError, and for grad mode: both are per thread.
const extraFile = `// Code generated by zerokit scripts/gotchpatch. DO NOT EDIT.

package libtch

// #include <stdlib.h>
// #include <stdbool.h>
// #include "torch_api.h"
import "C"

import "unsafe"

// ArchiveSHA256 identifies the compiled C++ layer linked by lib.go; it
// changes this file whenever the library changes, so that the Go build
// cache relinks.
const ArchiveSHA256 = "%s"

// SetNumThreads sets the number of threads libtorch uses within one op.
func SetNumThreads(n int) { C.at_set_num_threads(C.int(n)) }

// NumThreads returns the number of threads libtorch uses within one op.
func NumThreads() int { return int(C.at_get_num_threads()) }

// ManualSeed seeds libtorch's default random generator.
func ManualSeed(seed int64) { C.at_manual_seed(C.int64_t(seed)) }

// SetGradEnabled turns autograd recording on or off for the calling OS
// thread and returns the previous setting.
func SetGradEnabled(on bool) (prev bool) {
	return C.at_grad_set_enabled(cbool(on)) != 0
}

// AutocastEnter turns on mixed precision (autocast to bfloat16) for the
// calling OS thread, on the CPU or CUDA, and returns the previous setting
// for AutocastExit. It fails (LastError) where this libtorch cannot.
func AutocastEnter(cuda bool) (prev bool) {
	return C.zk_autocast_enter(cbool(cuda)) == 1
}

// AutocastExit ends the region AutocastEnter began, restoring prev.
func AutocastExit(cuda, prev bool) { C.zk_autocast_exit(cbool(cuda), cbool(prev)) }

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// LastError returns and clears the error message of the last failed call
// made on the calling OS thread.
func LastError() (msg string, failed bool) {
	p := C.get_and_reset_last_err()
	if p == nil {
		return "", false
	}
	msg = C.GoString(p)
	C.free(unsafe.Pointer(p))
	return msg, true
}
`

// writeExtra adds extraFile to libtch, with the C++ library's hash.
func writeExtra(dir, archiveSum string) error {
	return os.WriteFile(filepath.Join(dir, "libtch", "zerokit_extra.go"), []byte(fmt.Sprintf(extraFile, archiveSum)), 0o644)
}
