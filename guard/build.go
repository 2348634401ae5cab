package guard

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/sabline/sabline/codes"
)

// CredentialsEnv names the environment variable in which the operator
// adds credential locations: absolute paths separated by the system's
// list separator (":" on Unix, ";" on Windows). It is read from the
// environment Sabline was started in, once; a program has no way to set
// it.
const CredentialsEnv = "SABLINE_CREDENTIALS"

// OperatorCredentials are the locations the operator added in
// CredentialsEnv: its absolute paths, cleaned. An entry that is not one
// guards nothing, and every run is refused while the list holds it
// (CheckOperatorCredentials).
func OperatorCredentials() []string { paths, _ := operatorCredentials(); return paths }

// operatorCredentials reads CredentialsEnv once (credentialList).
var operatorCredentials = sync.OnceValues(func() (paths, malformed []string) {
	return credentialList(os.Getenv(CredentialsEnv))
})

// credentialList splits the operator's list into its absolute paths,
// cleaned, and the entries that are not absolute paths (an empty entry,
// as a list ending in a separator has, is none).
func credentialList(list string) (paths, malformed []string) {
	for _, p := range filepath.SplitList(list) {
		switch {
		case filepath.IsAbs(p):
			paths = append(paths, filepath.Clean(p))
		case p != "":
			malformed = append(malformed, p)
		}
	}
	return paths, malformed
}

// CheckOperatorCredentials is E301 where CredentialsEnv holds an entry
// that is not an absolute path: the operator meant to guard a location,
// and which one cannot be told (a relative path names a different one
// from each working directory), so no run goes while the list says
// nothing of it; it was passed over without a word, and the location it
// meant read at full.
func CheckOperatorCredentials() error {
	if _, bad := operatorCredentials(); len(bad) > 0 {
		return &codes.Error{Code: codes.E301, Msg: fmt.Sprintf("%s holds %q, which is not an "+
			"absolute path: nothing ran", CredentialsEnv, bad[0]), Do: malformedCredentialsDo}
	}
	return nil
}

// malformedCredentialsDo is what to do about CheckOperatorCredentials's
// refusal.
const malformedCredentialsDo = "Name each credential location in " + CredentialsEnv +
	" by its absolute path, or take the entry out; the variable is read where Sabline starts."

// Inputs are what a run guards beside the tables.
type Inputs struct {
	// Home is the home of the user who runs Sabline; "" for none. Root's
	// home and every home under the system's homes directory (/home,
	// /Users, C:\Users) are guarded too.
	Home string
	// AccountHome is the home the user database gives that user
	// (AccountHome), guarded as Home is where HOME names another place;
	// "" for none.
	AccountHome string
	// Sabline are Sabline's own files: the receipts directory, and what
	// was made for it, a server's token file. Each is named as it is: a
	// receipts directory named r[1] is guarded, not r1 beside it.
	Sabline []string
	// SablineMatched are more of Sabline's own, each named by a pattern
	// (path.Match) in its last component: eval's expected outputs
	// (DIR/*.out), and the other programs it grades.
	SablineMatched []string
	// Owned are those of Sabline that another user's register entry
	// named, each with that user's uid (Registered.Owners): each is
	// guarded at a path only where that user owns what is there as the
	// set is built (Location.Owner), so that a link retargeted, or a
	// directory swapped for one, after the register was read guards
	// nothing of another's.
	Owned map[string]int
	// Credentials are more credential locations: the operator's
	// (OperatorCredentials).
	Credentials []string
	// Lent are credential locations the operator lends the run: a grant
	// that names one of them, or a path within it, reaches it.
	Lent []string
	// Mounts is the mount table (ReadMounts): each kernel surface mounted
	// outside /proc, /sys and /dev is guarded as they are (kernelMounts).
	Mounts []Mount
}

// Machine is what Build reads of the machine: a directory's entries, with
// their types, and a link's target. OS is the machine Sabline runs on.
// Build reads each directory once, and stats nothing: the entries' types
// come with the listing.
type Machine interface {
	// ReadDir lists the directory at the absolute path dir, in any
	// order; an error means it has no entries to guard.
	ReadDir(dir string) ([]fs.DirEntry, error)
	// Readlink is the target of the link at p.
	Readlink(p string) (string, error)
}

