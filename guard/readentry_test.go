package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadEntryBound: an entry's file is read whole up to one byte past
// MaxRegisterEntryBytes, so that an entry of the bound is judged as it is
// and one past it is seen to be too large, not cut to fit.
func TestReadEntryBound(t *testing.T) {
	tests := []struct {
		name     string
		size     int
		wantRead int
	}{
		{name: "an entry of the bound", size: MaxRegisterEntryBytes, wantRead: MaxRegisterEntryBytes},
		{name: "a byte past it", size: MaxRegisterEntryBytes + 1, wantRead: MaxRegisterEntryBytes + 1},
		{name: "two bytes past it", size: MaxRegisterEntryBytes + 2, wantRead: MaxRegisterEntryBytes + 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "entry")
			data := []byte("/" + strings.Repeat("a", tc.size-2) + "\n")
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			if got := readEntry(p, fileOwner(fi)); len(got) != tc.wantRead {
				t.Errorf("readEntry of %d bytes read %d, want %d", tc.size, len(got), tc.wantRead)
			}
		})
	}
}

// TestParseMountLineFields: a line of the mount table gives each field
// from its place: the type and the source after the "-", whatever the
// number of optional fields before it.
func TestParseMountLineFields(t *testing.T) {
	tests := []struct {
		name       string
		line       string
		wantType   string
		wantSource string
		wantPoint  string
	}{
		{name: "no optional field",
			line:     `36 35 98:0 / /mnt/data rw,noatime - ext3 /dev/root rw,errors=continue`,
			wantType: "ext3", wantSource: "/dev/root", wantPoint: "/mnt/data"},
		{name: "two optional fields", line: `37 1 0:5 / /proc rw shared:1 master:2 - proc proc rw`,
			wantType: "proc", wantSource: "proc", wantPoint: "/proc"},
		{name: "an escaped source", line: `38 1 0:6 / /media/a\040b rw - vfat /dev/sd\040b rw`,
			wantType: "vfat", wantSource: "/dev/sd b", wantPoint: "/media/a b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := parseMountLine(tc.line)
			if err != nil {
				t.Fatal(err)
			}
			if m.FSType != tc.wantType || m.Source != tc.wantSource || m.Point != tc.wantPoint {
				t.Errorf("type %q, source %q, point %q; want %q, %q, %q", m.FSType, m.Source, m.Point,
					tc.wantType, tc.wantSource, tc.wantPoint)
			}
		})
	}
}
