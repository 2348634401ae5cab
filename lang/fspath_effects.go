package lang

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"syscall"

	"go.starlark.net/starlark"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/bounded"
)

// The file effects. Each walks the program's path (fspath.go), judges the
// place the walk reached, and acts there, on the directory the walk holds.

// fsRefusal turns an error of a walk into the run's error for the effect
// op, for access, on the program's path p. A path that no grant covers
// where its walk led is refused as the program wrote it (E302), never by
// the place the walk reached (the deepest directory that exists, where a
// link leads), and so is one no grant covers as written whatever the walk
// met on the way: the refusal tells nothing of what lies beyond the
// grants. Within them, a path the language never follows is E302;
// anything else is the system's answer, E314 (or E319 when a confinement
// layer refused).
func (in *Interp) fsRefusal(op string, access budget.Access, p string, err error) error {
	if refused := in.refusedAsWritten(access, p, err); refused != nil {
		return refused
	}
	var e *codes.Error
	if errors.As(err, &e) {
		return e
	}
	for _, r := range []error{errMagic, errProcess, errOwn, errUnfinished, errTooLong} {
		if errors.Is(err, r) {
			return codes.Errorf(codes.E302, "%s %s: %w", op, p, err)
		}
	}
	if errors.Is(err, errNotFile) || errors.Is(err, errEndless) {
		return codes.Errorf(codes.E314, "%s %s: %w", op, p, err)
	}
	if errors.Is(err, syscall.EISDIR) && slices.Contains(in.writeGrants, filepath.Clean(in.abs(p))) {
		return &codes.Error{Code: codes.E314, Msg: fmt.Sprintf(grantIsADirectory, op, p), Err: err}
	}
	if errors.Is(err, syscall.ELOOP) {
		return &codes.Error{
			Code: codes.E314,
			Msg:  fmt.Sprintf("%s %s: more than %d links, or a loop of them", op, p, maxLinks),
			Err:  err,
		}
	}
	return in.osError(codes.E314, op+" "+p, err)
}

// grantIsADirectory is the E314 of a file effect on the very path a write
// grant names (%s: the effect and the program's path): a grant names a
// directory, and one that did not exist was made before the run.
const grantIsADirectory = "%s %s: this path is a write grant's own, and a write grant names a " +
	"directory (one that did not exist is made before the run): to write a file of that name, " +
	"grant the directory it is in"

// asWritten judges, for fsRefusal, an effect for access on the program's
// path p that failed with err where no grant covered the place its walk
// led (budget.ErrNotGranted) or before that place was judged (unjudged):
// E302 when no grant covers p as written, or when one does and the place
// was judged, or the walk stopped (stoppedAt) at a place no grant reaches:
// the system's word there (a loop, a directory it may not search) would
// tell what lies beyond the grants; nil for any other err, or for an
// unjudged one under a grant. fsRefusal asks it through refusedAsWritten
// (knockout_off.go).
func (in *Interp) asWritten(access budget.Access, p string, err error) error {
	var u unjudged
	var s stoppedAt
	judged := errors.Is(err, budget.ErrNotGranted)
	if !judged && !errors.As(err, &u) {
		return nil
	}
	written := budget.Effect{Kind: budget.FS, Access: access, Path: filepath.Clean(in.abs(p))}
	grant, covered := in.coversAsWritten(written)
	switch {
	case !covered:
		return codes.Errorf(codes.E302, "fs %s of %s: %v: add %s to the budget", access, in.abs(p),
			budget.ErrNotGranted, written.Need())
	case judged || errors.As(err, &s) && !in.reaches(access, s.at):
		return codes.Errorf(codes.E302, "fs %s of %s: %v: %s", access, in.abs(p), budget.ErrNotGranted,
			fmt.Sprintf(leadsOutside, grant))
	}
	return nil
}

// reaches reports whether a grant for access reaches the place at, a
// canonical path, but for its count: one covers it, and it lies in no
// guarded location that grant does not name.
func (in *Interp) reaches(access budget.Access, at string) bool {
	e := budget.Effect{Kind: budget.FS, Access: access, Path: at}
	for i := range in.meter.Budget().Items {
		m := in.meter.Matched(i)
		if _, guarded := in.guard.Refuses(at, m.Path); m.Covers(e) && !guarded {
			return true
		}
	}
	return false
}

