package linux

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

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
	abi, _, err := landlockABIWhy()
	return abi, err
}

// LandlockABILowered says why LandlockABI is below the kernel's own ABI:
// the signal-scoping fix the kernel's errata lack, or errata that cannot
// be read; "" where it is not lowered, or the kernel has no Landlock.
func LandlockABILowered() string {
	_, why, _ := landlockABIWhy()
	return why
}

// landlockABIWhy is LandlockABI, and why it is lowered (scopedABI).
func landlockABIWhy() (int, string, error) {
	abi, err := llsyscall.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.ENOSYS):
		return 0, "", fmt.Errorf("landlock_create_ruleset(version): the kernel has no Landlock: %w",
			err)
	case errors.Is(err, syscall.EOPNOTSUPP):
		return 0, "", fmt.Errorf("landlock_create_ruleset(version): Landlock is not "+
			"enabled at boot (see lsm= on the kernel command line): %w", err)
	case err != nil:
		return 0, "", fmt.Errorf("landlock_create_ruleset(version): %w", err)
	}
	if abi < landlockABIScopes {
		return abi, "", nil
	}
	used, why := scopedABI(abi, llsyscall.LandlockGetErrata)
	return used, why, nil
}

// scopedABI is the ABI Sabline works at on a kernel of abi (landlockABIScopes
// or later) whose errata errata reads, and why it is lower where it is: a
// kernel whose errata lack the signal-scoping fix, or cannot be read (it
// has fixed none, as far as anyone can tell), is taken at the ABI before
// the scopes, as go-landlock takes it.
func scopedABI(abi int, errata func() (int, error)) (int, string) {
	e, err := errata()
	switch {
	case err != nil:
		return landlockABIScopes - 1, fmt.Sprintf("the kernel offers ABI %d, but its Landlock "+
			"errata could not be read (%v): taken as ABI %d, signals held by seccomp alone",
			abi, err, landlockABIScopes-1)
	case e&landlockErratumSignalScope == 0:
		return landlockABIScopes - 1, fmt.Sprintf("the kernel offers ABI %d, but its Landlock "+
			"errata lack the signal-scoping fix (erratum 2): taken as ABI %d, signals held by "+
			"seccomp alone", abi, landlockABIScopes-1)
	}
	return abi, ""
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
// A path is looked at (stat) and resolved before the ruleset is built,
// and a grant's resolution is checked against its admission then, on
// the path its rule is held at (a directory swapped for a link just
// after Moved looked leaves it out too).
// A grant's rule, and a carved entry's, is added on its path as it
// resolved, opened through no link (openNoLinks): a link made on its way
// since (by another run, say) leaves the rule out, and so does a file
// system of the kernel's found there (a procfs mounted on it since: its
// statfs magic is no data file system's). A grant so left out is
// reported in Carving.Withheld, as one that resolved into a guarded
// location no grant reaches is (CarveLandlock), or one that resolves now
// otherwise than it did when the run was admitted (Moved, by admitted);
// a carved entry gone or swapped is not. A need of the interpreter is
// opened again, links followed; the executable's is left out unless it
// is the file this process runs (LandlockRule.Image), and any need whose
// links lead into a guarded location or a home's dot-entry, or to a
// directory above one, where its path as written lies in none, is left
// out and reported in Carving.NeedsWithheld (outOfReach, aboveCarveOut). Between the build
// and the install, a path that comes to name another entry (another
// device, inode or type), that a link now lies on the way to, or that is
// gone leaves its rule out, which only narrows the ruleset; a grant so
// left out is reported in Carving.Withheld. It failed the apply before,
// and the worker went on with no Landlock at all: a swap by another run
// turned the whole ruleset off.
//
// The ruleset handles exactly the rights the plan handles, not in a
// best-effort mode: the plan was made for the kernel's ABI. Each rule is
// added on a descriptor of its path (installLandlock), and no_new_privs
// and the ruleset reach every thread through syscall.AllThreadsSyscall,
// as go-landlock's own calls do.
//
// It builds, then installs: buildLandlock resolves every rule to the
// entry its path names (its device and inode), a value a test reads that
// holds no descriptor, and installLandlock opens each path again, one at
// a time, checks that it names the entry the build resolved, and makes
// the Landlock calls on it. A path swapped in between leaves its rule
// out.
func ApplyLandlock(plan LandlockRuleset, carveOuts []guard.CarveOut,
	admitted map[string]string) (LandlockApplied, error) {
	carved, applied, err := targetLandlock(plan, carveOuts, admitted)
	if err != nil {
		return LandlockApplied{}, fmt.Errorf("apply landlock: %w", err)
	}
	b, err := buildLandlock(carved)
	if err != nil {
		return LandlockApplied{}, fmt.Errorf("apply landlock: %w", err)
	}
	gone, err := installLandlock(b)
	if err != nil {
		return LandlockApplied{}, fmt.Errorf("apply landlock: %w", err)
	}
	applied.Carving.Withheld = compactSorted(slices.Concat(applied.Carving.Withheld, b.withheld, gone))
	return applied, nil
}

// targetLandlock is the first step of ApplyLandlock: the plan with each
// rule at the path it is held at now (landlockTarget) and carved around
// carveOuts (CarveLandlock), and what is so far known of how it is
// applied: the ABI, the grants held beneath a parent (Missing), and the
// carving, with the grants that moved since they were admitted withheld.
func targetLandlock(plan LandlockRuleset, carveOuts []guard.CarveOut,
	admitted map[string]string) (LandlockRuleset, LandlockApplied, error) {
	abi, err := LandlockABI()
	if err != nil {
		return LandlockRuleset{}, LandlockApplied{}, err
	}
	if abi < plan.ABI {
		return LandlockRuleset{}, LandlockApplied{},
			fmt.Errorf("the plan is for ABI %d, the kernel has ABI %d", plan.ABI, abi)
	}
	applied := LandlockApplied{ABI: plan.ABI}
	plan, moved := Moved(plan, admitted, guard.Resolved)
	targets := plan
	targets.Rules = nil
	var needsOut []string // needs led by a link out of every grant's reach
	names := spellings{carveOuts: carveOuts}
	for _, r := range plan.Rules {
		path, access, err := landlockTarget(r)
		if err != nil {
			return LandlockRuleset{}, LandlockApplied{}, fmt.Errorf("%s %s: %w", r.Why, r.Path, err)
		}
		if path == "" || access == 0 || r.Covered && path != r.Path {
			continue // a covered grant not there yet: the rule above holds it
		}
		// The carving compares paths as they resolve: the guarded
		// locations are listed in both forms.
		resolved := path
		if p, err := filepath.EvalSymlinks(path); err == nil {
			resolved = p
		}
		// A grant (or the operator's path) is held where this
		// resolution leads, so this one is checked against its
		// admission too: Moved's, made before it, may have met the
		// directory that a link replaced since.
		if was, ok := admitted[r.Path]; ok && (r.Grant || r.Operator) &&
			rejoin(resolved, path, r.Path) != was {
			moved = append(moved, r.Path)
			continue
		}
		// A need is held where its links lead, which no admission
		// checked: one led into a place only a grant that names it
		// reaches (a guarded location, a home's dot-entry), or to a
		// directory above one, whose carving may be past MaxCarvedRules
		// and its rule kept whole, is left out. The private temporary
		// directory lies in the runs' directory as written, and is kept.
		if !r.Grant && !r.Operator && !outOfReach(carveOuts, path) &&
			(outOfReach(carveOuts, resolved) ||
				aboveCarveOut(carveOuts, resolved) && !aboveCarveOut(carveOuts, path)) {
			needsOut = append(needsOut, r.Path)
			continue
		}
		if path != r.Path && !slices.Contains(applied.Missing, r.Path) {
			applied.Missing = append(applied.Missing, r.Path)
		}
		path = resolved
		if r.Grant || r.Operator {
			path = names.spelled(path)
		}
		targets.Rules = append(targets.Rules, LandlockRule{Path: path, Access: access, Grant: r.Grant,
			Covered: r.Covered, Why: r.Why, Image: r.Image, Operator: r.Operator})
	}
	carved, carving := CarveLandlock(targets, carveOuts, guard.ReadDir, MaxCarvedRules)
	carving.Withheld = compactSorted(append(carving.Withheld, moved...))
	carving.NeedsWithheld = compactSorted(needsOut)
	applied.Carving = carving
	return carved, applied, nil
}

// spellings are the paths by which a ruleset's carve-outs name their
// entries and the directories above them, by identity, read when first
// asked (spelled): a run with no grant reads none.
type spellings struct {
	carveOuts []guard.CarveOut
	at        map[guard.ID][]string
}

// spelled is the path by which the carve-outs name the entry at p, where
// p names by another name a carve-out or a directory above one, and p
// itself where none does, or where p is one of its names. The carving
// compares paths: a directory that ignores case takes /srv/SUB for the
// /srv/Sub above the receipts /srv/Sub/receipts, and a rule at /srv/SUB,
// above no carve-out by its path, was held whole, the receipts with it.
// At /srv/Sub it is carved. A location is listed as written and as it
// resolves, one entry at two paths: a rule at the one it resolves to
// stays there, since at the other a link lies on its way, and the rule
// would be withheld (a lent credential named through a home that is a
// link); of another name's, the one that resolves to itself is taken.
func (s *spellings) spelled(p string) string {
	if s.at == nil {
		s.at = map[guard.ID][]string{}
		seen := map[string]bool{}
		for _, c := range s.carveOuts {
			for at := c.Path; !seen[at]; at = filepath.Dir(at) {
				seen[at] = true
				if id, ok := guard.IDOf(at); ok {
					s.at[id] = append(s.at[id], at)
				}
			}
		}
	}
	id, ok := guard.IDOf(p)
	if !ok {
		return p
	}
	names := s.at[id]
	if len(names) == 0 || slices.Contains(names, p) {
		return p
	}
	for _, at := range names {
		if r, err := filepath.EvalSymlinks(at); err == nil && r == at {
			return at
		}
	}
	return names[0]
}

// rejoin is the path p resolves to, where at, p itself or a directory
// above it, resolved to resolved: what lies beneath at kept as written.
func rejoin(resolved, at, p string) string {
	rest, err := filepath.Rel(at, p)
	if err != nil {
		return p
	}
	return filepath.Join(resolved, rest)
}

// landlockBuild is a Landlock ruleset as installLandlock installs it: the
// rights it handles, each rule with the entry its path resolved to and
// the rights that entry carries, and the ports it connects to. A test
// reads it on any kernel before it is installed, or instead. It holds no
// descriptor: the build opens each rule's path, notes the entry it names
// (landlockEntry) and closes it, and the install opens it again, checks
// that it names that entry, adds the rule and closes it. A ruleset of any
// size so needs one descriptor at a time, whatever RLIMIT_NOFILE allows,
// and what is installed is what was built.
type landlockBuild struct {
	attr  llsyscall.RulesetAttr
	rules []builtRule
	ports []int
	// withheld are the grants left out: their path was gone, or a link
	// now lay on its way, or a file system of the kernel's was found there.
	withheld []string
}

// builtRule is one rule of a landlockBuild: the rule, the entry its path
// resolved to, and the rights the entry carries (landlockEntry.rights).
type builtRule struct {
	rule   LandlockRule
	entry  landlockEntry
	access uint64
}

// landlockEntry is the entry a rule's path named when the ruleset was
// built: its identity (device and inode) and its type.
type landlockEntry struct {
	id   fileID
	kind uint32 // st_mode & S_IFMT
	// onProc marks an entry of procfs, which a need alone can name (the
	// threads' directory, for libpsx; a grant is never held there):
	// procfs may number an entry anew each time it is looked up, so the
	// install checks instead that the path still names an entry of that
	// type on procfs.
	onProc bool
}

// fileID is the identity of a file: its device and inode.
type fileID struct{ dev, ino uint64 }

// errSwapped is why an install refuses a rule whose path no longer names
// the entry the build resolved it to: the ruleset is not installed.
var errSwapped = errors.New("the path names another entry than when the ruleset was built")

// entryOf is the entry st describes.
func entryOf(st *unix.Stat_t) landlockEntry {
	return landlockEntry{id: fileID{dev: uint64(st.Dev), ino: st.Ino}, kind: st.Mode & unix.S_IFMT}
}

// dir reports whether the entry is a directory.
func (e landlockEntry) dir() bool { return e.kind == unix.S_IFDIR }

// buildLandlock resolves each rule of plan to the entry its path names
// (resolveRule): a grant's rule and a carved one on their path opened
// through no link, left out when it is gone or a link now lies on its
// way, the grants so left out said in withheld. The interpreter's
// executable (LandlockRule.Image) is held only on the file this process
// runs (selfImage), and left out where its path names another. Where
// libpsx lists the threads, their directory is given a rule to read it.
// It makes no Landlock call and keeps no descriptor open: one is open at
// a time.
func buildLandlock(plan LandlockRuleset) (landlockBuild, error) {
	b := landlockBuild{
		attr: llsyscall.RulesetAttr{HandledAccessFS: plan.HandledFS, HandledAccessNet: plan.HandledNet,
			Scoped: plan.Scoped},
		ports: plan.ConnectTCP,
	}
	kinds := fsKinds{}
	image, imageErr := runningImage()
	add := func(r LandlockRule) (bool, error) {
		e, ok, err := resolveRule(r, kinds)
		if err != nil {
			return false, fmt.Errorf("%s %s: %w", r.Why, r.Path, err)
		}
		if !ok || r.Image && (imageErr != nil || e.id != image) {
			return false, nil
		}
		if access := e.rights(r.Access); access != 0 {
			b.rules = append(b.rules, builtRule{rule: r, entry: e, access: access})
		}
		return true, nil
	}
	for _, r := range plan.Rules {
		added, err := add(r)
		if err != nil {
			return landlockBuild{}, err
		}
		if !added && (r.Grant || r.Operator) && !r.Carved && !r.Covered {
			b.withheld = append(b.withheld, r.Path)
		}
	}
	if psxListsTasks && plan.HandledFS&LandlockFSReadDir != 0 {
		task := LandlockRule{Path: "/proc/" + strconv.Itoa(os.Getpid()) + "/task",
			Access: LandlockFSReadDir,
			Why:    "libpsx lists the threads"}
		if _, err := add(task); err != nil {
			return landlockBuild{}, err
		}
	}
	return b, nil
}

// selfImage is the kernel's link to the file this process runs: that
// file for as long as the process lives, whatever its path names since.
const selfImage = "/proc/self/exe"

// runningImage is the identity of the file this process runs (selfImage).
func runningImage() (fileID, error) {
	var st unix.Stat_t
	if err := unix.Stat(selfImage, &st); err != nil {
		return fileID{}, fmt.Errorf("stat %s: %w", selfImage, err)
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, nil
}

// installLandlock makes the ruleset of b and restricts every thread to
// it: no_new_privs and landlock_restrict_self through
// syscall.AllThreadsSyscall (psx). Each rule's path is opened again as
// the build opened it (openRule), one at a time, and its rule added on
// that descriptor only where it names the entry the build resolved
// (landlockEntry.check). A path gone since the build, now naming another
// entry (errSwapped), or with a link now on its way (swappedSince), leaves
// its rule out, which only narrows the ruleset: gone are the grants (and
// the operator's paths) so left out. A path that cannot be opened for
// another reason fails the install before any thread is restricted.
// What each rule holds was decided by buildLandlock.
func installLandlock(b landlockBuild) (gone []string, err error) {
	ruleset, err := llsyscall.LandlockCreateRuleset(&b.attr, 0)
	if err != nil {
		return nil, fmt.Errorf("landlock_create_ruleset: %w", err)
	}
	defer unix.Close(ruleset)
	for _, r := range b.rules {
		fd, err := openRule(r.rule)
		if err == nil {
			err = r.entry.check(fd)
			if err != nil {
				unix.Close(fd)
			}
		}
		if swappedSince(err) {
			if (r.rule.Grant || r.rule.Operator) && !r.rule.Carved {
				gone = append(gone, r.rule.Path)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: opened again to be installed: %w", r.rule.Why, r.rule.Path, err)
		}
		attr := llsyscall.PathBeneathAttr{ParentFd: fd, AllowedAccess: r.access}
		err = llsyscall.LandlockAddPathBeneathRule(ruleset, &attr, 0)
		unix.Close(fd)
		if err != nil {
			return nil, fmt.Errorf("%s %s: landlock_add_rule: %w", r.rule.Why, r.rule.Path, err)
		}
	}
	for _, port := range b.ports {
		attr := llsyscall.NetPortAttr{AllowedAccess: LandlockNetConnectTCP, Port: uint64(port)}
		if err := llsyscall.LandlockAddNetPortRule(ruleset, &attr, 0); err != nil {
			return nil, fmt.Errorf("landlock_add_rule port %d: %w", port, err)
		}
	}
	if err := llsyscall.AllThreadsPrctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS) on every thread: %w", err)
	}
	if err := llsyscall.AllThreadsLandlockRestrictSelf(ruleset, 0); err != nil {
		return nil, fmt.Errorf("landlock_restrict_self on every thread: %w", err)
	}
	landlocked.Store(true)
	return gone, nil
}

// swappedSince reports whether err says a rule's path no longer names the entry
// the build resolved it to: it is gone, a link now lies on its way (a
// path opened through no link: ELOOP from openat2, ENOTDIR one component
// at a time), or it names another entry (errSwapped).
func swappedSince(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) ||
		errors.Is(err, unix.ENOTDIR) || errors.Is(err, errSwapped)
}

