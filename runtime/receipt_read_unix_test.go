//go:build unix

package runtime

import (
	"path/filepath"
	"syscall"
	"testing"
)

// TestLoadReceiptNamedPipe checks that a named pipe with a receipt's name
// is refused without being opened: reading it would wait for a writer.
func TestLoadReceiptNamedPipe(t *testing.T) {
	p := filepath.Join(scratch(t), "fifo.json")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadReceipt(p)
	wantError(t, err, E317, "", "not a regular file")
}
