package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// gotch generates a Go method, a Must variant, a cgo function and a C++
// wrapper for each of libtorch's 2,500 operators; zerokit calls about a
// hundred. Compiling the rest is most of the time a newcomer's first build
// spends on gotch: cgo's probes of 2,500 C names, two large Go packages and
// the C++ wrappers. pruneGenerated removes the generated functions that
// nothing can reach: not zerokit's code (the files that import gotch),
// not gotch's hand-written code in the packages zerokit builds (the module
// root, libtch, ts), nor a kept generated function. Names are matched as
// identifiers, so a name used anywhere in that code keeps every generated
// function of that name. Other gotch packages (nn, vision, ...) are not
// built by zerokit and may no longer compile.

// prunedFile lists, in the patched copy, the generated names removed, one per
// line; setup.sh re-patches when zerokit's code starts to use one of them.
const prunedFile = "ZEROKIT_PRUNED"

// generatedGo are the generated Go files pruned, relative to the module.
var generatedGo = []string{"ts/tensor-generated.go", "ts/must-tensor-generated.go", "libtch/" + cgoFile}

// builtPackages are the directories of the gotch packages zerokit builds.
var builtPackages = []string{".", "ts", "libtch"}

// pruneStats counts what pruneGenerated kept.
type pruneStats struct {
	goKept, goAll   int
	cxxKept, cxxAll int
}

// pruneGenerated prunes the copy of gotch in dir for the Go files under
// users (zerokit's module) that import gotch.
func pruneGenerated(dir, users string) (pruneStats, error) {
	var st pruneStats
	roots, err := userIdents(users)
	if err != nil {
		return st, err
	}
	if len(roots) == 0 {
		return st, fmt.Errorf("no Go file under %s imports gotch: nothing to keep", users)
	}
	// Gotch's hand-written code in the packages built.
	generated := map[string]bool{}
	for _, f := range generatedGo {
		generated[filepath.FromSlash(f)] = true
	}
	for _, pkg := range builtPackages {
		files, err := filepath.Glob(filepath.Join(dir, pkg, "*.go"))
		if err != nil {
			return st, err
		}
		for _, f := range files {
			rel, _ := filepath.Rel(dir, f)
			if generated[rel] || strings.HasSuffix(f, "_test.go") {
				continue
			}
			if err := fileIdents(f, roots); err != nil {
				return st, err
			}
		}
	}
	// The generated functions and what each refers to.
	fset := token.NewFileSet()
	type decl struct {
		file  int
		fn    *ast.FuncDecl
		refs  []string
		cname []string // C names it calls (C.atg_*)
	}
	byName := map[string][]*decl{}
	var all []*decl
	files := make([]*ast.File, len(generatedGo))
	srcs := make([][]byte, len(generatedGo))
	for i, f := range generatedGo {
		path := filepath.Join(dir, filepath.FromSlash(f))
		src, err := os.ReadFile(path)
		if err != nil {
			return st, err
		}
		af, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return st, err
		}
		files[i], srcs[i] = af, src
		for _, d := range af.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			dd := &decl{file: i, fn: fn}
			ast.Inspect(fn, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.Ident:
					dd.refs = append(dd.refs, x.Name)
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok && id.Name == "C" {
						dd.cname = append(dd.cname, x.Sel.Name)
					}
				}
				return true
			})
			byName[fn.Name.Name] = append(byName[fn.Name.Name], dd)
			all = append(all, dd)
		}
	}
	// Keep what the roots reach.
	kept := map[*decl]bool{}
	var work []*decl
	for name := range roots {
		for _, d := range byName[name] {
			if !kept[d] {
				kept[d] = true
				work = append(work, d)
			}
		}
	}
	for len(work) > 0 {
		d := work[len(work)-1]
		work = work[:len(work)-1]
		for _, r := range d.refs {
			for _, e := range byName[r] {
				if !kept[e] {
					kept[e] = true
					work = append(work, e)
				}
			}
		}
	}
	keepC := map[string]bool{}
	pruned := map[string]bool{}
	for _, d := range all {
		st.goAll++
		if kept[d] {
			st.goKept++
			for _, c := range d.cname {
				keepC[c] = true
			}
		} else {
			pruned[d.fn.Name.Name] = true
		}
	}
	for name := range roots { // a C name used by hand-written cgo code
		keepC[name] = true
	}
	for i, f := range generatedGo {
		var drop []*ast.FuncDecl
		for _, d := range all {
			if d.file == i && !kept[d] {
				drop = append(drop, d.fn)
			}
		}
		out, err := removeDecls(fset, files[i], srcs[i], drop)
		if err != nil {
			return st, fmt.Errorf("%s: %w", f, err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(f)), out, 0o644); err != nil {
			return st, err
		}
	}
	// The C++ wrappers of the C functions kept.
	err = rewriteFile(filepath.Join(dir, "libtch", generatedFile), func(text string) (string, error) {
		out, kept, all, err := pruneWrappers(text, keepC)
		st.cxxKept, st.cxxAll = kept, all
		return out, err
	})
	if err != nil {
		return st, err
	}
	names := make([]string, 0, len(pruned))
	for n := range pruned {
		names = append(names, n)
	}
	sort.Strings(names)
	return st, os.WriteFile(filepath.Join(dir, prunedFile), []byte(strings.Join(names, "\n")+"\n"), 0o644)
}

