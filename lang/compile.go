package lang

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sabline/sabline/codes"
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
}

// Digest is the sha256 of the program file itself.
func (c *Compiled) Digest() string { return c.Order[0].SHA256 }

// Compile reads and compiles the program at path and, transitively, every
// file it names in a load() statement. A load path is relative to the file
// that loads it. Each loaded file is opened beneath the program's own
// directory through an os.Root, which follows links only while they stay
// beneath it, and read from the descriptor it opened: a load that leads
// outside, by "..", an absolute path or a link, or that cannot be opened
// at all (a name too long), is E306. The names the program may use are
// given by predeclared.
func Compile(path string, predeclared starlark.StringDict) (*Compiled, error) {
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
	return compile(abs, src, filepath.Dir(abs), "its own directory", predeclared)
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
func CompileSource(path string, src []byte, root string, predeclared starlark.StringDict) (*Compiled, error) {
	if !filepath.IsAbs(path) || !filepath.IsAbs(root) {
		return nil, codes.Errorf(codes.E316, "program %s under %s: both must be absolute", path, root)
	}
	return compile(filepath.Clean(path), src, filepath.Clean(root), "the import root", predeclared)
}

// compile compiles the program abs, whose bytes are src, and its loads,
// read beneath dir (what names dir in a refusal).
func compile(abs string, src []byte, dir, what string, predeclared starlark.StringDict) (*Compiled, error) {
	c := &Compiled{Main: abs, Files: map[string]*starlark.Program{}}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, codes.Errorf(codes.E316, "program %s: %s %s: %w", abs, what, dir, err)
	}
	defer root.Close()
	var visit func(file string, src []byte, stack []string) error
	visit = func(file string, src []byte, stack []string) error {
		f, prog, err := starlark.SourceProgramOptions(fileOptions, file, src, predeclared.Has)
		if err != nil {
			code := codes.E304
			if len(stack) > 0 {
				code = codes.E306
			}
			return compileError(code, err)
		}
		sum := sha256.Sum256(src)
		c.Files[file] = prog
		c.Order = append(c.Order, program.FileDigest{Path: file, SHA256: hex.EncodeToString(sum[:])})
		stack = append(stack, file)
		for _, stmt := range f.Stmts {
			load, ok := stmt.(*syntax.LoadStmt)
			if !ok {
				continue
			}
			target := loadTarget(file, load.ModuleName())
			if slices.Contains(stack, target) {
				return &codes.Error{Code: codes.E306, Msg: "load cycle: " + strings.Join(append(stack, target), " -> "), Pos: load.Load.String()}
			}
			if _, done := c.Files[target]; done {
				continue
			}
			data, err := readBeneath(root, dir, target)
			if err != nil {
				return &codes.Error{Code: codes.E306, Pos: load.Load.String(), Err: err, Msg: fmt.Sprintf(
					"%s loads %s: %v; a program may load only files beneath %s, %s", file, target, err, dir, what)}
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

// loadTarget is the name of the file a load in file names: the module as
// written, joined to file's directory when relative. Nothing is cleaned:
// the name is the key of the compiled file, and os.Root resolves it.
func loadTarget(file, module string) string {
	if filepath.IsAbs(module) {
		return module
	}
	return filepath.Dir(file) + string(filepath.Separator) + module
}

// readBeneath reads the file target through root, the program's
// directory dir, from the descriptor root opened. target must be written
// beneath dir.
func readBeneath(root *os.Root, dir, target string) ([]byte, error) {
	rel, ok := strings.CutPrefix(target, dir+string(filepath.Separator))
	if !ok {
		return nil, fmt.Errorf("%s is outside", target)
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
	if fi, err := root.Stat(rel); err != nil {
		return nil, escapes(err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", target)
	}
	f, err := root.Open(rel)
	if err != nil {
		return nil, escapes(err)
	}
	defer f.Close()
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
