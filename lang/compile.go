package lang

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/program"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// fileOptions is the dialect: Starlark with sets, while loops, top-level
// control flow, global reassignment and recursion.
var fileOptions = &syntax.FileOptions{
	Set:             true,
	While:           true,
	TopLevelControl: true,
	GlobalReassign:  true,
	Recursion:       true,
}

// Compiled is a program and every file it loads, read and compiled, ready
// to run. Nothing is read from disk after Compile returns: this is what
// lets the policy be applied between compiling and the first statement.
type Compiled struct {
	Main  string                       // absolute path of the program
	Files map[string]*starlark.Program // every file by absolute path
	Order []program.FileDigest         // the program first, then its loads in the order found
	uses  map[string]bool              // the predeclared names its files use (PredeclaredFor)
}

// Digest is the sha256 of the program file itself.
func (c *Compiled) Digest() string { return c.Order[0].SHA256 }

// Compile reads and compiles the program at path and, transitively, every
// file it names in a load() statement, judged by in's guard (loadBeneath).
// A load path is relative to the file that loads it and is held to the
// program's own directory. The names the program may use are given by
// predeclared.
func (in *Interp) Compile(path string, predeclared starlark.StringDict) (*Compiled, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, codes.Errorf(codes.E316, "program %s: %w", path, err)
	}
	src, err := readProgramFile(abs)
	if err != nil {
		return nil, err
	}
	// Loads are read before the run is confined and before any budget
	// check, so they are held to the program's own directory tree: a load
	// cannot read, or probe for, any other file on the machine.
	return compile(abs, src, filepath.Dir(abs), "its own directory", predeclared, in.guard,
		in.keepCompiled)
}

// readProgramFile reads the program file abs: a regular file (a pipe or a
// device would block, or never end) of at most program.MaxBytes.
func readProgramFile(abs string) ([]byte, error) {
	// Checked before it is opened: opening a named pipe blocks until a
	// writer comes.
	if fi, err := os.Stat(abs); err == nil && !fi.Mode().IsRegular() {
		return nil, codes.Errorf(codes.E316, "program %s is not a regular file", abs)
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, codes.Errorf(codes.E316, "program %s: %w", abs, errors.Unwrap(err))
	}
	defer f.Close()
	src, err := readRegular(f, abs)
	if err != nil {
		return nil, codes.Errorf(codes.E316, "program %w", err)
	}
	return src, nil
}

// readRegular reads f, opened as name: a regular file of at most
// program.MaxBytes. A caller checks the type before it opens a file too,
// since opening a named pipe blocks.
func readRegular(f *os.File, name string) ([]byte, error) {
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	data, err := io.ReadAll(io.LimitReader(f, program.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > program.MaxBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, program.MaxBytes)
	}
	return data, nil
}

// CompileSource compiles src as the program named path (absolute: the
// name its positions and digests carry; nothing is read from it), with
// every load read beneath root, as Compile reads them beneath a program's
// own directory. A pool gives its import root.
func (in *Interp) CompileSource(path string, src []byte, root string,
	predeclared starlark.StringDict) (*Compiled, error) {
	if !filepath.IsAbs(path) || !filepath.IsAbs(root) {
		return nil, codes.Errorf(codes.E316, "program %s under %s: both must be absolute", path, root)
	}
	return compile(filepath.Clean(path), src, filepath.Clean(root), "the import root", predeclared,
		in.guard, in.keepCompiled)
}