type osMachine struct{}

// OS reads this machine's file system.
func OS() Machine { return osMachine{} }

func (osMachine) ReadDir(dir string) ([]fs.DirEntry, error) { return ReadDir(dir) }

// ReadDir lists the directory dir's entries, with their types, in the
// order the file system keeps them: no name is looked up and nothing is
// sorted, which in a home of thousands of entries costs more than reading
// it. A dir that is not a directory (a link to something else) has none,
// and is not waited on (a named pipe). On Linux it reads the directory's
// records itself (readdir_linux.go).
func ReadDir(dir string) ([]fs.DirEntry, error) { return readDir(dir) }

func (osMachine) Readlink(p string) (string, error) { return os.Readlink(p) }

// Resolved returns the absolute path p as the kernel resolves it now,
// every link on it followed: the longest part of it that exists, resolved
// by looking up each of its components (no directory is listed, so a
// process held by Landlock resolves as one that is not), and the rest as
// written. It is how a grant is admitted, and how a worker finds, when it
// starts, whether the grant still resolves so (linux.Moved).
func Resolved(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for at := p; ; at = filepath.Dir(at) {
		if r, err := filepath.EvalSymlinks(at); err == nil {
			return filepath.Join(r, rest)
		}
		if at == filepath.Dir(at) {
			return p
		}
		rest = filepath.Join(filepath.Base(at), rest)
	}
}

// maxLinks is how many links one resolution follows, as the kernel's own
// limit on a lookup.
const maxLinks = 40

// Resolve returns the absolute path p with every link on it followed, as
// the kernel follows them, reading m: each component resolved in the
// directory the ones before it resolved to, a link's target in its place;
// what does not exist, or cannot be read, kept as written.
func Resolve(p string, m Machine) string {
	return newBuilder(m).resolve(p)
}

// homeBases are the directories that hold users' homes on this system.
func homeBases(home string) []string {
	switch goruntime.GOOS {
	case "darwin":
		return []string{"/Users"}
	case "windows":
		if v := filepath.VolumeName(home); v != "" {
			return []string{v + `\Users`}
		}
		return nil
	}
	return []string{"/home"}
}

// Build resolves the locations of in, the tables and every home on m
// into a Set. It reads the homes' entries and resolves links once, here;
// the Set it returns reads nothing.
func Build(in Inputs, m Machine) *Set {
	b := newBuilder(m)
	return b.set(b.build(in, nil))
}

// Refresh returns s as it would be built on m now, with in's locations
// added: each location of s resolved and carved out again (one that did
// not exist when s was built and does now, a /run/secrets or a token
// written since, a new match of /etc/shadow*, is carved out as Build
// carves one that exists), each home of s and each made since guarded as
// Build guards a home, and in's (the register's locations, the kernel
// surfaces the mount table has now) as Build adds them. Nothing of s is
// dropped (but a location another user's register entry named, where
// that user no longer owns what is there: Location.Owner): each location
// keeps its kind and whether it was lent, and each carve-out stays,
// beside the new ones (a directory expanded because a location in it did
// not exist stays expanded once it does), so that what m no longer shows
// (a directory the process cannot list now) is held as it was.
//
// # Why
//
// The kernel's carving (linux.CarveLandlock) lists each directory it
// expands when a worker applies its policy, and gives each entry it finds
// there the rights of the grant above it. A Set built when a pool started
// knows nothing of what was made since: a guarded location made in a
// directory it expands, or a home, would be granted whole to each worker
// started later. A pool's worker refreshes the set it was handed before
// it applies its policy, so that the language and the kernel hold the
// places that are there when it starts. What is made after that is made
// in a directory already expanded, where the kernel grants no new entry.
func (s *Set) Refresh(in Inputs, m Machine) *Set {
	if s = s.made(); s == nil {
		return nil
	}
	b := newBuilder(m)
	for _, c := range s.concrete {
		if c.Expand {
			b.expanded[c.Path] = len(b.concrete)
		} else {
			b.carved[c.Path] = len(b.concrete)
		}
		b.concrete = append(b.concrete, c)
	}
	for _, l := range s.locs {
		b.add(l)
	}
	return b.set(b.build(in, s.homes))
}

