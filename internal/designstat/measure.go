package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// maxColumns is the width a line may have; wider lines are counted.
const maxColumns = 100

// tabWidth is where tab stops fall when a line's width is measured.
const tabWidth = 4

// graphGOOS are the systems whose import graphs are checked for a cycle.
var graphGOOS = []string{"linux", "darwin", "windows"}

// pkgStat is one package's row.
type pkgStat struct {
	Path      string // import path
	Exported  int    // exported names declared in the package
	Used      int    // of those, the ones named from another package of the module
	Lines     int    // non-blank lines of the non-test, non-generated files
	LongLines int    // of those, the lines wider than maxColumns
}

// funcStat is one function or method declaration.
type funcStat struct {
	Pkg   string // import path
	Name  string // F, or T.M for a method
	File  string // base name of the file that declares it
	Lines int    // from the func keyword to the closing brace
}

func (f funcStat) less(g funcStat) bool {
	if f.Lines != g.Lines {
		return f.Lines > g.Lines
	}
	if f.Pkg != g.Pkg {
		return f.Pkg < g.Pkg
	}
	if f.Name != g.Name {
		return f.Name < g.Name
	}
	return f.File < g.File
}

// report is what measure finds in one tree.
type report struct {
	Module string
	Pkgs   map[string]*pkgStat // by import path
	Funcs  []funcStat          // every declaration, largest first
	Cycles map[string][]string // GOOS -> a cycle in its import graph, nil if none
	Public []string            // import paths with no "internal" element, sorted
}

// measure loads the module whose root is dir and measures it.
func measure(dir string) (*report, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports |
			packages.NeedTypes | packages.NeedTypesInfo | packages.NeedSyntax |
			packages.NeedModule,
		Dir:   dir,
		Tests: true,
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, err
	}
	r := &report{Pkgs: map[string]*pkgStat{}, Cycles: map[string][]string{}}
	for _, p := range pkgs {
		if p.Module != nil && p.Module.Main {
			r.Module = p.Module.Path
			break
		}
	}
	if r.Module == "" {
		return nil, fmt.Errorf("%s: no package of the main module loaded", dir)
	}

	// The packages themselves: the variant of each that is not built for
	// its tests, whose ID is its import path, without the generated test
	// mains (p.test).
	exported := map[string]map[string]bool{}
	for _, p := range pkgs {
		if p.ID != p.PkgPath || !inModule(r.Module, p.PkgPath) || testMain(p) {
			continue
		}
		for _, e := range p.Errors {
			fmt.Fprintf(os.Stderr, "designstat: %s: %v\n", p.PkgPath, e)
		}
		st, names, funcs, err := measureFiles(p.PkgPath, p.Name, sourceFiles(p))
		if err != nil {
			return nil, err
		}
		r.Pkgs[p.PkgPath] = st
		exported[p.PkgPath] = names
		r.Funcs = append(r.Funcs, funcs...)
		if isPublic(r.Module, p.PkgPath) {
			r.Public = append(r.Public, p.PkgPath)
		}
	}
	slices.SortFunc(r.Funcs, func(a, b funcStat) int {
		if a.less(b) {
			return -1
		}
		if b.less(a) {
			return 1
		}
		return 0
	})
	slices.Sort(r.Public)

	// Who names what: every variant, the tests' included, is a user.
	used := usedElsewhere(r.Module, pkgs)
	for path, st := range r.Pkgs {
		for name := range exported[path] {
			if used[path][name] {
				st.Used++
			}
		}
	}

	for _, goos := range graphGOOS {
		g, err := importGraph(dir, goos, r.Module)
		if err != nil {
			return nil, err
		}
		r.Cycles[goos] = findCycle(g)
	}
	return r, nil
}

// testMain reports whether p is the main package go test generates to
// run a package's tests, p.test.
func testMain(p *packages.Package) bool {
	return p.Name == "main" && strings.HasSuffix(p.PkgPath, ".test")
}

// inModule reports whether path is the module's or below it.
func inModule(module, path string) bool {
	return path == module || strings.HasPrefix(path, module+"/")
}

// isPublic reports whether another module may import path: no element of
// it below the module's own path is "internal".
func isPublic(module, path string) bool {
	rel := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
	return !slices.Contains(strings.Split(rel, "/"), "internal")
}

// sourceFiles are the package's non-test Go files for every build
// configuration: those built here and those the build constraints left out.
func sourceFiles(p *packages.Package) []string {
	var files []string
	for _, f := range slices.Concat(p.GoFiles, p.IgnoredFiles) {
		slashed := filepath.ToSlash(f)
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") ||
			strings.Contains(slashed, "/testdata/") || slices.Contains(files, f) {
			continue
		}
		files = append(files, f)
	}
	slices.Sort(files)
	return files
}

// measureFiles parses files, drops the generated ones and those of another
// package (a generator beside the package, kept out by "//go:build ignore"),
// and measures the rest. A name declared in two files (one per system) is
// one name.
func measureFiles(path, name string, files []string) (*pkgStat, map[string]bool,
	[]funcStat, error) {
	st := &pkgStat{Path: path}
	names := map[string]bool{}
	var funcs []funcStat
	fset := token.NewFileSet()
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, nil, nil, err
		}
		f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
		if err != nil {
			fmt.Fprintf(os.Stderr, "designstat: skipped: %v\n", err)
			continue
		}
		if ast.IsGenerated(f) || (name != "" && f.Name.Name != name) {
			continue
		}
		lines, long := countLines(string(src))
		st.Lines += lines
		st.LongLines += long
		for n := range exportedNames(f) {
			names[n] = true
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			funcs = append(funcs, funcStat{
				Pkg:   path,
				Name:  funcName(fd),
				File:  filepath.Base(file),
				Lines: fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1,
			})
		}
	}
	st.Exported = len(names)
	return st, names, funcs, nil
}

