package lang

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/sabline/sabline/guard"
)

// How a path is judged. The language never resolves a program's path
// string by hand and then acts on the result. It walks the path the way
// the kernel does, one component at a time, each component opened
// relative to the directory the previous one opened (never following a
// link as part of an open), links expanded by reading them, ".." taken
// from the directory actually reached. The walk ends on an open directory
// and a last name in it; the effect is judged on the canonical path of
// that open directory, as the kernel reports it, joined with that name,
// and then done on that same directory, relative to it, with links
// refused at the last step (a link met there is read and the walk goes
// on). So what is judged is what is acted on, and nothing is ever judged
// on a partly resolved or lexically cleaned string: when a walk cannot
// finish, the effect is refused.
//
// The walk starts from the deepest of the run's anchors (the file
// system's root, the working directory and each granted directory,
// opened once, as the run starts when it has a file grant, else at its
// first file effect) whose canonical path begins the program's path, so a
// granted file costs no more opens than it would cost the kernel.

// maxLinks is how many links one effect follows, as the kernel's own
// limit on a lookup.
const maxLinks = 40

// maxPath is Linux's PATH_MAX, terminating NUL included: the longest
// link target the walk reads.
const maxPath = 4096

// maxWalk is the longest program path, in bytes, the language walks. The
// walk hands the kernel one component at a time, so a path longer than
// PATH_MAX is walked as the kernel would walk it; this only bounds the
// work one effect may ask for.
const maxWalk = 32 << 10

// errMagic refuses a link the language never follows: every link that
// lives in /proc (/proc/self, /proc/N/fd/M, /proc/N/root, /proc/N/cwd,
// /proc/N/exe, map_files...), which /dev/fd, /dev/stdin, /dev/stdout and
// /dev/stderr lead to.
var errMagic = errors.New("a link in /proc, which the language never follows (/proc/N/fd, " +
	"/proc/self, /dev/fd and /dev/std* all lead through one)")

// errProcess refuses a process's own files in /proc: its environment,
// its memory, its descriptors.
var errProcess = errors.New("a process's own files in /proc, which the language never reaches")

// errOwn refuses the worker's own standard input, output or error reached
// by a path.
var errOwn = errors.New("the run's own standard input, output or error, reached by a path; use io")

// errUnfinished refuses a path whose walk ended before its last component.
var errUnfinished = errors.New("the path cannot be followed to its end")

// errTooLong refuses a path longer than maxWalk.
var errTooLong = fmt.Errorf("the path is longer than %d bytes, more than the language walks; it "+
	"is not followed", maxWalk)

// anchor is a directory opened when the run starts, to walk from.
type anchor struct {
	path  string   // canonical
	comps []string // path's components
	dir   dirFD
}

// inPlace reports whether the anchor's directory is still at its path: a
// directory moved away (and, say, a link put in its place) is no longer
// what the kernel reaches by that path, and is not walked from. A root
// cannot move.
func (a anchor) inPlace() bool {
	if len(a.comps) == 0 {
		return true
	}
	p, err := dirPath(a.dir)
	return err == nil && p == a.path
}

// fsTree is a run's view of the file system: its anchors and the files
// the run itself holds open.
type fsTree struct {
	dirs    []string  // the directories to anchor, beside their roots
	opened  sync.Once // the anchors are opened (open)
	anchors []anchor  // deepest first; the root last
	// cleanup closes the anchors once the tree is garbage, when the run
	// did not (close): one that was compiled and never run.
	cleanup goruntime.Cleanup
	// own are the files the run's standard descriptors (std) are open
	// on, and the caller's files a worker's are relayed to (relayed), but
	// the null device: read when a file effect first asks (openOnOwn), so
	// that a run that makes none reads none.
	std     []*os.File
	relayed []FileID
	own     func() []FileID
}

// newFSTree is the tree anchored at dirs, whose anchors open is to open:
// the first walk does, or the first grant made canonical, so that a run
// with no file grant that makes no file effect opens none.
func newFSTree(dirs []string, relayed []FileID, std ...*os.File) *fsTree {
	t := &fsTree{dirs: dirs, std: std, relayed: relayed}
	t.own = sync.OnceValue(t.readOwn)
	return t
}

// readOwn is fsTree.own, read.
func (t *fsTree) readOwn() []FileID {
	var own []FileID
	null := devNull()
	for _, f := range t.std {
		if f == nil {
			continue
		}
		if id, ok := FileIDOf(f); ok && id != null {
			own = append(own, id)
		}
	}
	for _, id := range t.relayed {
		if id != null {
			own = append(own, id)
		}
	}
	return own
}