// compile compiles the program abs, whose bytes are src, and its loads,
// read beneath dir (what names dir in a refusal) and judged by g; with
// keep, through the process's cache of compiled files (compiled.go).
func compile(abs string, src []byte, dir, what string, predeclared starlark.StringDict,
	g *guard.Set, keep bool) (*Compiled, error) {
	c := &Compiled{Main: abs, Files: map[string]*starlark.Program{}, uses: map[string]bool{}}
	var root *loadRoot // opened at the first load: most programs load nothing
	defer func() {
		if root != nil {
			root.Close()
		}
	}()
	pathBytes := len(abs) // of the files compiled, as program.MaxPathBytes counts them
	var visit func(file string, src []byte, stack []string) error
	visit = func(file string, src []byte, stack []string) error {
		cf, err := compileKept(file, src, predeclared, keep)
		if err != nil {
			code := codes.E304
			if len(stack) > 0 {
				code = codes.E306
			}
			return compileError(code, err)
		}
		for _, name := range cf.uses {
			c.uses[name] = true
		}
		c.Files[file] = cf.prog
		c.Order = append(c.Order, program.FileDigest{Path: file, SHA256: cf.digest})
		stack = append(stack, file)
		for _, load := range cf.loads {
			target := loadTarget(file, load.module)
			if slices.Contains(stack, target) {
				return &codes.Error{
					Code: codes.E306,
					Msg:  "load cycle: " + strings.Join(append(stack, target), " -> "),
					Pos:  load.pos,
				}
			}
			if _, done := c.Files[target]; done {
				continue
			}
			if pathBytes += len(target); len(c.Files) == program.MaxFiles ||
				pathBytes > program.MaxPathBytes {
				e := codes.Errorf(codes.E306, "%s loads %s: a program and the files it loads are "+
					"at most %d files, their paths %d bytes in all: %s", file, target,
					program.MaxFiles, program.MaxPathBytes, tooManyFiles)
				e.Pos = load.pos
				return e
			}
			if root == nil {
				r, err := openLoadRoot(dir, g)
				if err != nil {
					return codes.Errorf(codes.E316, "program %s: %s %s: %w", abs, what, dir, err)
				}
				root = r
			}
			data, err := root.read(target)
			var refused *codes.Error
			if errors.As(err, &refused) { // a guarded location, said as the read of one is
				refused.Pos = load.pos
				return refused
			}
			if err != nil {
				return &codes.Error{
					Code: codes.E306,
					Pos:  load.pos,
					Err:  err,
					Msg: fmt.Sprintf("%s loads %s: %v; a program may load only .vel files beneath %s, %s",
						file, target, err, dir, what),
				}
			}
			if err := visit(target, data, stack); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(abs, src, nil); err != nil {
		return nil, err
	}
	return c, nil
}

// tooManyFiles says what to do about a program whose loads pass
// program.MaxFiles or program.MaxPathBytes.
const tooManyFiles = "load fewer files (join small ones into one, or keep them in a directory " +
	"of a shorter path); nothing ran"

// loadTarget is the name of the file a load in file names: the module as
// written, joined to file's directory when relative. Nothing is cleaned:
// the name is the key of the compiled file, and os.Root resolves it.
func loadTarget(file, module string) string {
	if filepath.IsAbs(module) {
		return module
	}
	return filepath.Dir(file) + string(filepath.Separator) + module
}

// loadRoot is the directory loads are read beneath: an os.Root, which
// follows links only while they stay beneath it, its canonical path, and
// the guard that judges each file opened there.
type loadRoot struct {
	*os.Root
	dir   string // as the program names it
	canon string // as the kernel reports it
	guard *guard.Set
}

func openLoadRoot(dir string, g *guard.Set) (*loadRoot, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	canon, err := canonicalOf(root, ".")
	if err != nil {
		root.Close()
		return nil, err
	}
	return &loadRoot{Root: root, dir: dir, canon: canon, guard: g}, nil
}

// canonicalOf is the canonical path of name beneath root, read back from
// the kernel for the object opened.
func canonicalOf(root *os.Root, name string) (string, error) {
	f, err := root.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return filePath(f)
}

// isProgramName reports whether name is a program file's: it ends in .vel.
func isProgramName(name string) bool {
	ext := filepath.Ext(name)
	return ext == ".vel" || guard.FoldCase && strings.EqualFold(ext, ".vel")
}

// read reads the file target, which must be written beneath the root's
// directory, as a read of a program file: a .vel file as written and as
// opened (so no error quotes the text of any other file), a regular file,
// and in no location the guard keeps from a grant of the whole directory
// (E318, as a read there under such a grant is).
func (r *loadRoot) read(target string) ([]byte, error) {
	rel, ok := strings.CutPrefix(target, r.dir+string(filepath.Separator))
	if !ok {
		return nil, fmt.Errorf("%s is outside", target)
	}
	if !isProgramName(target) {
		return nil, fmt.Errorf("%s is not a .vel file", target)
	}
	escapes := func(err error) error {
		var pe *os.PathError
		if errors.As(err, &pe) && pe.Err.Error() == "path escapes from parent" {
			return fmt.Errorf("%s leads outside, by .. or a link", target)
		}
		return err
	}
	// Checked before it is opened, as the program is: opening a named
	// pipe blocks until a writer comes.
	if fi, err := r.Stat(rel); err != nil {
		return nil, escapes(err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", target)
	}
	f, err := r.Open(rel)
	if err != nil {
		return nil, escapes(err)
	}
	defer f.Close()
	canon, err := filePath(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", target, err)
	}
	if !isProgramName(canon) {
		return nil, fmt.Errorf("%s leads, by a link, to a file that is not a .vel file", target)
	}
	if l, refused := r.guard.Refuses(canon, r.canon); refused {
		return nil, codes.Errorf(codes.E318,
			"load %s: %s is in %s, %s; a load reaches only what a grant of %s would",
			target, canon, l.Path, guardedWhat(l), r.dir)
	}
	return readRegular(f, target)
}

// compileError turns a scanner or resolver error into an *Error with the
// first problem's position.
func compileError(code codes.Code, err error) error {
	var list resolve.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return &codes.Error{Code: code, Msg: list[0].Msg, Pos: list[0].Pos.String(), Err: err}
	}
	var se syntax.Error
	if errors.As(err, &se) {
		return &codes.Error{Code: code, Msg: se.Msg, Pos: se.Pos.String(), Err: err}
	}
	return &codes.Error{Code: code, Msg: err.Error(), Err: err}
}

// compileFile parses and compiles one file, as
// starlark.SourceProgramOptions does, with its constant loops marked
// (markConstantLoops).
func compileFile(file string, src []byte, isPredeclared func(string) bool) (*syntax.File,
	*starlark.Program, error) {
	f, err := fileOptions.Parse(file, src, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := checkNesting(f); err != nil {
		return nil, nil, err
	}
	markConstantLoops(f)
	prog, err := starlark.FileProgram(f, isPredeclared)
	if err != nil {
		return nil, nil, err
	}
	return f, prog, nil
}

// MaxNesting is how deep a file's syntax tree may nest: a statement in a
// block, an operand in an expression, a call's function in the call. The
// parser bounds brackets and blocks, but not a chain (`1+1+...+1`,
// `a.b.c...`, `f()()()`), which is as deep as it is long; the walks of a
// file after its parse (markConstantLoops, the resolver, the compiler)
// recur once a level, and a chain of some millions in a file of a few
// MiB overflowed the worker's stack. A file deeper than this is E304.
const MaxNesting = 10000

// checkNesting refuses a file whose syntax tree nests deeper than
// MaxNesting, with the position of the node past it, walking no deeper
// itself.
func checkNesting(f *syntax.File) error {
	depth := 0
	var past syntax.Node
	syntax.Walk(f, func(n syntax.Node) bool {
		switch {
		case n == nil: // the end of a node whose children were walked
			depth--
			return false
		case past != nil:
			return false
		case depth == MaxNesting:
			past = n
			return false
		}
		depth++
		return true
	})
	if past == nil {
		return nil
	}
	pos, _ := past.Span()
	return syntax.Error{Pos: pos, Msg: fmt.Sprintf("the file nests deeper than %d "+
		"(a chain of operators, calls, indexes or attributes that long)", MaxNesting)}
}

// markConstantLoops gives each `while True:` of f a position of its own.
// Starlark's compiled code records a position only on instructions that
// can fail; a loop whose condition is the constant True and whose body
// holds nothing that can fail (`while True: x = 1`) has none, and a
// program stopped in it would say it was at the last statement before
// the loop, or at its first line. Its condition becomes loopTrue, a
// predeclared name whose value is True: a predeclared name's lookup, the
// loop's first instruction, carries its position, and every instruction
// of the loop after it in the compiled code takes that position, so a
// stop anywhere in the loop names it. Not when the file binds a name True
// of its own, whose truth would differ, or binds loopTrue, which would
// then be its own and not the predeclared one.
func markConstantLoops(f *syntax.File) {
	var conds []*syntax.WhileStmt
	bound := false
	binds := func(e syntax.Node) {
		if e == nil {
			return
		}
		syntax.Walk(e, func(n syntax.Node) bool {
			if id, ok := n.(*syntax.Ident); ok && (id.Name == "True" || id.Name == loopTrue) {
				bound = true
			}
			return true
		})
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.WhileStmt:
			if id, ok := n.Cond.(*syntax.Ident); ok && id.Name == "True" {
				conds = append(conds, n)
			}
		case *syntax.AssignStmt:
			binds(n.LHS)
		case *syntax.ForStmt:
			binds(n.Vars)
		case *syntax.ForClause:
			binds(n.Vars)
		case *syntax.DefStmt:
			binds(n.Name)
			for _, p := range n.Params {
				binds(p)
			}
		case *syntax.LambdaExpr:
			for _, p := range n.Params {
				binds(p)
			}
		case *syntax.LoadStmt:
			for _, to := range n.To {
				binds(to)
			}
		}
		return true
	})
	if bound {
		return
	}
	for _, w := range conds {
		w.Cond = &syntax.Ident{NamePos: w.Cond.(*syntax.Ident).NamePos, Name: loopTrue}
	}
}

// loopTrue is the predeclared name a constant loop's condition becomes
// (markConstantLoops): True, under a name no program needs.
const loopTrue = "_sabline_while_true"
