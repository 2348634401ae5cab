package lang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
)

// TestDefaultGuardKernelMounts: an Interp given no guarded set
// (DefaultGuard) knows a sysfs mounted in a granted directory by its type,
// as a worker's set does (a procfs the language knows by its type
// already): reading the kernel's file there is refused (E318), and a
// plain file beside it, the control, is read.
func TestDefaultGuardKernelMounts(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sysfs := filepath.Join(dir, "sys")
	if err := os.Mkdir(sysfs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("sysfs", sysfs, "sysfs", 0, ""); err != nil {
		t.Skipf("no sysfs can be mounted here (%v): the test needs root", err)
	}
	t.Cleanup(func() { unix.Unmount(sysfs, unix.MNT_DETACH) })
	if err := os.WriteFile(filepath.Join(dir, "plain.txt"), []byte("plain"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Budget: budget.MustParse(dir, "fs:read:"+dir), Cwd: dir}
	r := runSrc(t, cfg, "x = fs.read(\""+filepath.Join(sysfs, "kernel", "uevent_seqnum")+"\")\n")
	if codes.CodeOf(r.err) != codes.E318 || !strings.Contains(r.err.Error(), sysfs) {
		t.Errorf("reading the second sysfs: %v; want E318 naming %s", r.err, sysfs)
	}
	if r := runSrc(t, cfg, "x = fs.read(\""+filepath.Join(dir, "plain.txt")+"\")\n"); r.err != nil {
		t.Errorf("control: a plain file beside it: %v", r.err)
	}
}
