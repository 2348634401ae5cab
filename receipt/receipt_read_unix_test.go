//go:build unix

package receipt

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestLoadReceiptNamedPipe checks that a named pipe with a receipt's name
// is refused without being opened: reading it would wait for a writer.
func TestLoadReceiptNamedPipe(t *testing.T) {
	p := filepath.Join(testkit.Scratch(t), "fifo.json")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(p)
	testkit.WantError(t, err, codes.E317, "", "not a regular file")
}
