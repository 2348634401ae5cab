package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/guard"
)

// landlockErratumSignalScope is the bit of the kernel's Landlock errata
// that says signal scoping is fixed (erratum 2). Without it the signal
// scope of ABI 6 is unreliable, and go-landlock treats the kernel as ABI 5.
const landlockErratumSignalScope = 1 << 1

// LandlockABI returns the kernel's Landlock ABI, as
// landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) reports
// it, lowered to 5 on a kernel of ABI 6 or later whose signal scoping is
// not known to be fixed: its errata lack the fix, or cannot be read. That
// is the ABI go-landlock, which applies the ruleset, works at. It returns
// 0 and an error saying why when the kernel has no Landlock, or its ABI
// cannot be read; the error wraps ENOSYS when the kernel was built without
// Landlock and EOPNOTSUPP when it was not enabled at boot.
func LandlockABI() (int, error) {
	abi, err := llsyscall.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.ENOSYS):
		return 0, fmt.Errorf("landlock_create_ruleset(version): the kernel has no Landlock: %w", err)
	case errors.Is(err, syscall.EOPNOTSUPP):
		return 0, fmt.Errorf("landlock_create_ruleset(version): Landlock is not enabled at boot (see lsm= on the kernel command line): %w", err)
	case err != nil:
		return 0, fmt.Errorf("landlock_create_ruleset(version): %w", err)
	}
	if abi >= LandlockABIScopes {
		// A kernel whose errata cannot be read has fixed none, as far as
		// anyone can tell.
		errata, err := llsyscall.LandlockGetErrata()
		if err != nil || errata&landlockErratumSignalScope == 0 {
			abi = LandlockABIScopes - 1
		}
	}
	return abi, nil
}

// LandlockApplied is what ApplyLandlock held.
type LandlockApplied struct {
	ABI int // the ABI the ruleset was planned for and applied at
	// Missing are the granted paths that did not exist, each held
	// beneath its nearest existing parent instead: the kernel can only
	// name what exists. The budget still holds the grant itself.
	Missing []string
	// Carving is how the rules above guarded locations were carved.
	Carving Carving
}

