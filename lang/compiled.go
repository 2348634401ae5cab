package lang

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sync"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// A process compiles the same files again and again: a host running
// programs in its own process, or a pool's worker, is given one program
// after another, most of them the same bytes under the same name.
// Compiling a file (its parse, its resolution and its code) is the largest
// part of a short run: some 12 µs of a pooled hello's 100 in its worker.
// A compiled file, a starlark.Program, holds no values, and nothing in it
// changes once it is made but a table of its lines built at first use
// under a sync.Once; so one made for an earlier run is the one this run
// would make when the file's name (its positions carry it), its bytes
// (compared whole) and the answer to each question the resolver asked are
// the same: whether a name the file does not bind is predeclared. The
// resolver asks that of every such name before it looks in
// starlark.Universe, which Sabline never changes. Loads are read for each
// run as before; only their compiling is spared.
//
// A run takes files from the cache, and leaves them there, only when its
// Config.KeepCompiled says so; docs/THREAT_MODEL.md says where Sabline
// sets it, and what one run can learn of another by it.

// Bounds of the compiled files a process keeps: at most
// maxCompiledFiles files, each of at most maxCompiledFileBytes of source,
// all of them at most maxCompiledBytes; the file compiled longest ago goes
// first. A pool worker's memory limit counts what its cache holds, some
// 30 to 40 times the source at most: TestCompiledFilesHeld holds it under
// 2 MiB.
const (
	maxCompiledFiles     = 16
	maxCompiledFileBytes = 8 << 10
	maxCompiledBytes     = 32 << 10
)

// compiledFile is one file compiled: what compile needs of it, and what
// it was compiled from.
type compiledFile struct {
	src    string            // the bytes it was compiled from, once kept
	prog   *starlark.Program // its code
	digest string            // hex sha256 of src
	loads  []loadStmt        // its load statements, in the file's order
	// asked is each name the resolver asked whether it is predeclared,
	// with the answer: a run whose names answer the same gets the same
	// code. uses are the names answered yes, which the run looks up.
	asked map[string]bool
	uses  []string
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

// compileKept compiles the file named file, whose bytes are src, against
// the names predeclared. With keep, it returns the same file compiled
// before on the same terms (see above) when the cache has it, and leaves
// what it compiles there.
func compileKept(file string, src []byte, predeclared starlark.StringDict,
	keep bool) (*compiledFile, error) {
	if !keep {
		return compileOne(file, src, predeclared)
	}
	if cf := cachedFile(file, src); cf != nil && cf.answersSame(predeclared) {
		return cf, nil
	}
	cf, err := compileOne(file, src, predeclared)
	if err == nil {
		keepCompiled(file, src, cf)
	}
	return cf, err
}

// compileOne compiles the file named file, whose bytes are src, against
// the names predeclared.
func compileOne(file string, src []byte, predeclared starlark.StringDict) (*compiledFile, error) {
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
	cf := &compiledFile{prog: prog, digest: hex.EncodeToString(sum[:]), asked: asked}
	for name, has := range asked {
		if has {
			cf.uses = append(cf.uses, name)
		}
	}
	for _, stmt := range f.Stmts {
		if load, ok := stmt.(*syntax.LoadStmt); ok {
			cf.loads = append(cf.loads, loadStmt{module: load.ModuleName(), pos: load.Load.String()})
		}
	}
	return cf, nil
}

// cachedFile is the file compiled last under the name file, if it was
// compiled from src.
func cachedFile(file string, src []byte) *compiledFile {
	c := &compiledFiles
	c.Lock()
	defer c.Unlock()
	if cf := c.byName[file]; cf != nil && cf.src == string(src) {
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

// keepCompiled keeps cf, compiled from src, under the name file, in place
// of any file of that name, and puts out the files compiled longest ago
// while the cache holds more than its bounds. A file larger than
// maxCompiledFileBytes is not kept, and puts out the one of its name.
func keepCompiled(file string, src []byte, cf *compiledFile) {
	c := &compiledFiles
	c.Lock()
	defer c.Unlock()
	if old := c.byName[file]; old != nil {
		c.bytes -= len(old.src)
		c.order = slices.DeleteFunc(c.order, func(n string) bool { return n == file })
		delete(c.byName, file)
	}
	if len(src) > maxCompiledFileBytes {
		return
	}
	cf.src = string(src)
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
