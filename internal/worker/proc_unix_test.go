//go:build unix

package worker

import (
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"testing"

	"github.com/sabline/sabline/internal/brokenpipe"
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
// descriptor 2's former file, which brokenpipe.Reopen keeps, would close
// it (and the next file opened would take its number). Before Reopen,
// crashToFile refuses. The log
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
	if err := crashToFile(crash); err == nil {
		t.Fatal("crashToFile took descriptor 2 before brokenpipe.Reopen")
	}
	if err := brokenpipe.Reopen(); err != nil {
		t.Fatal(err)
	}
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

// TestWorkerPipes: the descriptors workerPipes opens are closed on exec,
// so that no program the worker starts holds a pipe to its supervisor,
// and the stop pipe alone is made non-blocking, so that its reader waits
// in the runtime's poller rather than on a thread of its own (but on
// macOS, where Go polls no pipe). The pipes are made with neither flag
// (the control: each is read before).
func TestWorkerPipes(t *testing.T) {
	var fds []int
	for range 3 {
		var p [2]int
		if err := unix.Pipe(p[:]); err != nil {
			t.Fatal(err)
		}
		fds = append(fds, p[0], p[1])
	}
	flags := func(fd int) (cloexec, nonblock bool) {
		fdf, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil {
			t.Fatal(err)
		}
		fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		if err != nil {
			t.Fatal(err)
		}
		return fdf&unix.FD_CLOEXEC != 0, fl&unix.O_NONBLOCK != 0
	}
	tests := []struct {
		name         string
		fd           int
		wantNonblock bool
	}{
		{name: "request", fd: fds[0]},
		{name: "result", fd: fds[3]},
		{name: "stop", fd: fds[4], wantNonblock: goruntime.GOOS != "darwin"},
	}
	for _, tt := range tests {
		if c, n := flags(tt.fd); c || n {
			t.Fatalf("%s: close-on-exec %v, non-blocking %v before workerPipes", tt.name, c, n)
		}
	}
	var args []string
	for _, tt := range tests {
		args = append(args, strconv.Itoa(tt.fd))
	}
	got, err := workerPipes(args)
	if err != nil || got.tool != nil || got.broker != nil || got.began != nil {
		t.Fatalf("workerPipes(%q): %v (%+v)", args, err, got)
	}
	defer func() {
		for _, f := range []*os.File{got.req, got.res, got.stop} {
			f.Close()
		}
		for _, fd := range []int{fds[1], fds[2], fds[5]} {
			unix.Close(fd)
		}
	}()
	for _, tt := range tests {
		if c, n := flags(tt.fd); !c || n != tt.wantNonblock {
			t.Errorf("%s: close-on-exec %v, non-blocking %v; want true and %v", tt.name, c, n,
				tt.wantNonblock)
		}
	}
}

// TestWorkerPipesPassed: workerPipes gives each descriptor the place its
// argument has, a "-" leaving that place empty, and refuses arguments
// without the three pipes or with more than six.
func TestWorkerPipesPassed(t *testing.T) {
	fd := func() string {
		var p [2]int
		if err := unix.Pipe(p[:]); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(p[1]) })
		return strconv.Itoa(p[0])
	}
	tests := []struct {
		name    string
		args    []string
		want    []bool // which of req, res, stop, tool, broker, began are there
		wantErr bool
	}{
		{name: "the pipes alone", args: []string{fd(), fd(), fd()},
			want: []bool{true, true, true, false, false, false}},
		{name: "a pool's page", args: []string{fd(), fd(), fd(), "-", "-", fd()},
			want: []bool{true, true, true, false, false, true}},
		{name: "a broker channel", args: []string{fd(), fd(), fd(), "-", fd()},
			want: []bool{true, true, true, false, true, false}},
		{name: "no stop pipe", args: []string{fd(), fd(), "-"}, wantErr: true},
		{name: "seven", args: []string{fd(), fd(), fd(), fd(), fd(), fd(), fd()}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := workerPipes(tt.args)
			if (err != nil) != tt.wantErr {
				t.Fatalf("workerPipes(%q): %v, want an error %v", tt.args, err, tt.wantErr)
			}
			files := []*os.File{got.req, got.res, got.stop, got.tool, got.broker, got.began}
			t.Cleanup(func() {
				for _, f := range files {
					if f != nil {
						f.Close()
					}
				}
			})
			if tt.wantErr { // nothing opened: the read ends are the test's to close
				for _, a := range tt.args {
					if n, err := strconv.Atoi(a); err == nil {
						unix.Close(n)
					}
				}
				return
			}
			for i, f := range files {
				if there := f != nil; there != tt.want[i] {
					t.Errorf("place %d: a file %v, want %v", i, there, tt.want[i])
				} else if there && strconv.Itoa(int(f.Fd())) != tt.args[i] {
					t.Errorf("place %d: descriptor %d, want %s", i, f.Fd(), tt.args[i])
				}
			}
		})
	}
}
