package run

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/receipt"
	"golang.org/x/sys/unix"
)

// TestRunsDoNotShareATempDir: while a run (budget io) waits, other runs
// try to write in its private temporary directory: under fs:write (E318),
// under a grant that names it (E329, nothing runs), and with raw system
// calls under --confine strict, which the kernel refuses (the file is
// looked for from outside). A run under a grant of every path wrote
// 10,050 files there, and the waiting run ended E310, "a fault in
// Sabline". The waiting run ends as it would have, its directory holding
// nothing of theirs. The controls: the same writes in a directory of the
// test's own, and a new file in the system's temporary directory under a
// grant of it, which the runs' directories no longer take from it.
func TestRunsDoNotShareATempDir(t *testing.T) {
	runs, err := runsDir()
	if err != nil {
		t.Fatal(err)
	}
	before := tempDirs(t, runs)
	stdin, feed := io.Pipe()
	var out bytes.Buffer
	prog := filepath.Join(t.TempDir(), "wait.vel")
	testkit.WriteFile(t, prog, "line = io.read_line()\nprint(\"read \" + line)\n")
	done := make(chan *receipt.Receipt, 1)
	go func() {
		done <- Supervise(Run{Program: prog, Budget: budget.MustParse("/", "io"), Cwd: filepath.Dir(prog), Confine: core.ModeDefault,
			Timeout: testkit.Bound(60 * time.Second), Receipts: filepath.Join(t.TempDir(), "receipts"),
			Stdin: stdin, Stdout: &out, Stderr: io.Discard})
	}()
	var victim string
	for deadline := time.Now().Add(testkit.Bound(20 * time.Second)); victim == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for d := range tempDirs(t, runs) {
			if !before[d] {
				victim = d
			}
		}
	}
	if victim == "" {
		t.Fatalf("the waiting run made no directory in %s", runs)
	}
	scratch := t.TempDir()
	system, err := os.MkdirTemp("", "sabline-tmp-grant-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(system)
	attacks := []struct {
		name     string
		src      string
		allow    []string
		strict   bool
		dir      string // where it writes
		wantCode codes.Code
		wantMsg  string
	}{
		{name: "under a grant of every path", src: `fs.write(ARGS[0] + "/planted", "x")`, allow: []string{"fs:write"},
			dir: victim, wantCode: codes.E318, wantMsg: "Sabline's receipts and tokens"},
		{name: "many files under a grant of every path", src: "for i in range(10050):\n    fs.write(ARGS[0] + \"/f\" + str(i), \"x\")\n",
			allow: []string{"fs:write"}, dir: victim, wantCode: codes.E318},
		{name: "under a grant that names it", src: `fs.write(ARGS[0] + "/planted", "x")`, allow: []string{"fs:write:" + victim},
			dir: victim, wantCode: codes.E329},
		{name: "raw calls under --confine strict", src: rawCreate, allow: []string{"io", "fs:write", "ffi:ctypes"}, strict: true,
			dir: victim, wantCode: ""},
		{name: "the control: a directory of the test's own", src: `fs.write(ARGS[0] + "/planted", "x")`, allow: []string{"fs:write"},
			dir: scratch},
		{name: "the control: raw calls in it", src: rawCreate, allow: []string{"io", "fs:write", "ffi:ctypes"}, strict: true, dir: scratch},
		{name: "the control: a new file in the system's temporary directory under a grant of it",
			src: `fs.write(ARGS[0] + "/planted", "x")`, allow: []string{"fs:write:" + os.TempDir()}, dir: system},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			s := superviseProgram(t, a.src, a.allow, func(r *Run) {
				r.Args, r.Confine = []string{a.dir}, core.ModeDefault
				if a.strict {
					r.Confine = core.ModeStrict
				}
			})
			if s.rec.Outcome.Code != a.wantCode || !strings.Contains(s.rec.Outcome.Message, a.wantMsg) {
				t.Fatalf("outcome %s %q, want %s %q\n%s", s.rec.Outcome.Code, s.rec.Outcome.Message, a.wantCode, a.wantMsg, s.stderr)
			}
			t.Logf("%s: %s", a.name, strings.TrimSpace(s.stdout))
			_, err := os.Lstat(filepath.Join(a.dir, "planted"))
			if planted := err == nil; planted != (a.dir != victim) {
				t.Fatalf("%s/planted exists: %v, want %v (%s)", a.dir, planted, a.dir != victim, s.stdout)
			}
		})
	}
	entries, err := os.ReadDir(victim)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != wire.CrashFile {
			t.Errorf("the waiting run's directory holds %s", e.Name())
		}
	}
	io.WriteString(feed, "go on\n")
	feed.Close()
	rec := <-done
	if rec.Outcome.Status != receipt.StatusOK || !strings.Contains(out.String(), "read go on") {
		t.Fatalf("the waiting run: %+v, %q; want it ended as it would have", rec.Outcome, out.String())
	}
}

