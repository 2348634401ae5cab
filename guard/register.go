package guard

// The register of Sabline's own locations on this machine.
//
// Each Sabline process knows its own receipts store, token file and runs
// directory; another Sabline beside it (a server, a pool in another
// program, a command-line run of another user) has its own, and a run's
// grant could reach them. The register is one directory every Sabline on
// the machine agrees on (RegisterDir): each process adds an entry for each
// location it makes or opens (Join), and every run reads the register when
// it builds its guard set (ReadRegister) and guards each registered
// location as Sabline's own: no grant reaches it, in the language or in
// the kernel.
//
// The directory is made mode 01777 (sticky, as /tmp is): every user may
// add entries, and none may remove another's. It is trusted only when it
// is a directory (not a link), sticky, and owned by root or by the user
// running Sabline: the owner of a sticky directory may remove anything in
// it, so a register another unprivileged user owns is not one to rely on.
//
// Each user's entries are in a subdirectory of the register of its own,
// named "u" and its uid in decimal (u0 is root's, u1000 uid 1000's),
// made by that user (Join), mode 0755: every user reads it, only its
// owner writes in it. A reader trusts a subdirectory only when it is a
// directory (not a link) owned by the uid its name gives, that no other
// user may write in; any other file under such a name is passed over
// (Refused), and a Join whose own subdirectory is not its own fails
// (errPlantedSubdir), naming the owner and what to do, rather than write
// where another user could remove its entries. Entries written by older
// Sablines, as files at the register's top, are still honoured.
//
// An entry is one small file, named by the first 32 hexadecimal digits of
// the sha256 of the path it names (a suffix "-HEX" when that name is taken
// by another user's file), holding the absolute path and a newline. Anyone
// on the machine may write entries, so the reader is bounded
// (MaxRegisterEntries, MaxRegisterEntryBytes, maxRegisterNames,
// maxSubdirNames) and honours an entry only when the path it names is
// owned by the entry's owner (root's entries name anything, and the
// reading user's own narrow only its runs): a user cannot make another
// user's files unreachable. An entry can only narrow
// what runs reach, never widen it. The reader reads this user's
// subdirectory and root's first, each found by its name (never by listing the register) and read whole
// within its own bounds: only their owners can fill them, so no other
// user can push their entries out of what a read reads. Then, within one
// more read's bounds, the old entries at the register's top (this user's
// and root's first) and the other users' subdirectories. An entry naming
// a path that does not exist now is passed over: it holds nothing to
// take, and a location made again joins again. A Join that adds an entry
// removes the entries naming nothing that its process may remove (in its
// own subdirectory; at the register's top, its user's, and root's any):
// the register holds what is there, not every location a Sabline ever
// made. A path missing to one process may be there for another in
// another mount namespace, so a Join also holds the entries it joins for
// its view (viewTag: its boot and mount namespace), a link to each in its
// subdirectory's ".held" (hold), and an entry another view holds is left
// (letGo): removed by that view's next Join, or once its boot is gone.
// A Sabline older than the holds removes an entry's name whatever holds
// it, so a read also takes the holds of this boot's views in this user's
// subdirectory and root's, whose names are gone, as entries (heldOnly);
// and it holds nothing, so a prune leaves an entry no view holds that was
// written in this boot (unheldOfThisBoot): such a Sabline may see its
// path in a mount namespace of its own.
//
// Limits: every Sabline that must guard the others has to read the same
// register (the same SABLINE_REGISTER, and no private /var/tmp such as
// systemd's PrivateTmp gives a service); a location is guarded by the runs
// whose guard set was built after it joined (a pool builds its set when
// it starts); on Windows the owners of entries and paths are not compared,
// and each Sabline writes its entries at the register's top, as older
// Sablines did (no subdirectory can be told to be its user's there); a
// Sabline older than the subdirectories reads only the register's top.

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sabline/sabline/codes"
)

// RegisterEnv names the environment variable that sets the register's
// directory, an absolute path. It is the operator's: every Sabline that
// must guard the others' locations must be started with the same value.
const RegisterEnv = "SABLINE_REGISTER"

// The bounds of what ReadRegister reads: anyone on the machine may write
// entries.
const (
	// MaxRegisterEntries is how many entries one read opens; the rest
	// are counted (Registered.Unread) and not guarded.
	MaxRegisterEntries = 4096
	// MaxRegisterEntryBytes is the largest entry honoured.
	MaxRegisterEntryBytes = 4096
)

// maxSubdirNames is how many names one read lists of this user's
// subdirectory of the register, and of root's: only their owners can
// fill them.
const maxSubdirNames = 16 * MaxRegisterEntries

// maxRegisterNames is how many names one read lists of the rest of the
// register: its top and the other users' subdirectories together, the
// entries it opens first among them. The names past it, in the
// directory's order, are neither listed nor ranked: another user who
// fills the register's top past it can leave the other users' entries,
// and the old ones at the top, among them (Registered.Unlisted); not
// this user's or root's in their subdirectories, read before and apart.
// A test lowers it.
var maxRegisterNames = maxSubdirNames

