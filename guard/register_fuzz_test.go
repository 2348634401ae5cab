package guard

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseRegister: whatever an entry holds and is named, the parser
// does not panic, and every path it honours is absolute, clean, without
// a newline or NUL, named by the entry, and owned by the entry's owner
// (unless the entry is the reader's own).
// The seeds are in testdata/fuzz/FuzzParseRegister and below.
func FuzzParseRegister(f *testing.F) {
	for _, s := range []struct {
		name, data string
		owner      int
	}{
		{entryName("/srv/a"), "/srv/a\n", 1000},
		{entryName("/srv/a") + "-ff", "/srv/a\n", 1000},
		{entryName("/srv/a"), "/srv/a", 1000},
		{entryName("/srv/a"), "/srv/a\n/srv/b\n", 0},
		{entryName("srv/a"), "srv/a\n", 1000},
		{entryName("/srv/../a"), "/srv/../a\n", 1000},
		{"x", "/srv/a\x00\n", -1},
		{".tmp-1", "", 1000},
	} {
		f.Add(s.name, []byte(s.data), s.owner, uint32(0o644))
	}
	f.Fuzz(func(t *testing.T, name string, data []byte, owner int, mode uint32) {
		owners := func(p string) ([]int, bool) {
			if strings.HasSuffix(p, "gone") {
				return nil, false
			}
			if strings.Contains(p, "root") {
				return []int{0}, true
			}
			return []int{1000}, true
		}
		e := registerEntry{Name: name, Data: data, Owner: owner, Mode: fs.FileMode(mode)}
		got := parseRegister([]registerEntry{e, e}, owners, reader)
		if len(got.Paths)+len(got.Refused)+got.Missing > 2 {
			t.Fatalf("two entries gave %+v", got)
		}
		for _, p := range got.Paths {
			if !filepath.IsAbs(p) || filepath.Clean(p) != p || strings.ContainsAny(p, "\n\x00") {
				t.Errorf("honoured %q", p)
			}
			if !e.Mode.IsRegular() || len(data) > MaxRegisterEntryBytes || !strings.HasPrefix(name, entryName(p)) {
				t.Errorf("honoured %q from entry %q (mode %s, %d bytes)", p, name, e.Mode, len(data))
			}
			if uids, _ := owners(p); owner > 0 && owner != reader && uids[0] != owner {
				t.Errorf("honoured %q, owned by %d, from an entry of uid %d", p, uids[0], owner)
			}
		}
	})
}
