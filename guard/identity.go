package guard

import (
	"path/filepath"
	"sync"
)

// ID is the identity of a file: its device and inode. Two paths with one
// ID name one entry, however their names differ: a directory that ignores
// case (ext4's or f2fs's casefold, vfat, CIFS, a FUSE file system that
// answers a lookup of ~/.SSH with ~/.ssh) takes a name in another case
// for the one it stores, a bind mount shows a directory at a second path,
// a hard link a file at a second name. The guard compares names byte for
// byte on Linux; it compares identities too (Set.At), so that no other
// name of a guarded location's entry reaches it.
type ID struct {
	Dev uint64 `json:"dev"`
	Ino uint64 `json:"ino"`
}

// IDOf is the identity of the entry at p, not followed where it is a
// link (where a link leads is a location of its own); false when nothing
// is there, or on a system where none is read (Windows, whose guard folds
// names instead).
func IDOf(p string) (ID, bool) { return statID(p) }

// identities are the identities of a set's locations that exist, read
// when the set is first asked for one (Set.At): a run that names no path
// reads none.
type identities struct {
	once sync.Once
	at   map[ID][]Location
}

// At returns the guarded location whose entry has the identity id, read
// when first asked: each location that exists (a pattern's matches), as
// written and as it resolves, but the directories to expand; false where
// p, the path at which a caller found id, or one beneath it, lies by name
// in a location with that identity. A location guarded as written and
// as it resolves has one identity at two paths: a lent credential named
// through a directory that is a link (~/.aws where the home is a link to
// another disk) is reached by either, and neither is another name of it.
// A caller given a location has reached its entry by another name.
func (s *Set) At(id ID, p string) (Location, bool) {
	if s = s.made(); s == nil || s.ids == nil {
		return Location{}, false
	}
	s.ids.once.Do(func() { s.ids.at = s.readIDs() })
	ls := s.ids.at[id]
	for _, l := range ls {
		if Within(p, l.Path) {
			return Location{}, false
		}
	}
	if len(ls) == 0 {
		return Location{}, false
	}
	return ls[0], true
}

// readIDs maps the identity of each location of s that exists to the
// locations there, in the carve-outs' order: a location at the
// carve-out's path (another kind before a dot-entry, so that ~/.ssh is
// said to be a credential location), or else (a pattern's match) the one
// it lies in, not a home's dot-entry. A dot-entry that is a link is a
// location, guarded where it leads too, and is mapped there: a directory
// that ignores case took ~/DOTFILES/vim for the ~/Dotfiles/vim that
// ~/.vim leads to, in the language, where the kernel's carving held it
// out.
func (s *Set) readIDs() map[ID][]Location {
	byPath := make(map[string]Location, len(s.locs))
	for _, l := range s.locs {
		if had, seen := byPath[l.Path]; !seen || had.Kind == DotEntry && l.Kind != DotEntry {
			byPath[l.Path] = l
		}
	}
	at := map[ID][]Location{}
	for _, c := range s.concrete {
		if c.Expand {
			continue
		}
		id, ok := IDOf(c.Path)
		if !ok {
			continue
		}
		if l, ok := byPath[c.Path]; ok {
			at[id] = append(at[id], l)
			continue
		}
		for _, l := range s.locate(c.Path) {
			if l.Path == c.Path && l.Kind != DotEntry {
				at[id] = append(at[id], l)
				break
			}
		}
	}
	return at
}

// aliased returns the guarded location that p, or a directory above it,
// is by identity (At) where p lies in it by no name: p names its entry,
// or one beneath it, by another name.
func (s *Set) aliased(p string) (Location, bool) {
	for at := filepath.Clean(p); ; at = filepath.Dir(at) {
		if id, ok := IDOf(at); ok {
			if l, ok := s.At(id, p); ok {
				return l, true
			}
		}
		if at == filepath.Dir(at) {
			return Location{}, false
		}
	}
}