// check reports, as an error wrapping errSwapped, where the file open at
// fd is not entry e: another device or inode, or another type (for an
// entry of procfs, another type or not on procfs).
func (e landlockEntry) check(fd int) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("fstat: %w", err)
	}
	now := entryOf(&st)
	if e.onProc {
		if now.kind == e.kind && onProcFS(fd) {
			return nil
		}
		return fmt.Errorf("%w: an entry of procfs of type %#o was built, one of type %#o found",
			errSwapped, e.kind, now.kind)
	}
	if now != e {
		return fmt.Errorf("%w: built on device %d inode %d type %#o, found device %d inode %d type %#o",
			errSwapped, e.id.dev, e.id.ino, e.kind, now.id.dev, now.id.ino, now.kind)
	}
	return nil
}

// openRule opens the path of rule r as a path only: a grant's and a
// carved entry's (and one the operator named) as they resolved, through
// no link (openNoLinks); a need's as it resolves, links followed, as the
// plan's target was found.
func openRule(r LandlockRule) (int, error) {
	if r.Carved || r.Grant || r.Operator {
		return openNoLinks(r.Path)
	}
	return unix.Open(r.Path, unix.O_PATH|unix.O_CLOEXEC, 0)
}

// resolveRule is the entry the path of rule r names, opened by openRule
// and closed: for a grant's, a carved entry's and one the operator named,
// pinned (fsKinds.pin), false when that cannot be done; a need's, any
// entry.
func resolveRule(r LandlockRule, kinds fsKinds) (landlockEntry, bool, error) {
	if r.Carved || r.Grant || r.Operator {
		e, ok := kinds.pin(r.Path)
		return e, ok, nil
	}
	fd, err := openRule(r)
	if err != nil {
		return landlockEntry{}, false, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return landlockEntry{}, false, err
	}
	e := entryOf(&st)
	e.onProc = onProcFS(fd)
	return e, true, nil
}

