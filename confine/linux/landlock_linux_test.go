package linux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
)

func TestLandlockConstants(t *testing.T) {
	tests := []struct {
		name string
		got  uint64
		want uint64
	}{
		{"FSExecute", LandlockFSExecute, unix.LANDLOCK_ACCESS_FS_EXECUTE},
		{"FSWriteFile", LandlockFSWriteFile, unix.LANDLOCK_ACCESS_FS_WRITE_FILE},
		{"FSReadFile", LandlockFSReadFile, unix.LANDLOCK_ACCESS_FS_READ_FILE},
		{"FSReadDir", LandlockFSReadDir, unix.LANDLOCK_ACCESS_FS_READ_DIR},
		{"FSRemoveDir", LandlockFSRemoveDir, unix.LANDLOCK_ACCESS_FS_REMOVE_DIR},
		{"FSRemoveFile", LandlockFSRemoveFile, unix.LANDLOCK_ACCESS_FS_REMOVE_FILE},
		{"FSMakeChar", landlockFSMakeChar, unix.LANDLOCK_ACCESS_FS_MAKE_CHAR},
		{"FSMakeDir", LandlockFSMakeDir, unix.LANDLOCK_ACCESS_FS_MAKE_DIR},
		{"FSMakeReg", LandlockFSMakeReg, unix.LANDLOCK_ACCESS_FS_MAKE_REG},
		{"FSMakeSock", landlockFSMakeSock, unix.LANDLOCK_ACCESS_FS_MAKE_SOCK},
		{"FSMakeFifo", landlockFSMakeFifo, unix.LANDLOCK_ACCESS_FS_MAKE_FIFO},
		{"FSMakeBlock", landlockFSMakeBlock, unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK},
		{"FSMakeSym", landlockFSMakeSym, unix.LANDLOCK_ACCESS_FS_MAKE_SYM},
		{"FSRefer", landlockFSRefer, unix.LANDLOCK_ACCESS_FS_REFER},
		{"FSTruncate", LandlockFSTruncate, unix.LANDLOCK_ACCESS_FS_TRUNCATE},
		{"FSIoctlDev", landlockFSIoctlDev, unix.LANDLOCK_ACCESS_FS_IOCTL_DEV},
		{"NetBindTCP", LandlockNetBindTCP, unix.LANDLOCK_ACCESS_NET_BIND_TCP},
		{"NetConnectTCP", LandlockNetConnectTCP, unix.LANDLOCK_ACCESS_NET_CONNECT_TCP},
		{"ScopeAbstractUnixSocket", LandlockScopeAbstractUnixSocket, unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET},
		{"ScopeSignal", LandlockScopeSignal, unix.LANDLOCK_SCOPE_SIGNAL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("= %#x, x/sys/unix has %#x", tt.got, tt.want)
			}
		})
	}
}

func TestLandlockABI(t *testing.T) {
	raw, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	abi, err := LandlockABI()
	if errno != 0 {
		if err == nil || abi != 0 {
			t.Errorf("LandlockABI() = %d, %v on a kernel that answers %v", abi, err, errno)
		}
		t.Skipf("the kernel has no Landlock: %v", err)
	}
	if err != nil || abi < 1 || abi > int(raw) {
		t.Errorf("LandlockABI() = %d, %v; the kernel answers version %d", abi, err, raw)
	}
}

// landlockChildEnv carries a landlockChild to the test binary re-run as
// the child that applies a ruleset: Landlock holds a process for good, so
// the test process itself must stay free.
const landlockChildEnv = "SABLINE_TEST_LANDLOCK_CHILD"

// landlockChild is what the child applies and what it expects.
type landlockChild struct {
	Allow        []string // --allow values
	ABI          int
	Base         string // the test's directories
	Port         int    // a loopback listener's port
	OtherPort    int    // another listener's port, never granted
	WantConnect  bool   // whether a connection to Port is allowed
	WantOther    bool   // whether a connection to OtherPort is allowed
	WantBind     bool   // whether binding a TCP port is allowed
	WantTruncate bool   // whether truncating a read-only grant is allowed
	WantSignal   bool   // whether a signal may reach the parent
	WantMissing  []string
}

