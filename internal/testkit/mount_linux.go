package testkit

import (
	"os"
	"syscall"
	"testing"
)

// MountSmallFS mounts a 512 KiB tmpfs on a directory of the test's own,
// so that the test can fill a file system without touching any other. It
// skips, saying why, where it cannot mount (not root, no tmpfs).
func MountSmallFS(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=512k,mode=0700"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (%v): needs root on Linux", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// MountReadOnlyFS is MountSmallFS remounted read-only.
func MountReadOnlyFS(t testing.TB) string {
	t.Helper()
	dir := MountSmallFS(t)
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount %s read-only: %v", dir, err)
	}
	return dir
}
