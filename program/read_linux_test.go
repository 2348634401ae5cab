package program

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// ways are openat2, and an os.Root where the kernel answers openat2 with
// ENOSYS, as a kernel before 5.6 and a seccomp filter do.
var ways = []way{
	{name: "openat2", use: func(t *testing.T) func() bool {
		noOpenat2.Store(false)
		t.Cleanup(func() { noOpenat2.Store(false) })
		return func() bool { return !noOpenat2.Load() }
	}},
	{name: "without openat2", use: withoutOpenat2(unix.ENOSYS)},
}

// withoutOpenat2 puts a kernel in place that answers openat2 with errno.
func withoutOpenat2(errno unix.Errno) func(t *testing.T) func() bool {
	return func(t *testing.T) func() bool {
		old := openat2
		var asked bool
		openat2 = func(int, string, *unix.OpenHow) (int, error) {
			asked = true
			return -1, errno
		}
		noOpenat2.Store(false)
		t.Cleanup(func() {
			openat2 = old
			noOpenat2.Store(false)
		})
		return func() bool { return asked && noOpenat2.Load() }
	}
}

// TestReadBeneathOpenat2: on Linux a link out of the root is refused as
// not beneath it, and a kernel that answers openat2 with ENOSYS or EPERM
// is asked once, every read after going through an os.Root; the control
// reads a program through openat2 itself.
func TestReadBeneathOpenat2(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	noOpenat2.Store(false)
	if src, err := ReadBeneath(root, "hello.vel"); err != nil || string(src) != "print(1)\n" {
		t.Fatalf("ReadBeneath(hello.vel) = %q, %v; want print(1)", src, err)
	}
	if noOpenat2.Load() {
		t.Skip("this kernel has no openat2, or a filter refuses it: every read goes through an os.Root")
	}
	if _, err := ReadBeneath(root, "out/secret.vel"); !errors.Is(err, ErrNotBeneath) {
		t.Errorf("ReadBeneath(out/secret.vel) = %v; want %v", err, ErrNotBeneath)
	}
	tests := []struct {
		name  string
		errno unix.Errno
	}{
		{name: "ENOSYS", errno: unix.ENOSYS},
		{name: "EPERM", errno: unix.EPERM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			took := withoutOpenat2(tt.errno)(t)
			calls := 0
			inner := openat2
			openat2 = func(dir int, path string, how *unix.OpenHow) (int, error) {
				calls++
				return inner(dir, path, how)
			}
			for range 3 {
				if src, err := ReadBeneath(root, "hello.vel"); err != nil || string(src) != "print(1)\n" {
					t.Fatalf("ReadBeneath(hello.vel) = %q, %v; want print(1)", src, err)
				}
			}
			if !took() || calls != 1 {
				t.Errorf("openat2 asked %d times, the reads through an os.Root: %v; want once, true",
					calls, took())
			}
		})
	}
}
