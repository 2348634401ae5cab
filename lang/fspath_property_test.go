package lang

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/internal/testkit"
)

// propWorld is a generated tree: $ROOT/g (granted in some budgets), $ROOT/o
// (outside), a home, $ROOT/home, reached also as $ROOT/users/ana (a link
// to it), with .ssh (a credential location), .gnupg (one that is a link to
// dots/gpg) and .config (a dot-entry), and $ROOT/receipts (Sabline's), with
// files, directories and links of every kind between them. Every file
// holds a token naming it and every directory a marker entry naming it, so
// that what an effect touched is read from the disk.
type propWorld struct {
	root  string
	names []string // the entry names used, for paths
}

// the places of the world, and which budgets reach them are decided by
// the oracle below, from the canonical path alone.
var propDirs = []string{"", "g", "g/d", "g/d/e", "o", "o/d", "home", "home/.ssh", "home/.config", "home/dots",
	"home/dots/gpg", "users", "receipts"}

// propHome is the world's home as the guard is told it: a link to home.
const propHome = "users/ana"

func markerOf(dir string) string { return "@" + strings.ReplaceAll(dir, "/", "_") }

func tokenOf(path string) string { return "token:" + path }

// build makes a world from r in root, which must be empty.
func buildPropWorld(t testing.TB, r *rand.Rand, root string) propWorld {
	w := propWorld{root: root}
	long := strings.Repeat("L", 250)
	w.names = []string{"f", "d", "e", "l", "m", "..", ".", "none", long}
	for _, d := range propDirs {
		p := filepath.Join(root, d)
		must(t, os.MkdirAll(p, 0o755))
		must(t, os.WriteFile(filepath.Join(p, markerOf(d)), nil, 0o644))
		must(t, os.WriteFile(filepath.Join(p, "f"), []byte(tokenOf(filepath.Join(p, "f"))), 0o644))
	}
	must(t, os.WriteFile(filepath.Join(root, "g", long), []byte(tokenOf(filepath.Join(root, "g", long))), 0o644))
	targets := func() string {
		switch r.IntN(14) {
		case 0:
			return filepath.Join(root, propDirs[r.IntN(len(propDirs))]) // absolute, a directory
		case 1:
			return filepath.Join(root, propDirs[r.IntN(len(propDirs))], "f") // absolute, a file
		case 2:
			return strings.Repeat("../", r.IntN(4)) + propDirs[r.IntN(len(propDirs))] // relative
		case 3:
			return "none/../../" + propDirs[r.IntN(len(propDirs))] // .. after a missing component
		case 4:
			return filepath.Join(root, "o", "nothing") // dangling
		case 5:
			return "/proc/self/root" + root + "/home/.ssh"
		case 6:
			return "/proc/self/fd/1"
		case 7:
			return "/dev/stdin"
		case 8:
			return "/proc/self/cwd"
		case 9:
			return "l" // to a link of the same name: a loop, or a chain
		case 10:
			return "f"
		case 11:
			return "../" + propDirs[r.IntN(len(propDirs))] + "/l"
		case 12:
			return strings.Repeat("d/../", 200+r.IntN(700)) + "f" // near PATH_MAX
		}
		return "m"
	}
	// A link named l and one named m in each directory, and a chain of
	// links past the kernel's limit in g.
	for _, d := range propDirs {
		for _, n := range []string{"l", "m"} {
			_ = os.Symlink(targets(), filepath.Join(root, d, n))
		}
	}
	for i := 0; i < 45; i++ {
		_ = os.Symlink(fmt.Sprintf("c%d", i+1), filepath.Join(root, "g", fmt.Sprintf("c%d", i)))
	}
	must(t, os.Symlink("dots/gpg", filepath.Join(root, "home", ".gnupg")))
	must(t, os.Symlink("../home", filepath.Join(root, propHome)))
	_ = os.WriteFile(filepath.Join(root, "g", "c45"), []byte(tokenOf(filepath.Join(root, "g", "c45"))), 0o644)
	w.names = append(w.names, "c0", "c5")
	return w
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// path generates a program's path in w: absolute from the root, from g,
// relative to g (the run's directory), or through a magic link.
func (w propWorld) path(r *rand.Rand) string {
	var parts []string
	for n := 1 + r.IntN(5); n > 0; n-- {
		if r.IntN(3) == 0 {
			parts = append(parts, propDirs[r.IntN(len(propDirs))])
		} else {
			parts = append(parts, w.names[r.IntN(len(w.names))])
		}
	}
	p := strings.Join(parts, "/")
	switch r.IntN(6) {
	case 0:
		return w.root + "/" + p
	case 1:
		return w.root + "/g/" + p
	case 2:
		return "/proc/self/root" + w.root + "/" + p
	case 3:
		return p + "/"
	}
	return p
}

// propBudgets are the budgets tried, with the oracle of each: whether a
// canonical path may be touched for a direction.
var propBudgets = []string{"fs:read:$ROOT/g", "fs:write:$ROOT/g", "fs:read:$ROOT/g,fs:write:$ROOT/g", "fs:read", "fs",
	"fs:read:$ROOT,fs:write:$ROOT", "fs:read:$ROOT/home/.ssh,fs:write:$ROOT/g/d", "fs:read:$ROOT/home/.config",
	"fs:write:$ROOT/home", "fs:read:$ROOT/users/ana,fs:write:$ROOT/users/ana/.config"}

// allowed is the oracle: whether the canonical path p may be touched for
// access under budget b. It is written from the rules, not from the code:
// within a grant of that direction (the grant's path as the kernel
// resolves it); never in the credential locations (.ssh, and dots/gpg,
// where .gnupg leads) nor the receipts, whatever the grant, since none is
// lent; and in a dot-entry of the home only under a grant within it.
func allowed(b budget.Budget, root, p string, access budget.Access) bool {
	for _, never := range []string{"home/.ssh", "home/dots/gpg", "receipts"} {
		if budget.Within(p, filepath.Join(root, never)) {
			return false
		}
	}
	home := filepath.Join(root, "home")
	dotEntry := ""
	if rest, ok := strings.CutPrefix(p, home+"/"); ok && strings.HasPrefix(rest, ".") {
		first, _, _ := strings.Cut(rest, "/")
		dotEntry = filepath.Join(home, first)
	}
	for _, it := range b.Of(budget.FS) {
		if it.Access != budget.Any && it.Access != access {
			continue
		}
		grant := it.Path
		if grant != "" {
			if resolved, err := filepath.EvalSymlinks(grant); err == nil {
				grant = resolved
			}
			if !budget.Within(p, grant) {
				continue
			}
		}
		if dotEntry == "" || grant != "" && budget.Within(grant, dotEntry) {
			return true
		}
	}
	return false
}

// holding reports whether the directory dir holds a guarded location of
// the world, where no entry may be made or removed under a grant above
// it: the world's root (which holds the home and the receipts), the home,
// dots (which holds gpg, where .gnupg leads) and users (which holds the
// home by the link users/ana).
func holding(root, dir string) bool {
	for _, h := range []string{"", "home", "home/dots", "users"} {
		if dir == filepath.Join(root, h) {
			return true
		}
	}
	return false
}

// propEffects are the effects tried and their direction.
var propEffects = []struct {
	name   string
	access budget.Access
}{{"read", budget.Read}, {"list", budget.Read}, {"exists", budget.Read},
	{"write", budget.Write}, {"append", budget.Write}, {"remove", budget.Write}, {"mkdir", budget.Write}}

// diskState is every entry under root with its contents.
func diskState(t testing.TB, root string) map[string]string {
	out := map[string]string{}
	must(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[p] = "-> " + target
		case d.IsDir():
			out[p] = "/"
		default:
			data, _ := os.ReadFile(p)
			out[p] = string(data)
		}
		return nil
	}))
	return out
}

