package guard

import (
	"fmt"
	"strings"
	"testing"
)

// mountLine is one line of a mount table, mount id, at point.
func mountLine(id int, point string) string {
	return fmt.Sprintf("%d 1 0:%d / %s rw,relatime shared:1 - ext4 /dev/vda rw\n", id, id, point)
}

// TestParseMountInfoBounds holds each bound of the mount table at its
// edge: a table, a count of lines and a line at the bound are read, one
// past it refused; an escape at the very end of a field is decoded, one
// cut short refused; four lines that cannot be read are each named, a
// fifth is counted.
func TestParseMountInfoBounds(t *testing.T) {
	bad := func(n int) string { return strings.Repeat("not a mount line\n", n) }
	padded := func(size int) string { // one good line, padded with blank lines to size
		l := mountLine(1, "/")
		return l + strings.Repeat("\n", size-len(l))
	}
	lines := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(mountLine(i+1, "/m"))
		}
		return b.String()
	}
	long := func(size int) string { // a line of size bytes, its mount point long
		l := mountLine(1, "/")
		return mountLine(1, "/"+strings.Repeat("a", size-len(l))) // one more byte of point, one less '\n'
	}
	tests := []struct {
		name       string
		data       string
		wantMounts int
		wantErr    string // "" for none
	}{
		{name: "a table of the bound", data: padded(maxMountInfoBytes), wantMounts: 1},
		{name: "a table past it", data: padded(maxMountInfoBytes + 1), wantErr: "over the bound"},
		{name: "lines at the bound", data: lines(maxMounts), wantMounts: maxMounts},
		{name: "lines past it", data: lines(maxMounts + 1), wantErr: "over the bound of 65536 lines"},
		{name: "a line of the bound", data: long(maxMountLine + 1), wantMounts: 1},
		{name: "a line past it", data: long(maxMountLine + 2), wantErr: "over the bound of 65536"},
		{name: "four lines unread, each named", data: mountLine(1, "/") + bad(4), wantMounts: 1,
			wantErr: "line 5: not ID"},
		{name: "five lines unread, the fifth counted", data: mountLine(1, "/") + bad(5), wantMounts: 1,
			wantErr: "and 1 more lines"},
		{name: "an escape at the end of the point", data: mountLine(1, `/a\040`), wantMounts: 1},
		{name: "an escape cut short", data: mountLine(1, `/a\04`), wantErr: "an escape cut short"},
		{name: "the fewest fields", data: "1 1 0:1 / / rw - ext4 x\n", wantMounts: 1},
		{name: "a field short before the separator", data: "1 1 0:1 / rw - ext4 x\n", wantErr: "not ID"},
		{name: "a field short after it", data: "1 1 0:1 / / rw - ext4\n", wantErr: "not ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMountInfo([]byte(tt.data))
			if len(got) != tt.wantMounts {
				t.Errorf("%d mounts, want %d (%v)", len(got), tt.wantMounts, err)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error %v, want one with %q", err, tt.wantErr)
			}
			if tt.name == "four lines unread, each named" && strings.Contains(err.Error(), "more lines") {
				t.Errorf("four unread lines counted as more: %v", err)
			}
		})
	}
	if got, err := ParseMountInfo([]byte(mountLine(1, `/a\040b`))); err != nil || len(got) != 1 || got[0].Point != "/a b" {
		t.Errorf("the mounts %+v (%v), want one at \"/a b\"", got, err)
	}
}
