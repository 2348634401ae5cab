package lang

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
)

// pathWorld is a scratch tree for the path tests: $H a home with a key
// in .ssh, $R a receipts directory with a receipt, $G a granted
// directory with links in it (in: a relative link to a file inside; abs:
// an absolute one; sub: a link to a directory inside; out, outdir: links
// to a file and a directory of $O, outside; missing: a dangling link to
// $O), $O a directory outside holding secret.txt.
type pathWorld struct {
	root, home, receipts, g, o string
}

func newPathWorld(t *testing.T) pathWorld {
	t.Helper()
	root := testkit.Scratch(t)
	w := pathWorld{root: root, home: filepath.Join(root, "home"), receipts: filepath.Join(root, "receipts"),
		g: filepath.Join(root, "g"), o: filepath.Join(root, "o")}
	testkit.WriteFile(t, filepath.Join(w.home, ".ssh", "id_test"), "secret key")
	testkit.WriteFile(t, filepath.Join(w.home, ".ssh", "authorized_keys"), "keys")
	testkit.WriteFile(t, filepath.Join(w.receipts, "r.json"), "{}")
	testkit.WriteFile(t, filepath.Join(w.g, "real.txt"), "real")
	testkit.WriteFile(t, filepath.Join(w.g, "d", "inner.txt"), "inner")
	testkit.WriteFile(t, filepath.Join(w.o, "secret.txt"), "secret")
	symlink(t, "real.txt", filepath.Join(w.g, "in"))
	symlink(t, filepath.Join(w.g, "real.txt"), filepath.Join(w.g, "abs"))
	symlink(t, "d", filepath.Join(w.g, "sub"))
	symlink(t, filepath.Join(w.o, "secret.txt"), filepath.Join(w.g, "out"))
	symlink(t, w.o, filepath.Join(w.g, "outdir"))
	symlink(t, filepath.Join(w.o, "new.txt"), filepath.Join(w.g, "missing"))
	return w
}

// guardOf is what a run of the tests guards: the tables, the home given
// and the receipts given (Sabline's own), resolved on this machine.
func guardOf(home string, receipts ...string) *guard.Set {
	return guard.Build(guard.Inputs{Home: home, Sabline: receipts}, guard.OS())
}

func (w pathWorld) fill(s string) string {
	return strings.NewReplacer("$ROOT", w.root, "$H", w.home, "$R", w.receipts, "$G", w.g, "$O", w.o,
		"$PID", strconv.Itoa(os.Getpid())).Replace(s)
}

// runIn runs stmt (one line) under grant, with $H the home and $R the
// receipts, and returns the run; the program fails when want, a Starlark
// expression over v, is false.
func (w pathWorld) runIn(t *testing.T, grant, stmt, want string) ran {
	t.Helper()
	src := "v = None\n" + w.fill(stmt) + "\n"
	if want != "" {
		src += "if not (" + w.fill(want) + "): fail(\"got %r\" % (v,))\n"
	}
	return runSrc(t, Config{Budget: budget.MustParse(w.g, w.fill(grant)), Cwd: w.g, Guard: guardOf(w.home, w.receipts)}, src)
}