// propCase runs one effect on one path under one budget, and checks what
// it touched against the oracle. It returns whether the world changed.
func propCase(t testing.TB, w propWorld, b budget.Budget, in *Interp, effect string, access budget.Access, p string) bool {
	fsm := in.fsModule()
	fn := fsm.Members[effect]
	args := starlark.Tuple{starlark.String(p)}
	token := "written:" + p
	if effect == "write" || effect == "append" {
		args = append(args, starlark.String(token))
	}
	before := map[string]string(nil)
	if access == budget.Write {
		before = diskState(t, w.root)
	}
	v, err := starlark.Call(&starlark.Thread{}, fn, args, nil)
	fail := func(format string, a ...any) {
		t.Helper()
		t.Errorf("%s(%q) under %s: %s", effect, p, b, fmt.Sprintf(format, a...))
	}
	if err != nil {
		if access == budget.Write {
			if after := diskState(t, w.root); !sameState(before, after) {
				// Only mkdir may have made parents before its refusal,
				// each inside the budget.
				if effect != "mkdir" {
					fail("refused (%v), yet the disk changed", err)
				}
				checkChanges(fail, b, w.root, access, before, after)
				return true
			}
		}
		return false
	}
	switch effect {
	case "read":
		s := string(v.(starlark.String))
		if file, ok := strings.CutPrefix(s, "token:"); ok {
			if !allowed(b, w.root, file, access) {
				fail("read %s, which the budget does not reach", file)
			}
		} else if !strings.HasPrefix(s, "written:") && (b.Of(budget.FS)[0].Path != "" || s != "") {
			fail("read something that is no file of the world: %.60q", s)
		}
	case "list":
		dir := ""
		list := v.(*starlark.List)
		for i := 0; i < list.Len(); i++ {
			if n := string(list.Index(i).(starlark.String)); strings.HasPrefix(n, "@") {
				for _, d := range propDirs {
					if markerOf(d) == n {
						dir = filepath.Join(w.root, d)
					}
				}
			}
		}
		if dir == "" {
			if b.Of(budget.FS)[0].Path != "" {
				fail("listed a directory that is no directory of the world")
			}
		} else if !allowed(b, w.root, dir, access) {
			fail("listed %s, which the budget does not reach", dir)
		}
	case "exists":
		if v == starlark.True {
			got, err := kernelPath(p, filepath.Join(w.root, "g"))
			if err != nil {
				fail("True, but the kernel cannot open it: %v", err)
			} else if strings.HasPrefix(got, w.root) && !allowed(b, w.root, got, access) {
				fail("True for %s, which the budget does not reach", got)
			}
		}
	default:
		return checkChanges(fail, b, w.root, access, before, diskState(t, w.root))
	}
	return false
}