// devNull is the null device's identity, read once a process (a pool's
// worker runs many programs): a standard stream or a relayed file that is
// the null device is nothing of the caller's. Zero where it cannot be
// opened.
var devNull = sync.OnceValue(func() FileID {
	f, err := os.Open(os.DevNull)
	if err != nil {
		return FileID{}
	}
	defer f.Close()
	id, _ := FileIDOf(f)
	return id
})

func closeAnchors(anchors []anchor) {
	for _, a := range anchors {
		closeDir(a.dir)
	}
}

// add opens the directory d as an anchor, unless one has its path.
func (t *fsTree) add(d string, seen map[string]bool) {
	dir, path, err := t.openDir(d)
	if err != nil || seen[path] {
		if err == nil {
			closeDir(dir)
		}
		return
	}
	seen[path] = true
	comps, _ := splitPath(path)
	t.anchors = append(t.anchors, anchor{path: path, comps: comps, dir: dir})
}

// open opens the anchors, once: the root, then each of the tree's dirs
// that exists, each walked from the root as any effect is. A directory
// that cannot be opened is no anchor; paths beneath it are walked from
// the root.
func (t *fsTree) open() {
	t.opened.Do(func() {
		seen := map[string]bool{}
		for _, d := range t.dirs {
			if d == "" || !filepath.IsAbs(d) {
				continue
			}
			t.add(rootOf(d), seen)
			t.add(d, seen)
		}
		sort.SliceStable(t.anchors,
			func(i, j int) bool { return len(t.anchors[i].path) > len(t.anchors[j].path) })
		// a run in a process that goes on (a pool, a test) does not keep them
		t.cleanup = goruntime.AddCleanup(t, closeAnchors, t.anchors)
	})
}

// close closes the anchors as the run ends (Interp.Exec), and opens none
// after: a walk after it starts from the root. Left to the cleanup, they
// stayed open until the next collection of the process's garbage: a
// pool's worker that ran a program granted 500 directories held 500
// descriptors of them while it waited for the next caller's run, and
// through it (TestPoolKeepsNoDirectoryOfAnEarlierRun).
func (t *fsTree) close() {
	t.opened.Do(func() {})
	t.cleanup.Stop()
	closeAnchors(t.anchors)
	t.anchors = nil
}

// rootOf is the root of p's volume: "/" but on Windows.
func rootOf(p string) string {
	return filepath.VolumeName(p) + string(filepath.Separator)
}

// canonical is the canonical path of the directory dir, for the grants:
// walked as an effect is, then read back from the kernel. A directory
// that cannot be walked stays as written, cleaned.
func (t *fsTree) canonical(dir string) string {
	t.open()
	d, path, err := t.openDir(dir)
	if err != nil {
		return filepath.Clean(dir)
	}
	closeDir(d)
	return path
}

// openDir walks p to its end, from the anchors opened so far, and opens
// the directory it names.
func (t *fsTree) openDir(p string) (dirFD, string, error) {
	w, err := t.walkFrom(p)
	if err != nil {
		return noDir, "", err
	}
	defer w.close()
	if w.missing {
		return noDir, "", syscall.ENOENT
	}
	if w.name != "" {
		if err := w.descend(); err != nil {
			return noDir, "", err
		}
	}
	path, err := w.dirPath()
	if err != nil {
		return noDir, "", err
	}
	return w.detach(), path, nil
}

// frame is one directory of a walk; own says the walk closes it.
type frame struct {
	dir dirFD
	own bool
}

// walker is a walk in progress. Once walk returns, it stands on a
// directory (the top of stack) and a last name in it: "" when the path
// names that directory itself; the first missing component when missing.
type walker struct {
	t       *fsTree
	stack   []frame
	base    string // canonical path of stack[0]
	todo    []string
	links   int
	name    string
	slash   bool  // the path ended in a separator: its object must be a directory
	missing bool  // a component before the last was missing, or no directory; name is that component
	stop    error // why, when missing
}

// walk starts a walk of the absolute path p, once the anchors are open,
// and runs it to its last component.
func (t *fsTree) walk(p string) (*walker, error) {
	t.open()
	return t.walkFrom(p)
}