// errUntrustedRegister is the error of a register directory that is not
// one to rely on: a link, not a directory, not sticky, or owned by a user
// who is neither root nor the one running Sabline.
var errUntrustedRegister = errors.New("the register is not one to trust")

// errPlantedSubdir is the error of a Join whose user's subdirectory of
// the register (subdirName) is there and not one to write in: another
// user's, a link, not a directory, or one other users may write in.
var errPlantedSubdir = errors.New("your subdirectory of the register is not yours alone")

// registerAdvice says what to do about a register that cannot be used.
const registerAdvice = "make it as root (install -d -m 1777 -o root DIR), or set " + RegisterEnv +
	" to a directory owned by you or root, mode 1777, that every Sabline on this machine is started " +
	"with"

// RegisterDir is the register's directory: the value of RegisterEnv when
// it is set, else this system's (/var/tmp/sabline-guarded on Unix,
// %ProgramData%\sabline\guarded on Windows).
func RegisterDir() (string, error) {
	if d := os.Getenv(RegisterEnv); d != "" {
		if !filepath.IsAbs(d) {
			return "", fmt.Errorf("register: %s=%q is not an absolute path", RegisterEnv, d)
		}
		return filepath.Clean(d), nil
	}
	return defaultRegisterDir(), nil
}

// subdirName is the name of the subdirectory of the register holding
// the entries of the user uid: "u" and the uid in decimal.
func subdirName(uid int) string { return "u" + strconv.Itoa(uid) }

// subdirUID is the uid whose subdirectory name would be (subdirName), and
// whether it is such a name: "u" and a uid in decimal, written as
// subdirName writes it.
func subdirUID(name string) (int, bool) {
	digits, ok := strings.CutPrefix(name, "u")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, 10, 32)
	if err != nil || strconv.FormatUint(n, 10) != digits {
		return 0, false
	}
	return int(n), true
}

// judgeSubdir is why the file fi describes, a user's subdirectory of the
// register by its name, is not to be relied on as the entries of uid, ""
// when it is: a directory (not a link) owned by uid, that no other user
// may write in (and so remove an entry from).
func judgeSubdir(fi fs.FileInfo, uid int) string {
	switch owner := fileOwner(fi); {
	case fi.Mode()&fs.ModeSymlink != 0:
		return "a link"
	case !fi.IsDir():
		return "not a directory (" + fi.Mode().Type().String() + ")"
	case owner != uid:
		return fmt.Sprintf("owned by uid %d, not by uid %d, whose entries it would hold", owner, uid)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Sprintf("mode %s: other users may write in it, and remove its entries", fi.Mode())
	}
	return ""
}

// entryName is the name of the entry that registers the absolute, clean
// path p: the first 32 hexadecimal digits of its sha256.
func entryName(p string) string {
	sum := sha256.Sum256([]byte(p))
	return hex.EncodeToString(sum[:16])
}

// registerEntry is one file of the register as ReadRegister found it.
type registerEntry struct {
	// Sub is the user's subdirectory of the register it is in
	// (subdirName), "" for an entry at the register's top.
	Sub string
	// Name is the file's name in the register (in Sub).
	Name string
	// Mode is its type and permissions, as lstat gave them.
	Mode fs.FileMode
	// Owner is the uid of its owner; -1 where ownership is not compared
	// (Windows).
	Owner int
	// Data is what it holds, at most MaxRegisterEntryBytes+1 bytes.
	Data []byte
}

// pathOwners reports whether the path p exists and the uids owning it,
// as written and with links followed; no uids where ownership is not
// compared (Windows).
type pathOwners func(p string) (owners []int, exists bool)

// Registered is what a read of the register found.
type Registered struct {
	// Dir is the register's directory.
	Dir string
	// Paths are the locations honoured: absolute, clean, each once.
	Paths []string
	// Owners are those of Paths honoured as another user's own (neither
	// root's entry nor this user's), each with that user's uid: a set
	// guards them only where that user owns what is there when it is
	// built (Inputs.Owned).
	Owners map[string]int
	// Refused are the entries passed over, each with why.
	Refused []RefusedEntry
	// Missing counts the entries naming a path that does not exist now.
	Missing int
	// Unread counts the entries past MaxRegisterEntries (or past the
	// names one read lists, or in other users' subdirectories past
	// MaxRegisterEntries of them), which were not read: their locations
	// are not guarded.
	Unread int
	// Unlisted says the register held more names than one read lists:
	// those past them were not even counted (Unread counts them as one),
	// and any of them may name a location that is not guarded: other
	// users' entries, and the old entries at the register's top (this
	// user's and root's among them, perhaps). This user's and root's in
	// their subdirectories are read first, apart.
	Unlisted bool
}

// RefusedEntry is an entry the reader passed over, or a user's
// subdirectory it did not rely on.
type RefusedEntry struct {
	// Name is the entry's name in the register (after its user's
	// subdirectory and a separator, for an entry in one).
	Name string `json:"name"`
	// Why says why it was passed over.
	Why string `json:"why"`
}