// leadsOutside says why a path a grant covers as written is refused: its
// walk led elsewhere, where no grant reaches.
const leadsOutside = "it lies in %s as written, and leads outside every grant by a link or a .. " +
	"on the way (or, for fs.mkdir, a directory it would make)"

// unjudged is an error met before the place an effect reached was
// judged: the walk's own, which is told only where a grant covers the
// path as written (fsRefusal).
type unjudged struct{ error }

func (u unjudged) Unwrap() error { return u.error }

// coversAsWritten returns the grant that covers e, an effect on a path
// as the program wrote it, made absolute and cleaned: by its text alone.
func (in *Interp) coversAsWritten(e budget.Effect) (budget.Item, bool) {
	for _, it := range in.meter.Budget().Items {
		if it.Covers(e) {
			return it, true
		}
	}
	return budget.Item{}, false
}

// judge finds the grant for access at the place the walk stands on, and
// says what place that is. A process's own files in /proc are refused
// whatever the grant.
func (in *Interp) judge(w *walker, access budget.Access) (i int, here string, err error) {
	if here, err = w.here(); err != nil {
		return -1, "", unjudged{err}
	}
	if w.inProcess(here) {
		return -1, "", unjudged{errProcess}
	}
	i, err = in.find(budget.Effect{Kind: budget.FS, Access: access, Path: here})
	if err == nil {
		if err = in.judgeAlias(w, here, i); err != nil {
			return -1, here, err
		}
	}
	return i, here, err
}

// guardAlias refuses (E318) an effect whose walk went through, or stands
// on, the entry of a guarded location by a name other than the
// location's (guard.Set.At): a directory that ignores case takes
// /srv/RECEIPTS for the /srv/receipts it lists, and the path the kernel
// reports for it lies in no location by name. The directory the walk
// started from (an anchor, a granted directory admitted so, or a root)
// is not read. Effects ask it through judgeAlias (knockout_off.go).
func (in *Interp) guardAlias(w *walker, here string, i int) error {
	for j := 1; j <= len(w.stack); j++ {
		d, name := w.top(), w.name
		if j < len(w.stack) {
			d, name = w.stack[j].dir, ""
		} else if name == "" || w.missing {
			continue
		}
		id, ok := idAt(d, name)
		if !ok {
			continue
		}
		if l, found := in.guard.At(id, here); found {
			return guardedRefusal(here, l, in.meter.Budget().Items[i])
		}
	}
	return nil
}

// guardEntry refuses an entry made in, or removed from, the directory the
// walk stands on when it holds a guarded location (guard.Set.Holds): the
// kernel holds a grant above one as the entries the directory had when
// the run started, and so does the language. Effects ask it through
// judgeEntry (knockout_off.go).
func (in *Interp) guardEntry(w *walker) error {
	dir, err := w.dirPath()
	if err != nil {
		return err
	}
	if c, holds := in.guard.Holds(dir); holds {
		why := "which holds the guarded location " + c.Path
		if c.Path == dir {
			why = "a home, or the directory a guarded location would be made in"
		}
		return codes.Errorf(codes.E318, "%s would be made or removed in %s, %s: %s",
			filepath.Join(dir, w.name), dir,
			why, heldDirAdvice)
	}
	return nil
}

// heldDirAdvice says what a program refused an entry in a directory the
// kernel holds as its entries may do instead.
const heldDirAdvice = "a grant at or above such a directory reaches what it held when the run " +
	"started, never a new entry in it; write beneath a directory of it, or grant a path beneath it " +
	"that exists"

// guardDevice refuses a device no grant reaches (guard.RefusesDevice):
// every one but a few of /dev, whatever the grant i, at here. Effects ask
// it through judgeDevice (knockout_off.go).
func (in *Interp) guardDevice(here string, mode os.FileMode, i int) error {
	if l, refused := guard.RefusesDevice(here, mode); refused {
		return guardedRefusal(here, l, in.meter.Budget().Items[i])
	}
	return nil
}

