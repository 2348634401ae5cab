package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sabline/sabline/confine/core"
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
// its place. The caller has admitted p's budget: no grant names a
// location no grant reaches.
func MakeGranted(p core.Policy) ([]string, error) {
	var made []string
	for _, dir := range toMake(p, os.Lstat, os.Stat) {
		err := os.Mkdir(dir, 0o777) // as mkdir(1): the umask narrows it
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
