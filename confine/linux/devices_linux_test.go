//go:build linux

package linux

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
)

// needRoot skips a test that mounts or makes device nodes, where this
// process may not.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: it makes a device node or mounts a file system in a directory of its own")
	}
}

// rootLine is the line of the mount table at path (a /proc/PID/mountinfo)
// for the mount at /, without its ids.
func rootLine(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mounts, err := guard.ParseMountInfo(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range visibleMounts(mounts) {
		if m.Point == "/" {
			return strings.Join(m.Options, ",")
		}
	}
	t.Fatalf("%s has no mount at /", path)
	return ""
}

// TestCanUnshareMounts: the probe leaves this process's own mount
// namespace, and its root's options and propagation, as they were.
func TestCanUnshareMounts(t *testing.T) {
	before, _ := os.Readlink("/proc/self/ns/mnt")
	table, _ := os.ReadFile("/proc/self/mountinfo")
	why := canUnshareMounts()
	t.Logf("canUnshareMounts: %q", why)
	// Again and again: a try that landed on the main thread would leave
	// it, and /proc/self, in the namespace it made.
	for range 64 {
		if again := probeMountNamespace(); again != why {
			t.Errorf("the probe said %q, then %q", why, again)
		}
	}
	if os.Geteuid() == 0 && why != "" {
		t.Logf("root, and still no mount namespace: %s", why)
	}
	after, _ := os.Readlink("/proc/self/ns/mnt")
	again, _ := os.ReadFile("/proc/self/mountinfo")
	if before != after || string(table) != string(again) {
		t.Errorf("the probe changed this process's mounts: namespace %s then %s; table changed: %v", before, after, string(table) != string(again))
	}
}

// readPolicy is the policy of a budget that grants reading grant.
func readPolicy(grant string) core.Policy {
	return core.OSPolicy(budget.MustParse("/", "io,fs:read:"+grant), core.Options{})
}

// nsChildEnv makes the test binary a child that waits for its standard
// input to end, so that its mount namespace can be read from outside.
const nsChildEnv = "SABLINE_TEST_NS_CHILD"

// TestMountNamespaceWhereAGrantIs: a worker is started in a mount
// namespace of its own only for a policy that enforces something and
// grants a path, read from outside the child (/proc/PID/ns/mnt against
// this process's), and told so; a policy granting no path (holdDevices
// then remounts nothing) or enforcing nothing starts it in this process's
// namespace, told nothing. The grant is the control: the same start, with
// a namespace.
func TestMountNamespaceWhereAGrantIs(t *testing.T) {
	if os.Getenv(nsChildEnv) != "" {
		testkit.EndChildBeforeCoverage(t)
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // returns at EOF, when the parent has looked
		return
	}
	needRoot(t)
	if why := canUnshareMounts(); why != "" {
		t.Skipf("this process cannot make a mount namespace: %s", why)
	}
	if why := workerNamespaceNeeded(); why != "" {
		t.Skipf("no worker here needs a namespace of its own: %s", why)
	}
	self, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		t.Fatal(err)
	}
	grant := t.TempDir()
	policy := func(allow string) core.Policy {
		return core.OSPolicy(budget.MustParse("/", allow), core.Options{})
	}
	tests := []struct {
		name         string
		policy       core.Policy
		wantEnforced bool // the case's premise
		wantOwn      bool
	}{
		{name: "a read grant (the control)", policy: readPolicy(grant), wantEnforced: true,
			wantOwn: true},
		{name: "a write grant", policy: policy("io,fs:write:" + grant), wantEnforced: true,
			wantOwn: true},
		{name: "no path granted", policy: policy("io"), wantEnforced: true},
		{name: "net alone", policy: policy("net:127.0.0.1:1"), wantEnforced: true},
		{name: "nothing enforced", policy: core.Policy{Read: core.Direction{Paths: []string{grant}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.policy.Enforced != tt.wantEnforced {
				t.Fatalf("the policy enforces something: %v, want %v", tt.policy.Enforced, tt.wantEnforced)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestMountNamespaceWhereAGrantIs$", "-test.count=1")
			cmd.Env = append(os.Environ(), nsChildEnv+"=1", mountNamespaceEnv+"=left by the test")
			MountNamespace(cmd, tt.policy)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			defer stdin.Close()
			child, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", cmd.Process.Pid))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("the child's mount namespace %s, this process's %s", child, self)
			if own := child != self; own != tt.wantOwn {
				t.Errorf("the child has a mount namespace of its own: %v, want %v", own, tt.wantOwn)
			}
			told := ""
			for _, kv := range cmd.Env {
				if v, ok := strings.CutPrefix(kv, mountNamespaceEnv+"="); ok {
					told = v
				}
			}
			if wantTold := map[bool]string{true: mountNamespaceOwn}[tt.wantOwn]; told != wantTold {
				t.Errorf("the child is told %q, want %q", told, wantTold)
			}
		})
	}
}

// devicesChildEnv carries a devicesChild to the test binary run as one.
const devicesChildEnv = "SABLINE_TEST_DEVICES_CHILD"

// devicesChild is what the child does: hold the devices beneath Grant,
// then open Device.
type devicesChild struct {
	Grant, Device string
}

// devicesReport is what the child says.
type devicesReport struct {
	Open    []string `json:"open"`
	Why     string   `json:"why"`
	OpenErr string   `json:"open_err"` // "" when the device opened
	EnvLeft bool     `json:"env_left"` // mountNamespaceEnv still set
}

// TestHoldDevices: a child started as prepareWorker starts a worker, in
// a mount namespace of its own, adds nodev to the mounts and then cannot
// open a device node made in its grant (the kernel's EACCES); its mount
// table, read from outside, says nodev, and this process's does not. The
// control, a child with no namespace of its own, opens it, and says the
// grant is held by the language only.
func TestHoldDevices(t *testing.T) {
	if env := os.Getenv(devicesChildEnv); env != "" {
		testkit.EndChildBeforeCoverage(t)
		var c devicesChild
		if err := json.Unmarshal([]byte(env), &c); err != nil {
			t.Fatal(err)
		}
		p := readPolicy(c.Grant)
		var r devicesReport
		r.Open, r.Why = holdDevices(p, takeMountNamespace())
		_, r.EnvLeft = os.LookupEnv(mountNamespaceEnv)
		if fd, err := unix.Open(c.Device, unix.O_RDONLY|unix.O_CLOEXEC, 0); err != nil {
			r.OpenErr = errName(err)
		} else {
			unix.Close(fd)
		}
		line, _ := json.Marshal(r)
		fmt.Printf("devices child: %s\n", line)
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // held until the parent has looked
		return
	}
	needRoot(t)
	if why := canUnshareMounts(); why != "" {
		t.Skipf("this process cannot make a mount namespace: %s", why)
	}
	grant := t.TempDir()
	device := filepath.Join(grant, "zero")
	if err := unix.Mknod(device, unix.S_IFCHR|0o600, int(unix.Mkdev(1, 5))); err != nil { // as /dev/zero
		t.Skipf("mknod: %v", err)
	}
	hostRoot := rootLine(t, "/proc/self/mountinfo")
	tests := []struct {
		name        string
		namespace   bool
		wantOpenErr string
		wantOpen    []string
		wantWhy     string
		wantNodev   bool // the child's root, read from outside
	}{
		{name: "own namespace", namespace: true, wantOpenErr: "EACCES", wantNodev: true},
		{name: "no namespace (the control)", wantOpen: []string{grant}, wantWhy: "^the worker was not started in a mount namespace of its own$"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, _ := json.Marshal(devicesChild{Grant: grant, Device: device})
			cmd := exec.Command(os.Args[0], "-test.run=^TestHoldDevices$", "-test.count=1")
			cmd.Env = append(os.Environ(), devicesChildEnv+"="+string(env))
			if tt.namespace {
				MountNamespace(cmd, readPolicy(grant))
			}
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			defer stdin.Close()
			var r devicesReport
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if j, ok := strings.CutPrefix(sc.Text(), "devices child: "); ok {
					if err := json.Unmarshal([]byte(j), &r); err != nil {
						t.Fatal(err)
					}
					break
				}
			}
			child := rootLine(t, fmt.Sprintf("/proc/%d/mountinfo", cmd.Process.Pid))
			stdin.Close()
			if err := cmd.Wait(); err != nil {
				t.Fatalf("child: %v\n%s", err, stderr.String())
			}
			t.Logf("child: %+v; its root %s, this process's %s", r, child, hostRoot)
			if r.OpenErr != tt.wantOpenErr {
				t.Errorf("opening the device node: %q, want %q", r.OpenErr, tt.wantOpenErr)
			}
			if !slices.Equal(r.Open, tt.wantOpen) || !regexpMatch(tt.wantWhy, r.Why) {
				t.Errorf("held by the language only: %q (%q), want %q (%q)", r.Open, r.Why, tt.wantOpen, tt.wantWhy)
			}
			if r.EnvLeft {
				t.Errorf("%s is still in the child's environment", mountNamespaceEnv)
			}
			if got := slices.Contains(strings.Split(child, ","), "nodev"); got != tt.wantNodev {
				t.Errorf("the child's root is nodev: %v, want %v (%s)", got, tt.wantNodev, child)
			}
			if got := rootLine(t, "/proc/self/mountinfo"); got != hostRoot {
				t.Errorf("this process's root changed: %s, was %s", got, hostRoot)
			}
		})
	}
	// This process still opens it: the node is a device, and the refusal
	// was the child's mount's.
	fd, err := unix.Open(device, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("this process cannot open the device node either: %v", err)
	}
	unix.Close(fd)
}

