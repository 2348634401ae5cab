// Package guard names the places no grant of a budget reaches, and holds
// the one table of them: the credential locations, every dot-entry of
// every home, Sabline's own receipts and tokens, and the kernel's files
// (/proc, /sys, devices but a few). When a run starts, each is resolved
// through links, so that it is held both as written and as the kernel
// reaches it. Both layers read the Set it builds:
//
//   - the language refuses an effect whose object lies in one (E318), by
//     the canonical path of what the effect opened (lang);
//   - confine expands a Landlock rule whose path lies above one into rules
//     for the entries beside the way to it (CarveOuts), so that the kernel
//     refuses it too, whatever opens the file.
//
// A budget item may not name a location outside every budget at all
// (Admit), and a budget that narrows a ceiling may not narrow it onto one
// the ceiling does not name (Narrows).
//
// # The register
//
// Other Sablines' receipts, tokens and runs directories are Sabline's
// own too: each joins the register of the machine, a sticky directory
// every Sabline agrees on (RegisterDir, SABLINE_REGISTER), when it is
// made or opened (Join), each user's entries in a subdirectory of its
// own, and every run guards what the register names
// (RegisteredLocations). The reader is bounded, reads its own user's
// subdirectory and root's first (no other user can push their entries
// out of a read), and honours an entry only when the path it names is
// its owner's (or the entry is root's); a path that does not exist is
// passed over; a register that is a link, not sticky, or another
// unprivileged user's is not trusted, nor a user's subdirectory that is
// not that user's alone. Its limits: the
// Sablines must share one register (one SABLINE_REGISTER, no private
// /var/tmp), a set holds what was registered when it was built, and on
// Windows owners are not compared (register.go, docs/THREAT_MODEL.md).
//
// # Kinds
//
// Sabline's own files and the kernel's are never reached. A credential
// location is reached only by a grant that names it, and only where the
// operator lent it (Inputs.Lent). A dot-entry of a home (~/.config,
// ~/.cache) is reached only by a grant that names it: fs:read:~ does not
// reach ~/.config/myapp, fs:read:~/.config/myapp does.
//
// # Example
//
//	set := guard.Build(guard.Inputs{Home: "/home/ana", Sabline: []string{receipts}}, guard.OS())
//	set.Refuses("/home/ana/.ssh/id_ed25519", "/home/ana") // the ~/.ssh location, true
//	set.Refuses("/home/ana/notes.txt", "/home/ana")       // false
package guard

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/sabline/sabline/budget"
)

//go:generate go run ./internal/genfold

// Kind says what a location holds, and so which grants reach it.
type Kind string

// The kinds of location.
const (
	// Credential: secrets a tool keeps. Reached only by a grant that
	// names it, and only where the operator lent it.
	Credential Kind = "credential"
	// DotEntry: a dot-entry of a home. Reached only by a grant that
	// names it.
	DotEntry Kind = "dot-entry"
	// Sabline: the receipts store, its journal, a server's token. Never
	// reached.
	Sabline Kind = "sabline"
	// Kernel: /proc, /sys and the devices. Never reached, but for the
	// devices in Devices.
	Kernel Kind = "kernel"
)

// Location is one place a grant does not reach by being broader.
type Location struct {
	// Path is absolute and clean, as written or as it resolves; its last
	// component may be a pattern (path.Match) for a Credential, or for one
	// of Inputs.SablineMatched. Any other location's last component is a
	// name as it is: where it holds *, ? or [, each of those stands in a
	// class of its own ([[]), so that the pattern names it alone.
	Path string `json:"path"`
	Kind Kind   `json:"kind"`
	// Holds says what is kept there.
	Holds string `json:"holds"`
	// Allowed are names beneath Path that stay reachable (Devices).
	Allowed []string `json:"allowed,omitempty"`
	// Lent is true for a credential location the operator lent: a grant
	// that names it reaches it.
	Lent bool `json:"lent,omitempty"`
	// Owner, for a location another user's register entry named, is
	// that user's uid (Inputs.Owned): it is guarded at a path, as written
	// or as it resolves, only where that user owns what is there when
	// the set is built; 0 for any owner.
	Owner int `json:"owner,omitempty"`
	// literal is true, as the set is built, for a location named as it
	// is, never by a pattern (Literal).
	literal bool
}

// namedOnly reports whether a grant that names l reaches it.
func (l Location) namedOnly() bool { return l.Kind == DotEntry || l.Kind == Credential && l.Lent }