// Warning is what a run's operator should know of the read, "" for
// nothing: the entries it could not read.
func (r Registered) Warning() string {
	switch {
	case r.Unlisted:
		return fmt.Sprintf("the register %s holds more than the %d names one read lists; at least %d "+
			"entries were not read, and the locations they name are not guarded: other users' "+
			"entries, and old ones at the register's top (yours and root's among them perhaps; "+
			"those in your and root's own subdirectories are read first): remove the entries "+
			"flooding it", r.Dir, maxRegisterNames, r.Unread)
	case r.Unread > 0:
		return fmt.Sprintf("the register %s had more than %d entries; %d were not read, and the "+
			"locations they name are not guarded",
			r.Dir, MaxRegisterEntries, r.Unread)
	}
	return ""
}

// parseRegister judges the entries of a register, in the order given, and
// returns the paths to guard. It reads nothing but through owners. It
// reads at most MaxRegisterEntries entries and counts the rest as
// Unread; it passes over (Refused) an entry that is not a regular file,
// is larger than MaxRegisterEntryBytes, does not hold one absolute clean
// path and a newline, is not named for that path (entryName, or entryName
// and "-" and hexadecimal digits), or names a path owned by another user
// than the entry's owner (root's entries name anything); and it counts
// (Missing) an entry naming a path that does not exist. An entry of me,
// the user reading, is honoured whoever owns its path: it narrows only
// that user's own runs (a store of its own in a directory root made).
// A name beginning with "." is an entry being written, and is skipped.
func parseRegister(entries []registerEntry, owners pathOwners, me int) Registered {
	var r Registered
	seen := map[string]bool{}
	read := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name, ".") {
			continue
		}
		if read == MaxRegisterEntries {
			r.Unread++
			continue
		}
		read++
		p, why := judgeEntry(e)
		if why != "" {
			r.Refused = append(r.Refused, RefusedEntry{Name: e.at(), Why: why})
			continue
		}
		uids, exists := owners(p)
		if !exists {
			r.Missing++
			continue
		}
		theirs := e.Owner > 0 && e.Owner != me // judged by the path's owners
		if theirs {
			if i := slices.IndexFunc(uids, func(u int) bool { return u != e.Owner }); i >= 0 {
				r.Refused = append(r.Refused, RefusedEntry{Name: e.at(),
					Why: fmt.Sprintf("names %s, owned by uid %d, not by the entry's owner (uid %d)", p, uids[i],
						e.Owner)})
				continue
			}
		}
		if !seen[p] {
			seen[p] = true
			r.Paths = append(r.Paths, p)
			if theirs {
				r.Owners = addOwner(r.Owners, p, e.Owner)
			}
		}
	}
	return r
}

// addOwner is owners with p owned by uid.
func addOwner(owners map[string]int, p string, uid int) map[string]int {
	if owners == nil {
		owners = map[string]int{}
	}
	owners[p] = uid
	return owners
}

// at is where e is in the register: its name, after its user's
// subdirectory for an entry in one.
func (e registerEntry) at() string { return filepath.Join(e.Sub, e.Name) }

// judgeEntry is the path entry e names, or why it is refused.
func judgeEntry(e registerEntry) (string, string) {
	if !e.Mode.IsRegular() {
		return "", "not a regular file (" + e.Mode.Type().String() + ")"
	}
	if len(e.Data) > MaxRegisterEntryBytes {
		return "", fmt.Sprintf("larger than %d bytes", MaxRegisterEntryBytes)
	}
	p, ok := strings.CutSuffix(string(e.Data), "\n")
	switch {
	case !ok:
		return "", "does not end with a newline"
	case p == "":
		return "", "names no path"
	case strings.ContainsAny(p, "\n\x00"):
		return "", "holds a newline or a NUL inside its path"
	case !filepath.IsAbs(p) || filepath.Clean(p) != p:
		return "", "its path is not absolute and clean"
	}
	if !namedFor(e.Name, p) {
		return "", "its name is not the digest of the path it holds"
	}
	return p, ""
}

// namedFor reports whether name is an entry's name for the path p:
// entryName(p), or that, "-" and 1 to 32 lower-case hexadecimal digits.
func namedFor(name, p string) bool {
	rest, ok := strings.CutPrefix(name, entryName(p))
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	suffix, ok := strings.CutPrefix(rest, "-")
	if !ok || suffix == "" || len(suffix) > 32 {
		return false
	}
	return strings.Trim(suffix, "0123456789abcdef") == ""
}

// RegisteredLocations are what a run guards as Sabline's from the
// register of this machine (RegisterDir): the register itself, when it
// exists, and each location ReadRegister honours; and what the read
// found, whose Owners a set is built with (Inputs.Owned). On an error
// the register's own directory is still among them.
func RegisteredLocations() ([]string, Registered, error) {
	dir, err := RegisterDir()
	if err != nil {
		return nil, Registered{}, err
	}
	var out []string
	if _, err := os.Lstat(dir); err == nil {
		out = append(out, dir)
	}
	r, err := ReadRegister(dir)
	return append(out, r.Paths...), r, err
}

