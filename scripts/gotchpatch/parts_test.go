package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// guardOf returns, for each wrapper of text, the part guard it sits in
// (-1 outside any).
func guardOf(t *testing.T, text string) map[string]int {
	t.Helper()
	lines := strings.Split(text, "\n")
	ws, err := parseWrappers(lines)
	if err != nil {
		t.Fatal(err)
	}
	part := make([]int, len(lines))
	cur := -1
	for i, l := range lines {
		var k int
		if _, err := fmt.Sscanf(l, "#if !defined(ZK_PART) || ZK_PART == %d", &k); err == nil {
			if cur != -1 {
				t.Fatalf("line %d: nested guard", i+1)
			}
			cur = k
		} else if l == "#endif" {
			cur = -1
		}
		part[i] = cur
	}
	out := map[string]int{}
	for _, w := range ws {
		if part[w.start-1] != part[w.end-1] {
			t.Fatalf("%s crosses a guard", w.name)
		}
		out[w.name] = part[w.start-1]
	}
	return out
}

func TestGuardGenerated(t *testing.T) {
	for _, tc := range []struct {
		parts int
		want  map[string]int
		err   string
	}{
		{1, map[string]int{"atg_abs": 0, "atg__nnz": 0, "atg_split": 0}, ""},
		{2, map[string]int{"atg_abs": 0, "atg__nnz": 1, "atg_split": 1}, ""},
		{3, map[string]int{"atg_abs": 0, "atg__nnz": 1, "atg_split": 2}, ""},
		{4, nil, "cannot split 3 wrappers into 4 parts"},
		{0, nil, "cannot split"},
	} {
		t.Run(fmt.Sprint(tc.parts), func(t *testing.T) {
			out, err := guardGenerated(generated, tc.parts)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := guardOf(t, out)
			for name, k := range tc.want {
				if got[name] != k {
					t.Errorf("%s in part %d, want %d", name, got[name], k)
				}
			}
			// Without the guard lines the text is unchanged.
			var kept []string
			for _, l := range strings.Split(out, "\n") {
				if !strings.HasPrefix(l, "#if !defined(ZK_PART)") && l != "#endif" {
					kept = append(kept, l)
				}
			}
			if strings.Join(kept, "\n") != generated {
				t.Fatalf("guarding changed the wrappers:\n%s", out)
			}
			// Stubbing still works on the guarded text.
			if _, names, err := stub(out, []int{strings.Count(out[:strings.Index(out, "torch::abs")], "\n") + 1}); err != nil || len(names) != 1 || names[0] != "atg_abs" {
				t.Fatalf("stub on guarded text: %v %v", names, err)
			}
		})
	}
}

const handWritten = `#include "torch_api.h"
#include <torch/torch.h>
#include <vector>

#define STB_IMAGE_IMPLEMENTATION
#include "stb_image.h"

at::Device device_of_int(int d) { return at::Device(at::kCPU); }

#include "torch_api_generated.cpp.h"
`

func TestGuardHandWritten(t *testing.T) {
	out, err := guardHandWritten(handWritten)
	if err != nil {
		t.Fatal(err)
	}
	want := `#include "torch_api.h"
#include <torch/torch.h>
#include <vector>
#if !defined(ZK_PART) || ZK_PART == 0

#define STB_IMAGE_IMPLEMENTATION
#include "stb_image.h"

at::Device device_of_int(int d) { return at::Device(at::kCPU); }

#else
` + strings.Join(helperDecls, "\n") + `
#endif
#include "torch_api_generated.cpp.h"
`
	if out != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
	for _, bad := range []string{
		strings.Replace(handWritten, "#include <vector>\n", "", 1),
		strings.Replace(handWritten, `#include "torch_api_generated.cpp.h"`, "", 1),
		handWritten + `#include "torch_api_generated.cpp.h"` + "\n",
	} {
		if _, err := guardHandWritten(bad); err == nil {
			t.Errorf("guardHandWritten accepted:\n%s", bad)
		}
	}
}

func TestGuardHeader(t *testing.T) {
	h := "#ifdef __cplusplus\nusing namespace std;\n" + lastErrDef + "\nextern \"C\" {\n"
	out, err := guardHeader(h)
	if err != nil {
		t.Fatal(err)
	}
	want := "#ifdef __cplusplus\nusing namespace std;\n#if !defined(ZK_PART) || ZK_PART == 0\n" + lastErrDef +
		"\n#else\nextern thread_local char *torch_last_err;\n#endif\nextern \"C\" {\n"
	if out != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
	if _, err := guardHeader("#ifdef __cplusplus\n"); err == nil {
		t.Fatal("guardHeader accepted a header without the definition")
	}
}

