package lang

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"go.starlark.net/starlark"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/program"
)

// The file effects. Each walks the program's path (fspath.go), judges the
// place the walk reached, and acts there, on the directory the walk holds.

// fsRefusal turns an error of a walk into the run's error for the effect
// op on the program's path p: a path the language never follows is E302;
// anything else is the system's answer, E314 (or E319 when a confinement
// layer refused).
func (in *Interp) fsRefusal(op, p string, err error) error {
	var e *codes.Error
	if errors.As(err, &e) {
		return err
	}
	for _, r := range []error{errMagic, errProcess, errOwn, errUnfinished, errTooLong} {
		if errors.Is(err, r) {
			return codes.Errorf(codes.E302, "%s %s: %w", op, p, err)
		}
	}
	if errors.Is(err, syscall.ELOOP) {
		return &codes.Error{Code: codes.E314, Msg: fmt.Sprintf("%s %s: more than %d links, or a loop of them", op, p, maxLinks), Err: err}
	}
	return in.osError(codes.E314, op+" "+p, err)
}

// judge finds the grant for access at the place the walk stands on. A
// process's own files in /proc are refused whatever the grant.
func (in *Interp) judge(w *walker, access budget.Access) (int, error) {
	here, err := w.here()
	if err != nil {
		return -1, err
	}
	if w.inProcess(here) {
		return -1, errProcess
	}
	return in.find(budget.Effect{Kind: budget.FS, Access: access, Path: here})
}

// judgeEntry refuses an entry made in, or removed from, the directory the
// walk stands on when it holds a guarded location (guard.Set.Holds): the
// kernel holds a grant above one as the entries the directory had when
// the run started, and so does the language.
func (in *Interp) judgeEntry(w *walker) error {
	if program.Knockout {
		return nil
	}
	dir, err := w.dirPath()
	if err != nil {
		return err
	}
	if c, holds := in.guard.Holds(dir); holds {
		return codes.Errorf(codes.E318, "%s would be made or removed in %s, which holds the guarded location %s: "+
			"a grant above a guarded location reaches what its directories held when the run started, never a new "+
			"entry in them; write beneath a directory that holds none", filepath.Join(dir, w.name), dir, c.Path)
	}
	return nil
}