// ReadRegister reads the register in dir: this user's subdirectory and
// root's first, each found by its name and read within its own bounds
// (only their owners can fill them), then, within one more read's bounds,
// the entries at the register's top (this user's and root's first, then
// the others', by name) and the other users' subdirectories (by uid, each
// by name) after them; each group parsed by parseRegister. A subdirectory
// not to rely on (judgeSubdir) is passed over (Refused). A register that
// does not exist holds nothing. A register that is not trusted
// (errUntrustedRegister) or cannot be read is an error, and then nothing
// of it is guarded.
func ReadRegister(dir string) (Registered, error) {
	r := Registered{Dir: dir}
	switch err := trustRegister(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return r, nil
	case err != nil:
		return r, fmt.Errorf("read the register %s: %w", dir, err)
	}
	seen := map[string]bool{}
	add := func(got Registered, unlisted bool) {
		for _, p := range got.Paths {
			if !seen[p] {
				seen[p] = true
				r.Paths = append(r.Paths, p)
				if uid, ok := got.Owners[p]; ok {
					r.Owners = addOwner(r.Owners, p, uid)
				}
			}
		}
		r.Refused = append(r.Refused, got.Refused...)
		r.Missing += got.Missing
		r.Unread += got.Unread
		if unlisted {
			r.Unread++
			r.Unlisted = true
		}
	}
	refuse := func(uid int, why string) {
		r.Refused = append(r.Refused, RefusedEntry{Name: subdirName(uid),
			Why: "a user's subdirectory, " + why + ": its entries are not read"})
	}
	// This user's and root's, whole: no other user can fill them.
	me := currentUser()
	var firsts []int
	if me >= 0 {
		firsts = append(firsts, me)
		if me != 0 {
			firsts = append(firsts, 0)
		}
	}
	for _, uid := range firsts {
		entries, _, more, why := readSubdir(dir, uid, maxSubdirNames)
		if why != "" {
			refuse(uid, why)
			continue
		}
		entries = append(entries, heldOnly(dir, uid, entries, maxSubdirNames)...)
		loadEntries(dir, entries)
		add(parseRegister(entries, pathOwnersOf, me), more)
	}

	// The rest, within one read's bounds: the register's top, and the
	// other users' subdirectories it lists.
	f, err := os.Open(dir)
	if err != nil {
		return r, fmt.Errorf("read the register %s: %w", dir, err)
	}
	names, err := f.Readdirnames(maxRegisterNames + 1)
	f.Close()
	if err != nil && err != io.EOF {
		return r, fmt.Errorf("read the register %s: %w", dir, err)
	}
	unlisted := len(names) > maxRegisterNames
	if unlisted {
		names = names[:maxRegisterNames]
	}
	var top []registerEntry
	var others []int
	for _, name := range names {
		if strings.HasPrefix(name, ".") {
			continue
		}
		if uid, ok := subdirUID(name); ok && me >= 0 {
			if !slices.Contains(firsts, uid) {
				others = append(others, uid)
			}
			continue
		}
		fi, err := os.Lstat(filepath.Join(dir, name))
		if err != nil {
			continue // removed since it was listed
		}
		top = append(top, registerEntry{Name: name, Mode: fi.Mode(), Owner: fileOwner(fi)})
	}
	rank := func(e registerEntry) int {
		switch e.Owner {
		case me:
			return 0
		case 0:
			return 1
		}
		return 2
	}
	sort.SliceStable(top, func(i, j int) bool {
		if ri, rj := rank(top[i]), rank(top[j]); ri != rj {
			return ri < rj
		}
		return top[i].Name < top[j].Name
	})
	theirs := slices.IndexFunc(top, func(e registerEntry) bool { return rank(e) == 2 })
	if theirs < 0 {
		theirs = len(top)
	}
	rest := slices.Clip(top[:theirs]) // this user's and root's old entries first
	slices.Sort(others)
	if len(others) > MaxRegisterEntries { // each may hold entries: counted, not read
		r.Unread += len(others) - MaxRegisterEntries
		others = others[:MaxRegisterEntries]
	}
	left := maxRegisterNames - len(names)
	for _, uid := range others {
		if left < 0 {
			unlisted = true
			break
		}
		entries, listed, more, why := readSubdir(dir, uid, left)
		if why != "" {
			refuse(uid, why)
			continue
		}
		rest = append(rest, entries...)
		left -= listed
		if more {
			unlisted, left = true, -1
		}
	}
	rest = append(rest, top[theirs:]...)
	loadEntries(dir, rest)
	add(parseRegister(rest, pathOwnersOf, me), unlisted)
	return r, nil
}