// checkChanges fails for every entry changed, made or removed that the
// budget does not reach, or made, removed or replaced in a directory that
// holds a guarded location, and says whether anything changed.
func checkChanges(fail func(string, ...any), b budget.Budget, root string, access budget.Access, before, after map[string]string) bool {
	changed := false
	entry := func(how, path string) {
		if holding(root, filepath.Dir(path)) {
			fail("%s %s, an entry of a directory that holds a guarded location", how, path)
		}
	}
	for path, was := range before {
		now, ok := after[path]
		if ok && now == was {
			continue
		}
		changed = true
		if !allowed(b, root, path, access) {
			fail("changed %s, which the budget does not reach", path)
		}
		if !ok || kindOf(now) != kindOf(was) {
			entry("removed or replaced", path)
		}
	}
	for path := range after {
		if _, ok := before[path]; !ok {
			changed = true
			if !allowed(b, root, path, access) {
				fail("made %s, which the budget does not reach", path)
			}
			entry("made", path)
		}
	}
	return changed
}

// kindOf is what a diskState value says an entry is: a directory, a link
// or a file.
func kindOf(v string) string {
	switch {
	case v == "/":
		return "dir"
	case strings.HasPrefix(v, "-> "):
		return "link"
	}
	return "file"
}

func sameState(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// kernelPath is where the kernel's own lookup of p, from dir, lands: the
// test opens it and reads the path back, as the runtime does not.
func kernelPath(p, dir string) (string, error) {
	if !filepath.IsAbs(p) {
		p = dir + "/" + p
	}
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return filepath.EvalSymlinks(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
}

// TestPathProperty: for generated worlds, paths, effects and budgets,
// whatever the language grants touches only what the budget reaches.
func TestPathProperty(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skipf("the worlds use /proc, which %s does not have", goruntime.GOOS)
	}
	worlds := testkit.Size(t, "worlds", 2, 6)
	paths := testkit.Size(t, "paths in each world", 15, 40)
	cases, granted := 0, 0
	for seed := 0; seed < worlds; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 9))
		root := testkit.Scratch(t)
		w := buildPropWorld(t, r, root)
		var ps []string
		for i := 0; i < paths; i++ {
			ps = append(ps, w.path(r))
		}
		for _, spec := range propBudgets {
			b := budget.MustParse(filepath.Join(root, "g"), strings.ReplaceAll(spec, "$ROOT", root))
			in := NewInterp(Config{Budget: b, Cwd: filepath.Join(root, "g"), Guard: guardOf(filepath.Join(root, propHome),
				filepath.Join(root, "receipts")), Stdout: &bytes.Buffer{}, Stdin: strings.NewReader("")})
			for _, p := range ps {
				for _, e := range propEffects {
					cases++
					before := usesTotal(in)
					if propCase(t, w, b, in, e.name, e.access, p) {
						// Rebuild the world the effect changed.
						must(t, os.RemoveAll(root))
						must(t, os.MkdirAll(root, 0o755))
						w = buildPropWorld(t, rand.New(rand.NewPCG(uint64(seed), 9)), root)
					}
					if usesTotal(in) > before {
						granted++
					}
				}
			}
		}
	}
	t.Logf("%d cases (world × path × effect × budget), %d granted", cases, granted)
	if granted == 0 || granted == cases {
		t.Errorf("%d of %d cases granted: the generator does not reach both sides", granted, cases)
	}
}