func TestSplitCGo(t *testing.T) {
	body := `func A(){ 
	C.a()
}
func B(p unsafe.Pointer){ 
	C.b(p)
}

func C1(){ 
	C.c()
}
func D(){ 
	C.d()
}
func E(){ 
	C.e()
}
`
	parts, err := splitCGo(cgoHeader+"\n"+body, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 {
		t.Fatalf("%d parts", len(parts))
	}
	noUnsafe := strings.TrimSuffix(cgoHeader, "import \"unsafe\"\n")
	if !strings.HasPrefix(parts[0], cgoHeader) {
		t.Errorf("part 0 (uses unsafe) lacks the unsafe import:\n%s", parts[0])
	}
	if !strings.HasPrefix(parts[1], noUnsafe) || strings.Contains(parts[1], "import \"unsafe\"") {
		t.Errorf("part 1 (no unsafe) imports it:\n%s", parts[1])
	}
	var all []string
	for _, p := range parts {
		for _, l := range strings.Split(p, "\n") {
			if strings.HasPrefix(l, "func ") {
				all = append(all, strings.Fields(l)[1])
			}
		}
	}
	if got := strings.Join(all, " "); got != "A(){ B(p C1(){ D(){ E(){" {
		t.Errorf("functions in order %q", got)
	}
	for _, bad := range []struct{ text, err string }{
		{"package libtch\n" + body, "unexpected header"},
		{cgoHeader + "var x int\n" + body, "before the first function"},
		{cgoHeader + body + "const k = 1\n", "unexpected top-level declaration"},
		{cgoHeader + "func A(){\n}\n", "fewer than 2 parts"},
	} {
		if _, err := splitCGo(bad.text, 2); err == nil || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("splitCGo(%q): %v, want %q", bad.text, err, bad.err)
		}
	}
}

func TestKnownStubs(t *testing.T) {
	text := "# comment\ntoolchain k1 Debian libtorch-dev, g++\natg_abs\natg_split\n\ntoolchain k2 other\natg__nnz\n"
	for _, tc := range []struct {
		key  string
		want string
	}{{"k1", "atg_abs atg_split"}, {"k2", "atg__nnz"}, {"k3", ""}} {
		names, err := knownStubs(text, tc.key)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(names, " "); got != tc.want {
			t.Errorf("knownStubs(%s) = %q, want %q", tc.key, got, tc.want)
		}
	}
	if _, err := knownStubs("toolchain k\natg_a b\n", "k"); err == nil {
		t.Error("a malformed line was accepted")
	}
	if _, err := knownStubs(knownStubsText, "none"); err != nil {
		t.Errorf("the shipped known-stubs.txt: %v", err)
	}
	out, n, err := stubNames(generated, []string{"atg_split", "atg_gone", "atg_abs"})
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 || countStubs(out) != 2 || !strings.Contains(out, stubMessage("atg_split")) || !strings.Contains(out, stubMessage("atg_abs")) {
		t.Fatalf("stubNames:\n%s", out)
	}
	if out, n, err := stubNames(generated, []string{"atg_nope"}); err != nil || n != 0 || out != generated {
		t.Fatalf("a pruned wrapper: %d stubbed, %v", n, err)
	}
}

// TestRealSplit runs the C++ guards and the cgo split on gotch v0.9.1's own
// files, which their expectations were written for.
func TestRealSplit(t *testing.T) {
	dir := moduleDir(t)
	read := func(f string) string {
		b, err := os.ReadFile(filepath.Join(dir, "libtch", f))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if _, err := guardHandWritten(read("torch_api.cpp")); err != nil {
		t.Error(err)
	}
	if _, err := guardHeader(read("torch_api.h")); err != nil {
		t.Error(err)
	}
	out, err := guardGenerated(read(generatedFile), 8)
	if err != nil {
		t.Fatal(err)
	}
	parts := map[int]int{}
	for _, k := range guardOf(t, out) {
		parts[k]++
	}
	if len(parts) != 8 || parts[-1] != 0 {
		t.Errorf("wrappers per part: %v", parts)
	}
	src := read(cgoFile)
	split, err := splitCGo(src, cgoParts)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range split {
		n += strings.Count(p, "\nfunc ")
	}
	if want := strings.Count(src, "\nfunc "); n != want {
		t.Errorf("%d functions after the split, %d before", n, want)
	}
}