// readSubdir lists at most limit names of the subdirectory of uid in the
// register dir (subdirName), judged as it is (judgeSubdir) and again once
// opened without following a link: its entries by name, how many names
// it listed, and whether it held more.
// It is nothing when there is no such subdirectory, and why when it is
// not one to rely on (judgeSubdir) or cannot be read.
func readSubdir(dir string, uid, limit int) (entries []registerEntry, listed int, more bool,
	why string) {
	name := subdirName(uid)
	sub := filepath.Join(dir, name)
	fi, err := os.Lstat(sub)
	if err != nil {
		return nil, 0, false, "" // none, or removed since it was listed
	}
	if why := judgeSubdir(fi, uid); why != "" {
		return nil, 0, false, why
	}
	f, err := openNoFollow(sub)
	if err != nil {
		return nil, 0, false, "cannot be opened: " + err.Error()
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, 0, false, "cannot be read: " + err.Error()
	}
	if why := judgeSubdir(fi, uid); why != "" { // changed since the lstat
		return nil, 0, false, why
	}
	names, err := f.Readdirnames(max(limit, 0) + 1)
	if err != nil && err != io.EOF {
		return nil, 0, false, "cannot be read: " + err.Error()
	}
	if more = len(names) > limit; more {
		names = names[:max(limit, 0)]
	}
	slices.Sort(names)
	for _, n := range names {
		if strings.HasPrefix(n, ".") {
			continue
		}
		fi, err := os.Lstat(filepath.Join(sub, n))
		if err != nil {
			continue // removed since it was listed
		}
		entries = append(entries, registerEntry{Sub: name, Name: n, Mode: fi.Mode(),
			Owner: fileOwner(fi)})
	}
	return entries, len(names), more, ""
}

// heldOnly are the entries of the subdirectory of uid in the register dir
// that only a hold of a view of this boot keeps (hold): a link in
// .held/VIEW whose name the subdirectory no longer lists, among listed
// (readSubdir's entries of it). A Sabline older than the holds prunes an
// entry whose path it does not see (in a mount namespace of its own,
// where a tmpfs hides it) and leaves the hold, which it does not know of;
// the view that holds it still relies on the path, so it is read as the
// entry it was. .held and each view's directory are trusted as the
// subdirectory is (judgeSubdir); at most limit names are listed, over
// every view. Nothing where the view cannot be told (viewTag "").
func heldOnly(dir string, uid int, listed []registerEntry, limit int) []registerEntry {
	boot, _, ok := strings.Cut(viewTag(), "-")
	if !ok {
		return nil
	}
	sub := filepath.Join(subdirName(uid), heldName)
	views, why := readOwnedDir(filepath.Join(dir, sub), uid, limit)
	if why != "" {
		return nil
	}
	seen := map[string]bool{}
	for _, e := range listed {
		seen[e.Name] = true
	}
	limit -= len(views)
	var out []registerEntry
	for _, v := range views {
		if limit <= 0 {
			break
		}
		if b, _, _ := strings.Cut(v, "-"); b != boot {
			continue // an earlier boot's view: gone, with what it relied on
		}
		at := filepath.Join(sub, v)
		names, why := readOwnedDir(filepath.Join(dir, at), uid, limit)
		if why != "" {
			continue
		}
		limit -= len(names)
		for _, n := range names {
			if seen[n] || strings.HasPrefix(n, ".") {
				continue
			}
			fi, err := os.Lstat(filepath.Join(dir, at, n))
			if err != nil {
				continue // let go since it was listed
			}
			seen[n] = true
			out = append(out, registerEntry{Sub: at, Name: n, Mode: fi.Mode(),
				Owner: fileOwner(fi)})
		}
	}
	return out
}

// readOwnedDir lists at most limit names, sorted, of the directory p of
// the register, opened without following a link, when it is one to rely
// on as uid's (judgeSubdir, as listed and as opened); else why not.
func readOwnedDir(p string, uid, limit int) ([]string, string) {
	if limit <= 0 {
		return nil, "" // Readdirnames would list them all
	}
	f, err := openNoFollow(p)
	if err != nil {
		return nil, "cannot be opened: " + err.Error()
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, "cannot be read: " + err.Error()
	}
	if why := judgeSubdir(fi, uid); why != "" {
		return nil, why
	}
	names, err := f.Readdirnames(limit)
	if err != nil && err != io.EOF {
		return nil, "cannot be read: " + err.Error()
	}
	slices.Sort(names)
	return names, ""
}

// loadEntries reads what each of the first MaxRegisterEntries entries
// holds, those parseRegister reads, from the register dir (readEntry).
func loadEntries(dir string, entries []registerEntry) {
	for i := range entries[:min(len(entries), MaxRegisterEntries)] {
		if e := &entries[i]; e.Mode.IsRegular() {
			e.Data = readEntry(filepath.Join(dir, e.at()), e.Owner)
		}
	}
}

// Join makes each of paths known to the register, making the register
// when it does not exist (mode 01777) and this user's subdirectory of it
// (userDir), where it writes: every run on this machine that builds its
// guard set after this guards them as Sabline's own. A path that does not
// exist is passed over; an entry already there is kept. Each entry is
// held for this process's view (hold), so that a Join in another mount
// namespace, which may not see its path, leaves it. A Join that adds an
// entry removes those that name nothing now and no other view holds
// (prune): the register grows only by what is there. The error says which register and why,
// and wraps errUntrustedRegister for a register that is not one to rely
// on, errPlantedSubdir for a subdirectory of this user's name that is not
// this user's alone.
func Join(paths ...string) error {
	dir, err := RegisterDir()
	if err != nil {
		return fmt.Errorf("join the register: %w", err)
	}
	if err := makeRegister(dir); err != nil {
		return fmt.Errorf("join the register %s: %w", dir, err)
	}
	at, err := userDir(dir)
	if err != nil {
		return fmt.Errorf("join the register %s: %w", dir, err)
	}
	added := false
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("join the register %s: %q is not an absolute path", dir, p)
		}
		p = filepath.Clean(p)
		if strings.ContainsAny(p, "\n\x00") {
			return fmt.Errorf("join the register %s: %q holds a newline or a NUL", dir, p)
		}
		if _, err := os.Lstat(p); err != nil {
			continue // nothing there to take; made again, it joins again
		}
		wrote, err := writeEntry(at, p)
		if err != nil {
			return fmt.Errorf("join the register %s with %s: %w", dir, p, err)
		}
		added = added || wrote
		if at != dir {
			if err := hold(at, p); err != nil {
				return fmt.Errorf("join the register %s with %s: hold its entry: %w", dir, p, err)
			}
		}
	}
	if added {
		prune(dir)
	}
	return nil
}

