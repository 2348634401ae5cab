package receipt

import (
	"fmt"
	"testing"
)

// TestStdoutLine: a receipt whose caller was given the first of its
// output says, in one line, how much the program printed, how much the
// caller was given and how much was dropped, each counted apart; the
// controls: output given whole, to its last byte, says nothing.
func TestStdoutLine(t *testing.T) {
	for _, tc := range []struct {
		name          string
		printed, kept int64
		want          string
	}{
		{name: "cut", printed: 3<<20 + 1, kept: 1 << 20, want: fmt.Sprintf("stdout: CUT: the program "+
			"printed %d bytes; the caller was given the first %d, and the other %d were dropped "+
			"(the receipt's stdout_cut)", 3<<20+1, 1<<20, 2<<20+1)},
		{name: "given whole, to its last byte", printed: 1 << 20, kept: 1 << 20},
		{name: "given whole", printed: 10, kept: 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &Receipt{StdoutCut: CutStdout(tc.printed, tc.kept)}
			if got := rec.StdoutLine(); got != tc.want {
				t.Errorf("StdoutLine of %d printed, %d kept: %q; want %q", tc.printed, tc.kept, got,
					tc.want)
			}
		})
	}
}