// sablineHolds is what a location of Inputs.Sabline holds, as a refusal
// names it: Sabline's own files, or what its operator, or eval (each
// expected output, and the other programs it grades), keeps out of every
// grant beside them.
const sablineHolds = "Sabline's receipts and tokens, or what its operator keeps out of " +
	"every grant"

// build adds in's locations, the tables and every home (known, those of
// in and those in the system's homes directories) to b, and returns the
// homes.
func (b *builder) build(in Inputs, known []string) []string {
	var lent []string
	for _, p := range in.Lent {
		lent = append(lent, b.forms(p)...)
	}
	isLent := func(p string) bool {
		return slices.ContainsFunc(lent, func(l string) bool { return Within(l, p) })
	}
	for _, p := range in.Sabline {
		b.add(Location{Path: p, Kind: Sabline, literal: true, Holds: sablineHolds,
			Owner: in.Owned[p]})
	}
	for _, p := range in.SablineMatched {
		b.add(Location{Path: p, Kind: Sabline, Holds: sablineHolds})
	}
	for _, k := range kernelSurfaces {
		if slices.Contains(k.OS, goruntime.GOOS) {
			b.add(Location{Path: k.Path, Kind: Kernel, Holds: k.Holds, Allowed: slices.Clone(k.Allowed)})
		}
	}
	for _, l := range kernelMounts(in.Mounts) {
		l.literal = true // a mount point named /mnt/p[1]
		b.add(l)
	}
	homes := slices.Clone(known)
	for _, h := range b.homes(in.Home, in.AccountHome) {
		if !slices.Contains(homes, h) {
			homes = append(homes, h)
		}
	}
	for _, c := range credentials {
		where := []string{filepath.FromSlash(c.Path)}
		if !strings.HasPrefix(c.Path, "/") {
			where = where[:0]
			for _, h := range homes {
				where = append(where, filepath.Join(h, filepath.FromSlash(c.Path)))
			}
		}
		for _, p := range where {
			b.add(Location{Path: p, Kind: Credential, Holds: c.Holds, Lent: isLent(p)})
		}
	}
	// The operator's last component may be a pattern (dir/*.key); one
	// with a pattern's character is also the name it is, guarded as
	// such: vault[1] matched vault1 alone, and a malformed pattern
	// (v[ault) nothing, so that a grant above, or naming, the directory
	// the operator named read it at full.
	for _, p := range in.Credentials {
		l := Location{Path: p, Kind: Credential, Holds: "named by the operator in " +
			CredentialsEnv, Lent: isLent(p)}
		b.add(l)
		if strings.ContainsAny(filepath.Base(p), "*?[") {
			l.literal = true
			b.add(l)
		}
	}
	// Every home is expanded, its dot-entries held by their names, those
	// made later too: the kernel lets nothing be made in a home but
	// through a grant beneath it. A dot-entry that is a link is followed,
	// so that where it leads is held as it is.
	for _, base := range homeBases(in.Home) {
		b.expandDir(b.resolve(base), false)
	}
	for _, h := range homes {
		for _, e := range b.list(b.resolve(h)) {
			if strings.HasPrefix(e.Name(), ".") && e.Type()&fs.ModeSymlink != 0 {
				b.add(Location{
					Path:    filepath.Join(h, e.Name()),
					Kind:    DotEntry,
					Holds:   "a dot-entry of the home " + h,
					literal: true,
				})
			}
		}
		b.expandDir(b.resolve(h), true)
	}
	return homes
}

// set is the Set b built, with homes.
func (b *builder) set(homes []string) *Set {
	s := &Set{locs: b.locs, homes: homes, concrete: b.concrete, ids: &identities{}}
	sort.Slice(s.concrete, func(i, j int) bool { // by path, a location before a directory to expand
		ci, cj := s.concrete[i], s.concrete[j]
		return ci.Path < cj.Path || ci.Path == cj.Path && !ci.Expand && cj.Expand
	})
	return s
}

