package run

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sabline/sabline/guard"
)

// Where runs keep their private temporary directories. Each run's worker
// gets one of its own (its TMPDIR, holding its crash file), made in one
// directory that is Sabline's own: guarded like the receipts (Guard), so
// that no run's grant reaches another run's directory, in the language or
// in the kernel. It is not in the system's temporary directory, which
// programs are granted: a guarded location there would hold a grant of
// it to the entries it had when the run started (the kernel can only
// carve a grant as the entries beside what it keeps out).

// runsDirName is the runs' directory in the user's cache directory.
const runsDirName = "sabline/runs"

// runsDir is the directory runs' private temporary directories are made
// in: the user's cache directory's sabline/runs (~/.cache/sabline/runs
// on Linux), or, where there is none or another user could move it away
// (privateDir), sabline-runs-UID in the system's temporary directory;
// made once, readable by this user alone, and made
// known to the register of this machine (guard.JoinAs), so that no run of
// another Sabline reaches it either. A directory the register cannot be
// told of is E331, and no run starts.
var runsDir = sync.OnceValues(func() (string, error) { return firstRunsDir(runsDirs()) })

// firstRunsDir makes the first of places it can (privateDir) and makes it
// known to the register, passing over one whose base is not a directory
// already: a TMPDIR or a cache directory that names a place that is not
// there is the caller's mistake, and a runs directory made there made
// every directory above it too (TMPDIR=/nonexistent made
// /nonexistent/sabline-runs-0). It passes over one whose path is not
// UTF-8 too: a worker is handed its temporary directory in a JSON
// string, where such a byte became U+FFFD, and with XDG_CACHE_HOME=c\xe9
// each worker's TMPDIR, its crash file and the kernel's rule for it
// named c\ufffd, which is not there.
func firstRunsDir(places []runsPlace) (string, error) {
	var tried []string
	for _, pl := range places {
		if !utf8.ValidString(pl.dir) {
			tried = append(tried, fmt.Sprintf("%q: not UTF-8, and no runs directory is made "+
				"there", pl.dir))
			continue
		}
		if fi, err := os.Stat(pl.base); err != nil || !fi.IsDir() {
			tried = append(tried, fmt.Sprintf("%s: %s is not a directory, and no runs directory "+
				"is made with it", pl.dir, pl.base))
			continue
		}
		err := privateDir(pl.dir)
		if err == nil {
			if err := guard.JoinAs("the runs directory "+pl.dir, pl.dir); err != nil {
				return "", err
			}
			return pl.dir, nil
		}
		tried = append(tried, err.Error())
	}
	return "", fmt.Errorf("no directory for the runs' temporary directories: %v", tried)
}

// A runsPlace is a place for the runs directory: dir, made with the
// directories above it up to base, which must be one already.
type runsPlace struct{ base, dir string }

// runsDirs are the places runsDir tries, in turn: the user's cache
// directory (its base the directory above it, so that the cache directory
// itself is made where it is not yet, as XDG_CACHE_HOME's specification
// asks and ~/.cache on a new account needs, but nothing above it), then
// the system's temporary directory. A relative TMPDIR (a caller's TMPDIR=tmp) names no
// system's temporary directory, only a place beneath whatever the
// working directory is: it is passed over for the system's default
// (/tmp, as os.TempDir gives without TMPDIR), as a relative cache
// directory is passed over, and so is one that is not a directory
// (firstRunsDir). Windows' is always absolute.
func runsDirs() []runsPlace {
	var out []runsPlace
	if cache, err := os.UserCacheDir(); err == nil && filepath.IsAbs(cache) {
		out = append(out, runsPlace{filepath.Dir(cache),
			filepath.Join(cache, filepath.FromSlash(runsDirName))})
	}
	name := "sabline-runs-" + strconv.Itoa(os.Geteuid())
	tmp := os.TempDir()
	if !filepath.IsAbs(tmp) && filepath.Separator == '/' {
		tmp = "/tmp"
	}
	out = append(out, runsPlace{tmp, filepath.Join(tmp, name)})
	if tmp != "/tmp" && filepath.Separator == '/' {
		// A TMPDIR that is not there is passed over for the system's
		// default, as a relative one is.
		out = append(out, runsPlace{"/tmp", filepath.Join("/tmp", name)})
	}
	return out
}

// privateDir makes dir, and its parents, unless it exists, and checks it
// is a directory (not a link) this user alone may enter, that no other
// user can move away and replace (ancestorsOurs).
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if err := ownedPrivate(dir, fi); err != nil {
		return err
	}
	return ancestorsOurs(dir)
}

// newTempDir makes a run's private temporary directory in runsDir, locked
// for the life of this process (makeTempDir).
func newTempDir() (dir string, unlock func(), err error) {
	parent, err := runsDir()
	if err != nil {
		return "", nil, err
	}
	return makeTempDir(parent)
}

// sweepRuns removes what runs whose supervisor was killed outright left in
// runsDir (sweepTempDirs).
func sweepRuns() {
	sweepBegins()
	if parent, err := runsDir(); err == nil {
		sweepTempDirs(parent, time.Now())
	}
}

// RunsDir is the directory every run's private temporary directory is
// made in, this user's alone and guarded from every grant: a server that
// holds itself to a Landlock domain must keep the right to make, watch and
// remove its workers' directories there.
func RunsDir() (string, error) { return runsDir() }

// sweepBegins is called as sweepRuns begins; a test holds the sweep there.
var sweepBegins = func() {}
