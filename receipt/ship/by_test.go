package ship

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
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
			if got, err := readBy(dir); err != nil || got != tt.want {
				t.Errorf("ship.by names %q (%v) after, want %q", got, err, tt.want)
			}
		})
	}
}

// TestKeysOfUnreadable: a ship.by that is there and cannot be read (a
// named pipe in its place, which is never waited on) is an error, and is
// left as it is, never marked again with the Shipper's own replica: the
// journal's later segments would go under other keys than its earlier
// ones, and a segment under both.
func TestKeysOfUnreadable(t *testing.T) {
	dir := t.TempDir()
	by := filepath.Join(dir, byFile)
	if err := testkit.Mkfifo(by); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	if rest, err := keysOf(dir, "0123456789abcdef", "r1"); err == nil {
		t.Fatalf("keys %q of a journal whose ship.by cannot be read, want an error", rest)
	}
	if fi, err := os.Lstat(by); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the ship.by that could not be read was replaced: %v, %v", fi.Mode(), err)
	}
}