// countLines counts src's non-blank lines and, of those, the ones wider
// than maxColumns, with tab stops every tabWidth columns.
func countLines(src string) (lines, long int) {
	for line := range strings.Lines(src) {
		line = strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(line) == "" {
			continue
		}
		lines++
		if width(line) > maxColumns {
			long++
		}
	}
	return lines, long
}

// width is the number of columns line takes.
func width(line string) int {
	w := 0
	for _, r := range line {
		if r == '\t' {
			w += tabWidth - w%tabWidth
		} else {
			w++
		}
	}
	return w
}

// exportedNames yields the file's exported top-level types, funcs, vars and
// consts, as their names, and the exported methods declared on its exported
// types, as T.M.
func exportedNames(f *ast.File) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv != nil && !ast.IsExported(recvName(d)) {
					continue
				}
				if !yield(funcName(d)) {
					return
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					var ids []*ast.Ident
					switch s := s.(type) {
					case *ast.TypeSpec:
						ids = []*ast.Ident{s.Name}
					case *ast.ValueSpec:
						ids = s.Names
					}
					for _, id := range ids {
						if id.IsExported() && !yield(id.Name) {
							return
						}
					}
				}
			}
		}
	}
}

// funcName is F for a function and T.M for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil {
		return fd.Name.Name
	}
	return recvName(fd) + "." + fd.Name.Name
}

// recvName is the name of the type a method is declared on.
func recvName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// usedElsewhere maps each module package's import path to the names (as
// exportedNames spells them) that another package of the module names.
// A package's own tests, in the package or in its _test package, are not
// another package. A method called only through an interface is not named.
func usedElsewhere(module string, pkgs []*packages.Package) map[string]map[string]bool {
	used := map[string]map[string]bool{}
	for _, p := range pkgs {
		// The generated test main only names the tests, which are not
		// counted.
		if p.TypesInfo == nil || testMain(p) {
			continue
		}
		user := strings.TrimSuffix(p.PkgPath, "_test")
		for _, obj := range p.TypesInfo.Uses {
			if obj.Pkg() == nil {
				continue
			}
			owner := obj.Pkg().Path()
			if owner == user || !inModule(module, owner) {
				continue
			}
			key := objKey(obj)
			if key == "" {
				continue
			}
			if used[owner] == nil {
				used[owner] = map[string]bool{}
			}
			used[owner][key] = true
		}
	}
	return used
}

// objKey names a package-level object, or a method of a named type, as
// exportedNames does; for anything else (fields, locals) it is "".
func objKey(obj types.Object) string {
	if fn, ok := obj.(*types.Func); ok {
		fn = fn.Origin()
		if recv := fn.Signature().Recv(); recv != nil {
			t := recv.Type()
			if p, ok := t.(*types.Pointer); ok {
				t = p.Elem()
			}
			if n, ok := t.(*types.Named); ok {
				return n.Origin().Obj().Name() + "." + fn.Name()
			}
			return ""
		}
	}
	switch obj.(type) {
	case *types.Func, *types.TypeName, *types.Var, *types.Const:
		if obj.Pkg().Scope().Lookup(obj.Name()) == obj {
			return obj.Name()
		}
	}
	return ""
}

// importGraph is the module's non-test import graph as built for goos:
// each package's import path to the module packages it imports.
func importGraph(dir, goos, module string) (map[string][]string, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedImports,
		Dir:  dir,
		Env:  append(os.Environ(), "GOOS="+goos),
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, fmt.Errorf("GOOS=%s: %w", goos, err)
	}
	g := map[string][]string{}
	for _, p := range pkgs {
		if !inModule(module, p.PkgPath) {
			continue
		}
		g[p.PkgPath] = nil
		for path := range p.Imports {
			if inModule(module, path) {
				g[p.PkgPath] = append(g[p.PkgPath], path)
			}
		}
	}
	return g, nil
}

// findCycle returns a cycle of g as the path around it, first node
// repeated last, or nil if g has none. It looks in a fixed order, so the
// same graph gives the same cycle.
func findCycle(g map[string][]string) []string {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(n string) []string
	visit = func(n string) []string {
		state[n] = onPath
		path = append(path, n)
		next := slices.Clone(g[n])
		slices.Sort(next)
		for _, m := range next {
			switch state[m] {
			case onPath:
				i := slices.Index(path, m)
				return append(slices.Clone(path[i:]), m)
			case unseen:
				if c := visit(m); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[n] = done
		return nil
	}
	nodes := make([]string, 0, len(g))
	for n := range g {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	for _, n := range nodes {
		if state[n] == unseen {
			if c := visit(n); c != nil {
				return c
			}
		}
	}
	return nil
}

// rel is path relative to the module, "." for the module's own package.
func rel(module, path string) string {
	if path == module {
		return "."
	}
	return strings.TrimPrefix(path, module+"/")
}

// itoa is strconv.Itoa, short for the tables.
func itoa(n int) string { return strconv.Itoa(n) }
