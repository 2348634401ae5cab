package linux

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
)

// imageChildEnv carries an imageChild to a copy of the test binary.
const imageChildEnv = "SABLINE_TEST_IMAGE_CHILD"

// imageChild is what the child of TestExecutableNeedIsTheImage does: in
// Base, with its own image at Base/bin, it puts Swap in the image's
// place, then applies a ruleset whose executable need is the path
// os.Executable gives, and reads Read.
type imageChild struct {
	Base     string
	Swap     string // "", "directory" or "link"
	Read     string // the file read after the ruleset, relative to the image's path
	WantRead bool
}

// TestExecutableNeedIsTheImage: the interpreter's executable need is held
// on the file the process runs, never on what its path names since. A
// worker starts from its supervisor's image (/proc/self/exe) and takes
// the need from os.Executable, which names the image's path even once the
// image is removed ("(deleted)" cut off). A program granted fs:write on
// the directory that holds the binary (a pool's worker, replaced after a
// run with ffi) removed the binary and renamed a directory it could not
// read into its place, and the next worker read that directory's files
// at level full: the need's rule, a file's read right, held a directory.
// A link put there would have led the rule anywhere. Each child here
// runs from a copy of the test binary, puts a directory holding a key,
// or a link to a file outside every grant, in its own image's place, and
// applies a ruleset: the key, and the file, are refused (without the
// check, both were read); the image itself, left in place, is read (the
// control), and so is a granted file (the same read, where a grant
// allows it).
func TestExecutableNeedIsTheImage(t *testing.T) {
	if env := os.Getenv(imageChildEnv); env != "" {
		testkit.EndChildBeforeCoverage(t)
		var c imageChild
		if err := json.Unmarshal([]byte(env), &c); err != nil {
			t.Fatal(err)
		}
		runImageChild(t, c)
		return
	}
	if _, err := LandlockABI(); err != nil {
		t.Skipf("the kernel has no Landlock: %v", err)
	}
	tests := []struct {
		name     string
		swap     string
		read     string
		wantRead bool
	}{
		{name: "a directory in the image's place", swap: "directory", read: "key.txt"},
		{name: "a link in the image's place", swap: "link"},
		{name: "the image itself", wantRead: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := landlockTree(t)
			if err := os.Mkdir(filepath.Join(base, "bin"), 0o755); err != nil {
				t.Fatal(err)
			}
			key := filepath.Join(base, "outside", "key.txt")
			if err := os.WriteFile(key, []byte("key\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			image := filepath.Join(base, "bin", "linux.test")
			testkit.CopyExecutable(t, os.Args[0], image)
			env, err := json.Marshal(imageChild{Base: base, Swap: tt.swap, Read: tt.read,
				WantRead: tt.wantRead})
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(image, "-test.run=^TestExecutableNeedIsTheImage$", "-test.count=1")
			cmd.Env = append(os.Environ(), imageChildEnv+"="+string(env))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "image child: checked") {
				t.Fatalf("the child ran no checks:\n%s", out)
			}
		})
	}
}

func runImageChild(t *testing.T, c imageChild) {
	path := func(rel string) string { return filepath.Join(c.Base, rel) }
	image := path("bin/linux.test")
	read := func(p string) error { _, err := os.ReadFile(p); return err }
	switch c.Swap {
	case "directory": // the directory outside every grant, renamed into the image's place
		if err := errors.Join(os.Remove(image), os.Rename(path("outside"), image)); err != nil {
			t.Fatal(err)
		}
	case "link": // a link to a file outside every grant
		if err := errors.Join(os.Remove(image), os.Symlink(path("outside/key.txt"), image)); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if exe != image {
		t.Fatalf("os.Executable() = %q, want the image's path %q", exe, image)
	}
	target := filepath.Join(exe, c.Read)
	checks, expect := errnoChecks(t)
	expect("before: read "+target, read(target), 0)

	b, err := budget.Parse([]string{"fs:read:" + path("read")}, "/")
	if err != nil {
		t.Fatal(err)
	}
	abi, err := LandlockABI()
	if err != nil {
		t.Fatal(err)
	}
	needs := core.Needs{Executable: exe, TempDir: path("tmp")}
	plan, err := LandlockPlan(core.OSPolicy(b, core.Options{}), needs, min(abi, LandlockMaxABI))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ApplyLandlock(plan, nil, nil); err != nil {
		t.Fatal(err)
	}
	want := syscall.EACCES
	if c.WantRead {
		want = 0
	}
	expect("read "+target+" through the executable need", read(target), want)
	expect("read a granted file", read(path("read/granted.txt")), 0)
	fmt.Printf("image child: checked %d\n", *checks)
}