// rawCreate makes ARGS[0]/planted with openat(2), and prints the errno.
const rawCreate = `c = ffi.module("ctypes")
r = c.syscall("openat", -100, ARGS[0] + "/planted", 65, 384)  # O_WRONLY|O_CREAT, 0600
print("errno=%s" % r.errno)
`

// tempDirs are the runs' private directories in runs now.
func tempDirs(t *testing.T, runs string) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(runs)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			out[filepath.Join(runs, e.Name())] = true
		}
	}
	return out
}

// TestTempDirCountsRemovedFiles: a file the worker holds open after it was
// removed from its private temporary directory (O_TMPFILE, or its crash
// file, whose path a program confined under --confine strict reads as the
// link /proc/self/fd/2 and removes) takes that directory's disk, and
// counts towards MaxTempDirBytes as a file in it does. Each program
// grows such a file to 1 GiB (ftruncate: apparent size, as the walk
// counts a sparse file) and holds it for 50 of the supervisor's
// measures; it was not seen, and a strict run that wrote 700 MiB into
// its removed crash file ended ok. A worker holding more descriptors
// than one measure reads (4,100, then the file past them) is stopped for
// them: the file past them was not counted, and the run ended ok. The
// control: the same file grown to 1 MiB is held to the end.
func TestTempDirCountsRemovedFiles(t *testing.T) {
	const (
		tmpfile = `c = ffi.module("ctypes")
tmp = ffi.module("os").getenv("TMPDIR")
fd = c.syscall("openat", -100, tmp, 0x410002, 384)  # O_TMPFILE|O_RDWR, 0600
print("tmpfile errno=%s" % fd.errno)
`
		crash = `c = ffi.module("ctypes")
buf = c.syscall("mmap", 0, 4096, 3, 0x22, -1, 0).ret
r = c.syscall("readlinkat", -100, "/proc/self/fd/2", buf, 4095)
u = c.syscall("unlinkat", -100, buf, 0)
print("readlink errno=%s unlink errno=%s" % (r.errno, u.errno))
fd = struct(ret = 2)
`
		grow = `t = c.syscall("ftruncate", fd.ret, int(ARGS[0]))
print("ftruncate errno=%s" % t.errno)
t0 = clock.now()
while clock.now() - t0 < float(ARGS[1]):
    pass
print("held")
`
	)
	hold := fmt.Sprint((50 * BoundsWatchEvery).Seconds())
	for _, tt := range []struct {
		name   string
		src    string
		allow  []string
		strict bool
		size   int
		want   codes.Code
		// wantMsg is in the E330's message; "" for the removed files'.
		wantMsg string
		// files is how many descriptors the program holds, when more
		// than a host's limit may allow.
		files uint64
	}{
		{name: "O_TMPFILE", src: tmpfile, allow: []string{"io", "clock", "ffi:ctypes", "ffi:os"},
			size: 1 << 30, want: codes.E330},
		{name: "the crash file removed, under --confine strict", src: crash,
			allow: []string{"io", "clock", "ffi:ctypes"}, strict: true, size: 1 << 30, want: codes.E330},
		// More descriptors first than one measure reads (maxHeldScanned):
		// the file removed while held lies past them.
		{name: "O_TMPFILE past 8,192 descriptors", src: `c = ffi.module("ctypes")
for i in range(8200):
    c.syscall("dup", 1)
` + tmpfile[len(`c = ffi.module("ctypes")
`):], allow: []string{"io", "clock", "ffi:ctypes", "ffi:os"}, size: 1 << 30, want: codes.E330,
			wantMsg: "held more than 8192 descriptors", files: 8200 + 64},
		{name: "the control: O_TMPFILE of 1 MiB", src: tmpfile,
			allow: []string{"io", "clock", "ffi:ctypes", "ffi:os"}, size: 1 << 20},
		{name: "the control: the crash file removed, 1 MiB", src: crash,
			allow: []string{"io", "clock", "ffi:ctypes"}, strict: true, size: 1 << 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var host syscall.Rlimit
			if tt.files > 0 && (syscall.Getrlimit(syscall.RLIMIT_NOFILE, &host) != nil ||
				host.Max < tt.files) {
				t.Skipf("the host's RLIMIT_NOFILE is %d: a worker cannot hold the %d descriptors "+
					"the case needs", host.Max, tt.files)
			}
			s := superviseProgram(t, tt.src+grow, tt.allow, func(r *Run) {
				r.Args = []string{fmt.Sprint(tt.size), hold}
				if tt.strict {
					r.Confine = core.ModeStrict
				}
			})
			// Stopped for its descriptors, a run may end before its file
			// is grown: only a call that failed says nothing.
			grew := strings.Contains(s.stdout, "ftruncate errno=\n") || tt.wantMsg != ""
			if !grew || strings.Contains(s.stdout, "errno=E") {
				t.Fatalf("a call failed: %q (stderr %s)", s.stdout, s.stderr)
			}
			if tt.want == "" {
				if s.rec.Outcome.Status != receipt.StatusOK || !strings.Contains(s.stdout, "held") {
					t.Fatalf("outcome %+v, stdout %q: want the file held to the end", s.rec.Outcome, s.stdout)
				}
				return
			}
			if tt.wantMsg == "" {
				tt.wantMsg = "in files removed from it while held open"
			}
			wantCode(t, s, tt.want, tt.wantMsg)
			if strings.Contains(s.stdout, "held") {
				t.Fatalf("stdout %q: the program held the file to its end", s.stdout)
			}
		})
	}
}