// settle follows the walk's last name while it is a link, and says what
// the name is then: its mode, and whether it exists.
func (w *walker) settle() (os.FileMode, bool, error) {
	for {
		if w.missing {
			return 0, false, nil
		}
		if w.name == "" {
			return os.ModeDir, true, nil
		}
		m, err := statAt(w.top(), w.name)
		switch {
		case errors.Is(err, syscall.ENOENT):
			return 0, false, nil
		case err != nil:
			return 0, false, w.stopped(err, w.name)
		case m&os.ModeSymlink != 0:
			if err := w.followLast(); err != nil {
				return 0, false, err
			}
			continue
		}
		return m, true, nil
	}
}

// fsObject walks p, follows links to the object, judges it for access and
// hands do the walk, with the grant to charge: once when do succeeds, or
// fails having changed the disk (changed). Links met when do opens (the
// name changed under it) are followed and judged again.
func (in *Interp) fsObject(op string, access budget.Access, p string,
	do func(w *walker, mode os.FileMode, exists bool) (starlark.Value, bool, error),
) (starlark.Value, error) {
	w, err := in.fs.walk(in.abs(p))
	if err != nil {
		return nil, in.fsRefusal(op, access, p, unjudged{err})
	}
	defer w.close()
	for {
		mode, exists, err := w.settle()
		if err != nil {
			return nil, in.fsRefusal(op, access, p, unjudged{err})
		}
		i, here, err := in.judge(w, access)
		if err == nil && exists {
			err = in.judgeDevice(here, mode, i)
		}
		if err != nil {
			return nil, in.fsRefusal(op, access, p, err)
		}
		v, again, err := do(w, mode, exists)
		if again {
			if err := w.followLast(); err != nil {
				return nil, in.fsRefusal(op, access, p, unjudged{err})
			}
			continue
		}
		if err != nil {
			if errors.As(err, new(changed)) {
				in.charge(i)
			}
			return nil, in.fsRefusal(op, access, p, err)
		}
		in.charge(i)
		return v, nil
	}
}

// notFound is the system's answer for a name the walk did not find.
func notFound(w *walker) error {
	if w.stop != nil {
		return w.stop
	}
	return &os.PathError{Op: "open", Path: w.name, Err: syscall.ENOENT}
}

// openObject opens the object the walk stands on with flag, refusing the
// run's own descriptors; again is true when the name became a link.
func (in *Interp) openObject(w *walker, flag int, perm uint32) (f *os.File, again bool, err error) {
	if w.name == "" {
		f, err = openSelf(w.top())
	} else {
		f, err = openFileAt(w.top(), w.name, flag, perm)
	}
	if errors.Is(err, errIsLink) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	if in.fs.isOwn(f) {
		f.Close()
		return nil, false, errOwn
	}
	return f, false, nil
}

// maxDeviceRead is the most fs.read reads of a device: /dev/zero and
// /dev/urandom never end.
const maxDeviceRead = 1 << 20

// errNotFile refuses what the file effects never open: an object that is
// neither a regular file, a directory nor a device.
var errNotFile = errors.New("neither a regular file nor a device (a named pipe, a socket): the " +
	"file effects open regular files, directories and the few devices a grant reaches (a pipe would " +
	"wait for another process, without end)")

// errEndless refuses a device that gives more than maxDeviceRead.
var errEndless = fmt.Errorf("a device that gives more than %d bytes (/dev/zero never ends): "+
	"fs.read reads at most that of a device", maxDeviceRead)

// fileOrDevice refuses a mode that is neither a regular file's nor a
// device's: named pipes and sockets.
func fileOrDevice(mode os.FileMode) error {
	if mode.Type() != 0 && mode&os.ModeCharDevice == 0 {
		return errNotFile
	}
	return nil
}

// openFile opens the object the walk stands on with flag, without
// waiting for another process (a pipe put in the file's place after it
// was judged), and keeps it only if, as opened, it is a regular file or a
// device (fileOrDevice); again is true when the name became a link.
func (in *Interp) openFile(w *walker, flag int,
	perm uint32) (f *os.File, device, again bool, err error) {
	f, again, err = in.openObject(w, flag|oNonblock, perm)
	if f == nil {
		return nil, false, again, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = fileOrDevice(fi.Mode())
	}
	if err != nil {
		f.Close()
		return nil, false, false, err
	}
	return f, fi.Mode()&os.ModeDevice != 0, false, nil
}