// pinEntry is the entry at p, opened through no link (openNoLinks) and
// closed, for its rule to be held on that entry: an entry swapped for a
// link to a guarded location after it was listed or resolved, or one
// beneath a directory so swapped, is not followed. false when the entry
// is gone, lies beyond a link, is a link or a block device, lies on a file
// system of the kernel's (onDataFS), or cannot be opened.
func pinEntry(p string) (landlockEntry, bool) { return fsKinds(nil).pin(p) }

// fsKinds remembers, by device, whether a file system is one of data
// (onDataFS), for the rules of one ruleset: one fstatfs a file system,
// not one an entry. nil remembers nothing.
type fsKinds map[uint64]bool

// pin is pinEntry, asking fstatfs once a device.
func (kinds fsKinds) pin(p string) (landlockEntry, bool) {
	fd, err := openNoLinks(p)
	if err != nil {
		return landlockEntry{}, false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return landlockEntry{}, false
	}
	// A block device is never pinned, nor a character device but the few
	// of /dev a grant may reach (guard.RefusesDevice): a grant of a device
	// node made elsewhere is withheld, whatever the mounts hold.
	t := st.Mode & unix.S_IFMT
	_, refusedDevice := guard.RefusesDevice(p, fs.ModeDevice|fs.ModeCharDevice)
	if t == unix.S_IFLNK || t == unix.S_IFBLK || t == unix.S_IFCHR && refusedDevice {
		return landlockEntry{}, false
	}
	// Anything else only on a file system of data: a grant swapped, since
	// it was admitted, for a mount of the kernel's own (a procfs mounted
	// on it) is not held.
	if t != unix.S_IFCHR && !kinds.onData(fd, uint64(st.Dev)) {
		return landlockEntry{}, false
	}
	return entryOf(&st), true
}

