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
	at   map[ID]Location
}

// At returns the guarded location whose entry has the identity id, read
// when first asked: each location that exists (a pattern's matches), as
// written and as it resolves, but the directories to expand. A caller
// that found id at a path that does not lie in the location by name has
// reached it by another name.
func (s *Set) At(id ID) (Location, bool) {
	if s = s.made(); s == nil || s.ids == nil {
		return Location{}, false
	}
	s.ids.once.Do(func() { s.ids.at = s.readIDs() })
	l, ok := s.ids.at[id]
	return l, ok
}

// readIDs maps the identity of each location of s that exists to it: a
// location at the carve-out's path, or else (a pattern's match) the one
// it lies in.
func (s *Set) readIDs() map[ID]Location {
	byPath := make(map[string]Location, len(s.locs))
	for _, l := range s.locs {
		if _, seen := byPath[l.Path]; !seen && l.Kind != DotEntry {
			byPath[l.Path] = l
		}
	}
	at := map[ID]Location{}
	for _, c := range s.concrete {
		if c.Expand {
			continue
		}
		id, ok := IDOf(c.Path)
		if _, seen := at[id]; !ok || seen {
			continue
		}
		if l, ok := byPath[c.Path]; ok {
			at[id] = l
			continue
		}
		for _, l := range s.locate(c.Path) {
			if l.Path == c.Path && l.Kind != DotEntry {
				at[id] = l
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
			if l, ok := s.At(id); ok && !Within(p, l.Path) {
				return l, true
			}
		}
		if at == filepath.Dir(at) {
			return Location{}, false
		}
	}
}