type builder struct {
	m        Machine
	locs     []Location
	seen     map[string]bool
	concrete []CarveOut
	carved   map[string]int // locations' carve-outs, by path
	expanded map[string]int // directories to expand, by path
	resolved map[string]string
	listed   map[string]listing // by resolved directory
}

func newBuilder(m Machine) *builder {
	return &builder{
		m:        m,
		seen:     map[string]bool{},
		carved:   map[string]int{},
		expanded: map[string]int{},
		resolved: map[string]string{},
		listed:   map[string]listing{},
	}
}

// listing is a directory's entries, in the order it was read, and their
// types by name.
type listing struct {
	entries []fs.DirEntry
	types   map[string]fs.FileMode
}

// list is the directory dir's entries, read once, and only when its
// parent's listing has it.
func (b *builder) list(dir string) []fs.DirEntry { return b.read(dir).entries }

func (b *builder) read(dir string) listing {
	l, ok := b.listed[dir]
	if !ok {
		var entries []fs.DirEntry
		if mode, there := b.lstat(dir); there && (mode.IsDir() || mode&fs.ModeSymlink != 0) ||
			dir == filepath.Dir(dir) {
			entries, _ = b.m.ReadDir(dir)
		}
		l = listing{entries: entries, types: make(map[string]fs.FileMode, len(entries))}
		for _, e := range entries {
			l.types[e.Name()] = e.Type()
		}
		b.listed[dir] = l
	}
	return l
}

// lstat is the type of the entry at p, whose directory is resolved, from
// its directory's listing; false when there is none.
func (b *builder) lstat(p string) (fs.FileMode, bool) {
	if p == filepath.Dir(p) {
		return fs.ModeDir, true // a root
	}
	mode, ok := b.read(filepath.Dir(p)).types[filepath.Base(p)]
	return mode, ok
}

// resolve resolves p (Resolve), each path once.
func (b *builder) resolve(p string) string { return b.resolveLinks(filepath.Clean(p), 0) }

func (b *builder) resolveLinks(p string, links int) string {
	if r, ok := b.resolved[p]; ok {
		return r
	}
	parent := filepath.Dir(p)
	if parent == p || !filepath.IsAbs(p) {
		return p
	}
	at := filepath.Join(b.resolveLinks(parent, links), filepath.Base(p))
	mode, ok := b.lstat(at)
	if !ok {
		if name, found := b.stored(at); found {
			at = filepath.Join(filepath.Dir(at), name)
			mode, ok = b.lstat(at)
		}
	}
	r := at
	if ok && mode&fs.ModeSymlink != 0 && links < maxLinks {
		if target, err := b.m.Readlink(at); err == nil {
			r = b.follow(filepath.Dir(at), target, links+1)
		}
	}
	b.resolved[p] = r
	return r
}

// identifier is a Machine that reads the identity of the entry at a path
// (the system's: OS).
type identifier interface {
	// ID is the identity of the entry at p, not followed where it is a
	// link; false when nothing is there.
	ID(p string) (ID, bool)
}

func (osMachine) ID(p string) (ID, bool) { return IDOf(p) }