// prune, when a Join adds an entry, removes from the register in dir
// each entry naming a path that does not exist now, among the first
// MaxRegisterEntries entries this process may remove of this user's
// subdirectory, and as many of the old entries at the register's top (its
// own user's; any, for root, and where owners are not compared): such an
// entry guards nothing, and left there it costs every run's guard a read
// and takes a place of the bounded read (ReadRegister) from an entry that
// does guard. Another user's subdirectory is theirs to prune. An entry
// held by another view (hold: a Sabline in another mount namespace, which
// may see a path this process does not) is left; the holds of an earlier
// boot go first (dropStale), as every view they stood for is gone. It
// returns how many entries it removed.
func prune(dir string) int {
	removed := 0
	if me := currentUser(); me >= 0 {
		dropStale(filepath.Join(dir, subdirName(me)))
		removed += pruneIn(filepath.Join(dir, subdirName(me)))
	}
	return removed + pruneIn(dir)
}

// pruneIn is prune of the entries in one directory of the register, at.
// Once an entry is gone its path is looked up again: a path made
// meanwhile, by a Sabline that found the entry there and kept it (Join),
// gets its entry back. A file that is not an entry (judgeEntry) is left
// as it is.
func pruneIn(at string) int {
	f, err := openNoFollow(at)
	if err != nil {
		return 0
	}
	names, _ := f.Readdirnames(maxRegisterNames)
	f.Close()
	me := currentUser()
	removed, read := 0, 0
	for _, name := range names {
		if read == MaxRegisterEntries {
			break
		}
		entry := filepath.Join(at, name)
		fi, err := os.Lstat(entry)
		if strings.HasPrefix(name, ".") || err != nil || !fi.Mode().IsRegular() {
			continue
		}
		owner := fileOwner(fi)
		if me > 0 && owner != me {
			continue // another user's: the sticky register keeps it from us
		}
		read++
		p, why := judgeEntry(registerEntry{Name: name, Mode: fi.Mode(), Owner: owner,
			Data: readEntry(entry, owner)})
		if why != "" {
			continue
		}
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if !letGo(at, name) {
			continue
		}
		removed++
		pruned(p)
		if _, err := os.Lstat(p); err == nil {
			_, _ = writeEntry(at, p) // made meanwhile
		}
	}
	return removed
}

// pruned is told of each path whose entry prune removed, before it looks
// the path up again; a test makes the path there.
var pruned = func(string) {}

// heldName is the directory, in a user's subdirectory of the register, of
// the holds: in it, a directory for each view (viewTag) holding a link to
// each entry its Sablines joined, under the entry's name. The name begins
// with ".": readers pass it over.
const heldName = ".held"

// linkAcrossRefused says why a hold's link, from the user's subdirectory
// into its view's, was refused as across devices where both lie in one
// directory tree: a Landlock domain holding this process that does not
// handle the right to refer (LANDLOCK_ACCESS_FS_REFER) refuses every link
// from one directory into another so.
const linkAcrossRefused = "a link from one directory into another was refused; a Landlock " +
	"sandbox that holds this process and does not let it make such links (Landlock's refer " +
	"right) refuses them so: run Sabline outside that sandbox, or have it allow refer beneath " +
	"the register"

// heldDir is the directory of the holds of the view tag in this user's
// subdirectory at of the register.
func heldDir(at, tag string) string { return filepath.Join(at, heldName, tag) }

// hold links this user's entry for p in its subdirectory at of the
// register into the holds of this process's view (heldDir), so that a
// prune in another view, where p may be hidden (a tmpfs over its parent,
// a private /tmp, a container), leaves the entry (letGo). An entry removed
// meanwhile is written again. Nothing where the view cannot be told
// (viewTag ""), or the entry is not this user's own (a name another took).
func hold(at, p string) error {
	tag := viewTag()
	if tag == "" {
		return nil
	}
	held := heldDir(at, tag)
	if err := os.MkdirAll(held, 0o700); err != nil {
		return err
	}
	name := entryName(p)
	entry, link := filepath.Join(at, name), filepath.Join(held, name)
	for range 8 {
		f, err := openNoFollow(entry)
		if errors.Is(err, fs.ErrNotExist) { // let go by another view meanwhile
			if _, err := writeEntry(at, p); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		fi, err := f.Stat()
		f.Close()
		if err != nil {
			return err
		}
		if fileOwner(fi) != currentUser() || string(readEntry(entry, fileOwner(fi))) != p+"\n" {
			return nil // not ours to hold
		}
		if lfi, err := os.Lstat(link); err == nil && os.SameFile(fi, lfi) {
			return nil
		}
		_ = os.Remove(link) // a hold of an entry since replaced
		err = os.Link(entry, link)
		switch {
		case errors.Is(err, syscall.EXDEV):
			return fmt.Errorf("%w: %s", err, linkAcrossRefused)
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrExist):
			return err
		}
	}
	return nil
}