// TestApplyLandlock applies rulesets to re-run copies of the test binary
// and checks on the kernel that what the plan refuses is refused, and that
// each refusal is the ruleset's: the same access works just before it.
func TestApplyLandlock(t *testing.T) {
	if env := os.Getenv(landlockChildEnv); env != "" {
		testkit.EndChildBeforeCoverage(t)
		var c landlockChild
		if err := json.Unmarshal([]byte(env), &c); err != nil {
			t.Fatal(err)
		}
		runLandlockChild(t, c)
		return
	}
	kernel, err := LandlockABI()
	if err != nil {
		t.Skipf("the kernel has no Landlock: %v", err)
	}
	port, otherPort := listenLoopback(t), listenLoopback(t)
	tests := []struct {
		name         string
		grantPort    bool     // whether net:127.0.0.1:port is granted
		grant        []string // further --allow values
		abi          int
		wantConnect  bool
		wantOther    bool
		wantBind     bool
		wantTruncate bool
		wantSignal   bool
	}{
		{name: "closed network at ABI 7", abi: 7},
		// From ABI 4, no TCP connection of the worker's own under any
		// grant: its supervisor connects for it and hands the socket in.
		{name: "granted port at ABI 7 left to the supervisor", grantPort: true, abi: 7},
		{name: "open network at ABI 7 left to the supervisor", grant: []string{"net"}, abi: 7},
		{name: "a module that widens to any host at ABI 7", grant: []string{"ffi:socket"}, abi: 7},
		{name: "closed network at ABI 6", abi: 6},
		{name: "closed network at ABI 5", abi: 5, wantSignal: true},
		{name: "granted port at ABI 4 left to the supervisor", grantPort: true, abi: 4,
			wantSignal: true},
		{name: "open network at ABI 4 left to the supervisor", grant: []string{"net"}, abi: 4,
			wantSignal: true},
		{name: "closed network at ABI 3", abi: 3, wantConnect: true, wantOther: true, wantBind: true, wantSignal: true},
		{name: "open network at ABI 3", grant: []string{"net"}, abi: 3, wantConnect: true, wantOther: true, wantBind: true, wantSignal: true},
		{name: "closed network at ABI 2", abi: 2, wantConnect: true, wantOther: true, wantBind: true, wantTruncate: true, wantSignal: true},
		{name: "closed network at ABI 1", abi: 1, wantConnect: true, wantOther: true, wantBind: true, wantTruncate: true, wantSignal: true},
	}
	checks := regexp.MustCompile(`landlock child: (\d+) checks`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.abi > kernel {
				t.Skipf("the kernel has Landlock ABI %d", kernel)
			}
			base := landlockTree(t)
			allow := []string{"fs:read:" + base + "/read", "fs:read:" + base + "/single.txt",
				"fs:read:" + base + "/spare/later/file.txt", "fs:write:" + base + "/write"}
			if tt.grantPort {
				allow = append(allow, "net:127.0.0.1:"+strconv.Itoa(port))
			}
			allow = append(allow, tt.grant...)
			env, err := json.Marshal(landlockChild{
				Allow: allow, ABI: tt.abi, Base: base, Port: port, OtherPort: otherPort,
				WantConnect: tt.wantConnect, WantOther: tt.wantOther, WantBind: tt.wantBind, WantTruncate: tt.wantTruncate,
				WantSignal: tt.wantSignal, WantMissing: []string{base + "/spare/later/file.txt"},
			})
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestApplyLandlock$", "-test.count=1")
			cmd.Env = append(os.Environ(), landlockChildEnv+"="+string(env))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			m := checks.FindSubmatch(out)
			if m == nil {
				t.Fatalf("the child ran no checks:\n%s", out)
			}
			t.Logf("the child passed %s checks", m[1])
		})
	}
}