// errName is an errno's name, or the error's text.
func errName(err error) string {
	var errno unix.Errno
	if errors.As(err, &errno) {
		return unix.ErrnoName(errno)
	}
	return err.Error()
}

// TestPinEntryOnAKernelMount: a procfs mounted in a scratch directory is
// not pinned, at its mount point or beneath it; the scratch directory
// beside it, and /dev/null, are (the controls).
func TestPinEntryOnAKernelMount(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	proc := filepath.Join(dir, "proc")
	if err := os.Mkdir(proc, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("proc", proc, "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		t.Skipf("mount -t proc: %v", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(proc, unix.MNT_DETACH); err != nil {
			t.Errorf("umount %s: %v", proc, err)
		}
	})
	tests := []struct {
		name string
		path string
		want bool
	}{
		{name: "the procfs", path: proc, want: false},
		{name: "beneath it", path: filepath.Join(proc, "sys/kernel"), want: false},
		{name: "the directory it is mounted in", path: dir, want: true},
		{name: "an allowed device", path: "/dev/null", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ok := pinEntry(tt.path)
			if ok != tt.want {
				t.Errorf("pinEntry(%s) = %v, want %v", tt.path, ok, tt.want)
			}
		})
	}
}

// regexpMatch reports whether s matches the regular expression re ("" matches only "").
func regexpMatch(re, s string) bool {
	if re == "" {
		return s == ""
	}
	return regexp.MustCompile(re).MatchString(s)
}