// onData is onDataFS for the file open at fd on device dev.
func (kinds fsKinds) onData(fd int, dev uint64) bool {
	if data, ok := kinds[dev]; ok {
		return data
	}
	data := onDataFS(fd)
	if kinds != nil {
		kinds[dev] = data
	}
	return data
}

// onDataFS reports whether the file open at fd lies on a file system of
// data, as its statfs(2) magic says (guard.DataMagic): false for the
// kernel's own (procfs, sysfs...), any the list does not know, and where
// fstatfs fails.
func onDataFS(fd int) bool {
	var sf unix.Statfs_t
	if err := unix.Fstatfs(fd, &sf); err != nil {
		return false
	}
	_, ok := guard.DataMagic(uint64(sf.Type))
	return ok
}

// onProcFS reports whether the file open at fd lies on a procfs.
func onProcFS(fd int) bool {
	var sf unix.Statfs_t
	return unix.Fstatfs(fd, &sf) == nil && sf.Type == unix.PROC_SUPER_MAGIC
}

// OpenNoLinks opens the absolute path p as a path only, following no
// link on its way nor at its end (openNoLinks), for the supervisor's
// side to make a granted directory in (confine.MakeGranted).
func OpenNoLinks(p string) (int, error) { return openNoLinks(p) }

// openNoLinks opens the absolute path p as a path only, following no link
// on its way nor at its end (a link there is opened itself): openat2 with
// RESOLVE_NO_SYMLINKS, or where a filter refuses openat2 (Sabline's own
// answers ENOSYS, older container runtimes' EPERM), one component at a
// time (openEachNoLink), which holds the same.
func openNoLinks(p string) (int, error) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &how)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		return openEachNoLink(p)
	}
	return fd, err
}