// ApplyLandlock restricts every thread of the process to plan, with the
// rules above carveOuts carved (CarveLandlock, reading this machine's
// directories), for good. It fails, and restricts nothing, when the
// kernel's ABI is below the plan's or a path cannot be held.
//
// Each rule is held at its path as it resolves now, links followed. A
// rule on a file, not a directory, keeps only the rights a file can
// carry. A granted path that does not exist yet is held beneath its
// nearest existing parent and reported in Missing; an interpreter need
// that does not exist (no time zone database, say) is skipped.
//
// A path is looked at (stat) before the ruleset is built, and opened
// again, links followed, when its rule is added. A directory replaced by
// a file in between makes the apply fail: the kernel refuses directory
// rights on a file. A path replaced by a symbolic link is followed: the
// rule is held on what the link then leads to, and fails only when that is
// a file where a directory was. Whoever can replace a granted path, or a
// directory on its way, can so move the grant elsewhere, as the same
// replacement made before the run would.
//
// The ruleset is applied by go-landlock for exactly the rights the plan
// handles, not in best-effort mode: the plan was made for the kernel's
// ABI. go-landlock sets no_new_privs and reaches every thread, through
// syscall.AllThreadsSyscall or, from ABI 8, through the kernel's own
// thread synchronisation.
func ApplyLandlock(plan LandlockRuleset, carveOuts []guard.CarveOut) (LandlockApplied, error) {
	abi, err := LandlockABI()
	if err != nil {
		return LandlockApplied{}, fmt.Errorf("apply landlock: %w", err)
	}
	if abi < plan.ABI {
		return LandlockApplied{}, fmt.Errorf("apply landlock: the plan is for ABI %d, the kernel has ABI %d", plan.ABI, abi)
	}
	applied := LandlockApplied{ABI: plan.ABI}
	targets := plan
	targets.Rules = nil
	for _, r := range plan.Rules {
		path, access, err := landlockTarget(r)
		if err != nil {
			return LandlockApplied{}, fmt.Errorf("apply landlock: %s %s: %w", r.Why, r.Path, err)
		}
		if path == "" || access == 0 {
			continue
		}
		if path != r.Path && !slices.Contains(applied.Missing, r.Path) {
			applied.Missing = append(applied.Missing, r.Path)
		}
		// The carving compares paths as they resolve: the guarded
		// locations are listed in both forms.
		if resolved, err := filepath.EvalSymlinks(path); err == nil {
			path = resolved
		}
		targets.Rules = append(targets.Rules, LandlockRule{Path: path, Access: access, Grant: r.Grant, Why: r.Why})
	}
	carved, carving := CarveLandlock(targets, carveOuts, os.ReadDir, MaxCarvedRules)
	applied.Carving = carving
	var rules []landlock.Rule
	for _, r := range carved.Rules {
		path, access := r.Path, r.Access
		if r.Carved {
			pinned, ok := pinEntry(path)
			if !ok {
				continue // gone since it was listed, or a link now
			}
			defer pinned.close()
			path, access = pinned.path, pinned.rights(access)
		}
		rules = append(rules, landlock.PathAccess(landlock.AccessFSSet(access), path))
	}
	for _, port := range plan.ConnectTCP {
		rules = append(rules, landlock.ConnectTCP(uint16(port)))
	}
	cfg := landlock.Config{
		HandledAccessFS:  landlock.AccessFSSet(plan.HandledFS),
		HandledAccessNet: landlock.AccessNetSet(plan.HandledNet),
		Scoped:           landlock.ScopedSet(plan.Scoped),
	}
	if err := cfg.Restrict(rules...); err != nil {
		return LandlockApplied{}, fmt.Errorf("apply landlock: restrict: %w", err)
	}
	return applied, nil
}

// pinnedEntry is an entry a carved rule is held on, open as a path only.
type pinnedEntry struct {
	fd   int
	path string // /proc/self/fd/N: go-landlock opens the entry itself through it
	dir  bool
}

// pinEntry opens the entry at p, never following a link there, for its
// rule to be held on what was opened: an entry swapped for a link to a
// guarded location after the carving listed it is not followed. false
// when the entry is gone, or is a link, a device, or cannot be opened.
func pinEntry(p string) (pinnedEntry, bool) {
	fd, err := unix.Open(p, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return pinnedEntry{}, false
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		unix.Close(fd)
		return pinnedEntry{}, false
	}
	// A character device is pinned only where a carve-out allows it
	// (CarveLandlock lists no other device).
	if t := st.Mode & unix.S_IFMT; t == unix.S_IFLNK || t == unix.S_IFBLK {
		unix.Close(fd)
		return pinnedEntry{}, false
	}
	return pinnedEntry{fd: fd, path: "/proc/self/fd/" + strconv.Itoa(fd), dir: st.Mode&unix.S_IFMT == unix.S_IFDIR}, true
}

// rights are the rights of access the entry can carry: a file's only
// where it is not a directory.
func (e pinnedEntry) rights(access uint64) uint64 {
	if !e.dir {
		return access & landlockFileRights
	}
	return access
}

func (e pinnedEntry) close() { unix.Close(e.fd) }

// landlockTarget returns where rule r is held and with which rights: its
// own path, or for a grant that does not exist its nearest existing
// parent; a file keeps only the file rights. The path is "" for a need
// that does not exist.
func landlockTarget(r LandlockRule) (string, uint64, error) {
	path := r.Path
	for {
		fi, err := os.Stat(path)
		switch {
		case err == nil:
			access := r.Access
			if !fi.IsDir() {
				access &= landlockFileRights
			}
			return path, access, nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", 0, err
		case !r.Grant:
			return "", 0, nil
		case path == "/":
			return "", 0, err
		}
		path = filepath.Dir(path)
	}
}
