package main

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// generatedFile holds gotch's generated C++ wrappers; torch_api.cpp
// includes it at its end.
const generatedFile = "torch_api_generated.cpp.h"

// diagLine matches a compiler diagnostic that points into the generated
// wrappers: the error itself or the "required from here" line of an error
// raised inside a libtorch template on the wrapper's behalf.
var diagLine = regexp.MustCompile(`(?:^|/)` + regexp.QuoteMeta(generatedFile) + `:(\d+):\d+:\s+(?:(?:fatal )?error:|required from)`)

// anyError matches any compiler error line.
var anyError = regexp.MustCompile(`:\d+:\d+: (?:fatal )?error:`)

// errorLines returns the line numbers in the generated file that the
// diagnostics blame, sorted and without duplicates, and the total number of
// error lines in the output.
func errorLines(diag []byte) (lines []int, errCount int) {
	seen := map[int]bool{}
	for _, l := range strings.Split(string(diag), "\n") {
		if anyError.MatchString(l) {
			errCount++
		}
		m := diagLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || seen[n] {
			continue
		}
		seen[n] = true
		lines = append(lines, n)
	}
	sort.Ints(lines)
	return lines, errCount
}

// wrapper is one generated C++ function: lines are 1-based and inclusive.
type wrapper struct {
	name         string
	start, end   int // signature line and closing brace line
	protectOpen  int // the "  PROTECT(" line
	protectClose int // the "  )" line closing it
}

var wrapperName = regexp.MustCompile(`^[a-z][a-z0-9_ ]*\*?\s*\b(atg_\w+)\(.*\) \{$`)

// parseWrappers finds every wrapper in the generated file's lines and checks
// it has the shape gotch's generator gives them: a signature line, a
// PROTECT( ... ) block, optionally a return statement, and a closing brace.
func parseWrappers(lines []string) ([]wrapper, error) {
	var ws []wrapper
	for i := 0; i < len(lines); i++ {
		m := wrapperName.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		w := wrapper{name: m[1], start: i + 1}
		j := i + 1
		if j >= len(lines) || lines[j] != "  PROTECT(" {
			return nil, fmt.Errorf("%s:%d: wrapper %s does not open with PROTECT(", generatedFile, i+1, w.name)
		}
		w.protectOpen = j + 1
		for j++; j < len(lines) && lines[j] != "  )"; j++ {
			if lines[j] == "}" {
				return nil, fmt.Errorf("%s:%d: wrapper %s ends inside PROTECT(", generatedFile, j+1, w.name)
			}
		}
		if j >= len(lines) {
			return nil, fmt.Errorf("%s: wrapper %s has no end", generatedFile, w.name)
		}
		w.protectClose = j + 1
		for ; j < len(lines) && lines[j] != "}"; j++ {
		}
		if j >= len(lines) {
			return nil, fmt.Errorf("%s: wrapper %s has no closing brace", generatedFile, w.name)
		}
		w.end = j + 1
		ws = append(ws, w)
		i = j
	}
	if len(ws) == 0 {
		return nil, fmt.Errorf("%s: no wrappers found", generatedFile)
	}
	return ws, nil
}

// stubMarker starts the body of every stubbed wrapper; it makes stubbing
// idempotent and lets a pass count what earlier passes did.
const stubMarker = "    throw std::runtime_error(\""

// stubMessage is what a call to a stubbed wrapper reports.
func stubMessage(name string) string {
	return name + ": not available in this libtorch (gotch v0.9.1 wrapper does not compile against it)"
}

// stub replaces the PROTECT bodies of the wrappers that contain any of the
// given lines with a throw. It returns the new text and the names stubbed;
// a blamed line outside every wrapper is an error.
func stub(text string, blamed []int) (string, []string, error) {
	lines := strings.Split(text, "\n")
	ws, err := parseWrappers(lines)
	if err != nil {
		return "", nil, err
	}
	hit := map[int]bool{} // index into ws
	for _, ln := range blamed {
		k := sort.Search(len(ws), func(k int) bool { return ws[k].end >= ln })
		if k == len(ws) || ln < ws[k].start {
			return "", nil, fmt.Errorf("%s:%d: compile error outside any generated wrapper", generatedFile, ln)
		}
		if ln == ws[k].start {
			return "", nil, fmt.Errorf("%s:%d: compile error in the signature of %s (a type the C side cannot provide)", generatedFile, ln, ws[k].name)
		}
		hit[k] = true
	}
	var names []string
	out := make([]string, 0, len(lines))
	prev := 0 // next line index of lines to copy
	for k, w := range ws {
		if !hit[k] {
			continue
		}
		if strings.HasPrefix(lines[w.protectOpen], stubMarker) {
			return "", nil, fmt.Errorf("%s:%d: %s is already stubbed but still fails to compile", generatedFile, w.start, w.name)
		}
		out = append(out, lines[prev:w.protectOpen]...)
		out = append(out, stubMarker+stubMessage(w.name)+"\");")
		prev = w.protectClose - 1 // keep the "  )" line
		names = append(names, w.name)
	}
	out = append(out, lines[prev:]...)
	return strings.Join(out, "\n"), names, nil
}

// countStubs counts wrappers already stubbed in text.
func countStubs(text string) int {
	return strings.Count(text, stubMarker)
}

// tail returns the last n lines of b.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