// TestTempDirCountsWhatLiesDeep: a run under --confine strict makes, by
// raw calls, each directory beneath the one before (mkdirat, then openat
// of it), so that their path outgrows PATH_MAX, and grows a file at the
// bottom past the private temporary directory's bound. The walk that
// measures the directory cannot look past the bound on a path's length:
// the file was not counted, and the run held 1 GiB there to its end, ok.
// It is stopped (E330), saying the entry could not be measured. The
// controls: the same file beneath directories whose path the walk
// reaches is past the bound (E330), and a file of 1 MiB there is held to
// the end.
func TestTempDirCountsWhatLiesDeep(t *testing.T) {
	const deep = `c = ffi.module("ctypes")
tmp = ffi.module("os").getenv("TMPDIR")
d = c.syscall("openat", -100, tmp, 0x10000, 0).ret  # O_RDONLY|O_DIRECTORY
for i in range(int(ARGS[0])):
    c.syscall("mkdirat", d, "directory-entry", 448)
    n = c.syscall("openat", d, "directory-entry", 0x10000, 0)
    if n.errno:
        print("openat errno=%s" % n.errno)
    c.syscall("close", d)
    d = n.ret
f = c.syscall("openat", d, "file", 66, 384)  # O_RDWR|O_CREAT, 0600
t = c.syscall("ftruncate", f.ret, int(ARGS[1]))
print("openat errno=%s ftruncate errno=%s" % (f.errno, t.errno))
t0 = clock.now()
while clock.now() - t0 < float(ARGS[2]):
    pass
print("held")
`
	hold := fmt.Sprint((50 * BoundsWatchEvery).Seconds())
	for _, tt := range []struct {
		name    string
		depth   int // "directory-entry/" is 16 bytes: 300 of them pass PATH_MAX (4,096)
		size    int
		want    codes.Code
		wantMsg string
	}{
		{name: "1 GiB past PATH_MAX", depth: 300, size: 1 << 30, want: codes.E330,
			wantMsg: "could not be measured (file name too long)"},
		{name: "the control: 1 GiB within PATH_MAX", depth: 100, size: 1 << 30, want: codes.E330,
			wantMsg: "grew past 512 MB"},
		{name: "the control: 1 MiB within PATH_MAX", depth: 100, size: 1 << 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := superviseProgram(t, deep, []string{"io", "clock", "ffi:ctypes", "ffi:os"}, func(r *Run) {
				r.Args = []string{fmt.Sprint(tt.depth), fmt.Sprint(tt.size), hold}
				r.Confine = core.ModeStrict
			})
			t.Logf("outcome %s %q, stdout %q", s.rec.Outcome.Code, s.rec.Outcome.Message, s.stdout)
			if strings.Contains(s.stdout, "errno=E") {
				t.Fatalf("a call failed: %q (stderr %s)", s.stdout, s.stderr)
			}
			if tt.want == "" {
				if s.rec.Outcome.Status != receipt.StatusOK || !strings.Contains(s.stdout, "held") {
					t.Fatalf("outcome %+v, stdout %q: want the file held to the end", s.rec.Outcome, s.stdout)
				}
				return
			}
			wantCode(t, s, tt.want, tt.wantMsg)
			if strings.Contains(s.stdout, "held") {
				t.Fatalf("stdout %q: the program held the file to its end", s.stdout)
			}
		})
	}
}