// openEachNoLink opens the absolute path p as a path only, one component
// at a time beneath the last, none followed: a link on the way is opened
// itself, and the next component beneath it is refused (ENOTDIR).
func openEachNoLink(p string) (int, error) {
	fd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for _, name := range strings.Split(filepath.Clean(p), "/") {
		if name == "" {
			continue
		}
		next, err := unix.Openat(fd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// rights are the rights of access the entry can carry: a file's only
// where it is not a directory.
func (e landlockEntry) rights(access uint64) uint64 {
	if !e.dir() {
		return access & landlockFileRights
	}
	return access
}

// landlockTarget returns where rule r is held and with which rights: its
// own path, or for a grant that cannot be found its nearest parent that
// can; a file keeps only the file rights. A grant is not found where stat
// fails on it for any reason, as the level here finds one that is missing
// (confine.OnThisMachine): it does not exist, a file is on its way
// (ENOTDIR: fs:read:notes.txt/x, which nothing can be beneath while the
// file is there), or a directory on its way may not be searched (EACCES:
// another user's home). Such a grant is held beneath the nearest
// directory above it, as the level's reason says of a grant that does not
// exist; it failed the whole ruleset before, and the run went on with no
// Landlock at all. The path is "" for a need that cannot be found: its
// rule is left out, which only narrows the ruleset.
func landlockTarget(r LandlockRule) (string, uint64, error) {
	path := r.Path
	lost := false // the grant was not found: held beneath a directory
	for {
		fi, err := os.Stat(path)
		if err == nil && lost && !fi.IsDir() {
			err = syscall.ENOTDIR // a file on the way holds nothing beneath it
		}
		switch {
		case err == nil:
			access := r.Access
			if !fi.IsDir() {
				access &= landlockFileRights
			}
			return path, access, nil
		case !r.Grant:
			return "", 0, nil
		case path == "/":
			return "", 0, err
		}
		lost = true
		path = filepath.Dir(path)
	}
}