// TestPathRefusals: each class of the red-team list, refused, and nothing
// changed on disk. /proc rows are Linux's.
func TestPathRefusals(t *testing.T) {
	tests := []struct {
		name     string
		linux    bool // the row uses /proc or /dev/fd
		grant    string
		stmt     string
		wantCode codes.Code
		wantMsg  string
	}{
		// Credentials under a broad grant, through magic links.
		{name: "a key through /proc/self/root", linux: true, grant: "fs:read",
			stmt: `v = fs.read("/proc/self/root$H/.ssh/id_test")`, wantCode: codes.E302, wantMsg: "a link in /proc"},
		{name: "a key through /proc/PID/root", linux: true, grant: "fs",
			stmt: `v = fs.read("/proc/$PID/root$H/.ssh/id_test")`, wantCode: codes.E302, wantMsg: "a link in /proc"},
		{name: "a key through /proc/thread-self/root", linux: true, grant: "fs:read:/",
			stmt: `v = fs.read("/proc/thread-self/root$H/.ssh/id_test")`, wantCode: codes.E302, wantMsg: "a link in /proc"},
		{name: "a key through /proc/self/cwd", linux: true, grant: "fs:read",
			stmt: `v = fs.read("/proc/self/cwd/x")`, wantCode: codes.E302, wantMsg: "a link in /proc"},
		{name: "authorized_keys appended through /proc/self/root", linux: true, grant: "fs:write",
			stmt: `fs.append("/proc/self/root$H/.ssh/authorized_keys", "k")`, wantCode: codes.E302, wantMsg: "a link in /proc"},
		{name: "a key directly", grant: "fs:read",
			stmt: `v = fs.read("$H/.ssh/id_test")`, wantCode: codes.E318, wantMsg: "$H/.ssh, a credential location"},
		{name: "authorized_keys directly", grant: "fs:write",
			stmt: `fs.append("$H/.ssh/authorized_keys", "k")`, wantCode: codes.E318, wantMsg: "$H/.ssh, a credential location"},
		{name: "a missing key's existence", grant: "fs:read",
			stmt: `v = fs.exists("$H/.ssh/id_none")`, wantCode: codes.E318},
		{name: "under a missing directory of .ssh", grant: "fs:read",
			stmt: `v = fs.exists("$H/.ssh/none/x")`, wantCode: codes.E318},
		{name: "a key's existence told by a path beneath it", grant: "fs:read",
			stmt: `v = fs.read("$H/.ssh/id_test/x")`, wantCode: codes.E318},
		{name: "/etc/shadow", linux: true, grant: "fs:read",
			stmt: `v = fs.read("/etc/shadow")`, wantCode: codes.E318, wantMsg: "/etc/shadow, a credential location"},
		{name: "an SSH host key", linux: true, grant: "fs:read",
			stmt: `v = fs.exists("/etc/ssh/ssh_host_ed25519_key")`, wantCode: codes.E318, wantMsg: "/etc/ssh/ssh_host_ed25519_key, a credential location"},
		// The receipts directory.
		{name: "receipts listed", grant: "fs",
			stmt: `v = fs.list("$R")`, wantCode: codes.E318, wantMsg: "$R, Sabline's receipts and tokens, or what its " +
				"operator keeps out of every grant"},
		{name: "a receipt removed", grant: "fs",
			stmt: `fs.remove("$R/r.json")`, wantCode: codes.E318},
		{name: "a receipt forged", grant: "fs:write",
			stmt: `fs.write("$R/forged.json", "{}")`, wantCode: codes.E318},
		{name: "a receipt forged through /proc/self/root", linux: true, grant: "fs:write",
			stmt: `fs.write("/proc/self/root$R/forged.json", "{}")`, wantCode: codes.E302},
		{name: "the receipts directory replaced", grant: "fs",
			stmt: `fs.remove("$R")`, wantCode: codes.E318},
		{name: "the receipts directory by a dotted path", grant: "fs",
			stmt: `fs.write("$G/../receipts/forged.json", "{}")`, wantCode: codes.E318},
		// The worker's own descriptors.
		{name: "the result pipe by /proc/self/fd", linux: true, grant: "fs:write",
			stmt: `fs.write("/proc/self/fd/1", "forged")`, wantCode: codes.E302, wantMsg: "a link in /proc"},
		{name: "a descriptor by /proc/PID/fd", linux: true, grant: "fs:write",
			stmt: `fs.write("/proc/$PID/fd/2", "forged")`, wantCode: codes.E302},
		{name: "stdin by /dev/stdin", linux: true, grant: "fs",
			stmt: `v = fs.read("/dev/stdin")`, wantCode: codes.E302, wantMsg: "a link in /proc"},
		{name: "stdout by /dev/stdout", linux: true, grant: "fs",
			stmt: `fs.write("/dev/stdout", "x")`, wantCode: codes.E302},
		{name: "stdin by /dev/fd/0", linux: true, grant: "fs",
			stmt: `v = fs.read("/dev/fd/0")`, wantCode: codes.E302},
		{name: "the environment by /proc/self/environ", linux: true, grant: "fs:read",
			stmt: `v = fs.read("/proc/self/environ")`, wantCode: codes.E302},
		{name: "the environment by /proc/PID/environ", linux: true, grant: "fs:read",
			stmt: `v = fs.read("/proc/$PID/environ")`, wantCode: codes.E302, wantMsg: "a process's own files"},
		{name: "a process's descriptors listed", linux: true, grant: "fs:read",
			stmt: `v = fs.list("/proc/$PID/fd")`, wantCode: codes.E302},
		{name: "map_files", linux: true, grant: "fs:read",
			stmt: `v = fs.list("/proc/$PID/map_files")`, wantCode: codes.E302},
		// Narrow grants with links inside.
		{name: "a link to a file outside", grant: "fs:read:$G",
			stmt: `v = fs.read("$G/out")`, wantCode: codes.E302, wantMsg: "it lies in fs:read:$G as written, and leads outside every grant"},
		{name: "existence through a link to a directory outside", grant: "fs:read:$G",
			stmt: `v = fs.exists("$G/outdir/secret.txt")`, wantCode: codes.E302},
		{name: "non-existence through a link to a directory outside", grant: "fs:read:$G",
			stmt: `v = fs.exists("$G/outdir/none.txt")`, wantCode: codes.E302},
		{name: "a dangling link to outside", grant: "fs:write:$G",
			stmt: `fs.write("$G/missing", "x")`, wantCode: codes.E302, wantMsg: "it lies in fs:write:$G as written, and leads outside every grant"},
		{name: "dot dot out of the grant", grant: "fs:read:$G",
			stmt: `v = fs.exists("$G/d/../../o/secret.txt")`, wantCode: codes.E302},
		{name: "dot dot after a link", grant: "fs:read:$G",
			stmt: `v = fs.read("$G/outdir/../o/secret.txt")`, wantCode: codes.E302},
		{name: "mkdir makes no parent outside the grant", grant: "fs:write:$ROOT/new/deep",
			stmt: `fs.mkdir("$ROOT/new/deep")`, wantCode: codes.E302, wantMsg: "it lies in fs:write:$ROOT/new/deep as written"},
		// Walks that cannot finish.
		{name: "a name longer than the system takes", grant: "fs:read:$G",
			stmt: `v = fs.read("$G/` + strings.Repeat("n", 300) + `")`, wantCode: codes.E314},
		{name: "a path longer than the language walks", grant: "fs:read:$G",
			stmt: `v = fs.read("$G/` + strings.Repeat("d/../", 7000) + `real.txt")`, wantCode: codes.E302, wantMsg: "more than the language walks"},
		{name: "a path longer than PATH_MAX that climbs out at its end", grant: "fs:read:$G",
			stmt: `v = fs.read("$G/` + strings.Repeat("d/../", 900) + `../o/secret.txt")`, wantCode: codes.E302, wantMsg: "add fs:read:$O/secret.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.linux && goruntime.GOOS != "linux" {
				t.Skipf("the row reads /proc, which %s does not have", goruntime.GOOS)
			}
			w := newPathWorld(t)
			before := snapshot(t, w.root)
			r := w.runIn(t, tt.grant, tt.stmt, "")
			testkit.WantError(t, r.err, tt.wantCode, callPos(r.prog, "v = None\n"+w.fill(tt.stmt), 2), w.fill(tt.wantMsg))
			sameSnapshot(t, before, snapshot(t, w.root))
			for _, u := range r.in.Usage() {
				if u.Uses != 0 {
					t.Errorf("a refused effect charged %s", u.Grant)
				}
			}
		})
	}
}