// TestTempDirCountsAFileMappedFromDeep: a run under --confine strict
// grows a file in its private temporary directory past the directory's
// bound, maps it, and closes and removes it, so that it is counted
// through its mapping alone; then, by raw calls, it opens a file the
// budget lets it read beneath 300 directories of 255-byte names (each
// opened beneath the one before: openat) and maps it below the first,
// so that its line of /proc/PID/maps, which holds its whole path
// (77 KB), comes before the removed file's. Read by lines of at most
// 64 KiB, the maps ended at that line without a word: the removed file
// was not counted, and the run held 1 GiB to its end, ok. It is stopped
// (E330). The controls: the same with the file to read beneath 10 such
// directories is stopped too, and a removed file of 1 MiB beside the
// deep one is held to the end.
func TestTempDirCountsAFileMappedFromDeep(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: a mapped file is read through map_files, which needs CAP_SYS_ADMIN")
	}
	// Each mapping is asked for at an address of its own, low in the
	// address space (a hint, taken where it is free), the deep file's
	// below the removed file's.
	const deep = `c = ffi.module("ctypes")
tmp = ffi.module("os").getenv("TMPDIR")
f = c.syscall("openat", -100, tmp + "/file", 66, 384)  # O_RDWR|O_CREAT, 0600
t = c.syscall("ftruncate", f.ret, int(ARGS[1]))
m = c.syscall("mmap", 0x10100000, 4096, 1, 1, f.ret, 0)  # PROT_READ, MAP_SHARED
c.syscall("close", f.ret)
u = c.syscall("unlinkat", -100, tmp + "/file", 0)
d = c.syscall("openat", -100, "deep", 0x10000, 0).ret  # O_RDONLY|O_DIRECTORY
for i in range(int(ARGS[0])):
    n = c.syscall("openat", d, "d" * 255, 0x10000, 0)
    if n.errno:
        print("openat errno=%s" % n.errno)
    c.syscall("close", d)
    d = n.ret
g = c.syscall("openat", d, "far", 0, 0)  # O_RDONLY
n = c.syscall("mmap", 0x10000000, 4096, 1, 1, g.ret, 0)
print("ftruncate errno=%s mmap errno=%s unlinkat errno=%s openat errno=%s mmap errno=%s" % (
    t.errno, m.errno, u.errno, g.errno, n.errno))
t0 = clock.now()
while clock.now() - t0 < float(ARGS[2]):
    c.syscall("poll", 0, 0, 100)
print("held")
`
	hold := fmt.Sprint((50 * BoundsWatchEvery).Seconds())
	for _, tt := range []struct {
		name  string
		depth int // 300 directories of 255 bytes: a path of 77 KB
		size  int
		want  codes.Code
	}{
		{name: "1 GiB beside a file mapped from beneath 300 directories", depth: 300, size: 1 << 30,
			want: codes.E330},
		{name: "the control: 1 GiB beside one beneath 10", depth: 10, size: 1 << 30, want: codes.E330},
		{name: "the control: 1 MiB beside one beneath 300", depth: 300, size: 1 << 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := superviseProgram(t, deep, []string{"io", "clock", "ffi:ctypes", "ffi:os", "fs:read:deep"},
				func(r *Run) {
					r.Args = []string{fmt.Sprint(tt.depth), fmt.Sprint(tt.size), hold}
					r.Confine = core.ModeStrict
					mkDeep(t, filepath.Join(r.Cwd, "deep"), tt.depth)
				})
			t.Logf("outcome %s %q, stdout %q", s.rec.Outcome.Code, s.rec.Outcome.Message, s.stdout)
			if !strings.Contains(s.stdout, "mmap errno=\n") || strings.Contains(s.stdout, "errno=E") {
				t.Fatalf("a call failed: %q (stderr %s)", s.stdout, s.stderr)
			}
			if tt.want == "" {
				if s.rec.Outcome.Status != receipt.StatusOK || !strings.Contains(s.stdout, "held") {
					t.Fatalf("outcome %+v, stdout %q: want the file held to the end", s.rec.Outcome, s.stdout)
				}
				return
			}
			wantCode(t, s, tt.want, "in files removed from it while held open")
			if strings.Contains(s.stdout, "held") {
				t.Fatalf("stdout %q: the program held the file to its end", s.stdout)
			}
		})
	}
}

