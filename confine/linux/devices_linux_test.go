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