func usesTotal(in *Interp) int {
	n := 0
	for _, u := range in.Usage() {
		n += u.Uses
	}
	return n
}

// FuzzPathJudge runs the property on paths the fuzzer writes, in one
// generated world, under a narrow and a broad budget.
func FuzzPathJudge(f *testing.F) {
	if goruntime.GOOS != "linux" {
		f.Skipf("the world uses /proc, which %s does not have", goruntime.GOOS)
	}
	for _, seed := range []string{"f", "d/../f", "l/f", "m/m", "../o/f", "/proc/self/root/ROOT/home/.ssh/f",
		"/dev/stdin", "/proc/self/fd/1", "none/../../o/f", "c0", "ROOT/receipts/f", "ROOT/g/d/e/../../../home/.ssh/f",
		strings.Repeat("d/../", 900) + "f", strings.Repeat("x", 256), "f/", "d/.", "..", "/"} {
		f.Add(seed, uint8(0))
		f.Add(seed, uint8(3))
	}
	root, err := os.MkdirTemp("", "sabline-fuzz-")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { os.RemoveAll(root) })
	root, err = filepath.EvalSymlinks(root)
	if err != nil {
		f.Fatal(err)
	}
	w := buildPropWorld(f, rand.New(rand.NewPCG(1, 9)), root)
	budgets := []budget.Budget{
		budget.MustParse(root, "fs:read:"+filepath.Join(root, "g")+",fs:write:"+filepath.Join(root, "g")),
		budget.MustParse(root, "fs"),
	}
	f.Fuzz(func(t *testing.T, p string, which uint8) {
		if strings.ContainsRune(p, 0) {
			return
		}
		p = strings.ReplaceAll(p, "ROOT", root)
		e := propEffects[int(which)%len(propEffects)]
		b := budgets[int(which/8)%len(budgets)]
		in := NewInterp(Config{Budget: b, Cwd: filepath.Join(root, "g"), Guard: guardOf(filepath.Join(root, propHome),
			filepath.Join(root, "receipts")), Stdout: &bytes.Buffer{}, Stdin: strings.NewReader("")})
		if propCase(t, w, b, in, e.name, e.access, p) {
			must(t, os.RemoveAll(root))
			must(t, os.MkdirAll(root, 0o755))
			w = buildPropWorld(t, rand.New(rand.NewPCG(1, 9)), root)
		}
	})
}
