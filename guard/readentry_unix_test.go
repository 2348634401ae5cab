//go:build unix

package guard

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadEntryOnlyThatFile: an entry is read only when it is, as it is
// opened, the regular file of the owner it was listed with: a file of
// another owner (one replaced since it was listed), a link to an entry
// and a named pipe read nothing, and the pipe is not waited on; the
// control, the same file with its own owner, reads whole.
func TestReadEntryOnlyThatFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "entry")
	if err := os.WriteFile(p, []byte("/srv/rc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(readEntry(p, fileOwner(fi))); got != "/srv/rc\n" {
		t.Fatalf("the entry of its own owner read %q, want it whole", got)
	}
	if got := readEntry(p, fileOwner(fi)+1); got != nil {
		t.Errorf("the entry read as another owner's gave %q, want nothing", got)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	if got := readEntry(link, fileOwner(fi)); got != nil {
		t.Errorf("a link to the entry read %q, want nothing", got)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan []byte, 1)
	go func() { done <- readEntry(fifo, fileOwner(fi)) }()
	select {
	case got := <-done:
		if got != nil {
			t.Errorf("a named pipe read %q, want nothing", got)
		}
	case <-time.After(time.Minute): // only if it waits on the pipe's other end
		t.Fatal("readEntry waited on a named pipe")
	}
}
