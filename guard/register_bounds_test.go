package guard

import (
	"strings"
	"testing"
)

// TestRegisterEntryBounds holds an entry's bounds at their edges: an entry
// of MaxRegisterEntryBytes is read, one byte more refused; a name with a
// suffix of 32 hexadecimal digits is the path's, one of 33 or of none
// after its "-" is not; an owner's entry naming its own path is read,
// root's naming anyone's, and one naming another's path refused.
func TestRegisterEntryBounds(t *testing.T) {
	path := func(size int) string { // an absolute clean path whose entry, with its newline, is size bytes
		return "/" + strings.Repeat("a", size-2)
	}
	owned := func(uid int) pathOwners {
		return func(string) ([]int, bool) { return []int{uid}, true }
	}
	tests := []struct {
		name       string
		p          string
		suffix     string // after the entry's name
		owner      int
		pathOwner  int
		wantRead   bool
		wantReason string
	}{
		{name: "an entry of the bound", p: path(MaxRegisterEntryBytes), owner: 7, pathOwner: 7, wantRead: true},
		{name: "an entry past it", p: path(MaxRegisterEntryBytes + 1), owner: 7, pathOwner: 7,
			wantReason: "larger than 4096 bytes"},
		{name: "a suffix of 32 digits", p: "/srv/store", suffix: "-" + strings.Repeat("f", 32), owner: 7, pathOwner: 7,
			wantRead: true},
		{name: "a suffix of 33", p: "/srv/store", suffix: "-" + strings.Repeat("f", 33), owner: 7, pathOwner: 7,
			wantReason: "not the digest"},
		{name: "a '-' and nothing", p: "/srv/store", suffix: "-", owner: 7, pathOwner: 7, wantReason: "not the digest"},
		{name: "a suffix not hexadecimal", p: "/srv/store", suffix: "-g", owner: 7, pathOwner: 7,
			wantReason: "not the digest"},
		{name: "root's entry for another's path", p: "/srv/store", owner: 0, pathOwner: 7, wantRead: true},
		{name: "an entry for another's path", p: "/srv/store", owner: 8, pathOwner: 7, wantReason: "owned by uid 7"},
		{name: "not absolute", p: "srv", owner: 7, pathOwner: 7, wantReason: "not absolute and clean"},
		{name: "not clean", p: "/srv/../etc", owner: 7, pathOwner: 7, wantReason: "not absolute and clean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := registerEntry{Name: entryName(tt.p) + tt.suffix, Mode: 0o644, Owner: tt.owner, Data: []byte(tt.p + "\n")}
			got := parseRegister([]registerEntry{e}, owned(tt.pathOwner), reader)
			if read := len(got.Paths) == 1 && got.Paths[0] == tt.p; read != tt.wantRead {
				t.Errorf("read %v (%q, refused %+v), want %v", read, got.Paths, got.Refused, tt.wantRead)
			}
			if tt.wantReason != "" && (len(got.Refused) != 1 || !strings.Contains(got.Refused[0].Why, tt.wantReason)) {
				t.Errorf("refused %+v, want one saying %q", got.Refused, tt.wantReason)
			}
		})
	}
}
