//go:build linux

package linux_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/internal/testkit/buildbin"
	"github.com/sabline/sabline/receipt"
)

// commandRun is one run of the sabline command.
type commandRun struct {
	stdout, stderr string
	err            error
	level          string // the receipt's confinement level
	reason         string
}

// runCommand runs the normal build of the command on src with args, its
// receipts in a directory of the test's own.
func runCommand(t *testing.T, bin, src string, args ...string) commandRun {
	t.Helper()
	dir := t.TempDir()
	prog := filepath.Join(dir, "p.vel")
	if err := os.WriteFile(prog, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	receipts := filepath.Join(dir, "receipts")
	cmd := exec.Command(bin, append([]string{prog}, args...)...)
	cmd.Env = append(os.Environ(), receipt.DirEnv+"="+receipts, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	r := commandRun{err: cmd.Run(), stdout: stdout.String(), stderr: stderr.String()}
	if entries, _ := os.ReadDir(receipts); len(entries) > 0 {
		if rec, err := receipt.Load(filepath.Join(receipts, entries[len(entries)-1].Name())); err == nil {
			r.level, r.reason = string(rec.RunParameters.Confinement), rec.RunParameters.ConfinementReason
		}
	}
	return r
}

// TestCommandKernelSurfacesAndDevices runs the command as a user would,
// under --confine strict with host modules that do their own I/O (no
// budget check of the language's): a device node in a granted directory,
// and procfs mounted a second time beneath a grant. The confined run does
// not print what the control, --no-confine, prints.
func TestCommandKernelSurfacesAndDevices(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: it attaches a loop device and mounts procfs in directories of its own")
	}
	bin, err := buildbin.Sabline()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(buildbin.Cleanup)

	t.Run("a block device in a granted directory", func(t *testing.T) {
		dir := t.TempDir()
		grant := filepath.Join(dir, "grant")
		if err := os.Mkdir(grant, 0o755); err != nil {
			t.Fatal(err)
		}
		// The device's bytes: a file of the test's own behind a loop
		// device, as a node in the grant.
		marker := "SABLINE-DEVICE-MARKER-" + filepath.Base(dir)
		backing := filepath.Join(t.TempDir(), "backing")
		if err := os.WriteFile(backing, append([]byte(marker+"\n"), make([]byte, 4096-len(marker)-1)...), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("losetup", "--find", "--show", backing).Output()
		if err != nil {
			t.Skipf("losetup --find --show: %v", err)
		}
		loop := strings.TrimSpace(string(out))
		t.Cleanup(func() {
			if err := exec.Command("losetup", "-d", loop).Run(); err != nil {
				t.Errorf("losetup -d %s: %v", loop, err)
			}
		})
		var st unix.Stat_t
		if err := unix.Stat(loop, &st); err != nil {
			t.Fatal(err)
		}
		disk := filepath.Join(grant, "disk")
		if err := unix.Mknod(disk, unix.S_IFBLK|0o600, int(st.Rdev)); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name        string
			src         string
			allow       string
			wantMarker  bool   // in the confined run's output
			wantConfErr string // in the confined run's standard error or output
			wantControl string // in the control's output
		}{
			{name: "pathlib",
				src:   "pathlib = ffi.module(\"pathlib\")\nprint(\"RESULT \" + pathlib.read_text(\"" + disk + "\")[:64])\n",
				allow: "io,ffi:pathlib,fs:read:" + grant, wantConfErr: "permission denied", wantControl: marker},
			{name: "ctypes",
				src: "ctypes = ffi.module(\"ctypes\")\nr = ctypes.syscall(\"openat\", -100, \"" + disk + "\", 0o2000000)  # AT_FDCWD, O_RDONLY|O_CLOEXEC\n" +
					"print(\"RESULT errno=%s\" % r.errno)\n",
				allow: "io,ffi:ctypes,fs:read:" + grant, wantConfErr: "RESULT errno=EACCES", wantControl: "RESULT errno=\n"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				confined := runCommand(t, bin, tt.src, "--confine", "strict", "--allow", tt.allow)
				t.Logf("confined: %v, level %s (%s)\n%s%s", confined.err, confined.level, confined.reason, confined.stdout, confined.stderr)
				if strings.Contains(confined.stdout+confined.stderr, marker) {
					t.Errorf("the confined run printed the device's bytes")
				}
				if !strings.Contains(confined.stdout+confined.stderr, tt.wantConfErr) {
					t.Errorf("the confined run did not meet the kernel's refusal %q", tt.wantConfErr)
				}
				if confined.level != "full" {
					t.Errorf("level %q (%s), want full: the worker holds device nodes in its mount namespace", confined.level, confined.reason)
				}
				control := runCommand(t, bin, tt.src, "--no-confine", "--allow", tt.allow)
				if !strings.Contains(control.stdout, tt.wantControl) {
					t.Errorf("the control printed %q, want %q in it (%v, %s)", control.stdout, tt.wantControl, control.err, control.stderr)
				}
			})
		}
	})

	t.Run("procfs mounted again beneath a grant", func(t *testing.T) {
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
		host, err := os.ReadFile("/proc/sys/kernel/hostname")
		if err != nil {
			t.Fatal(err)
		}
		// The write is to the worker's own name, /proc/self/comm of the
		// second procfs: harmless in the control too, and read back.
		const comm = "sablinewitness"
		tests := []struct {
			name        string
			src         string
			allow       string
			wantConfErr string
			wantControl string
		}{
			{name: "read the kernel's settings",
				src:   "pathlib = ffi.module(\"pathlib\")\nprint(\"RESULT \" + pathlib.read_text(\"" + proc + "/sys/kernel/hostname\"))\n",
				allow: "io,ffi:pathlib,fs:read:" + dir, wantConfErr: "permission denied", wantControl: "RESULT " + string(host)},
			{name: "write through it",
				src: "pathlib = ffi.module(\"pathlib\")\npathlib.write_text(\"" + proc + "/self/comm\", \"" + comm + "\")\n" +
					"print(\"RESULT \" + pathlib.read_text(\"" + proc + "/self/comm\"))\n",
				allow: "io,ffi:pathlib,fs:read:" + dir + ",fs:write:" + dir, wantConfErr: "permission denied", wantControl: "RESULT " + comm},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				confined := runCommand(t, bin, tt.src, "--confine", "strict", "--allow", tt.allow)
				t.Logf("confined: %v, level %s (%s)\n%s%s", confined.err, confined.level, confined.reason, confined.stdout, confined.stderr)
				if strings.Contains(confined.stdout, "RESULT") {
					t.Errorf("the confined run reached the second procfs: %q", confined.stdout)
				}
				if !strings.Contains(confined.stderr, tt.wantConfErr) {
					t.Errorf("the confined run did not meet the kernel's refusal %q", tt.wantConfErr)
				}
				control := runCommand(t, bin, tt.src, "--no-confine", "--allow", tt.allow)
				if !strings.Contains(control.stdout, tt.wantControl) {
					t.Errorf("the control printed %q, want %q in it (%v, %s)", control.stdout, tt.wantControl, control.err, control.stderr)
				}
			})
		}
		// A grant inside it is refused before anything runs.
		r := runCommand(t, bin, "print(\"RESULT ran\")\n", "--allow", "io,fs:read:"+proc+"/sys")
		if r.err == nil || strings.Contains(r.stdout, "RESULT") || !strings.Contains(r.stderr, "E329") || !strings.Contains(r.stderr, "a proc mount") {
			t.Errorf("a grant inside the second procfs: %v\n%s%s\nwant E329 naming a proc mount, and nothing run", r.err, r.stdout, r.stderr)
		}
	})
}