// walkFrom is walk from the anchors opened so far: open's own walks.
func (t *fsTree) walkFrom(p string) (*walker, error) {
	if len(p) > maxWalk {
		return nil, errTooLong
	}
	if !filepath.IsAbs(p) {
		return nil, errUnfinished
	}
	w := &walker{t: t}
	comps, slash := splitPath(p)
	w.slash = slash
	if err := w.restart(p, comps); err != nil {
		return nil, err
	}
	if err := w.run(); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// splitPath returns the components of p, without its volume, "" and "."
// (a trailing "." makes the path end in a separator, as it names a
// directory), and whether it ends in a separator.
func splitPath(p string) ([]string, bool) {
	p = p[len(filepath.VolumeName(p)):]
	var out []string
	for _, c := range strings.FieldsFunc(p, func(r rune) bool {
		return os.IsPathSeparator(uint8(r)) && r < 0x80
	}) {
		if c != "." {
			out = append(out, c)
		}
	}
	slash := len(p) > 0 &&
		(os.IsPathSeparator(p[len(p)-1]) || strings.HasSuffix(p, string(filepath.Separator)+".") ||
			p == ".")
	return out, slash
}

func sameVolume(a, b string) bool {
	return strings.EqualFold(filepath.VolumeName(a), filepath.VolumeName(b))
}

func equalComps(a, b []string) bool {
	for i := range a {
		if guard.FoldCase && !strings.EqualFold(a[i], b[i]) || !guard.FoldCase && a[i] != b[i] {
			return false
		}
	}
	return true
}

// reset closes what the walk holds and stands it on anchor a.
func (w *walker) reset(a anchor, todo []string) {
	w.close()
	w.stack = []frame{{dir: a.dir}}
	w.base = a.path
	w.todo = todo
}

// restart places the walk at the root of vol's volume with todo to walk
// from it, starting from the deepest anchor that begins todo: anchors'
// paths are canonical, so the kernel walking todo from the root would
// reach the same directory there. A walk starts this way, and goes back
// to the root this way when a link is absolute.
func (w *walker) restart(vol string, todo []string) error {
	root := rootOf(vol)
	for _, a := range w.t.anchors {
		ac := a.comps
		if sameVolume(a.path, root) && len(ac) <= len(todo) && equalComps(ac, todo[:len(ac)]) &&
			a.inPlace() {
			w.reset(a, append([]string(nil), todo[len(ac):]...))
			return nil
		}
	}
	dir, err := openRoot(root)
	if err != nil {
		return err
	}
	w.close()
	w.stack = []frame{{dir: dir, own: true}}
	w.base = root
	w.todo = todo
	return nil
}

func (w *walker) top() dirFD { return w.stack[len(w.stack)-1].dir }

// close closes every directory the walk opened.
func (w *walker) close() {
	for _, f := range w.stack {
		if f.own {
			closeDir(f.dir)
		}
	}
	w.stack = nil
}

// detach hands the top directory to the caller, open (a copy when the
// walk does not own it), and closes the rest.
func (w *walker) detach() dirFD {
	f := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	w.close()
	if f.own {
		return f.dir
	}
	d, err := dupDir(f.dir)
	if err != nil {
		return noDir
	}
	return d
}

// up moves to the parent of the directory the walk stands on, as the
// kernel's ".." does: the directory it came down from, or, at an anchor,
// the anchor's canonical parent walked from the root (".." of a root
// is the root).
func (w *walker) up() error {
	if len(w.stack) > 1 {
		f := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		if f.own {
			closeDir(f.dir)
		}
		return nil
	}
	if w.base == rootOf(w.base) {
		return nil
	}
	parent, _ := splitPath(filepath.Dir(w.base))
	return w.restart(w.base, append(parent, w.todo...))
}

// run walks every component but the last, expanding links.
func (w *walker) run() error {
	for {
		if len(w.todo) == 0 {
			w.name = ""
			return nil
		}
		c := w.todo[0]
		if c == ".." {
			w.todo = w.todo[1:]
			if err := w.up(); err != nil {
				return err
			}
			if len(w.todo) == 0 {
				w.slash = true
			}
			continue
		}
		if len(w.todo) == 1 {
			w.name = c
			return nil
		}
		d, err := openDirAt(w.top(), c)
		switch {
		case errors.Is(err, errIsLink):
			if err := w.follow(c, w.todo[1:]); err != nil {
				return w.stopped(err, c)
			}
			continue
		case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ENOTDIR):
			// The kernel stops here too: what is judged is this
			// component, in the directory reached, so that whether
			// it is there is told only where the budget reaches.
			w.name, w.missing, w.stop, w.todo = c, true, err, nil
			return nil
		case err != nil:
			return w.stopped(err, c)
		}
		w.stack = append(w.stack, frame{dir: d, own: true})
		w.todo = w.todo[1:]
	}
}

