//go:build unix

package run

import (
	"errors"
	"os"
	"os/exec"
	goruntime "runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/wire"
)

// feedTheRest writes want on the caller's side of the feed and closes it,
// then checks that the copy ended with it and gave the worker all of it.
func feedTheRest(t *testing.T, in *os.File, done <-chan struct{}, dst *testkit.LockedBuffer, want string) {
	t.Helper()
	if _, err := in.WriteString(want); err != nil {
		t.Fatal(err)
	}
	in.Close()
	if !ended(done) {
		t.Fatal("the copy of the caller's input did not end with it")
	}
	if got := dst.String(); got != want {
		t.Errorf("the worker was given %q, want %q", got, want)
	}
}

// feedAsync runs feed(dst, src, woken) and returns a channel closed when
// it returns.
func feedAsync(dst *testkit.LockedBuffer, src, woken *os.File) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		feed(dst, src, woken)
	}()
	return done
}

// ended says whether done closes within a bound the machine's load sets.
func ended(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	case <-time.After(testkit.Bound(10 * time.Second)):
		return false
	}
}

// TestFeedEnds: the copy of the caller's input towards the worker (feed)
// ends, with all the input delivered, when the caller's input ends, while
// the worker still runs: the worker then reads the end of its standard
// input. It ends too, without waiting for input that may never come, once
// the worker has exited (woken readable).
func TestFeedEnds(t *testing.T) {
	tests := []struct {
		name       string
		input      string
		inputEnds  bool // the caller's input ends
		workerEnds bool // the worker exits
		want       string
	}{
		{name: "the caller's input ends", input: "line one\nline two\n", inputEnds: true,
			want: "line one\nline two\n"},
		{name: "the caller's input ends empty", inputEnds: true},
		{name: "the worker exits first", input: "some\n", workerEnds: true, want: "some\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src, in := pipe(t)
			woken, wake := pipe(t)
			var dst testkit.LockedBuffer
			done := feedAsync(&dst, src, woken)
			if _, err := in.WriteString(tc.input); err != nil {
				t.Fatal(err)
			}
			if tc.workerEnds {
				waitUntil(t, func() bool { return dst.String() == tc.want })
				wake.Close()
			}
			if tc.inputEnds {
				in.Close()
			}
			if !ended(done) {
				wake.Close() // the copy ends; the test fails
				t.Fatal("the copy of the caller's input did not end")
			}
			if got := dst.String(); got != tc.want {
				t.Errorf("the worker was given %q, want %q", got, tc.want)
			}
		})
	}
}

// TestToolPairClosedOnExec: both ends of the tool channel's socket pair
// are closed on exec, so no process a host module starts holds either:
// the worker's end reaches the worker only as passPipes passes it.
func TestToolPairClosedOnExec(t *testing.T) {
	theirs, ours, err := toolPair()
	if err != nil {
		t.Fatal(err)
	}
	defer theirs.Close()
	defer ours.Close()
	tests := []struct {
		name string
		f    *os.File
	}{
		{name: "the worker's end", f: theirs},
		{name: "the supervisor's end", f: ours},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := tc.f.SyscallConn()
			if err != nil {
				t.Fatal(err)
			}
			var flags int
			cerr := raw.Control(func(fd uintptr) {
				flags, err = unix.FcntlInt(fd, unix.F_GETFD, 0)
			})
			if err = errors.Join(cerr, err); err != nil {
				t.Fatal(err)
			}
			if flags&unix.FD_CLOEXEC == 0 {
				t.Errorf("descriptor flags %#x, want FD_CLOEXEC", flags)
			}
		})
	}
}

