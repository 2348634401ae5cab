package ship

import (
	"os"
	"path/filepath"
	"testing"
)

// TestKeysOf: a journal's keys go under the replica its ship.by names,
// whoever ships it, when that is a replica id (ValidReplica); a ship.by
// that names none (damaged, or written by hand: a path, upper case,
// nothing) is taken for no mark, and the Shipper's own replica marked
// in its place, so that no key leaves the replica's place beneath Prefix
// ("../ra/" would put the journal's objects beside Prefix, where no
// reader of receipts looks). The control: a ship.by naming r0 keeps its
// keys, and is left as it is.
func TestKeysOf(t *testing.T) {
	const id = "0123456789abcdef"
	for _, tt := range []struct {
		name, by string // by: the ship.by's text; "" for none
		want     string // the replica the keys are under
	}{
		{name: "a ship.by naming r0 (the control)", by: "r0\n", want: "r0"},
		{name: "no ship.by", want: "r1"},
		{name: "a ship.by naming no replica", by: "../r0\n", want: "r1"},
		{name: "a ship.by in upper case", by: "R0\n", want: "r1"},
		{name: "an empty ship.by", by: "\n", want: "r1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.by != "" {
				by := filepath.Join(dir, byFile)
				if err := os.WriteFile(by, []byte(tt.by), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			rest, err := keysOf(dir, id, "r1")
			if err != nil {
				t.Fatal(err)
			}
			if want := tt.want + "/" + id + "/"; rest != want {
				t.Errorf("keys under %q, want %q", rest, want)
			}
			if got := readBy(dir); got != tt.want {
				t.Errorf("ship.by names %q after, want %q", got, tt.want)
			}
		})
	}
}