// judgeDevice refuses a device no grant reaches (guard.RefusesDevice):
// every one but a few of /dev, whatever the grant i.
func (in *Interp) judgeDevice(w *walker, mode os.FileMode, i int) error {
	here, err := w.here()
	if err != nil {
		return err
	}
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
			return 0, false, err
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
// hands do the walk, with the grant to charge. Links met when do opens
// (the name changed under it) are followed and judged again.
func (in *Interp) fsObject(op string, access budget.Access, p string, do func(w *walker, mode os.FileMode, exists bool) (starlark.Value, bool, error)) (starlark.Value, error) {
	w, err := in.fs.walk(in.abs(p))
	if err != nil {
		return nil, in.fsRefusal(op, p, err)
	}
	defer w.close()
	for {
		mode, exists, err := w.settle()
		if err != nil {
			return nil, in.fsRefusal(op, p, err)
		}
		i, err := in.judge(w, access)
		if err == nil && exists && !program.Knockout {
			err = in.judgeDevice(w, mode, i)
		}
		if err != nil {
			return nil, in.fsRefusal(op, p, err)
		}
		v, again, err := do(w, mode, exists)
		if again {
			if err := w.followLast(); err != nil {
				return nil, in.fsRefusal(op, p, err)
			}
			continue
		}
		if err != nil {
			return nil, in.fsRefusal(op, p, err)
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

func (in *Interp) fsRead(op, p string) (starlark.Value, error) {
	return in.fsObject(op, budget.Read, p, func(w *walker, mode os.FileMode, exists bool) (starlark.Value, bool, error) {
		switch {
		case !exists:
			return nil, false, notFound(w)
		case w.slash && mode != os.ModeDir:
			return nil, false, &os.PathError{Op: "open", Path: w.name, Err: syscall.ENOTDIR}
		case mode == os.ModeDir:
			return nil, false, &os.PathError{Op: "read", Path: w.name, Err: syscall.EISDIR}
		}
		f, again, err := in.openObject(w, os.O_RDONLY, 0)
		if f == nil {
			return nil, again, err
		}
		defer f.Close()
		data, err := io.ReadAll(f)
		return starlark.String(data), false, err
	})
}

func (in *Interp) fsList(op, p string) (starlark.Value, error) {
	return in.fsObject(op, budget.Read, p, func(w *walker, mode os.FileMode, exists bool) (starlark.Value, bool, error) {
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
	return in.fsObject(op, budget.Read, p, func(w *walker, mode os.FileMode, exists bool) (starlark.Value, bool, error) {
		return starlark.Bool(exists && (!w.slash || mode == os.ModeDir)), false, nil
	})
}

// fsWrite writes or appends s at p: through a link to where it leads, never
// through the run's own descriptors, creating no directory.
func (in *Interp) fsWrite(op, p, s string, flag int) (starlark.Value, error) {
	return in.fsObject(op, budget.Write, p, func(w *walker, mode os.FileMode, exists bool) (starlark.Value, bool, error) {
		switch {
		case w.missing:
			return nil, false, notFound(w)
		case mode == os.ModeDir || w.slash:
			return nil, false, &os.PathError{Op: "open", Path: w.name, Err: syscall.EISDIR}
		}
		if !exists {
			if err := in.judgeEntry(w); err != nil {
				return nil, false, err
			}
		}
		f, again, err := in.openObject(w, os.O_WRONLY|os.O_CREATE|(flag&os.O_APPEND), 0o644)
		if f == nil {
			return nil, again, err
		}
		if flag&os.O_TRUNC != 0 {
			err = f.Truncate(0)
		}
		if err == nil {
			_, err = f.WriteString(s)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return starlark.None, false, err
	})
}

// fsRemove removes the entry p names: a link itself, never its target.
func (in *Interp) fsRemove(op, p string) (starlark.Value, error) {
	w, err := in.fs.walk(in.abs(p))
	if err != nil {
		return nil, in.fsRefusal(op, p, err)
	}
	defer w.close()
	if w.name == "" {
		return nil, codes.Errorf(codes.E314, "%s %s: names a directory by . or .., or a root: name the entry to remove", op, p)
	}
	i, err := in.judge(w, budget.Write)
	if err == nil {
		err = in.judgeEntry(w)
	}
	if err != nil {
		return nil, in.fsRefusal(op, p, err)
	}
	if w.missing {
		return nil, in.fsRefusal(op, p, notFound(w))
	}
	mode, err := statAt(w.top(), w.name)
	if err == nil && w.slash && mode != os.ModeDir {
		err = &os.PathError{Op: "unlinkat", Path: w.name, Err: syscall.ENOTDIR}
	}
	if err == nil {
		err = removeAt(w.top(), w.name, mode == os.ModeDir)
	}
	if err != nil {
		return nil, in.fsRefusal(op, p, err)
	}
	in.charge(i)
	return starlark.None, nil
}

// fsMkdir makes the directory p and any missing parent, each judged as a
// write where it is made: no parent outside the grants.
func (in *Interp) fsMkdir(op, p string) (starlark.Value, error) {
	for made := 0; ; made++ {
		w, err := in.fs.walk(in.abs(p))
		if err != nil {
			return nil, in.fsRefusal(op, p, err)
		}
		done, err := in.mkdirStep(w)
		w.close()
		if err != nil {
			return nil, in.fsRefusal(op, p, err)
		}
		if done {
			return starlark.None, nil
		}
		if made > maxPath/2 {
			return nil, in.fsRefusal(op, p, errUnfinished)
		}
	}
}

// mkdirStep makes the first missing directory of the walk's path; done is
// true when the last is there.
func (in *Interp) mkdirStep(w *walker) (done bool, err error) {
	for {
		mode, exists, err := w.settle()
		if err != nil {
			return false, err
		}
		i, err := in.judge(w, budget.Write)
		if err != nil {
			return false, err
		}
		if exists {
			if mode != os.ModeDir {
				return false, &os.PathError{Op: "mkdirat", Path: w.name, Err: syscall.EEXIST}
			}
			in.charge(i)
			return true, nil
		}
		if w.stop != nil && !errors.Is(w.stop, syscall.ENOENT) {
			return false, w.stop
		}
		if err := in.judgeEntry(w); err != nil {
			return false, err
		}
		last := !w.missing
		err = mkdirAt(w.top(), w.name)
		if errors.Is(err, syscall.EEXIST) {
			return false, nil // made meanwhile: walk again
		}
		if err != nil {
			return false, err
		}
		if last {
			in.charge(i)
		}
		return last, nil
	}
}