// follow reads the link name in the directory the walk stands on and
// walks its target in its place, then rest.
func (w *walker) follow(name string, rest []string) error {
	if w.links++; w.links > maxLinks {
		return syscall.ELOOP
	}
	if refusesLinksIn(w.top()) {
		return errMagic
	}
	target, err := readLinkAt(w.top(), name)
	if err != nil {
		return err
	}
	comps, slash := splitPath(target)
	if len(rest) == 0 && slash {
		w.slash = true
	}
	todo := append(comps, rest...)
	if filepath.IsAbs(target) || filepath.VolumeName(target) != "" {
		return w.restart(target, todo)
	}
	w.todo = todo
	return nil
}

// followLast follows the last name, a link, and walks on.
func (w *walker) followLast() error {
	w.missing, w.stop = false, nil
	if err := w.follow(w.name, nil); err != nil {
		return w.stopped(err, w.name)
	}
	return w.run()
}

// stoppedAt is the system's error of a walk that could not go on (a loop
// of links, a directory it may not search), with the place it stopped:
// the canonical path of the directory it stood on, joined with the name
// it could not take there. The system's word tells what lies at that
// place, so it is told only where a grant reaches it (asWritten).
type stoppedAt struct {
	error
	at string
}

func (s stoppedAt) Unwrap() error { return s.error }

// stopped is err, met walking name in the directory the walk stands on,
// with that place (stoppedAt); err as it is when it is one of the
// language's own refusals, or the place has no path.
func (w *walker) stopped(err error, name string) error {
	if errors.As(err, new(stoppedAt)) || errors.Is(err, errMagic) {
		return err
	}
	dir, derr := w.dirPath()
	if derr != nil || !filepath.IsAbs(dir) {
		return err
	}
	return stoppedAt{error: err, at: filepath.Join(dir, name)}
}

// descend opens the last name as a directory and stands on it, following
// links.
func (w *walker) descend() error {
	for w.name != "" {
		d, err := openDirAt(w.top(), w.name)
		if errors.Is(err, errIsLink) {
			if err := w.followLast(); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		w.stack = append(w.stack, frame{dir: d, own: true})
		w.name = ""
	}
	return nil
}

// dirPath is the canonical path of the directory the walk stands on.
func (w *walker) dirPath() (string, error) {
	if len(w.stack) == 1 && !w.stack[0].own {
		return w.base, nil
	}
	return dirPath(w.top())
}

// here is the path the walk judges: the canonical path of its directory
// joined with its last name.
func (w *walker) here() (string, error) {
	dir, err := w.dirPath()
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(dir) || filepath.Clean(dir) != dir {
		// A directory with no path in this file system (removed, or
		// of another mount namespace) is not judged by a string.
		return "", errUnfinished
	}
	if w.name == "" {
		return dir, nil
	}
	return filepath.Join(dir, w.name), nil
}

// onProcessFiles reports whether the walk stands on a process's own files
// in /proc: a directory on procfs whose path, or the last name, has a
// component of digits (a process or thread id). Effects ask it through
// inProcess (knockout_off.go).
func (w *walker) onProcessFiles(path string) bool {
	comps, _ := splitPath(path)
	for _, c := range comps {
		if c != "" && strings.Trim(c, "0123456789") == "" {
			return onProcfs(w.top())
		}
	}
	return false
}

// isAnchor reports whether the canonical path p is that of an anchor but
// the root: the working directory or a granted directory, as opened when
// the run started.
func (t *fsTree) isAnchor(p string) bool {
	t.open()
	comps, _ := splitPath(p)
	for _, a := range t.anchors {
		if len(a.comps) > 0 && len(a.comps) == len(comps) && sameVolume(a.path, p) &&
			equalComps(a.comps, comps) {
			return true
		}
	}
	return false
}

// openOnOwn reports whether f is open on one of the run's standard
// descriptors' files, or one of the caller's they are relayed to; true
// too when what f is open on cannot be read. Effects ask it through isOwn
// (knockout_off.go).
func (t *fsTree) openOnOwn(f *os.File) bool {
	own := t.own()
	if len(own) == 0 {
		return false
	}
	id, ok := FileIDOf(f)
	return !ok || slices.Contains(own, id)
}
