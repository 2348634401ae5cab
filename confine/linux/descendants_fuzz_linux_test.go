package linux

import (
	"fmt"
	"testing"
	"unicode"
)

// FuzzStatParent: statParent, over a /proc/PID/stat file whose COMM any
// process on the machine sets (prctl, its program's name) to any bytes,
// ")" and spaces and a line's end among them, reads the PPID the kernel
// wrote after it, and false for a process that has ended (Z, X), as the
// fields the file was made of say. (The kernel writes the file whole at
// its first read, so a file cut short is not read; statParent is run on
// every cut only to see that it ends.)
func FuzzStatParent(f *testing.F) {
	f.Add([]byte("sleep"), byte('S'), int32(1), uint64(0))
	f.Add([]byte("a) R 99 (b"), byte('R'), int32(4242), uint64(7))
	f.Add([]byte(") Z 1 "), byte('S'), int32(77), uint64(1))
	f.Add([]byte("x"), byte('Z'), int32(5), uint64(2))
	f.Add([]byte("\n) X 3\n"), byte('X'), int32(-1), uint64(3))
	f.Fuzz(func(t *testing.T, comm []byte, state byte, ppid int32, tail uint64) {
		if state >= 0x80 || unicode.IsSpace(rune(state)) || state == ')' {
			return // the kernel writes one letter
		}
		stat := []byte(fmt.Sprintf("1234 (%s) %c %d %d %d 0 -1 4194560\n", comm, state, ppid,
			tail%1000, tail))
		got, ok := statParent(stat)
		switch ended := state == 'Z' || state == 'X'; {
		case ended && ok:
			t.Fatalf("%q: an ended process read as living, parent %d", stat, got)
		case !ended && (!ok || got != int(ppid)):
			t.Fatalf("%q: read (%d, %v), want (%d, true)", stat, got, ok, ppid)
		}
		for cut := range stat {
			statParent(stat[:cut])
		}
	})
}