// TestFeedWokenOnAnyDescriptor: a supervisor whose own standard input is
// closed (its host started it so) makes the relay's wake pipe on
// descriptor 0; the caller's input still reaches the worker whole. It runs
// in a process of its own, which closes its standard input.
func TestFeedWokenOnAnyDescriptor(t *testing.T) {
	if os.Getenv(testkit.OwnProcessEnv) != "feed" {
		testkit.Rerun(t, "feed", nil)
		return
	}
	tests := []struct {
		name       string
		closeStdin bool // the standard input closed: the wake pipe takes descriptor 0
		want       string
	}{
		{name: "standard input open", want: "input\n"},
		{name: "standard input closed", closeStdin: true, want: "input\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.closeStdin {
				if err := unix.Close(0); err != nil {
					t.Fatal(err)
				}
			}
			woken, _ := pipe(t)
			if fd := woken.Fd(); (fd == 0) != tc.closeStdin {
				t.Fatalf("the wake pipe is descriptor %d", fd)
			}
			src, in := pipe(t)
			var dst testkit.LockedBuffer
			done := feedAsync(&dst, src, woken)
			feedTheRest(t, in, done, &dst, tc.want)
		})
	}
}

// maxRSSTouchEnv is how many MiB the test binary, started by TestMaxRSSKB,
// touches before it exits.
const maxRSSTouchEnv = "SABLINE_TEST_TOUCH_MIB"

// TestMaxRSSKB: the largest resident set the kernel counted for an exited
// process is given in KiB, on Linux (which counts KiB) as on macOS (which
// counts bytes): a process that touched n MiB counts at least n×1024,
// and none here reaches 16 GiB.
func TestMaxRSSKB(t *testing.T) {
	if os.Getenv(testkit.OwnProcessEnv) == "touch" {
		mib, err := strconv.Atoi(os.Getenv(maxRSSTouchEnv))
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, mib<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		goruntime.KeepAlive(b)
		return
	}
	tests := []struct {
		name   string
		touch  int // MiB
		wantKB int64
	}{
		{name: "a Go process", touch: 0, wantKB: 1024},
		{name: "one that touched 64 MiB", touch: 64, wantKB: 64 * 1024},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := testkit.Rerun(t, "touch", func(c *exec.Cmd) {
				c.Env = append(c.Env, maxRSSTouchEnv+"="+strconv.Itoa(tc.touch))
			})
			const most = 16 << 20 // 16 GiB, in KiB
			if got := maxRSSKB(cmd.ProcessState); got < tc.wantKB || got > most {
				t.Errorf("maxRSSKB = %d, want at least %d and at most %d", got, tc.wantKB, most)
			}
		})
	}
}

// TestPassPipes: the worker is named each descriptor passPipes gives it,
// in ExtraFiles' order from 3, with "-" for an optional one not passed
// before one that is, and nothing after the last one passed.
func TestPassPipes(t *testing.T) {
	var files []*os.File // six distinct files, for their places only
	for range 3 {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		files = append(files, r, w)
	}
	req, res, stop, tool, brokered, began := files[0], files[1], files[2], files[3], files[4], files[5]
	tests := []struct {
		name                  string
		tool, brokered, began *os.File
		wantArgs              []string
		wantFiles             []*os.File
	}{
		{name: "the pipes alone", wantArgs: []string{"3", "4", "5"},
			wantFiles: []*os.File{req, res, stop}},
		{name: "a tool channel", tool: tool, wantArgs: []string{"3", "4", "5", "6"},
			wantFiles: []*os.File{req, res, stop, tool}},
		{name: "a broker channel", brokered: brokered, wantArgs: []string{"3", "4", "5", "-", "6"},
			wantFiles: []*os.File{req, res, stop, brokered}},
		{name: "a pool's page", began: began, wantArgs: []string{"3", "4", "5", "-", "-", "6"},
			wantFiles: []*os.File{req, res, stop, began}},
		{name: "everything", tool: tool, brokered: brokered, began: began,
			wantArgs:  []string{"3", "4", "5", "6", "7", "8"},
			wantFiles: []*os.File{req, res, stop, tool, brokered, began}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := &exec.Cmd{Args: []string{"sabline", wire.WorkerArg}}
			passPipes(cmd, req, res, stop, tt.tool, tt.brokered, tt.began)
			if got := cmd.Args[2:]; !slices.Equal(got, tt.wantArgs) {
				t.Errorf("arguments %q, want %q", got, tt.wantArgs)
			}
			if !slices.Equal(cmd.ExtraFiles, tt.wantFiles) {
				t.Errorf("files %v, want %v", cmd.ExtraFiles, tt.wantFiles)
			}
		})
	}
}