// userIdents returns the identifiers of the Go files under root that mention
// gotch's module path (not under build/, testdata, node_modules or hidden
// directories, nor this program's own sources). Identifiers are words of
// the text, comments included: scripts/setup.sh checks the same words with
// grep to decide when to patch again, and both must agree.
func userIdents(root string) (map[string]bool, error) {
	ids := map[string]bool{}
	self, _ := filepath.Abs(filepath.Join(root, "scripts", "gotchpatch"))
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			abs, _ := filepath.Abs(path)
			if path != root && (strings.HasPrefix(name, ".") || name == "build" || name == "testdata" || name == "node_modules" || abs == self) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(src, []byte(gotchModule)) {
			for _, w := range identWord.FindAll(src, -1) {
				ids[string(w)] = true
			}
		}
		return nil
	})
	return ids, err
}

// identWord is what setup.sh's grep takes for an identifier.
var identWord = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// cgoFile is gotch's generated cgo file: one Go function per C wrapper,
// each calling C.atg_*. cgo asks the C compiler about every C name a file
// uses, in programs whose diagnostics cost time quadratic in the names: over
// its 2,500 names cgo took 55 s of the reference machine.
const cgoFile = "c-generated.go"

// gotchModule is gotch's module path.
const gotchModule = "github.com/sugarme/gotch"

// fileIdents adds the identifiers of a Go file to ids.
func fileIdents(path string, ids map[string]bool) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	var s scanner.Scanner
	var errs int
	s.Init(fset.AddFile(path, -1, len(src)), src, func(token.Position, string) { errs++ }, 0)
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.IDENT {
			ids[lit] = true
		}
	}
	if errs > 0 {
		return fmt.Errorf("%s: %d scanning errors", path, errs)
	}
	return nil
}

// removeDecls returns src without the given function declarations (and
// the comment lines right above each), with imports left unused made blank.
func removeDecls(fset *token.FileSet, af *ast.File, src []byte, drop []*ast.FuncDecl) ([]byte, error) {
	if len(drop) == 0 {
		return src, nil
	}
	tf := fset.File(af.Pos())
	type span struct{ from, to int }
	spans := make([]span, 0, len(drop))
	for _, fn := range drop {
		from, to := tf.Offset(fn.Pos()), tf.Offset(fn.End())
		// The generator's comment lines above the function go with it.
		for {
			ls := bytes.LastIndexByte(src[:from], '\n')
			if ls < 0 {
				break
			}
			prev := bytes.LastIndexByte(src[:ls], '\n') + 1
			line := strings.TrimSpace(string(src[prev:ls]))
			if line != "" && !strings.HasPrefix(line, "//") {
				break
			}
			if strings.HasPrefix(line, "//") && (strings.Contains(line, "import") || strings.HasPrefix(line, "// #")) {
				break
			}
			from = prev
		}
		for to < len(src) && src[to] != '\n' {
			to++
		}
		spans = append(spans, span{from, to})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var b strings.Builder
	prev := 0
	for _, s := range spans {
		if s.from < prev {
			s.from = prev
		}
		b.Write(src[prev:s.from])
		prev = s.to
	}
	b.Write(src[prev:])
	out := b.String()
	// Imports the remaining code no longer uses become blank imports.
	fset2 := token.NewFileSet()
	af2, err := parser.ParseFile(fset2, "", out, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("after pruning: %w", err)
	}
	used := map[string]bool{}
	ast.Inspect(af2, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	file := fset2.File(af2.Pos())
	var edits []span
	for _, imp := range af2.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := filepath.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if p == "C" || name == "_" || used[name] {
			continue
		}
		from := file.Offset(imp.Pos())
		edits = append(edits, span{from, file.Offset(imp.Path.Pos())})
	}
	for i := len(edits) - 1; i >= 0; i-- {
		out = out[:edits[i].from] + "_ " + out[edits[i].to:]
	}
	return []byte(out), nil
}

// pruneWrappers removes the C++ wrappers whose names are not in keep. It
// returns the new text and how many wrappers it kept out of how many.
func pruneWrappers(text string, keep map[string]bool) (string, int, int, error) {
	lines := strings.Split(text, "\n")
	ws, err := parseWrappers(lines)
	if err != nil {
		return "", 0, 0, err
	}
	out := make([]string, 0, len(lines))
	prev, kept := 0, 0
	for _, w := range ws {
		if keep[w.name] {
			kept++
			continue
		}
		out = append(out, lines[prev:w.start-1]...)
		prev = w.end
		if prev < len(lines) && lines[prev] == "" {
			prev++ // the blank line after it
		}
	}
	out = append(out, lines[prev:]...)
	if kept == 0 {
		return "", 0, 0, fmt.Errorf("no generated wrapper kept")
	}
	return strings.Join(out, "\n"), kept, len(ws), nil
}
