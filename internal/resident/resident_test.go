package resident

import (
	"fmt"
	"strings"
	"testing"
)

// line is a status file's line of kB.
func line(name string, kb any) string { return fmt.Sprintf("%s:\t%8v kB\n", name, kb) }

// TestCount: the sum of a status file's RssAnon, RssShmem and VmSwap in
// bytes, and false for lines that do not give each once in kB.
func TestCount(t *testing.T) {
	all := func(anon, shmem, swap any) string {
		return line("RssAnon", anon) + line("RssShmem", shmem) + line("VmSwap", swap)
	}
	status := "Name:\tsabline\n" + line("VmRSS", 7000) + line("RssAnon", 2304) +
		line("RssFile", 4000) + line("RssShmem", 16) + line("VmSwap", 8) + "Threads:\t5\n"
	for _, tt := range []struct {
		name   string
		status string
		want   uint64
		wantOK bool
	}{
		{"a status file", status, (2304 + 16 + 8) << 10, true},
		{"nothing shared or swapped", all(7, 0, 0), 7 << 10, true},
		{"no RssShmem", line("RssAnon", 7) + line("VmSwap", 0), 0, false},
		{"no VmSwap", line("RssAnon", 7) + line("RssShmem", 0), 0, false},
		{"RssAnon twice", all(7, 0, 0) + line("RssAnon", 7), 0, false},
		{"not at a line's start", "Name:\tRssAnon: 1 kB\n" + line("RssShmem", 0) + line("VmSwap", 0),
			0, false},
		{"not a number", all("x", 0, 0), 0, false},
		{"not in kB", "RssAnon:\t7 MB\n" + line("RssShmem", 0) + line("VmSwap", 0), 0, false},
		{"past 16 PiB", all(uint64(1)<<44, 0, 0), 0, false},
		{"empty", "", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := count([]byte(tt.status))
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("count(%q) = %d, %v; want %d, %v", tt.status, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// FuzzCount: whatever a status file holds, its count does not panic, and
// gives 0 when it says false; and its Name line, which is the program's to
// set (at most 15 bytes, which the kernel writes with a newline or a
// backslash escaped), changes nothing of what is counted of the rest.
func FuzzCount(f *testing.F) {
	f.Add([]byte("x\nRssAnon:\t9 kB"),
		[]byte("RssAnon:\t  2304 kB\nRssFile:\t4 kB\nRssShmem:\t16 kB\nVmSwap:\t0 kB\n"))
	f.Add([]byte("sabline"), []byte("RssAnon: 17592186044415 kB\nRssShmem: 1 kB\nVmSwap: 1 kB\n"))
	f.Add([]byte(""), []byte("RssAnon:\nRssShmem: kB kB\n"))
	f.Fuzz(func(t *testing.T, name, status []byte) {
		got, ok := count(status)
		if !ok && got != 0 {
			t.Errorf("count(%q) = %d, false; want 0 with false", status, got)
		}
		if len(name) > 15 {
			name = name[:15]
		}
		escaped := strings.NewReplacer("\\", "\\\\", "\n", "\\n").Replace(string(name))
		named, namedOK := count(append([]byte("Name:\t"+escaped+"\n"), status...))
		if named != got || namedOK != ok {
			t.Errorf("with the Name line %q: %d, %v; without it: %d, %v", escaped, named, namedOK, got, ok)
		}
	})
}