// letGo removes the entry name in the directory at of the register,
// whose path this process finds missing, unless a Sabline of another
// view holds it (hold), to whom the path may still be there: this view's
// own hold goes first. An entry no view holds, that this view did not
// hold either, is left when it was written in this boot (unheldOfThisBoot):
// a Sabline older than the holds, beside this one during an upgrade,
// holds nothing, and may see the path in a mount namespace of its own.
// Where the view cannot be told, it removes the entry. It reports
// whether it removed it.
func letGo(at, name string) bool {
	entry := filepath.Join(at, name)
	tag := viewTag()
	if tag == "" {
		return os.Remove(entry) == nil
	}
	f, err := openNoFollow(entry)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	own := filepath.Join(heldDir(at, tag), name)
	held := false
	if lfi, err := os.Lstat(own); err == nil && os.SameFile(fi, lfi) {
		if os.Remove(own) != nil {
			return false
		}
		held = true
	}
	if holders(f, true) > 0 || !held && unheldOfThisBoot(fi) || os.Remove(entry) != nil {
		return false
	}
	if holders(f, false) > 0 { // held by another view meanwhile: put it back
		relink(at, name, f)
		return false
	}
	return true
}

// unheldOfThisBoot reports whether the entry fi describes, which no view
// holds, was written in this boot (its modification time not before the
// boot's start, bootTime): by a Sabline that holds nothing (one older
// than the holds), which may still rely on it. An entry of an earlier
// boot was written by a Sabline that is gone. False where the boot's
// start cannot be read.
func unheldOfThisBoot(fi fs.FileInfo) bool {
	boot, ok := bootTime()
	return ok && !fi.ModTime().Before(boot)
}

// holders is how many links the entry open as f has besides its name in
// the register (named: the name is still there): the holds of the views
// that joined its path; as many as may be when it cannot be told.
func holders(f *os.File, named bool) int {
	fi, err := f.Stat()
	if err != nil {
		return MaxRegisterEntries
	}
	n := linkCount(fi)
	if named {
		n--
	}
	return n
}

// relink gives back the name name in the directory at of the register to
// the entry open as f, from the hold of a view that holds it.
func relink(at, name string, f *os.File) {
	fi, err := f.Stat()
	if err != nil {
		return
	}
	views, _ := readNames(filepath.Join(at, heldName), maxSubdirNames)
	for _, v := range views {
		link := filepath.Join(at, heldName, v, name)
		if lfi, err := os.Lstat(link); err == nil && os.SameFile(fi, lfi) {
			_ = os.Link(link, filepath.Join(at, name)) // or written again meanwhile
			return
		}
	}
}

// dropStale removes from this user's subdirectory at of the register the
// holds of the views of an earlier boot (viewTag): their mount namespaces
// are gone, and the Sablines of this boot that rely on a path have held
// its entry again as they joined it.
func dropStale(at string) {
	tag := viewTag()
	boot, _, ok := strings.Cut(tag, "-")
	if !ok {
		return
	}
	views, _ := readNames(filepath.Join(at, heldName), maxSubdirNames)
	for _, v := range views {
		if !strings.HasPrefix(v, boot+"-") {
			_ = os.RemoveAll(filepath.Join(at, heldName, v))
		}
	}
}

