package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
)

// toMake returns the directories of p's write grants that the supervisor
// makes before a worker starts: each that does not exist yet, not even as
// a link (lstat says so: mkdir never follows a link in its place, so a
// grant that is a dangling link is not made, and is held, as a missing
// one, beneath the nearest directory above it that exists), beneath a
// parent that is a directory (stat says so). A grant whose parent is
// missing too is left alone, held beneath the nearest directory above it
// that exists, and the level says so. lstat and stat are os.Lstat and
// os.Stat, or a test's.
//
// A write grant names a directory (fs:write:DIR): a run granted one that
// does not exist would otherwise be held beneath the directory above it,
// which is wider than the grant, and its level would be partial.
func toMake(p core.Policy, lstat, stat func(string) (fs.FileInfo, error)) []string {
	if p.Write.Unrestricted {
		return nil
	}
	var out []string
	for _, dir := range p.Write.Paths {
		if _, err := lstat(dir); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if fi, err := stat(filepath.Dir(dir)); err == nil && fi.IsDir() {
			out = append(out, dir)
		}
	}
	return out
}

// MakeGranted makes the directories toMake names for p, each alone (its
// parent is never made), and returns those it made. One that appeared
// meanwhile is not made, and not returned: mkdir never follows a link in
// its place. The caller has admitted p's budget, each granted path as
// admitted says it resolved then (a path it does not name, as it
// resolves now): no grant names a location no grant reaches. Each
// directory is made there, in its parent as it resolved, and never
// through a link on the way: a granted directory whose parent another
// run swapped for a link after the admission (into ~/.ssh, say) is not
// made, and the error says so.
func MakeGranted(p core.Policy, admitted map[string]string) ([]string, error) {
	var made []string
	for _, dir := range toMake(p, os.Lstat, os.Stat) {
		at, ok := admitted[dir]
		if !ok {
			at = guard.Resolved(dir)
		}
		err := makeDir(filepath.Dir(at), filepath.Base(at))
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return made, fmt.Errorf("make the granted directory %s: %w", dir, err)
		}
		made = append(made, dir)
	}
	return made, nil
}
