//go:build unix

package worker

import (
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
	"golang.org/x/sys/unix"
)

// TestCloseInherited: closeInherited, first thing in the worker, closes
// each descriptor it inherited without asking (one without FD_CLOEXEC,
// above standard error) and keeps the standard streams and the
// descriptors the Go runtime opens itself. It runs in a process of its
// own, which inherits descriptor 3.
func TestCloseInherited(t *testing.T) {
	if os.Getenv(testkit.OwnProcessEnv) != "close" {
		f, err := os.Create(filepath.Join(t.TempDir(), "inherited"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		testkit.Rerun(t, "close", func(c *exec.Cmd) { c.ExtraFiles = []*os.File{f} })
		return
	}
	file := filepath.Join(t.TempDir(), "opened")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	open := func(flags int) int {
		fd, err := unix.Open(file, unix.O_RDONLY|flags, 0)
		if err != nil {
			t.Fatal(err)
		}
		return fd
	}
	tests := []struct {
		name     string
		fd       int
		wantOpen bool
	}{
		{name: "standard input", fd: 0, wantOpen: true},
		{name: "standard output", fd: 1, wantOpen: true},
		{name: "standard error", fd: 2, wantOpen: true},
		{name: "inherited through exec", fd: 3},
		{name: "opened close-on-exec", fd: open(unix.O_CLOEXEC), wantOpen: true},
		{name: "left open across exec", fd: open(0)},
	}
	for _, tc := range tests {
		if _, err := unix.FcntlInt(uintptr(tc.fd), unix.F_GETFD, 0); err != nil {
			t.Fatalf("%s (descriptor %d) is not open before: %v", tc.name, tc.fd, err)
		}
	}
	if err := closeInherited(); err != nil {
		t.Fatalf("closeInherited: %v", err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := unix.FcntlInt(uintptr(tc.fd), unix.F_GETFD, 0)
			if open := err == nil; open != tc.wantOpen {
				t.Errorf("descriptor %d open: %v (%v), want %v", tc.fd, open, err, tc.wantOpen)
			}
		})
	}
}

// TestCrashFileStays: after crashToFile, descriptor 2 is the crash file
// still once a collection has run the finalizers of files no one holds:
// the standard error it replaced is kept, whose finalizer would close
// descriptor 2 (and the next file opened would take its number). The log
// package, which holds os.Stderr in most programs, is told to write
// elsewhere first, as a host may. The control is a dropped file closed by
// its finalizer (testkit.CollectDropped); it runs in a process of its own.
func TestCrashFileStays(t *testing.T) {
	if os.Getenv(testkit.OwnProcessEnv) != "crash file" {
		testkit.Rerun(t, "crash file", nil)
		return
	}
	log.SetOutput(io.Discard)
	crash, err := os.Create(filepath.Join(t.TempDir(), "crash"))
	if err != nil {
		t.Fatal(err)
	}
	defer crash.Close()
	if err := crashToFile(crash); err != nil {
		t.Fatal(err)
	}
	if err := testkit.CollectDropped(); err != nil {
		t.Fatal(err)
	}
	var want, got unix.Stat_t
	if err := unix.Fstat(int(crash.Fd()), &want); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fstat(2, &got); err != nil || got.Dev != want.Dev || got.Ino != want.Ino {
		t.Fatalf("descriptor 2 after the collections: %v, inode %d, want the crash file's, %d",
			err, got.Ino, want.Ino)
	}
}