// readNames lists at most limit names of the directory at p, opened
// without following a link.
func readNames(p string, limit int) ([]string, error) {
	f, err := openNoFollow(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(limit)
}

// JoinAs is Join, its error E331 saying what (the receipts directory
// DIR, say) could not be made known, and what to do: a pool or server
// that cannot make its locations known does not start.
func JoinAs(what string, paths ...string) error {
	if err := Join(paths...); err != nil {
		e := codes.Errorf(codes.E331, "%s cannot be made known to the other Sablines on this machine: %w",
			what, err)
		advice := registerAdvice
		if errors.Is(err, errPlantedSubdir) {
			advice = plantedAdvice
		}
		e.Do = "Sabline keeps a register of its receipts, tokens and runs directories, so that no run " +
			"of another Sabline reaches them: " +
			advice + ". Nothing ran."
		return e
	}
	return nil
}

// plantedAdvice says what to do about a subdirectory of the register,
// under this user's name, that is not this user's alone.
const plantedAdvice = "have the subdirectory the error names removed (only its owner or root may: " +
	"as root, rm -r -- DIR/uUID), and start again; or set " + RegisterEnv + " to a register of your " +
	"own that every Sabline on this machine is started with"

// userDir is where this user's entries are written in the register dir:
// its subdirectory (subdirName), made when it is not there, mode 0755
// (every user reads it, only this user writes in it, and only this user
// or root may remove it from the sticky register); dir itself where
// owners are not compared (Windows). A subdirectory of this user's that
// others may write in is made 0755 again. One of that name that is not
// this user's alone (judgeSubdir: another user's, a link, not a
// directory) is an error wrapping errPlantedSubdir, naming its owner and
// what to do: entries written in it could be removed by another user,
// and no reader relies on it.
func userDir(dir string) (string, error) {
	me := currentUser()
	if me < 0 {
		return dir, nil
	}
	sub := filepath.Join(dir, subdirName(me))
	if err := os.Mkdir(sub, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("make your subdirectory %s: %w", sub, err)
	}
	fi, err := os.Lstat(sub)
	if err != nil {
		return "", fmt.Errorf("make your subdirectory %s: %w", sub, err)
	}
	if fi.IsDir() && fileOwner(fi) == me && fi.Mode().Perm() != 0o755 { // whatever the umask
		if err := os.Chmod(sub, 0o755); err != nil {
			return "", fmt.Errorf("make your subdirectory %s: %w", sub, err)
		}
		if fi, err = os.Lstat(sub); err != nil {
			return "", fmt.Errorf("make your subdirectory %s: %w", sub, err)
		}
	}
	if why := judgeSubdir(fi, me); why != "" {
		return "", fmt.Errorf("%w: %s is %s (its owner is uid %d; you are uid %d): no Sabline "+
			"relies on the entries in it, and others could remove them; have it removed (only its "+
			"owner or root may: as root, rm -r -- %s) and start again",
			errPlantedSubdir, sub, why, fileOwner(fi), me, sub)
	}
	return sub, nil
}

// makeRegister makes the register dir when it does not exist, sticky and
// open to every user, and checks it is one to trust.
func makeRegister(dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return err
		}
		// Made under a temporary name and renamed into place whole, so
		// that no other process sees it before it is sticky.
		tmp := filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+"-"+randomHex(8))
		if err := os.Mkdir(tmp, 0o700); err != nil {
			return err
		}
		if err := os.Chmod(tmp, 0o777|fs.ModeSticky); err != nil {
			os.Remove(tmp)
			return err
		}
		// A directory there already, made meanwhile, is replaced only
		// when it is empty and ours to replace; else it is the one
		// checked below.
		if err := os.Rename(tmp, dir); err != nil {
			os.Remove(tmp)
		}
	}
	return trustRegister(dir)
}

// writeEntry adds the entry naming p to dir: nothing to do when this
// user's (or root's) entry for it is there; else written under a
// temporary name and linked into place, so that no reader sees it half
// written and no file already there is replaced. When the entry's name is
// taken by another user's file, the entry takes a name with a random
// suffix. It reports whether it wrote one.
func writeEntry(dir, p string) (bool, error) {
	want := p + "\n"
	name := entryName(p)
	me := currentUser()
	taken := false
	if has, mine := entryHolds(filepath.Join(dir, name), want, me); has {
		return false, nil
	} else if !mine {
		taken = true
	}
	if taken {
		// Another user's file holds the name: look for an entry of ours
		// made before under a suffix.
		if matches, _ := filepath.Glob(filepath.Join(dir, name+"-*")); matches != nil {
			for _, m := range matches {
				if has, _ := entryHolds(m, want, me); has {
					return false, nil
				}
			}
		}
	}
	tmp := filepath.Join(dir, ".tmp-"+randomHex(16))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp)
	_, err = f.WriteString(want)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}
	if err := os.Chmod(tmp, 0o644); err != nil { // whatever the umask
		return false, err
	}
	for range 8 {
		final := filepath.Join(dir, name)
		if taken {
			final += "-" + randomHex(8)
		}
		err = os.Link(tmp, final)
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return false, err
		}
		if has, mine := entryHolds(final, want, me); has {
			return false, nil
		} else if mine && !taken {
			// Our own file with other content: replace it.
			err := os.Rename(tmp, final)
			return err == nil, err
		}
		taken = true
	}
	return false, err
}

// entryHolds reports whether the file at p is an entry holding want that
// counts for this user (owned by me or by root), and whether the name is
// free for this user to write (absent, or a file of its own).
func entryHolds(p, want string, me int) (has, mine bool) {
	fi, err := os.Lstat(p)
	if err != nil {
		return false, true
	}
	owner := fileOwner(fi)
	ours := owner == me || owner < 0
	if fi.Mode().IsRegular() && (ours || owner == 0) && string(readEntry(p, owner)) == want {
		return true, ours
	}
	return false, ours && fi.Mode().IsRegular()
}

// OwnedByAnother reports whether the file fi describes is owned by a user
// who is neither root nor the one running Sabline, and that owner's uid.
// Such a user may change what the file says whatever its mode (chmod is
// the owner's), so a file that says who may use a server (its token file,
// its tenants file) is not one to take from them. Where owners are not
// compared (Windows), never.
func OwnedByAnother(fi fs.FileInfo) (uid int, another bool) {
	owner := fileOwner(fi)
	return owner, owner > 0 && owner != currentUser()
}

// randomHex is n random bytes in hexadecimal.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return fmt.Sprint(time.Now().UnixNano())
	}
	return hex.EncodeToString(b)
}
