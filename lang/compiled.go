package lang

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sync"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// A process compiles the same files again and again: a pool's worker, or a
// host running programs in its own process, is given one program after
// another, most of them the same bytes under the same name. Compiling a
// file is its parse, its resolution and its code, the largest part of a
// short run (some 12 µs of a pooled hello's 100 in its worker); a compiled
// file (a starlark.Program) holds no values and is never changed once
// made, so one made for an earlier run is the one this run would make, when
// three things are the same: the file's name (its positions carry it), its
// bytes, and the answer to each question the resolver asked of the names
// predeclared (whether each name it could not bind in the file is one).
// The bytes are compared whole; the names asked are asked again of this
// run's names. Loads are read for each run as before: only their
// compiling is spared, on the same terms.
//
// What one run may learn of another by it is the time a compile takes
// (some 10 µs): that a file of the same name and bytes was compiled in
// the same process since it was last put out of the cache. A pool's
// worker serves one pool's runs; docs/THREAT_MODEL.md says so for a
// server whose tenants share a pool.

// Bounds of the compiled files a process keeps: at most
// maxCompiledFiles files, each of at most maxCompiledFileBytes of source,
// all of them at most maxCompiledBytes; the file compiled longest ago goes
// first. A pool worker with a memory limit holds what it keeps in that
// limit, so it keeps little.
const (
	maxCompiledFiles     = 32
	maxCompiledFileBytes = 32 << 10
	maxCompiledBytes     = 256 << 10
)

// compiledFile is one file compiled: what compile needs of it, and what
// it was compiled from.
type compiledFile struct {
	src    string            // the bytes it was compiled from
	prog   *starlark.Program // its code
	digest string            // hex sha256 of src
	loads  []loadStmt        // its load statements, in the file's order
	// asked is each name the resolver asked whether it is predeclared,
	// with the answer: a run whose names answer the same gets the same
	// code.
	asked map[string]bool
}

// loadStmt is a load statement of a compiled file: the module it names and
// where the statement is.
type loadStmt struct{ module, pos string }

// compiledFiles is the process's cache of compiled files, by name.
var compiledFiles = struct {
	sync.Mutex
	byName map[string]*compiledFile
	order  []string // the names, compiled longest ago first
	bytes  int      // of source, every file's together
}{byName: map[string]*compiledFile{}}

// compileCached compiles the file named file, whose bytes are src, against
// the names predeclared, or returns the same file compiled before on the
// same terms (see above).
func compileCached(file string, src []byte, predeclared starlark.StringDict) (*compiledFile, error) {
	if cf := cachedFile(file, src); cf != nil && cf.answersSame(predeclared) {
		return cf, nil
	}
	asked := map[string]bool{}
	f, prog, err := compileFile(file, src, func(name string) bool {
		has := predeclared.Has(name)
		asked[name] = has
		return has
	})
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(src)
	cf := &compiledFile{src: string(src), prog: prog, digest: hex.EncodeToString(sum[:]),
		asked: asked}
	for _, stmt := range f.Stmts {
		if load, ok := stmt.(*syntax.LoadStmt); ok {
			cf.loads = append(cf.loads, loadStmt{module: load.ModuleName(), pos: load.Load.String()})
		}
	}
	keepCompiled(file, cf)
	return cf, nil
}

// cachedFile is the file compiled last under the name file, if it was
// compiled from src.
func cachedFile(file string, src []byte) *compiledFile {
	compiledFiles.Lock()
	defer compiledFiles.Unlock()
	if cf := compiledFiles.byName[file]; cf != nil && cf.src == string(src) {
		return cf
	}
	return nil
}

// answersSame reports whether predeclared answers each question the
// resolver asked when cf was compiled as it was answered then.
func (cf *compiledFile) answersSame(predeclared starlark.StringDict) bool {
	for name, has := range cf.asked {
		if predeclared.Has(name) != has {
			return false
		}
	}
	return true
}

// keepCompiled keeps cf under the name file, in place of any file of that
// name, and puts out the files compiled longest ago while the cache holds
// more than its bounds. A file larger than maxCompiledFileBytes is not
// kept.
func keepCompiled(file string, cf *compiledFile) {
	if len(cf.src) > maxCompiledFileBytes {
		return
	}
	c := &compiledFiles
	c.Lock()
	defer c.Unlock()
	if old := c.byName[file]; old != nil {
		c.bytes -= len(old.src)
		c.order = slices.DeleteFunc(c.order, func(n string) bool { return n == file })
	}
	c.byName[file] = cf
	c.order = append(c.order, file)
	c.bytes += len(cf.src)
	for len(c.order) > maxCompiledFiles || c.bytes > maxCompiledBytes {
		oldest := c.order[0]
		c.bytes -= len(c.byName[oldest].src)
		delete(c.byName, oldest)
		c.order = slices.Delete(c.order, 0, 1)
	}
}