// fsRead reads a regular file to its end, or at most maxDeviceRead of a
// device, and refuses anything else, before it is opened and as opened.
func (in *Interp) fsRead(op, p string) (starlark.Value, error) {
	return in.fsObject(op, budget.Read, p, func(w *walker, mode os.FileMode,
		exists bool) (starlark.Value, bool, error) {
		switch {
		case !exists:
			return nil, false, notFound(w)
		case w.slash && mode != os.ModeDir:
			return nil, false, &os.PathError{Op: "open", Path: w.name, Err: syscall.ENOTDIR}
		case mode == os.ModeDir:
			return nil, false, &os.PathError{Op: "read", Path: w.name, Err: syscall.EISDIR}
		}
		if err := fileOrDevice(mode); err != nil {
			return nil, false, err
		}
		f, device, again, err := in.openFile(w, os.O_RDONLY, 0)
		if f == nil {
			return nil, again, err
		}
		defer f.Close()
		if !device {
			data, err := io.ReadAll(f)
			return starlark.String(data), false, err
		}
		data, over := bounded.Read(f, maxDeviceRead)
		if over {
			return nil, false, errEndless
		}
		return starlark.String(data), false, nil
	})
}

func (in *Interp) fsList(op, p string) (starlark.Value, error) {
	return in.fsObject(op, budget.Read, p, func(w *walker, mode os.FileMode,
		exists bool) (starlark.Value, bool, error) {
		switch {
		case !exists:
			return nil, false, notFound(w)
		case mode != os.ModeDir:
			return nil, false, &os.PathError{Op: "open", Path: w.name, Err: syscall.ENOTDIR}
		}
		f, again, err := in.openObject(w, os.O_RDONLY|oDirectory, 0)
		if f == nil {
			return nil, again, err
		}
		defer f.Close()
		names, err := f.Readdirnames(-1)
		if err != nil {
			return nil, false, err
		}
		sort.Strings(names)
		out := make([]starlark.Value, len(names))
		for i, n := range names {
			out[i] = starlark.String(n)
		}
		return starlark.NewList(out), false, nil
	})
}

// fsExists is True when the path leads to an object: links followed, and
// a path ending in a separator only to a directory.
func (in *Interp) fsExists(op, p string) (starlark.Value, error) {
	return in.fsObject(op, budget.Read, p, func(w *walker, mode os.FileMode,
		exists bool) (starlark.Value, bool, error) {
		return starlark.Bool(exists && (!w.slash || mode == os.ModeDir)), false, nil
	})
}