// describe is the location in a message: its path and what it holds.
func (l Location) describe() string { return l.Path + " (" + l.Holds + ")" }

// Set is what a run holds out of every budget, resolved when the run
// started. The zero Set guards nothing; build one with Build, or with
// Later when it may never be consulted.
type Set struct {
	// later, when not nil, builds the set the first time it is consulted:
	// the fields below are then unused.
	later *later
	locs  []Location
	// homes are every home, as written and as it resolves: their
	// dot-entries are guarded, made later too.
	homes []string
	// concrete are the locations that exist, patterns matched and
	// dot-entries listed, for the kernel (CarveOuts).
	concrete []CarveOut
	// ids are the identities of the locations in concrete (At); nil in
	// a Set made otherwise than by Build, Refresh or Wire.Set.
	ids *identities
}

// later is a Set built when it is first consulted.
type later struct {
	once  sync.Once
	build func() *Set
	set   *Set
}

// Later returns a Set that build makes, once, when a method of it is
// first called: a run that names no file and loads nothing (an
// in-process run of a program in one file, say) never reads the homes,
// the mount table and the register. It reads the machine at that first
// call, so it holds what is there then, later than a Set built when the
// run started: never less.
func Later(build func() *Set) *Set { return &Set{later: &later{build: build}} }

// made is the set s stands for: s, or what its build made.
func (s *Set) made() *Set {
	if s == nil || s.later == nil {
		return s
	}
	l := s.later
	l.once.Do(func() { l.set, l.build = l.build(), nil })
	return l.set
}

// Locations lists the set's locations, for messages and tests.
func (s *Set) Locations() []Location {
	if s = s.made(); s == nil {
		return nil
	}
	return slices.Clone(s.locs)
}

// Homes lists the homes whose dot-entries the set guards.
func (s *Set) Homes() []string {
	if s = s.made(); s == nil {
		return nil
	}
	return slices.Clone(s.homes)
}

// Within reports whether the absolute, clean path p is dir or lies
// beneath it; names are compared without case where the file system
// ignores it (FoldCase), as Fold folds them.
func Within(p, dir string) bool {
	if FoldCase {
		p, dir = fsName(p), fsName(dir)
	}
	return budget.Within(p, dir)
}

// fsName is p as this system's file system compares names: folded
// (Fold) and, on macOS, decomposed too (APFSName).
func fsName(p string) string {
	if goruntime.GOOS == "darwin" {
		return APFSName(p)
	}
	return Fold(p)
}

// APFSName is p as APFS compares names, on any system: decomposed
// (decompose), its case folded in full (foldFull) and decomposed again,
// as Unicode's canonical caseless match is, then folded (Fold). The
// macOS plan's judgement of what a grant reaches compares so.
func APFSName(p string) string { return Fold(decompose(foldFull(decompose(p)))) }

// foldFull is s in Unicode's full case folding, as APFS folds a name on
// a volume that ignores case (xnu's utf8_normalizeOptCaseFold, its
// canonical caseless form), as far as Fold does not already fold it: one
// letter may fold to two or three (ß and ẞ to ss, the ligature ﬁ to fi,
// ﬅ to st, ŉ to ʼn), which Fold, a letter for a letter, leaves as they
// are. Folded so alone, a program's /etc/ssh/ßh_host_ed25519_key and
// ~/Library/Application Support/ﬁrefox, which APFS opens as the guarded
// ssh_host_ed25519_key and Firefox, passed the guard as names of their
// own (TestAPFSFoldsInFull). The runes it expands are fullFolds, made
// from golang.org/x/text/cases by genfold; APFSName then folds as
// cases.Fold would, for every rune and every name tried
// (TestAPFSNameAsCasesFold).
func foldFull(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r >= fullFolds[0].r })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for s = s[i:]; s != ""; {
		r, n := utf8.DecodeRuneInString(s)
		j, ok := slices.BinarySearchFunc(fullFolds[:], r, func(f fullFold, r rune) int {
			return int(f.r - r)
		})
		if ok && n > 1 {
			b.WriteString(fullFolds[j].to)
		} else {
			b.WriteString(s[:n]) // a byte not UTF-8 stays as it is
		}
		s = s[n:]
	}
	return b.String()
}

// fullFold is a rune of fullFolds and what it folds to.
type fullFold struct {
	r  rune
	to string
}