// landlockTree makes the directories a child is held in and returns
// their root.
func landlockTree(t *testing.T) string {
	base := t.TempDir()
	for _, dir := range []string{"read", "write", "outside", "tmp", "spare"} {
		if err := os.Mkdir(filepath.Join(base, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, file := range []string{"read/granted.txt", "read/trunc.txt", "single.txt", "write/existing.txt", "outside/secret.txt"} {
		if err := os.WriteFile(filepath.Join(base, file), []byte("sabline\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

// listenLoopback starts a TCP listener on 127.0.0.1 that the test closes,
// and returns its port. A connection completes in the backlog.
func listenLoopback(t *testing.T) int {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// errnoChecks returns the count of checks made and the check: that err
// is want, nil for an allowed access, the errno of a refusal otherwise.
func errnoChecks(t *testing.T) (*int, func(what string, err error, want syscall.Errno)) {
	n := new(int)
	return n, func(what string, err error, want syscall.Errno) {
		t.Helper()
		*n++
		switch {
		case want == 0 && err != nil:
			t.Errorf("%s: %v, want it allowed", what, err)
		case want != 0 && !errors.Is(err, want):
			t.Errorf("%s: %v, want %v", what, err, want)
		}
	}
}

func runLandlockChild(t *testing.T, c landlockChild) {
	b, err := budget.Parse(c.Allow, "/")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := func(rel string) string { return filepath.Join(c.Base, rel) }
	needs := core.Needs{Executable: exe, TempDir: path("tmp"), TZData: []string{path("no-zoneinfo")}}
	plan, err := LandlockPlan(core.OSPolicy(b, core.Options{}), needs, c.ABI)
	if err != nil {
		t.Fatal(err)
	}

	checks, expect := errnoChecks(t)
	deniedUnless := func(allowed bool, errno syscall.Errno) syscall.Errno {
		if allowed {
			return 0
		}
		return errno
	}
	read := func(p string) error { _, err := os.ReadFile(p); return err }
	list := func(p string) error { _, err := os.ReadDir(p); return err }
	write := func(p string) error { return os.WriteFile(p, []byte("x"), 0o644) }
	run := func() error {
		proc, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
		if err == nil {
			_, err = proc.Wait()
		}
		return err
	}
	dial := func(port int) error {
		d := net.Dialer{Timeout: 5 * time.Second}
		d.SetMultipathTCP(false) // Landlock holds plain TCP only
		conn, err := d.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			conn.Close()
		}
		return err
	}
	signal := func() error { return unix.Kill(os.Getppid(), 0) }
	// bind asks for any free port: Landlock checks port 0 as it checks
	// any other.
	bind := func() error {
		var lc net.ListenConfig
		lc.SetMultipathTCP(false) // Landlock holds plain TCP only
		ln, err := lc.Listen(context.Background(), "tcp4", "127.0.0.1:0")
		if err == nil {
			ln.Close()
		}
		return err
	}

	// Before the ruleset: everything it will refuse works.
	expect("before: read outside", read(path("outside/secret.txt")), 0)
	expect("before: write outside", write(path("outside/before.txt")), 0)
	expect("before: read from the write grant", read(path("write/existing.txt")), 0)
	expect("before: list the write grant", list(path("write")), 0)
	expect("before: truncate a read grant", os.Truncate(path("read/trunc.txt"), 4), 0)
	expect("before: run /bin/true", run(), 0)
	expect("before: connect to the granted port", dial(c.Port), 0)
	expect("before: connect to another port", dial(c.OtherPort), 0)
	expect("before: bind a TCP port", bind(), 0)
	expect("before: signal the parent", signal(), 0)

	// A goroutine locked to its own thread before the ruleset is applied
	// must be held too.
	tids, start, done := make(chan int), make(chan struct{}), make(chan [2]error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		tids <- unix.Gettid()
		<-start
		done <- [2]error{read(path("read/granted.txt")), read(path("outside/secret.txt"))}
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if locked, own := <-tids, unix.Gettid(); locked == own {
		t.Fatalf("the locked goroutine shares thread %d with the test", own)
	}

	applied, err := ApplyLandlock(plan, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if applied.ABI != c.ABI || !slices.Equal(applied.Missing, c.WantMissing) {
		t.Errorf("applied = %+v, want ABI %d, missing %q", applied, c.ABI, c.WantMissing)
	}

	expect("read a granted file", read(path("read/granted.txt")), 0)
	expect("list a granted directory", list(path("read")), 0)
	expect("read a file granted by itself", read(path("single.txt")), 0)
	expect("list the parent held for a missing grant", list(path("spare")), 0)
	expect("read outside", read(path("outside/secret.txt")), syscall.EACCES)
	expect("write into the write grant", write(path("write/new.txt")), 0)
	expect("make a directory in the write grant", os.Mkdir(path("write/sub"), 0o755), 0)
	expect("remove from the write grant", os.Remove(path("write/new.txt")), 0)
	expect("read from the write grant", read(path("write/existing.txt")), syscall.EACCES)
	expect("list the write grant", list(path("write")), syscall.EACCES)
	expect("write outside", write(path("outside/after.txt")), syscall.EACCES)
	expect("write into a read grant", write(path("read/new.txt")), syscall.EACCES)
	expect("truncate a read grant", os.Truncate(path("read/trunc.txt"), 0), deniedUnless(c.WantTruncate, syscall.EACCES))
	expect("write and read the private temporary directory", errors.Join(write(path("tmp/t")), read(path("tmp/t"))), 0)
	expect("read the executable", read(exe), 0)
	expect("write /dev/null", write("/dev/null"), 0)
	expect("run /bin/true", run(), syscall.EACCES)
	expect("connect to the granted port", dial(c.Port), deniedUnless(c.WantConnect, syscall.EACCES))
	expect("connect to another port", dial(c.OtherPort), deniedUnless(c.WantOther, syscall.EACCES))
	expect("bind a TCP port", bind(), deniedUnless(c.WantBind, syscall.EACCES))
	expect("signal the parent", signal(), deniedUnless(c.WantSignal, syscall.EPERM))

	close(start)
	held := <-done
	expect("locked thread: read a granted file", held[0], 0)
	expect("locked thread: read outside", held[1], syscall.EACCES)
	fmt.Printf("landlock child: %d checks\n", *checks)
}

// TestLandlockABIsAgreeWithGoLandlock holds the table of ABIs to
// go-landlock's presets, which apply the ruleset: each ABI's file, network
// and scope sets are the preset's.
func TestLandlockABIsAgreeWithGoLandlock(t *testing.T) {
	presets := []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6, landlock.V7}
	if len(presets) != len(landlockABIs) {
		t.Fatalf("%d presets for %d ABIs", len(presets), len(landlockABIs))
	}
	for i, c := range presets {
		info := landlockABIs[i]
		if uint64(c.HandledAccessFS) != info.FS || uint64(c.HandledAccessNet) != info.Net || uint64(c.Scoped) != info.Scopes {
			t.Errorf("ABI %d: go-landlock fs %#x net %#x scoped %#x; the table fs %#x net %#x scopes %#x", info.ABI,
				uint64(c.HandledAccessFS), uint64(c.HandledAccessNet), uint64(c.Scoped), info.FS, info.Net, info.Scopes)
		}
	}
}

// beneathFileChildEnv names the directory a child of
// TestLandlockGrantBeneathAFile is held in.
const beneathFileChildEnv = "SABLINE_TEST_LANDLOCK_BENEATH_FILE"

// TestLandlockGrantBeneathAFile: a grant whose path has a file on its way
// (fs:read:DIR/notes.txt/x, ENOTDIR), and one that is a link to itself
// (ELOOP), are not found, and are held as a grant that does not exist
// yet: beneath the nearest directory above each, named in Missing as the
// level's reason says. Either failed the whole ruleset before, and the
// run went on with no Landlock, reads outside every grant allowed. The child reads outside before the ruleset (the control) and
// is refused after it, and reads beside the file, beneath the directory
// that holds the grant.
func TestLandlockGrantBeneathAFile(t *testing.T) {
	if base := os.Getenv(beneathFileChildEnv); base != "" {
		testkit.EndChildBeforeCoverage(t)
		runBeneathFileChild(t, base)
		return
	}
	if _, err := LandlockABI(); err != nil {
		t.Skipf("the kernel has no Landlock: %v", err)
	}
	base := t.TempDir()
	for _, dir := range []string{"d", "outside", "tmp"} {
		if err := os.Mkdir(filepath.Join(base, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, file := range []string{"d/notes.txt", "d/beside.txt", "outside/secret.txt"} {
		if err := os.WriteFile(filepath.Join(base, file), []byte("sabline\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("loop", filepath.Join(base, "d", "loop")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLandlockGrantBeneathAFile$", "-test.count=1")
	cmd.Env = append(os.Environ(), beneathFileChildEnv+"="+base)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func runBeneathFileChild(t *testing.T, base string) {
	path := func(rel string) string { return filepath.Join(base, rel) }
	grants := []string{path("d/loop"), path("d/notes.txt/x")} // sorted
	b, err := budget.Parse([]string{"fs:read:" + grants[0], "fs:read:" + grants[1]}, "/")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	abi, err := LandlockABI()
	if err != nil {
		t.Fatal(err)
	}
	needs := core.Needs{Executable: exe, TempDir: path("tmp"), TZData: []string{path("no-zoneinfo")}}
	plan, err := LandlockPlan(core.OSPolicy(b, core.Options{}), needs, min(abi, LandlockMaxABI))
	if err != nil {
		t.Fatal(err)
	}
	read := func(p string) error { _, err := os.ReadFile(p); return err }
	_, expect := errnoChecks(t)
	expect("before: read outside", read(path("outside/secret.txt")), 0)
	runtime.LockOSThread() // ApplyLandlock holds every thread; this one reads after it
	defer runtime.UnlockOSThread()
	applied, err := ApplyLandlock(plan, nil, nil)
	if err != nil {
		t.Fatalf("ApplyLandlock with grants not found: %v (no Landlock for the run)", err)
	}
	if got := slices.Sorted(slices.Values(applied.Missing)); !slices.Equal(got, grants) {
		t.Errorf("missing %q, want %q: each held beneath the directory above it", got, grants)
	}
	expect("read beside the file, beneath the directory that holds the grant", read(path("d/beside.txt")), 0)
	expect("read outside", read(path("outside/secret.txt")), syscall.EACCES)
}

// TestScopedABI: a kernel of the scopes' ABI or later is taken at it
// where its errata say signal scoping is fixed (the control), and at the
// ABI before it, saying why, where they lack the fix or cannot be read.
// Before, the doctor printed the lower ABI with no word of why.
func TestScopedABI(t *testing.T) {
	fixed := func() (int, error) { return landlockErratumSignalScope, nil }
	unfixed := func() (int, error) { return 1, nil } // another erratum alone
	unread := func() (int, error) { return 0, syscall.EINVAL }
	tests := []struct {
		name    string
		abi     int
		errata  func() (int, error)
		wantABI int
		wantWhy string
	}{
		{name: "fixed", abi: LandlockMaxABI, errata: fixed, wantABI: LandlockMaxABI},
		{name: "not fixed", abi: LandlockMaxABI, errata: unfixed, wantABI: landlockABIScopes - 1,
			wantWhy: "lack the signal-scoping fix"},
		{name: "not read", abi: landlockABIScopes, errata: unread, wantABI: landlockABIScopes - 1,
			wantWhy: "could not be read (invalid argument)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			abi, why := scopedABI(tt.abi, tt.errata)
			if abi != tt.wantABI || (tt.wantWhy == "") != (why == "") ||
				!strings.Contains(why, tt.wantWhy) {
				t.Errorf("scopedABI(%d) = %d, %q; want %d, saying %q", tt.abi, abi, why, tt.wantABI,
					tt.wantWhy)
			}
			if why != "" && !strings.Contains(why, fmt.Sprintf("offers ABI %d", tt.abi)) {
				t.Errorf("%q does not name the kernel's own ABI %d", why, tt.abi)
			}
		})
	}
}
