//go:build linux

package confine

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"

	"github.com/sabline/sabline/internal/testkit/nobody"
)

// hereChildEnv names the directory a child of TestOnThisMachineDeviceNodes,
// started as another user, says the level here of a read grant of.
const hereChildEnv = "SABLINE_TEST_HERE_GRANT"

// needLayers skips a test of the level here where this machine offers
// Landlock or seccomp not, whose run could be full nowhere.
func needLayers(t *testing.T) {
	t.Helper()
	if m := Probe(); m.LandlockABI == 0 || !m.Seccomp {
		t.Skipf("this machine offers Landlock ABI %d, seccomp %v: no run here is full",
			m.LandlockABI, m.Seccomp)
	}
}

// hasGap reports whether r has a gap whose text contains s.
func hasGap(r core.Result, s string) bool {
	return slices.ContainsFunc(r.Gaps, func(g core.Gap) bool { return strings.Contains(g.Text, s) })
}

// TestOnThisMachineDanglingWriteGrant: a write grant that is a link to
// nothing is not made before the worker starts (mkdir does not follow a
// link in its place, and MakeGranted makes nothing here), so a run of it
// is held beneath the nearest directory above it and is partial; the level
// here says so too, where it said full. The control, a missing grant
// beside it, is made, and its level here is full.
func TestOnThisMachineDanglingWriteGrant(t *testing.T) {
	needLayers(t)
	dir := t.TempDir()
	link := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "gone"), link); err != nil {
		t.Fatal(err)
	}
	policy := func(allow string) core.Policy {
		return core.OSPolicy(budget.MustParse(dir, allow), core.Options{})
	}
	if made, err := MakeGranted(policy("fs:write:dangling"), nil); err != nil || len(made) > 0 {
		t.Fatalf("MakeGranted(fs:write:dangling) = %q, %v: want nothing made", made, err)
	}
	if _, err := os.Stat(link); err == nil {
		t.Fatalf("%s resolves after MakeGranted: want it still dangling", link)
	}
	r := OnThisMachine(policy("fs:write:dangling"))
	if r.Level != core.Partial || !hasGap(r, link+" does not exist yet") {
		t.Errorf("the level here of a write grant that is a dangling link: %s (%s), want partial, "+
			"naming %s as not existing yet, as its run is", r.Level, r.Reason, link)
	}
	if r := OnThisMachine(policy("fs:write:new")); hasGap(r, "does not exist yet") {
		t.Errorf("the level here of a missing write grant its supervisor makes: %s (%s), "+
			"want no grant named as not existing", r.Level, r.Reason)
	}
}

// TestOnThisMachineDeviceNodes: a supervisor that cannot make a mount
// namespace (a user who is not root, without CAP_SYS_ADMIN) starts a
// worker whose read grant on a mount without nodev is partial: device nodes
// beneath it are refused by the language only (holdDevices). The level
// here, which `sabline audit` prints and a door's audit answers, says so
// for such a user, where it said full. The control is the same grant's
// level here for root, which makes the namespace: no device gap. The user
// is nobody, in a child of this test's binary copied where it may run it.
func TestOnThisMachineDeviceNodes(t *testing.T) {
	if grant := os.Getenv(hereChildEnv); grant != "" {
		r := OnThisMachine(core.OSPolicy(budget.MustParse("/", "fs:read:"+grant), core.Options{}))
		if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
			t.Fatal(err)
		}
		return
	}
	needLayers(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root, to start a child as another user (nobody)")
	}
	dir := nobody.Dir(t) // nobody looks the grant up
	mounts, err := guard.ReadMounts()
	if err != nil {
		t.Fatal(err)
	}
	var at guard.Mount
	for _, m := range mounts {
		if guard.Within(dir, m.Point) && len(m.Point) >= len(at.Point) {
			at = m
		}
	}
	if at.Option("nodev") {
		t.Skipf("%s lies on %s, mounted nodev: no device node beneath it could be opened", dir, at.Point)
	}
	root := OnThisMachine(core.OSPolicy(budget.MustParse("/", "fs:read:"+dir), core.Options{}))
	if hasGap(root, "device nodes beneath") {
		t.Skipf("root here cannot make a mount namespace either: %s", root.Reason)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "confine.test")
	testkit.CopyExecutable(t, exe, bin)
	var out strings.Builder
	cmd := exec.Command(bin, "-test.run=^TestOnThisMachineDeviceNodes$", "-test.count=1")
	cmd.Env = append(os.Environ(), hereChildEnv+"="+dir, "HOME="+dir, "TMPDIR="+nobody.Tmp(t, dir))
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Credential: &syscall.Credential{Uid: nobody.Uid, Gid: nobody.Uid}}
	if err := cmd.Run(); err != nil {
		t.Fatalf("the child as nobody: %v\n%s", err, out.String())
	}
	var child core.Result
	line, _, _ := strings.Cut(out.String(), "\n")
	if err := json.Unmarshal([]byte(line), &child); err != nil {
		t.Fatalf("the child's level here: %v\n%s", err, out.String())
	}
	want := "device nodes beneath " + dir + " are refused by the language only"
	if child.Level != core.Partial || !hasGap(child, want) {
		t.Errorf("the level here of fs:read:%s for nobody: %s (%s), want partial, saying %q, as "+
			"its run is", dir, child.Level, child.Reason, want)
	}
}