// stored is the name under which p's directory lists the entry that p,
// absent from that listing, names: a directory that ignores case takes
// ~/.SSH for the ~/.ssh it lists, and holds it out of a grant above it
// only where the kernel's carving meets the location by the name it
// lists. Only a listed name that APFSName takes for p's (case folded,
// composed and decomposed letters alike) is looked up, and only its
// identity decides, so that a location that is not there, as most of
// the tables' are not, costs no call. false when none is the entry, or
// the machine reads no identity.
func (b *builder) stored(p string) (string, bool) {
	m, ok := b.m.(identifier)
	if !ok {
		return "", false
	}
	dir, base := filepath.Dir(p), filepath.Base(p)
	var names []string
	want := "" // APFSName(base), made when a name not ASCII needs it
	for _, e := range b.read(dir).entries {
		n := e.Name()
		if ascii(n) && ascii(base) {
			// APFSName folds an ASCII name to its upper case: compared so
			// without folding, a home's listing costs no allocation.
			if strings.EqualFold(n, base) {
				names = append(names, n)
			}
			continue
		}
		if want == "" {
			want = APFSName(base)
		}
		if APFSName(n) == want {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "", false
	}
	id, ok := m.ID(p)
	if !ok {
		return "", false
	}
	for _, name := range names {
		if got, ok := m.ID(filepath.Join(dir, name)); ok && got == id {
			return name, true
		}
	}
	return "", false
}

// ascii reports whether s is ASCII alone.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// follow resolves a link's target from dir, the link's directory as it
// resolves, a component at a time: a ".." leaves the directory the
// components before it led to, as the kernel takes it, not the one they
// name (in x/.., where x is a link, the parent of x's target). Cleaning
// the target as text first would guard a place the link does not lead.
func (b *builder) follow(dir, target string, links int) string {
	at := dir
	if filepath.IsAbs(target) {
		vol := filepath.VolumeName(target)
		at, target = vol+string(filepath.Separator), target[len(vol):]
	}
	separator := func(r rune) bool { return r < 0x80 && os.IsPathSeparator(uint8(r)) }
	for _, c := range strings.FieldsFunc(target, separator) {
		switch c {
		case ".":
		case "..":
			at = filepath.Dir(at)
		default:
			at = b.resolveLinks(filepath.Join(at, c), links)
		}
	}
	return at
}

// forms are p, cleaned, and p as it resolves.
func (b *builder) forms(p string) []string {
	if !filepath.IsAbs(p) {
		return nil
	}
	return forms(filepath.Clean(p), b.resolve)
}

// add guards l as written, beneath its directory as that resolves, and,
// where it is a link, as it resolves itself; and carves out each of those
// that exists now (each match of a pattern). A location with an Owner is
// guarded only at the paths that exist and that user owns (ownedBy). A
// literal one is a name, never a pattern, and is kept as one (kept).
func (b *builder) add(l Location) {
	if !filepath.IsAbs(l.Path) {
		return
	}
	l.Path = filepath.Clean(l.Path)
	dir, base := filepath.Dir(l.Path), filepath.Base(l.Path)
	pattern := !l.literal && strings.ContainsAny(base, "*?[")
	for _, d := range b.forms(dir) {
		at := l
		at.Path = filepath.Join(d, base)
		if !ownedBy(at.Path, l.Owner) || !b.once(at) {
			continue
		}
		b.locs = append(b.locs, at.kept())
		if pattern {
			for _, e := range b.list(d) {
				if ok, _ := path.Match(base, e.Name()); ok {
					b.carve(CarveOut{Path: filepath.Join(d, e.Name()), Named: l.namedOnly()})
				}
			}
			b.expandNearest(d) // a new match is made nowhere
			continue
		}
		mode, ok := b.lstat(at.Path)
		if !ok {
			if name, found := b.stored(at.Path); found {
				// Its directory lists it by another name: guarded by that too.
				named := l
				named.Path = filepath.Join(d, name)
				b.add(named)
			}
			// Nothing there for the kernel to hold out yet: nothing may be
			// made on the way to it either.
			if l.Kind == Credential || l.Kind == Sabline {
				b.expandNearest(d)
			}
			continue
		}
		b.carve(CarveOut{Path: at.Path, Allowed: at.Allowed, Named: at.namedOnly()})
		if mode&fs.ModeSymlink == 0 {
			continue
		}
		// A link: where it leads is guarded as the location is.
		to := at
		to.Path = b.resolve(at.Path)
		if filepath.IsAbs(to.Path) && ownedBy(to.Path, l.Owner) && b.once(to) {
			b.locs = append(b.locs, to.kept())
			if _, ok := b.lstat(to.Path); ok {
				b.carve(CarveOut{Path: to.Path, Allowed: to.Allowed, Named: to.namedOnly()})
			}
		}
	}
}

// kept is l as the set keeps it: a literal location's last component as
// a pattern that names it alone (Literal), which Location.in, the worker
// and a Refresh all read as such.
func (l Location) kept() Location {
	if l.literal {
		l.Path, l.literal = filepath.Join(filepath.Dir(l.Path), Literal(filepath.Base(l.Path))), false
	}
	return l
}

// Literal is name as a pattern (path.Match) that matches name alone:
// each *, ? and [ in a class of its own ([*]), and, in such a name, each
// backslash (which no Windows name holds, where it would part the path)
// escaped. A name with none of the three is no pattern, and is read as
// it is.
func Literal(name string) string {
	if !strings.ContainsAny(name, "*?[") {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ { // by byte: a name need not be UTF-8
		switch c := name[i]; c {
		case '*', '?', '[':
			b.WriteString("[" + string(c) + "]")
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ownedBy reports whether a location of the user uid may be guarded at
// p, the path as this set resolved it: always for uid 0 (no owner);
// else only when p exists, and it, and where it leads, are that user's
// on this machine now (pathOwnersOf). Another user's register entry was
// judged by its owners when the register was read; the paths the set
// guards for it are judged again here, as resolved, so that a link of
// that user's retargeted since (or a directory of theirs swapped for a
// link) guards no path of anyone else's.
func ownedBy(p string, uid int) bool {
	if uid <= 0 {
		return true
	}
	uids, ok := pathOwnersOf(p)
	return ok && !slices.ContainsFunc(uids, func(u int) bool { return u != uid })
}

// expandNearest expands the nearest directory that exists at dir or
// above it, as dir resolves: the directory an entry on the way to a
// location beneath dir would be made in.
func (b *builder) expandNearest(dir string) {
	for p := b.resolve(dir); ; p = filepath.Dir(p) {
		if mode, ok := b.lstat(p); ok && mode.IsDir() {
			b.expandDir(p, false)
			return
		}
		if p == filepath.Dir(p) {
			return
		}
	}
}

// expandDir records the directory dir, resolved, as one to expand
// (CarveOut.Expand), once; dots holds its dot-entries out too. A path
// that is no directory now is left alone: nothing can be made in it.
func (b *builder) expandDir(dir string, dots bool) {
	if mode, ok := b.lstat(dir); !ok || !mode.IsDir() {
		return
	}
	if i, ok := b.expanded[dir]; ok {
		b.concrete[i].Dots = b.concrete[i].Dots || dots
		return
	}
	b.expanded[dir] = len(b.concrete)
	b.concrete = append(b.concrete, CarveOut{Path: dir, Expand: true, Dots: dots})
}

// once reports whether l is met for the first time.
func (b *builder) once(l Location) bool {
	key := string(l.Kind) + "\x00" + l.Path
	if l.literal {
		key += "\x00literal" // apart from a pattern written alike
	}
	if b.seen[key] {
		return false
	}
	b.seen[key] = true
	return true
}

// carve records c once; a path met twice keeps the narrower Allowed, and
// is Named only where each location there is (~/.ssh is a dot-entry and a
// credential location).
func (b *builder) carve(c CarveOut) {
	if i, ok := b.carved[c.Path]; ok {
		if len(c.Allowed) == 0 {
			b.concrete[i].Allowed = nil
		}
		b.concrete[i].Named = b.concrete[i].Named && c.Named
		return
	}
	b.carved[c.Path] = len(b.concrete)
	b.concrete = append(b.concrete, c)
}

// homes are in's home, the account's (where HOME named another place),
// root's, and every directory in the system's homes directories, each as
// written and as it resolves.
func (b *builder) homes(home, account string) []string {
	var out []string
	seen := map[string]bool{}
	addHome := func(h string) {
		for _, f := range b.forms(h) {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	if home != "" {
		addHome(home)
	}
	if account != "" {
		addHome(account)
	}
	if goruntime.GOOS != "windows" {
		addHome("/root")
	}
	for _, base := range homeBases(home) {
		for _, d := range b.forms(base) {
			entries := slices.SortedFunc(slices.Values(b.list(b.resolve(d))), func(x, y fs.DirEntry) int {
				return strings.Compare(x.Name(), y.Name())
			})
			for _, e := range entries {
				if e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
					addHome(filepath.Join(d, e.Name()))
				}
			}
		}
	}
	return out
}
