package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/sabline/sabline/budget"
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

// FileDigest names a source file and the sha256 of its bytes.
type FileDigest struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Compiled is a program and every file it loads, read and compiled, ready
// to run. Nothing is read from disk after Compile returns: this is what
// lets the policy be applied between compiling and the first statement.
type Compiled struct {
	Main  string                       // absolute path of the program
	Files map[string]*starlark.Program // every file by absolute path
	Order []FileDigest                 // the program first, then its loads in the order found
}

// Digest is the sha256 of the program file itself.
func (c *Compiled) Digest() string { return c.Order[0].SHA256 }

// Compile reads and compiles the program at path and, transitively, every
// file it names in a load() statement. A load path is relative to the file
// that loads it, and must lie beneath the program's own directory once
// links are followed (E306 otherwise). The names the program may use are given by predeclared.
func Compile(path string, predeclared starlark.StringDict) (*Compiled, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, Errorf(E316, "program %s: %w", path, err)
	}
	c := &Compiled{Main: abs, Files: map[string]*starlark.Program{}}
	// Loads are read before the run is confined and before any budget
	// check, so they are held to the program's own directory tree: a load
	// cannot read, or probe for, any other file on the machine.
	root := resolvePath(filepath.Dir(abs))
	var visit func(file, from string, at syntax.Position, stack []string) error
	visit = func(file, from string, at syntax.Position, stack []string) error {
		for _, s := range stack {
			if s == file {
				return &Error{Code: E306, Msg: "load cycle: " + strings.Join(append(stack, file), " -> "), Pos: at.String()}
			}
		}
		if _, done := c.Files[file]; done {
			return nil
		}
		src, err := os.ReadFile(file)
		if err != nil {
			if from == "" {
				return Errorf(E316, "program %s: %w", file, errors.Unwrap(err))
			}
			e := Errorf(E306, "%s loads %s: %w", from, file, errors.Unwrap(err))
			e.Pos = at.String()
			return e
		}
		f, prog, err := starlark.SourceProgramOptions(fileOptions, file, src, predeclared.Has)
		if err != nil {
			code := E304
			if from != "" {
				code = E306
			}
			return compileError(code, err)
		}
		sum := sha256.Sum256(src)
		c.Files[file] = prog
		c.Order = append(c.Order, FileDigest{Path: file, SHA256: hex.EncodeToString(sum[:])})
		for _, stmt := range f.Stmts {
			load, ok := stmt.(*syntax.LoadStmt)
			if !ok {
				continue
			}
			target := load.ModuleName()
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(file), target)
			}
			target = filepath.Clean(target)
			if resolved := resolvePath(target); !budget.Within(resolved, root) {
				return &Error{Code: E306, Pos: load.Load.String(), Msg: fmt.Sprintf(
					"load(%q): %s is outside %s, the program's own directory, which is all a program may load from",
					load.ModuleName(), resolved, root)}
			}
			if err := visit(target, file, load.Load, append(stack, file)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(abs, "", syntax.Position{}, nil); err != nil {
		return nil, err
	}
	return c, nil
}

// compileError turns a scanner or resolver error into an *Error with the
// first problem's position.
func compileError(code Code, err error) error {
	var list resolve.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return &Error{Code: code, Msg: list[0].Msg, Pos: list[0].Pos.String(), Err: err}
	}
	var se syntax.Error
	if errors.As(err, &se) {
		return &Error{Code: code, Msg: se.Msg, Pos: se.Pos.String(), Err: err}
	}
	return &Error{Code: code, Msg: err.Error(), Err: err}
}