// TestPathControls: what a granted program still does through ordinary
// links inside its grants, and the semantics of the kernel: a link
// removed is the link, a trailing separator names a directory, mkdir
// makes its parents inside the grant.
func TestPathControls(t *testing.T) {
	tests := []struct {
		name  string
		grant string
		stmt  string
		want  string                // over v
		after func(pathWorld) error // what must hold on disk afterwards
	}{
		{name: "read through a relative link", grant: "fs:read:$G", stmt: `v = fs.read("in")`, want: `v == "real"`},
		{name: "read through an absolute link inside", grant: "fs:read:$G", stmt: `v = fs.read("$G/abs")`, want: `v == "real"`},
		{name: "read through a link to a directory", grant: "fs:read:$G", stmt: `v = fs.read("$G/sub/inner.txt")`, want: `v == "inner"`},
		{name: "list through a link to a directory", grant: "fs:read:$G", stmt: `v = fs.list("sub")`, want: `v == ["inner.txt"]`},
		{name: "list the grant itself", grant: "fs:read:$G", stmt: `v = fs.list(".")`, want: `"real.txt" in v and "sub" in v`},
		{name: "dot dot out and back in", grant: "fs:read:$G", stmt: `v = fs.read("../g/real.txt")`, want: `v == "real"`},
		{name: "write through a link inside", grant: "fs:write:$G", stmt: `fs.write("$G/abs", "new")`,
			after: fileIs("$G/real.txt", "new")},
		{name: "exists through a link", grant: "fs:read:$G", stmt: `v = fs.exists("sub/inner.txt")`, want: `v == True`},
		{name: "a dangling link does not exist", grant: "fs:read", stmt: `v = fs.exists("$G/missing")`, want: `v == False`},
		{name: "a file with a trailing separator is no directory", grant: "fs:read:$G", stmt: `v = fs.exists("real.txt/")`, want: `v == False`},
		{name: "a directory with a trailing separator", grant: "fs:read:$G", stmt: `v = fs.exists("d/")`, want: `v == True`},
		{name: "under a file", grant: "fs:read:$G", stmt: `v = fs.exists("real.txt/x")`, want: `v == False`},
		{name: "a path longer than PATH_MAX inside the grant", grant: "fs:read:$G", stmt: `v = fs.read("` + strings.Repeat("d/../", 900) + `real.txt")`, want: `v == "real"`},
		{name: ".. after a missing component", grant: "fs:read:$G", stmt: `v = fs.exists("$G/none/../../o/secret.txt")`, want: `v == False`},
		{name: "remove a link to outside removes the link", grant: "fs:write:$G", stmt: `fs.remove("$G/out")`,
			after: func(w pathWorld) error {
				if _, err := os.Lstat(filepath.Join(w.g, "out")); !os.IsNotExist(err) {
					return errorf("the link is still there (%v)", err)
				}
				return fileIs("$O/secret.txt", "secret")(w)
			}},
		{name: "remove a link to a directory removes the link", grant: "fs:write:$G", stmt: `fs.remove("sub")`,
			after: fileIs("$G/d/inner.txt", "inner")},
		{name: "mkdir makes parents inside the grant", grant: "fs:write:$G", stmt: `fs.mkdir("$G/a/b/c")`,
			after: func(w pathWorld) error {
				if fi, err := os.Stat(filepath.Join(w.g, "a", "b", "c")); err != nil || !fi.IsDir() {
					return errorf("no directory a/b/c (%v)", err)
				}
				return nil
			}},
		{name: "mkdir of a directory that is there", grant: "fs:write:$G", stmt: `fs.mkdir("sub")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newPathWorld(t)
			r := w.runIn(t, tt.grant, tt.stmt, tt.want)
			if r.err != nil {
				t.Fatalf("run under %s: %v", w.fill(tt.grant), r.err)
			}
			if tt.after != nil {
				if err := tt.after(w); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

func fileIs(path, want string) func(pathWorld) error {
	return func(w pathWorld) error {
		got, err := os.ReadFile(w.fill(path))
		if err != nil || string(got) != want {
			return errorf("%s: %q (%v), want %q", w.fill(path), got, err, want)
		}
		return nil
	}
}

// TestPathGrantMovedDuringRun: a granted directory moved aside during the
// run and replaced by a link to outside is judged as the kernel now
// resolves its path: the path leads outside, and is refused.
func TestPathGrantMovedDuringRun(t *testing.T) {
	w := newPathWorld(t)
	in := NewInterp(Config{Budget: budget.MustParse(w.g, "fs:read:"+w.g), Cwd: w.root, Guard: guardOf(w.home), Stdout: &bytes.Buffer{}, Stdin: strings.NewReader("")})
	if v, err := in.fsRead("fs.read", filepath.Join(w.g, "real.txt")); err != nil || v != starlark.String("real") {
		t.Fatalf("before the move: %v, %v", v, err)
	}
	testkit.WriteFile(t, filepath.Join(w.o, "real.txt"), "outside")
	if err := os.Rename(w.g, w.g+".moved"); err != nil {
		t.Fatal(err)
	}
	symlink(t, w.o, w.g)
	_, err := in.fsRead("fs.read", filepath.Join(w.g, "real.txt"))
	testkit.WantError(t, err, codes.E302, "", "it lies in fs:read:"+w.g+" as written, and leads outside every grant")
}

// TestAnchorsOpenWhenFirstNeeded: a run with no file grant opens no
// anchor until its first file effect, which opens the root and the
// working directory and is judged as before (refused: nothing granted);
// a run with a file grant opens them as it starts, to make the grant
// canonical.
func TestAnchorsOpenWhenFirstNeeded(t *testing.T) {
	w := newPathWorld(t)
	tests := []struct {
		name        string
		budget      string
		wantAtStart bool
	}{
		{name: "no file grant", budget: "io"},
		{name: "a file grant", budget: "fs:read:" + w.g, wantAtStart: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := NewInterp(Config{Budget: budget.MustParse(w.g, tt.budget), Cwd: w.root,
				Guard: guardOf(w.home), Stdout: &bytes.Buffer{}, Stdin: strings.NewReader("")})
			if got := len(in.fs.anchors) > 0; got != tt.wantAtStart {
				t.Fatalf("anchors open at start: %v, want %v", got, tt.wantAtStart)
			}
			_, err := in.fsRead("fs.read", filepath.Join(w.o, "outside.txt"))
			testkit.WantError(t, err, codes.E302, "", "")
			if n := len(in.fs.anchors); n < 2 {
				t.Fatalf("%d anchors after the first effect, want the root and the working directory", n)
			}
		})
	}
}

// TestRefusalNamingNoItemSaysWhatToDo: a refusal whose message names no
// item to add (a way through /proc or /dev/fd, a link out of the grants)
// is told what to do all the same, beside its control, a refusal that
// names its item, which the advice says to add.
func TestRefusalNamingNoItemSaysWhatToDo(t *testing.T) {
	tests := []struct {
		name    string
		linux   bool // the row reads /proc or /dev/fd
		grant   string
		stmt    string
		wantMsg string // the message names this item to add; "" for none
	}{
		{name: "stdin by /dev/stdin", linux: true, grant: "fs", stmt: `v = fs.read("/dev/stdin")`},
		{name: "the environment by /proc/self/environ", linux: true, grant: "fs:read",
			stmt: `v = fs.read("/proc/self/environ")`},
		{name: "the environment by /proc/PID/environ", linux: true, grant: "fs:read",
			stmt: `v = fs.read("/proc/$PID/environ")`},
		{name: "a link to a file outside", grant: "fs:read:$G", stmt: `v = fs.read("$G/out")`},
		{name: "control: a file outside by its own path", grant: "fs:read:$G",
			stmt: `v = fs.read("$O/secret.txt")`, wantMsg: "add fs:read:$O/secret.txt to the budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.linux && goruntime.GOOS != "linux" {
				t.Skipf("the row reads /proc, which %s does not have", goruntime.GOOS)
			}
			w := newPathWorld(t)
			r := w.runIn(t, tt.grant, tt.stmt, "")
			var e *codes.Error
			if !errors.As(r.err, &e) || e.Code != codes.E302 {
				t.Fatalf("%s under %s: %v, want E302", tt.stmt, tt.grant, r.err)
			}
			hint := e.Hint()
			if tt.wantMsg != "" {
				if !strings.Contains(e.Msg, w.fill(tt.wantMsg)) ||
					!strings.Contains(hint, "add the item the message names") {
					t.Errorf("message %q, advice %q: want the message to name %q and the advice "+
						"to say to add it", e.Msg, hint, w.fill(tt.wantMsg))
				}
				return
			}
			if strings.Contains(e.Msg, " to the budget") {
				t.Fatalf("message %q names an item to add; the row is for one that names none", e.Msg)
			}
			if !strings.Contains(hint, "Where it names none, no grant reaches the path as written") {
				t.Errorf("message %q names no item, and its advice %q says only to add the item "+
					"it names", e.Msg, hint)
			}
		})
	}
}
