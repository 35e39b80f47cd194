package main

import (
	"fmt"
	"strings"
)

// The C++ layer is one translation unit, torch_api.cpp, which includes the
// 2,500 generated wrappers at its end. Parsing libtorch's headers alone takes
// about 17 s of it, and one compiler process uses one core. gotchpatch
// compiles it as several units in parallel instead, all from the same files:
// guards make the unit compiled with -DZK_PART=k hold part k of the generated
// wrappers (part 0 also the hand-written functions), and without ZK_PART the
// files still compile as the one whole unit (scripts/build-torch-wrapper.sh).

// partMacro selects one part of the C++ layer.
const partMacro = "ZK_PART"

// partGuard opens the text of part k.
func partGuard(k int) string {
	return fmt.Sprintf("#if !defined(%s) || %s == %d", partMacro, partMacro, k)
}

// guardGenerated wraps consecutive runs of the generated wrappers in text
// into parts guards, parts of about equal numbers of wrappers.
func guardGenerated(text string, parts int) (string, error) {
	lines := strings.Split(text, "\n")
	ws, err := parseWrappers(lines)
	if err != nil {
		return "", err
	}
	if parts < 1 || parts > len(ws) {
		return "", fmt.Errorf("cannot split %d wrappers into %d parts", len(ws), parts)
	}
	out := make([]string, 0, len(lines)+2*parts)
	prev := 0 // next index of lines to copy
	for k := 0; k < parts; k++ {
		first, last := ws[k*len(ws)/parts], ws[(k+1)*len(ws)/parts-1]
		out = append(out, lines[prev:first.start-1]...)
		out = append(out, partGuard(k))
		out = append(out, lines[first.start-1:last.end]...)
		out = append(out, "#endif")
		prev = last.end
	}
	out = append(out, lines[prev:]...)
	return strings.Join(out, "\n"), nil
}

// generatedInclude is the line of torch_api.cpp that includes the wrappers.
const generatedInclude = `#include "` + generatedFile + `"`

// lastHeaderInclude is the last line of torch_api.cpp's libtorch includes;
// what follows it, up to generatedInclude, are the hand-written functions.
const lastHeaderInclude = "#include <vector>"

// helperDecls declares the hand-written helpers the generated wrappers call,
// for the parts that do not define them.
var helperDecls = []string{
	"std::vector<torch::Tensor> of_carray_tensor(torch::Tensor **vs, int len);",
	"c10::List<c10::optional<torch::Tensor>> of_carray_tensor_opt(torch::Tensor **vs, int len);",
	"at::Device device_of_int(int d);",
}

// guardHandWritten puts the hand-written functions of torch_api.cpp (with
// the image library implementations they use) into part 0, and declares the
// helpers the wrappers need for every other part.
func guardHandWritten(text string) (string, error) {
	lines := strings.Split(text, "\n")
	from, to := -1, -1
	for i, l := range lines {
		switch l {
		case lastHeaderInclude:
			if from < 0 {
				from = i + 1
			}
		case generatedInclude:
			if to >= 0 {
				return "", fmt.Errorf("torch_api.cpp includes %s twice", generatedFile)
			}
			to = i
		}
	}
	if from < 0 || to < 0 || to < from {
		return "", fmt.Errorf("torch_api.cpp: %q followed by %q not found (not gotch v0.9.1?)", lastHeaderInclude, generatedInclude)
	}
	out := append([]string{}, lines[:from]...)
	out = append(out, partGuard(0))
	out = append(out, lines[from:to]...)
	out = append(out, "#else")
	out = append(out, helperDecls...)
	out = append(out, "#endif")
	out = append(out, lines[to:]...)
	return strings.Join(out, "\n"), nil
}

// lastErrDef is torch_api.h's definition of the thread's last error.
const lastErrDef = "thread_local char *torch_last_err = nullptr;"

// guardHeader keeps the definition of torch_last_err in part 0 and makes it a
// declaration in the others.
func guardHeader(text string) (string, error) {
	if strings.Count(text, "\n"+lastErrDef+"\n") != 1 {
		return "", fmt.Errorf("torch_api.h: %q not found once (not gotch v0.9.1?)", lastErrDef)
	}
	return strings.Replace(text, "\n"+lastErrDef+"\n",
		"\n"+partGuard(0)+"\n"+lastErrDef+"\n#else\nextern thread_local char *torch_last_err;\n#endif\n", 1), nil
}
