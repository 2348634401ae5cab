package receipt

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReceiptFile: what a finished receipt costs the end of a run, by
// how long its write waits for the disk: syncNow (fsync, then the rename)
// against startWriteback (the writeback started, not waited for, then the
// rename), over a reserved file of ReserveBytes as Finish replaces it.
func BenchmarkReceiptFile(b *testing.B) {
	data := make([]byte, 1300) // about a hello.vel receipt
	for i := range data {
		data[i] = ' '
	}
	for _, bc := range []struct {
		name string
		d    durability
	}{{"fsync", syncNow}, {"writeback", startWriteback}} {
		b.Run(bc.name, func(b *testing.B) {
			final := filepath.Join(b.TempDir(), "receipt.json")
			if err := os.WriteFile(final, make([]byte, ReserveBytes), 0o600); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := writeReceiptFile(final, data, 0, bc.d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