// fsWrite writes or appends s at p: through a link to where it leads, never
// through the run's own descriptors, creating no directory. A write
// empties a regular file first, never a device.
func (in *Interp) fsWrite(op, p, s string, flag int) (starlark.Value, error) {
	return in.fsObject(op, budget.Write, p, func(w *walker, mode os.FileMode,
		exists bool) (starlark.Value, bool, error) {
		switch {
		case w.missing:
			return nil, false, notFound(w)
		case mode == os.ModeDir || w.slash:
			return nil, false, &os.PathError{Op: "open", Path: w.name, Err: syscall.EISDIR}
		}
		if err := fileOrDevice(mode); err != nil {
			return nil, false, err
		}
		if !exists {
			if err := in.judgeEntry(w); err != nil {
				return nil, false, err
			}
		}
		f, device, again, err := in.openFile(w, os.O_WRONLY|os.O_CREATE|(flag&os.O_APPEND), 0o644)
		if f == nil {
			return nil, again, err
		}
		emptied := false
		if flag&os.O_TRUNC != 0 && !device {
			// A device has no length to cut (the kernel's O_TRUNC
			// leaves it be): /dev/null takes a write as it is.
			err = f.Truncate(0)
			emptied = err == nil
		}
		n := 0
		if err == nil {
			n, err = f.WriteString(s)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil && (!exists || emptied || n > 0) {
			err = changed{err}
		}
		return starlark.None, false, err
	})
}

// changed is the error of a file effect that failed once it had changed
// the disk (a file made or emptied, part of the data written): the call
// is a use of its grant all the same (fsObject), as an fs.mkdir that made
// parents is, so that the receipt of a run whose only write failed so
// says the grant was used.
type changed struct{ error }

func (c changed) Unwrap() error { return c.error }

// fsRemove removes the entry p names: a link itself, never its target.
func (in *Interp) fsRemove(op, p string) (starlark.Value, error) {
	w, err := in.fs.walk(in.abs(p))
	if err != nil {
		return nil, in.fsRefusal(op, budget.Write, p, unjudged{err})
	}
	defer w.close()
	i, here, err := in.judge(w, budget.Write)
	if err == nil && (w.name == "" || in.fs.isAnchor(here)) {
		// However it is spelled: the working directory and a granted
		// directory are removed from their parent, where no grant of
		// theirs reaches.
		return nil, codes.Errorf(codes.E314, "%s %s: %s", op, p, removeAnchor)
	}
	if err == nil {
		err = in.judgeEntry(w)
	}
	if err != nil {
		return nil, in.fsRefusal(op, budget.Write, p, err)
	}
	if w.missing {
		return nil, in.fsRefusal(op, budget.Write, p, notFound(w))
	}
	mode, err := statAt(w.top(), w.name)
	if err == nil && w.slash && mode != os.ModeDir {
		err = &os.PathError{Op: "unlinkat", Path: w.name, Err: syscall.ENOTDIR}
	}
	if err == nil {
		err = removeAt(w.top(), w.name, mode == os.ModeDir)
	}
	if err != nil {
		return nil, in.fsRefusal(op, budget.Write, p, err)
	}
	in.charge(i)
	return starlark.None, nil
}

// removeAnchor is why fs.remove refuses a path that names a directory the
// run stands on: its ".", a root, the working directory or a granted
// directory itself, by any spelling.
const removeAnchor = "names a directory by . or .., a root, the working directory or a granted " +
	"directory itself: name an entry within it to remove"

// fsMkdir makes the directory p and any missing parent, each judged as a
// write where it is made: no parent outside the grants. The call is one
// use, charged however it ends once it has made a directory (or found p
// there): a call that made parents and then failed changed the disk, and
// its receipt says so.
func (in *Interp) fsMkdir(op, p string) (starlark.Value, error) {
	used := -1 // the grant of the last directory made, or of p found there
	defer func() { in.charge(used) }()
	for made := 0; ; made++ {
		w, err := in.fs.walk(in.abs(p))
		if err != nil {
			return nil, in.fsRefusal(op, budget.Write, p, unjudged{err})
		}
		done, i, err := in.mkdirStep(w)
		w.close()
		if i >= 0 {
			used = i
		}
		if err != nil {
			return nil, in.fsRefusal(op, budget.Write, p, err)
		}
		if done {
			return starlark.None, nil
		}
		if made > maxPath/2 {
			return nil, in.fsRefusal(op, budget.Write, p, errUnfinished)
		}
	}
}

// mkdirStep makes the first missing directory of the walk's path; done is
// true when the last is there. used is the grant that judged the directory
// made, or the last found there, for fsMkdir to charge; -1 for none.
func (in *Interp) mkdirStep(w *walker) (done bool, used int, err error) {
	mode, exists, err := w.settle()
	if err != nil {
		return false, -1, unjudged{err}
	}
	i, _, err := in.judge(w, budget.Write)
	if err != nil {
		return false, -1, err
	}
	if exists {
		if mode != os.ModeDir {
			return false, -1, &os.PathError{Op: "mkdirat", Path: w.name, Err: syscall.EEXIST}
		}
		return true, i, nil
	}
	if w.stop != nil && !errors.Is(w.stop, syscall.ENOENT) {
		return false, -1, w.stop
	}
	if err := in.judgeEntry(w); err != nil {
		return false, -1, err
	}
	last := !w.missing
	err = mkdirAt(w.top(), w.name)
	if errors.Is(err, syscall.EEXIST) {
		return false, -1, nil // made meanwhile: walk again
	}
	if err != nil {
		return false, -1, err
	}
	return last, i, nil
}
