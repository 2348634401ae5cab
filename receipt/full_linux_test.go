package receipt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
)

// TestReceiptsDirectoryWithoutInodes: a receipts directory that cannot
// be made for want of room (a file system with no inodes left: the
// directory is new, a run's first there) says the file system is full and
// to free room there, when a reservation makes it (Receipt.Reserve) and
// when a receipt written whole does (Receipt.Write), as a receipt file
// refused for want of room does (TestReceiptsFileSystemFull). The
// control: the same directory made on the same file system while it has
// inodes.
func TestReceiptsDirectoryWithoutInodes(t *testing.T) {
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=512k,nr_inodes=32,mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs of few inodes (%v): needs root on Linux", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(mnt, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
		}
	})
	rec := func() *Receipt {
		return NewForSource("/p.vel", []byte("print(1)\n"), budget.Budget{}, nil)
	}
	if _, err := rec().Reserve(filepath.Join(mnt, "control")); err != nil {
		t.Fatalf("the control, with inodes left: %v", err)
	}
	for i := 0; ; i++ {
		f, err := os.Create(filepath.Join(mnt, fmt.Sprint("fill-", i)))
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	_, rerr := rec().Reserve(filepath.Join(mnt, "receipts"))
	_, werr := rec().Write(filepath.Join(mnt, "written"))
	for what, err := range map[string]error{"reserved": rerr, "written whole": werr} {
		var e *codes.Error
		if !errors.As(err, &e) || e.Code != codes.E317 || e.Hint() != fullDo ||
			!errors.Is(err, syscall.ENOSPC) {
			t.Errorf("a receipt %s in a directory made on a file system of no inodes: %v "+
				"(what to do: %q); want E317 saying the file system is full", what, err, hintOf(err))
		}
	}
}