// decompose is s in Unicode's canonical decomposition (NFD): APFS, and
// HFS+ before it, take a name written composed (é, U+00E9) and one
// written decomposed (e and U+0301) for one, so that under a grant of the
// directory above a home whose name has such a letter, the program's
// /Users/Jose\u0301/.ssh is the guarded /Users/José/.ssh
// (TestFoldDecomposed). NTFS takes them for two names.
func decompose(s string) string { return norm.NFD.String(s) }

// Fold is s as a file system that ignores case may take it: each rune
// its upper case, then the least rune of that one's case-folding orbit
// (unicode.SimpleFold). Names a file system may take for one fold to
// one string: S, s and ſ (U+017F), whose upper case is S; I, i and ı
// (U+0131), which NTFS's table of upper cases maps to I; K, k and the
// Kelvin sign (U+212A). strings.ToLower, which compared them before,
// leaves ſ and ı as they are, so that a program's ~/.config/ſops or
// ~/.ſsh passed for a name other than a guarded ~/.config/sops or
// ~/.ssh where the file system took them for it. It errs toward one
// name: a guard compares with it.
func Fold(s string) string {
	return strings.Map(func(r rune) rune {
		u := unicode.ToUpper(r)
		least := u
		for f := unicode.SimpleFold(u); f != u; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, s)
}

// FoldCase is true where file names are compared without case: macOS
// and Windows, whose file systems ignore it.
const FoldCase = goruntime.GOOS == "darwin" || goruntime.GOOS == "windows"

// in returns the location of l that p lies in ("" when none): l's path,
// or for a pattern the entry it matched, and false where p is one of l's
// Allowed entries or beneath one.
func (l Location) in(p string) (string, bool) {
	base := filepath.Base(l.Path)
	if !strings.ContainsAny(base, "*?[") {
		if !Within(p, l.Path) {
			return "", false
		}
		for _, a := range l.Allowed {
			if Within(p, filepath.Join(l.Path, a)) {
				return "", false
			}
		}
		return l.Path, true
	}
	dir := filepath.Dir(l.Path)
	if !Within(p, dir) || len(p) <= len(dir) {
		return "", false
	}
	rest := strings.TrimPrefix(p[len(dir):], string(filepath.Separator))
	name, _, _ := strings.Cut(rest, string(filepath.Separator))
	pattern := base
	if FoldCase {
		name, pattern = fsName(name), fsName(pattern)
	}
	if ok, _ := path.Match(pattern, name); !ok {
		return "", false
	}
	return filepath.Join(dir, rest[:len(name)]), true
}

// locate returns every location p lies in, the dot-entries of homes made
// after the set was built included, each with the path it matched.
func (s *Set) locate(p string) []Location {
	if s = s.made(); s == nil {
		return nil
	}
	var out []Location
	for _, l := range s.locs {
		if at, ok := l.in(p); ok {
			l.Path = at
			out = append(out, l)
		}
	}
	for _, h := range s.homes {
		if !Within(p, h) || len(p) == len(h) {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(p[len(h):], string(filepath.Separator)),
			string(filepath.Separator))
		if strings.HasPrefix(first, ".") {
			out = append(out,
				Location{Path: filepath.Join(h, first), Kind: DotEntry, Holds: "a dot-entry of the home " + h})
		}
	}
	return out
}

// Refuses reports whether the set keeps the object at p from an effect
// under the grant whose path is grant, and the location that does. Both
// are canonical (resolved, as the kernel reaches them); grant is "" for a
// grant of every path. A location that only a grant naming it reaches is
// reached when grant lies within it.
func (s *Set) Refuses(p, grant string) (Location, bool) {
	if s == nil {
		return Location{}, false
	}
	for _, l := range s.locate(p) {
		if l.namedOnly() && grant != "" && Within(grant, l.Path) {
			continue
		}
		return l, true
	}
	return Location{}, false
}

// Holds reports whether the kernel holds the directory dir as its
// entries under a grant at it or above it (linux.CarveLandlock), and
// why: a carve-out beneath it, a location that existed when the set was
// built or a directory to expand, or dir is itself one to expand (Expand:
// a home, or where a guarded location would be made). An entry made in
// such a directory, or removed from it, is beyond the grant there, and
// the language refuses it too.
func (s *Set) Holds(dir string) (CarveOut, bool) {
	if s = s.made(); s == nil {
		return CarveOut{}, false
	}
	for _, c := range s.concrete {
		if c.Path != dir && Within(c.Path, dir) || c.Expand && c.Path == dir {
			return c, true
		}
	}
	return CarveOut{}, false
}

// RefusesDevice reports whether the object at p, a device (mode has
// fs.ModeDevice), is one no grant reaches: every device but those of
// Devices in /dev, a block device wherever it is.
func RefusesDevice(p string, mode fs.FileMode) (Location, bool) {
	if mode&fs.ModeDevice == 0 {
		return Location{}, false
	}
	if mode&fs.ModeCharDevice != 0 && filepath.Dir(p) == "/dev" &&
		slices.Contains(devices, filepath.Base(p)) {
		return Location{}, false
	}
	return Location{Path: p, Kind: Kernel, Holds: "a device"}, true
}

// Admit checks the file grants of b before anything runs: no item may
// name a location that no grant reaches (Sabline's files, the kernel's,
// a credential location the operator did not lend), as written or as
// resolve resolves it. A dot-entry may be named. The error says which
// item and which location.
func (s *Set) Admit(b budget.Budget, resolve func(string) string) error {
	return s.eachLocated(b, resolve, func(it budget.Item, l Location) error {
		if !l.namedOnly() {
			return fmt.Errorf("%s names %s, %s no grant reaches", it, l.describe(), article(l.Kind))
		}
		return nil
	})
}

// Narrows checks that b, a budget within ceiling (budget.Beneath), does
// not narrow it onto a location the ceiling does not name: where an item
// of b lies in a location only a grant naming it reaches (a dot-entry, a
// lent credential), some item of ceiling that holds it lies in that
// location too. fs:read:~/.config/app is beneath the ceiling fs:read,
// and still refused: fs:read reaches no dot-entry.
func (s *Set) Narrows(b, ceiling budget.Budget, resolve func(string) string) error {
	return s.eachLocated(b, resolve, func(it budget.Item, l Location) error {
		if !l.namedOnly() || namedBy(ceiling, it, l.Path, resolve) {
			return nil
		}
		return fmt.Errorf("%s narrows the ceiling onto %s, which the ceiling %q does not name", it,
			l.describe(), ceiling.String())
	})
}

// eachLocated calls f for every file item of b with a path and every
// location that path lies in, as written or as resolve resolves it, or
// whose entry the path or a directory above it is by another name
// (aliased), and returns the first error f returns.
func (s *Set) eachLocated(b budget.Budget, resolve func(string) string,
	f func(budget.Item, Location) error) error {
	if s == nil {
		return nil
	}
	for _, it := range b.Of(budget.FS) {
		if it.Path == "" {
			continue
		}
		for _, p := range forms(it.Path, resolve) {
			for _, l := range s.locate(p) {
				if err := f(it, l); err != nil {
					return err
				}
			}
		}
		// By another name (a case the file system ignores, a bind mount):
		// no grant names a location so, a lent one included.
		for _, p := range forms(it.Path, resolve) {
			if l, ok := s.aliased(p); ok {
				l.Lent = false
				if err := f(it, l); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// namedBy reports whether an item of ceiling holds it and lies in loc.
func namedBy(ceiling budget.Budget, it budget.Item, loc string, resolve func(string) string) bool {
	for _, c := range ceiling.Of(budget.FS) {
		if c.Path == "" || !c.Contains(it) {
			continue
		}
		for _, p := range forms(c.Path, resolve) {
			if Within(p, loc) {
				return true
			}
		}
	}
	return false
}

// forms are a path as written and as resolve resolves it.
func forms(p string, resolve func(string) string) []string {
	if resolve == nil {
		return []string{p}
	}
	if r := resolve(p); r != p && r != "" {
		return []string{p, r}
	}
	return []string{p}
}

func article(k Kind) string {
	switch k {
	case Credential:
		return "a credential location, which"
	case Sabline:
		return "Sabline's own, which"
	case Kernel:
		return "a kernel surface, which"
	}
	return "a location"
}

// CarveOut is what the kernel is to hold out of a broader grant: a
// location that exists when the run starts, with the names beneath it
// that stay reachable, or a directory to expand (Expand).
type CarveOut struct {
	Path    string   `json:"path"`
	Allowed []string `json:"allowed,omitempty"`
	// Named is true where a grant that names the location reaches it (a
	// dot-entry, a lent credential): such a grant is a rule of its own.
	// No grant's rule may lie in a location that is not Named.
	Named bool `json:"named,omitempty"`
	// Expand is true for a directory that is no location itself but is
	// held as its entries by every rule at it or above it, whether or not
	// a guarded location lies beneath it when the run starts: a home, and
	// the directory a guarded location that does not exist yet would be
	// made in. No entry can be made in it, or removed from it, but through
	// a grant beneath it.
	Expand bool `json:"expand,omitempty"`
	// Dots is true for an expanded home: none of its dot-entries is among
	// the entries it is held as; each is reached only by a grant that
	// names it, which is a rule of its own.
	Dots bool `json:"dots,omitempty"`
}

// Reached returns, in words, the guarded locations of carveOuts that a
// rule at each of paths reaches on a system whose rule on a directory
// holds for everything beneath it, with no carving (a Windows ACE, a
// macOS sandbox profile's subpath): a location at or beneath one of
// paths (but a Named one at or above the path, which a grant naming it
// reaches), the dot-entries of a home at or beneath one, and what is made
// in a directory to expand at or beneath one (where a guarded location
// not there yet would be made). within compares two paths as that
// system does.
func Reached(carveOuts []CarveOut, paths []string, within func(p, dir string) bool) []string {
	var out []string
	for _, c := range carveOuts {
		reached := slices.ContainsFunc(paths, func(p string) bool {
			return within(c.Path, p) && !(c.Named && !c.Expand && within(p, c.Path))
		})
		switch {
		case !reached:
		case c.Expand && c.Dots:
			out = append(out, "the dot-entries of "+c.Path)
		case c.Expand:
			out = append(out, "what is made in "+c.Path)
		default:
			out = append(out, c.Path)
		}
	}
	return out
}

// CarveOuts lists, for confine to hold out of every Landlock rule above
// them, the locations that exist, as written and as they resolve,
// patterns matched and the links among homes' dot-entries followed when
// the set was built, and the directories to expand: every home (whose
// dot-entries are held by their names, Dots), and the nearest directory
// that exists above each guarded location that does not. A lent
// credential or a dot-entry's target is among them: a grant that names
// one is a rule of its own.
func (s *Set) CarveOuts() []CarveOut {
	if s = s.made(); s == nil {
		return nil
	}
	return slices.Clone(s.concrete)
}

// Wire is a Set as the supervisor hands it to its worker, which holds the
// run to the locations resolved when the supervisor started it. It is a
// plain struct, so that a worker's request is decoded in one pass: a
// Set that decoded itself would be read again from bytes its request's
// decoder had read through already.
type Wire struct {
	Locations []Location `json:"locations"`
	Homes     []string   `json:"homes"`
	CarveOuts []CarveOut `json:"carve_outs"`
}

// Wire is s as its worker reads it (Wire.Set); nil for no set. A
// location, a home or a carve-out whose path is not UTF-8 is left out:
// the worker reads the set in JSON, whose strings hold only UTF-8, and
// such a byte reached it as U+FFFD, a path other than the one guarded
// (with a receipts directory named r\xe9c, a grant of the directory
// beside it named r\ufffdc was refused, E318, as Sabline's receipts).
// A run with a grant that holds such a path is refused before it starts
// (internal/run), so that what is left out lies beyond its grants.
func (s *Set) Wire() *Wire {
	if s = s.made(); s == nil {
		return nil
	}
	return &Wire{
		Locations: utf8Only(s.locs, func(l Location) string { return l.Path }),
		Homes:     utf8Only(s.homes, func(h string) string { return h }),
		CarveOuts: utf8Only(s.concrete, func(c CarveOut) string { return c.Path }),
	}
}

// utf8Only is list without the elements whose path (as path says) is not
// UTF-8: list itself where there is none.
func utf8Only[T any](list []T, path func(T) string) []T {
	if !slices.ContainsFunc(list, func(e T) bool { return !utf8.ValidString(path(e)) }) {
		return list
	}
	var out []T
	for _, e := range list {
		if utf8.ValidString(path(e)) {
			out = append(out, e)
		}
	}
	return out
}

// Set is the set w carries; nil for none.
func (w *Wire) Set() *Set {
	s := w.set()
	if s != nil {
		s.ids = &identities{}
	}
	return s
}

// set is the set w carries, its identities not yet read; nil for none.
func (w *Wire) set() *Set {
	if w == nil {
		return nil
	}
	return &Set{locs: w.Locations, homes: w.Homes, concrete: w.CarveOuts}
}