// ownNamespaceChildEnv makes the test binary a child that says what
// ownMountNamespace makes of being told it has a namespace of its own.
const ownNamespaceChildEnv = "SABLINE_TEST_OWN_NAMESPACE_CHILD"

// TestOwnMountNamespaceAsTheKernelShows: a worker told it has a mount
// namespace of its own (mountNamespaceOwn) believes it only where the
// kernel shows it: its namespace is not its parent's. Told so in this
// process, which shares its parent's, it is not own, and says why;
// holdDevices would otherwise remount the parent's mounts. The control: a
// child started in a namespace of its own, told the same, is. Nothing is
// remounted here: ownMountNamespace only reads /proc.
func TestOwnMountNamespaceAsTheKernelShows(t *testing.T) {
	if os.Getenv(ownNamespaceChildEnv) != "" {
		testkit.EndChildBeforeCoverage(t)
		own, why := ownMountNamespace(mountNamespaceOwn)
		fmt.Printf("own namespace child: %v %s\n", own, why)
		return
	}
	for _, told := range []string{mountNamespaceOwn, ""} {
		if own, why := ownMountNamespace(told); own || why == "" {
			t.Errorf("told %q in this process, which shares its parent's namespace: own %v (%q), want "+
				"not own, and why", told, own, why)
		}
	}
	own, why := ownMountNamespace(mountNamespaceOwn)
	if !strings.Contains(why, "shares its parent's") {
		t.Errorf("told own in its parent's namespace: %v, %q; want it to say it shares its parent's",
			own, why)
	}
	needRoot(t)
	if why := canUnshareMounts(); why != "" {
		t.Skipf("this process cannot make a mount namespace: %s", why)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOwnMountNamespaceAsTheKernelShows$",
		"-test.count=1")
	cmd.Env = append(os.Environ(), ownNamespaceChildEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: unix.CLONE_NEWNS}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "own namespace child: true") {
		t.Errorf("a child in a namespace of its own, told so: %s; want it own", out)
	}
}