// mkDeep makes the directory top, depth directories beneath it each
// named with 255 bytes and made beneath the one before (mkdirat, openat:
// their path may pass PATH_MAX), and a file "far" of one byte at the
// bottom.
func mkDeep(t *testing.T, top string, depth int) {
	t.Helper()
	if err := os.Mkdir(top, 0o700); err != nil {
		t.Fatal(err)
	}
	d, err := unix.Open(top, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("d", 255)
	for range depth {
		if err := unix.Mkdirat(d, name, 0o700); err != nil {
			t.Fatal(err)
		}
		n, err := unix.Openat(d, name, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
		unix.Close(d)
		if err != nil {
			t.Fatal(err)
		}
		d = n
	}
	defer unix.Close(d)
	f, err := unix.Openat(d, "far", unix.O_WRONLY|unix.O_CREAT|unix.O_CLOEXEC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(f)
	if _, err := unix.Write(f, []byte{'x'}); err != nil {
		t.Fatal(err)
	}
}

// TestTempDirBoundHeldWhenDear: a run whose private temporary directory
// is dear to measure (9,990 empty directories, made by raw calls: 250 ms
// a measure here, which the supervisor now makes less often, at most a
// tenth of its time: measureShare) is still held to the directory's
// bound: a file grown past it there is E330, however long the program
// would hold it. The control: the same directories and a file of 1 MiB
// are held for 50 of the watch's ticks, to the program's end, ok, and
// the supervisor (this process) takes no more than a third of the run's
// time on its processors, where a watch that measured at every tick
// (the worker's pace not kept from one tick to the next) took the
// run's whole time.
func TestTempDirBoundHeldWhenDear(t *testing.T) {
	const dear = `c = ffi.module("ctypes")
tmp = ffi.module("os").getenv("TMPDIR")
d = c.syscall("openat", -100, tmp, 0x10000, 0).ret  # O_RDONLY|O_DIRECTORY
for i in range(9990):
    m = c.syscall("mkdirat", d, "d%d" % i, 448)
    if m.errno:
        print("mkdirat errno=%s" % m.errno)
        break
f = c.syscall("openat", d, "file", 66, 384)  # O_RDWR|O_CREAT, 0600
t = c.syscall("ftruncate", f.ret, int(ARGS[0]))
print("openat errno=%s ftruncate errno=%s" % (f.errno, t.errno))
t0 = clock.now()
while clock.now() - t0 < float(ARGS[1]):
    c.syscall("poll", 0, 0, 100)
print("held")
`
	for _, tt := range []struct {
		name string
		size int
		hold time.Duration // how long the program holds its file
		want codes.Code
	}{
		// Held until stopped: the run's timeout is past the hold.
		{name: "1 GiB beside 9,990 directories", size: 1 << 30, hold: testkit.Bound(120 * time.Second),
			want: codes.E330},
		{name: "the control: 1 MiB beside 9,990 directories", size: 1 << 20,
			hold: 50 * BoundsWatchEvery},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cpu := supervisorCPU(t)
			s := superviseProgram(t, dear, []string{"io", "clock", "ffi:ctypes", "ffi:os"}, func(r *Run) {
				r.Args = []string{fmt.Sprint(tt.size), fmt.Sprint(tt.hold.Seconds())}
				r.Timeout = tt.hold + testkit.Bound(60*time.Second)
			})
			spent := cpu()
			t.Logf("outcome %s %q in %v, stdout %q; the supervisor's processor time %v",
				s.rec.Outcome.Code, s.rec.Outcome.Message, s.wall, s.stdout, spent)
			if strings.Contains(s.stdout, "errno=E") {
				t.Fatalf("a call failed: %q (stderr %s)", s.stdout, s.stderr)
			}
			if tt.want == "" {
				if s.rec.Outcome.Status != receipt.StatusOK || !strings.Contains(s.stdout, "held") {
					t.Fatalf("outcome %+v, stdout %q: want the file held to the end", s.rec.Outcome,
						s.stdout)
				}
				// Paced, its measures take at most a tenth of the run's
				// time, and a measure more; each tick's took it all
				// (a processor's whole time, as long as a processor was
				// to be had).
				if spent > s.wall/3 {
					t.Errorf("the supervisor took %v of processor time in a run of %v: more than "+
						"a third, where its measures are paced to a tenth", spent, s.wall)
				}
				return
			}
			wantCode(t, s, tt.want, "grew past 512 MB")
			if strings.Contains(s.stdout, "held") {
				t.Fatalf("stdout %q: the program held the file to its end", s.stdout)
			}
		})
	}
}

// supervisorCPU returns a function that says the processor time this
// process, a run's supervisor, has taken since it was called (user and
// system, every thread's).
func supervisorCPU(t *testing.T) func() time.Duration {
	t.Helper()
	taken := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	before := taken()
	return func() time.Duration { return taken() - before }
}