// partialChildEnv makes the test binary a child of
// TestHoldDevicesTableReadInPart: in a mount namespace of its own, it
// mounts an overlay of the layers beneath the directory the variable
// names, on its mnt, then holds the devices of a grant of mnt and opens
// the device node there.
const partialChildEnv = "SABLINE_TEST_PARTIAL_TABLE_CHILD"

// partialReport is what that child says.
type partialReport struct {
	TableErr string   `json:"table_err"` // guard.ReadMounts' error, "" for none
	Open     []string `json:"open"`      // holdDevices
	Why      string   `json:"why"`
	Here     []string `json:"here"` // DeviceNodesHere, as an audit says it
	HereWhy  string   `json:"here_why"`
	OpenErr  string   `json:"open_err"` // the device node opened after: "" when it opened
	Skip     string   `json:"skip"`     // the overlay could not be made
}

// TestHoldDevicesTableReadInPart: a mount whose line of the mount table
// is past guard's bound of a line (an overlay of 200 layers, each a
// directory of a long name, whose options run past 100 KiB) is not read, so
// it is neither remounted nodev nor judged: holdDevices, and
// DeviceNodesHere as an audit asks it, say the grant beneath it is held
// by the language alone, and why, where they said nothing and the level
// was full while the kernel opened a device node there. The control: an
// overlay of 2 layers, its line read, is remounted nodev, and the device
// node beneath the grant is EACCES. Each overlay is made in a child's own
// mount namespace: nothing of this process's changes.
func TestHoldDevicesTableReadInPart(t *testing.T) {
	if base := os.Getenv(partialChildEnv); base != "" {
		testkit.EndChildBeforeCoverage(t)
		r := partialChild(base)
		line, _ := json.Marshal(r)
		fmt.Printf("partial child: %s\n", line)
		return
	}
	needRoot(t)
	if why := canUnshareMounts(); why != "" {
		t.Skipf("this process cannot make a mount namespace: %s", why)
	}
	hostTable, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		layers   int
		wantOpen bool // the grant said open, by holdDevices and DeviceNodesHere
		wantErr  string
	}{
		{name: "an overlay whose line is past the bound", layers: 200, wantOpen: true},
		{name: "an overlay whose line is read (the control)", layers: 2, wantErr: "EACCES"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			mnt := filepath.Join(base, "mnt")
			if err := os.Mkdir(mnt, 0o755); err != nil {
				t.Fatal(err)
			}
			for i := range tt.layers {
				if err := os.Mkdir(filepath.Join(base, partialLayer(i)), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			node := filepath.Join(base, partialLayer(0), "zero")
			if err := unix.Mknod(node, unix.S_IFCHR|0o600, int(unix.Mkdev(1, 5))); err != nil {
				t.Skipf("mknod: %v", err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestHoldDevicesTableReadInPart$", "-test.count=1")
			cmd.Env = append(os.Environ(), partialChildEnv+"="+base)
			cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: unix.CLONE_NEWNS}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			var r partialReport
			for l := range strings.Lines(string(out)) {
				if j, ok := strings.CutPrefix(strings.TrimSpace(l), "partial child: "); ok {
					if err := json.Unmarshal([]byte(j), &r); err != nil {
						t.Fatal(err)
					}
				}
			}
			if r.Skip != "" {
				t.Skipf("no overlay of %d layers here: %s", tt.layers, r.Skip)
			}
			t.Logf("child: %+v", r)
			want := []string(nil)
			if tt.wantOpen {
				want = []string{mnt}
			}
			if !slices.Equal(r.Open, want) || !slices.Equal(r.Here, want) {
				t.Errorf("held by the language only: holdDevices %q, DeviceNodesHere %q; want %q", r.Open,
					r.Here, want)
			}
			if tt.wantOpen && (r.TableErr == "" || !strings.Contains(r.Why, "read in part") ||
				!strings.Contains(r.HereWhy, "read in part")) {
				t.Errorf("the table's error %q; why %q, %q: want a table read in part, said", r.TableErr,
					r.Why, r.HereWhy)
			}
			if r.OpenErr != tt.wantErr {
				t.Errorf("the device node opened after: %q, want %q", r.OpenErr, tt.wantErr)
			}
			if now, err := os.ReadFile("/proc/self/mountinfo"); err != nil || string(now) != string(hostTable) {
				t.Errorf("this process's mount table changed (%v)", err)
			}
		})
	}
}

// partialLayer is the name of the overlay's layer i: long, and spaced, so
// that the table escapes each space as four bytes; its path stays within
// the 255 bytes fsconfig takes of a value.
func partialLayer(i int) string { return fmt.Sprintf("%03d", i) + strings.Repeat(" ", 120) }

// partialChild mounts the overlay of the layers beneath base on base/mnt,
// in this process's own mount namespace, and says what holdDevices and
// DeviceNodesHere make of a grant of it, and whether its device node
// opens after.
func partialChild(base string) partialReport {
	var r partialReport
	mnt := filepath.Join(base, "mnt")
	fd, err := unix.Fsopen("overlay", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return partialReport{Skip: "fsopen(overlay): " + err.Error()}
	}
	defer unix.Close(fd)
	for i := 0; ; i++ {
		layer := filepath.Join(base, partialLayer(i))
		if _, err := os.Stat(layer); err != nil {
			break
		}
		if err := unix.FsconfigSetString(fd, "lowerdir+", layer); err != nil {
			return partialReport{Skip: fmt.Sprintf("lowerdir+ %s: %v", layer, err)}
		}
	}
	if err := unix.FsconfigCreate(fd); err != nil {
		return partialReport{Skip: "fsconfig(create): " + err.Error()}
	}
	mfd, err := unix.Fsmount(fd, unix.FSMOUNT_CLOEXEC, 0)
	if err != nil {
		return partialReport{Skip: "fsmount: " + err.Error()}
	}
	defer unix.Close(mfd)
	if err := unix.MoveMount(mfd, "", unix.AT_FDCWD, mnt, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return partialReport{Skip: "move_mount: " + err.Error()}
	}
	if _, err := guard.ReadMounts(); err != nil {
		r.TableErr = err.Error()
	}
	p := readPolicy(mnt)
	r.Here, r.HereWhy = DeviceNodesHere(p)
	r.Open, r.Why = holdDevices(p, mountNamespaceOwn)
	if fd, err := unix.Open(filepath.Join(mnt, "zero"), unix.O_RDONLY|unix.O_CLOEXEC, 0); err != nil {
		r.OpenErr = errName(err)
	} else {
		unix.Close(fd)
	}
	return r
}
