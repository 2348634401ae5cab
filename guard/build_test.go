package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	goruntime "runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sabline/sabline/budget"
)

// TestHolds: a directory is held as its entries where a carve-out lies
// beneath it, or where it is itself a directory to expand; a guarded
// location with nothing guarded beneath it is not, and neither is a
// directory beside every location, however many directories to expand
// the set holds elsewhere.
func TestHolds(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the fake machine is a Linux one")
	}
	tests := []struct {
		name string
		dir  string
		want bool
	}{
		{name: "above a location: ~/dotfiles, where ~/.ssh leads", dir: "/root/dotfiles", want: true},
		{name: "above a location and a home: /mnt/disk2", dir: "/mnt/disk2", want: true},
		{name: "a home, to expand", dir: "/root", want: true},
		{name: "a directory to expand above a credential not made yet", dir: "/root/.config",
			want: true},
		{name: "a location with nothing guarded beneath it", dir: "/root/dotfiles/ssh"},
		{name: "a directory in the receipts", dir: "/var/lib/sabline/receipts/2024"},
		{name: "a home's plain directory", dir: "/mnt/disk2/ana/work"},
		{name: "a directory that does not exist", dir: "/srv"},
	}
	set := build()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, got := set.Holds(tt.dir)
			if got != tt.want {
				t.Fatalf("Holds(%s) = %v (%+v), want %v", tt.dir, got, c, tt.want)
			}
			if got && !(c.Expand && c.Path == tt.dir || c.Path != tt.dir && Within(c.Path, tt.dir)) {
				t.Errorf("Holds(%s) gives %+v: neither beneath it nor it, to expand", tt.dir, c)
			}
		})
	}
}

// TestPatternHoldsItsEntries: a location whose last component is a
// pattern holds the entries of its directory that match, those made later
// too, and not the directory itself: the operator's /srv/keys/* keeps
// every key from a grant of /srv, and a grant of /srv/keys may still list
// it.
func TestPatternHoldsItsEntries(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("the fake machine's paths are Unix paths")
	}
	m := newFake(map[string]string{"/srv/keys/a": "", "/srv/other": ""})
	set := Build(Inputs{Credentials: []string{"/srv/keys/*"}}, m)
	tests := []struct {
		name    string
		path    string
		grant   string
		wantLoc string // "" when the path is reached
	}{
		{name: "a key", path: "/srv/keys/a", grant: "/srv", wantLoc: "/srv/keys/a"},
		{name: "a file in a key", path: "/srv/keys/a/b", grant: "/srv", wantLoc: "/srv/keys/a"},
		{name: "a key made later", path: "/srv/keys/new", grant: "", wantLoc: "/srv/keys/new"},
		{name: "the directory of the keys", path: "/srv/keys", grant: "/srv"},
		{name: "the directory of the keys, under a grant of it", path: "/srv/keys",
			grant: "/srv/keys"},
		{name: "beside the keys", path: "/srv/other", grant: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, refused := set.Refuses(tt.path, tt.grant)
			switch {
			case refused != (tt.wantLoc != ""):
				t.Errorf("Refuses(%s, %q) = %v (%+v), want refused %v",
					tt.path, tt.grant, refused, l, tt.wantLoc != "")
			case refused && l.Path != tt.wantLoc:
				t.Errorf("refused by %s, want %s", l.Path, tt.wantLoc)
			}
		})
	}
}

// TestCarveOutsOrder: the carve-outs are one list whatever the order the
// locations were given in: by path, a location before the directory to
// expand at the same path (a receipts directory, expanded because the
// token to be made in it is not there yet).
func TestCarveOutsOrder(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("the fake machine's paths are Unix paths")
	}
	m := newFake(map[string]string{"/srv/r/receipt.json": ""})
	tests := []struct {
		name    string
		sabline []string
	}{
		{name: "the receipts first", sabline: []string{"/srv/r", "/srv/r/token"}},
		{name: "the token first", sabline: []string{"/srv/r/token", "/srv/r"}},
	}
	var first []CarveOut
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Build(Inputs{Sabline: tt.sabline}, m).CarveOuts()
			loc := slices.IndexFunc(got, func(c CarveOut) bool { return c.Path == "/srv/r" && !c.Expand })
			exp := slices.IndexFunc(got, func(c CarveOut) bool { return c.Path == "/srv/r" && c.Expand })
			if loc < 0 || exp < 0 || loc > exp {
				t.Errorf("/srv/r as a location at %d, to expand at %d, want both, the location first: %+v",
					loc, exp, got)
			}
			byPath := func(a, b CarveOut) int { return strings.Compare(a.Path, b.Path) }
			if !slices.IsSortedFunc(got, byPath) {
				t.Errorf("not sorted by path: %+v", got)
			}
			if first == nil {
				first = got
			} else if !reflect.DeepEqual(got, first) {
				t.Errorf("the carve-outs depend on the order of the locations:\n%+v\nand\n%+v", got, first)
			}
		})
	}
}

// TestResolveLinkBound: a resolution follows a chain of as many links as
// the kernel follows in one lookup (maxLinks, Linux's 40), and stops short
// of the end of a longer chain, which the kernel refuses to open (ELOOP).
// On Linux the same chains are made for real, and the kernel agrees.
func TestResolveLinkBound(t *testing.T) {
	tests := []struct {
		name    string
		links   int
		wantEnd bool // whether the chain resolves to its end
	}{
		{name: "one link", links: 1, wantEnd: true},
		{name: "at the bound", links: maxLinks, wantEnd: true},
		{name: "one past the bound", links: maxLinks + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if goruntime.GOOS != "windows" {
				files := map[string]string{"/end/f": ""}
				for i := range tt.links {
					next := fmt.Sprintf("/l%d", i+1)
					if i == tt.links-1 {
						next = "/end"
					}
					files[fmt.Sprintf("/l%d", i)] = next
				}
				if got := Resolve("/l0", newFake(files)); (got == "/end") != tt.wantEnd {
					t.Errorf("Resolve of a chain of %d links = %s, want the end reached %v",
						tt.links, got, tt.wantEnd)
				}
			}
			if goruntime.GOOS != "linux" {
				return
			}
			dir := t.TempDir()
			if r, err := filepath.EvalSymlinks(dir); err != nil || r != dir {
				t.Skipf("the test's directory %s is reached through a link (%s, %v)", dir, r, err)
			}
			end := filepath.Join(dir, "end")
			if err := os.Mkdir(end, 0o755); err != nil {
				t.Fatal(err)
			}
			for i := range tt.links {
				next := fmt.Sprintf("l%d", i+1)
				if i == tt.links-1 {
					next = "end"
				}
				if err := os.Symlink(next, filepath.Join(dir, fmt.Sprintf("l%d", i))); err != nil {
					t.Fatal(err)
				}
			}
			_, err := os.Stat(filepath.Join(dir, "l0"))
			if kernelEnd := err == nil; kernelEnd != tt.wantEnd {
				t.Fatalf("the kernel opens a chain of %d links: %v (%v), want %v",
					tt.links, kernelEnd, err, tt.wantEnd)
			}
			if !tt.wantEnd && !errors.Is(err, syscall.ELOOP) {
				t.Errorf("the kernel refused a chain of %d links with %v, want ELOOP", tt.links, err)
			}
			if got := Resolve(filepath.Join(dir, "l0"), OS()); (got == end) != tt.wantEnd {
				t.Errorf("Resolve of a chain of %d links on this machine = %s, want the end reached %v",
					tt.links, got, tt.wantEnd)
			}
		})
	}
}

// recordingMachine is a Machine that records the directories read.
type recordingMachine struct {
	Machine
	read *[]string
}

func (r recordingMachine) ReadDir(dir string) ([]fs.DirEntry, error) {
	*r.read = append(*r.read, dir)
	return r.Machine.ReadDir(dir)
}

// TestBuildReadsWhatIsThere: Build lists each directory once, and only a
// directory that is there: it reads nothing for the many locations of
// the table that do not exist on a machine (no /etc/ssh, no ~/.config),
// which would cost a failed read each, for every run.
func TestBuildReadsWhatIsThere(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the fake machine is a Linux one")
	}
	files := map[string]string{
		"/home/ana/notes.txt": "", "/home/ana/.cfg": "/data/cfg", "/data/cfg/k": "",
		"/etc/passwd": "", "/etc/shadow": "", "/proc/1/status": "", "/root/.profile": "",
	}
	fake := newFake(files)
	tests := []struct {
		name string
		in   Inputs
	}{
		{name: "the machine's own homes", in: Inputs{}},
		{name: "an operator's home, receipts and credentials, some not there",
			in: Inputs{Home: "/home/ana", Sabline: []string{"/var/lib/sabline/receipts"},
				Credentials: []string{"/opt/keys/*", "/etc/shadow"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var read []string
			Build(tt.in, recordingMachine{Machine: fake, read: &read})
			if len(read) == 0 {
				t.Fatal("Build read no directory")
			}
			seen := map[string]bool{}
			for _, dir := range read {
				if seen[dir] {
					t.Errorf("%s was read twice", dir)
				}
				seen[dir] = true
				if fi, err := fs.Stat(fake.fs, fake.rel(fake.Resolve(dir))); err != nil || !fi.IsDir() {
					t.Errorf("%s was read, and is no directory (%v)", dir, err)
				}
			}
		})
	}
}

// TestCarveOutAllowedNarrowest: a path guarded twice keeps, for the
// kernel, the narrower names the two allow: /dev named by the operator
// as a credential location keeps no device reachable, whichever came
// first, as the language refuses them all; and alone, the devices of
// Devices stay reachable.
func TestCarveOutAllowedNarrowest(t *testing.T) {
	if goruntime.GOOS != "linux" && goruntime.GOOS != "darwin" {
		t.Skip("/dev is a kernel surface on Linux and macOS")
	}
	m := newFake(map[string]string{"/dev/null": "", "/dev/sda": ""})
	tests := []struct {
		name string
		in   Inputs
		want []string // the names /dev allows
	}{
		{name: "the kernel's /dev alone", in: Inputs{}, want: Devices()},
		{name: "/dev an operator's credential, met after the kernel's",
			in: Inputs{Credentials: []string{"/dev"}}},
		{name: "/dev Sabline's own, met before the kernel's", in: Inputs{Sabline: []string{"/dev"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := Build(tt.in, m)
			carved := set.CarveOuts()
			i := slices.IndexFunc(carved, func(c CarveOut) bool { return c.Path == "/dev" && !c.Expand })
			if i < 0 {
				t.Fatal("/dev is not carved out")
			}
			if got := carved[i].Allowed; !slices.Equal(got, tt.want) {
				t.Errorf("/dev allows %q, want %q", got, tt.want)
			}
			if _, refused := set.Refuses("/dev/null", ""); refused == slices.Contains(tt.want, "null") {
				t.Errorf("the language refuses /dev/null: %v; the kernel allows %q", refused, tt.want)
			}
		})
	}
}

// TestResolveDotDotThroughALink: a link whose target climbs out of
// another link (store -> x/../realstore, x a link into deep/d) leads where
// the kernel takes it, deep/realstore, not where the text of its target
// reads, and a store named by it is held there: the set refuses a file of
// deep/realstore. The control: the same target without the link in it
// (x a directory) leads beside x, as written.
func TestResolveDotDotThroughALink(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{name: "x a link", want: "/t/deep/realstore", files: map[string]string{
			"/t/x": "/t/deep/d", "/t/deep/d/f": "", "/t/deep/realstore/r": "",
			"/t/realstore/r": "", "/t/store": "x/../realstore"}},
		{name: "x a directory", want: "/t/realstore", files: map[string]string{
			"/t/x/f": "", "/t/deep/realstore/r": "", "/t/realstore/r": "",
			"/t/store": "x/../realstore"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if goruntime.GOOS == "windows" {
				t.Skip("the fake machine's paths are Unix paths")
			}
			m := newFake(tt.files)
			if got := Resolve("/t/store", m); got != tt.want {
				t.Errorf("Resolve(/t/store) = %s, want %s", got, tt.want)
			}
			set := Build(Inputs{Sabline: []string{"/t/store"}}, m)
			if _, refused := set.Refuses(tt.want+"/r", "/t"); !refused {
				t.Errorf("%s/r, where the store leads, is not refused", tt.want)
			}
		})
	}
	if goruntime.GOOS != "linux" {
		return
	}
	// The kernel's view, on this machine: the same links made for real.
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err != nil || r != dir {
		t.Skipf("the test's directory %s is reached through a link (%s, %v)", dir, r, err)
	}
	for _, d := range []string{"deep/d", "deep/realstore", "realstore"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "deep/d"), filepath.Join(dir, "x")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("x/../realstore", filepath.Join(dir, "store")); err != nil {
		t.Fatal(err)
	}
	// The kernel's lookup (stat follows the links) against Resolve's.
	via, err := os.Stat(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	got := Resolve(filepath.Join(dir, "store"), OS())
	at, err := os.Stat(got)
	if err != nil || !os.SameFile(via, at) {
		t.Errorf("Resolve on this machine = %s (%v), not the directory the kernel reaches", got, err)
	}
	if beside, err := os.Stat(filepath.Join(dir, "realstore")); err != nil || os.SameFile(via, beside) {
		t.Errorf("control: the kernel reaches realstore beside x (%v)", err)
	}
}

// TestHoldsAHomeWithNothingGuarded: a home is held as its entries
// (Expand) whether or not a guarded location lies beneath it when the set
// is built: an entry made in it, or removed from it, is beyond a grant of
// the home, as the kernel holds it. The home here has no dot-entry and
// no credential, so nothing beneath it is a carve-out. The controls: a
// directory of the home, and one that is no home.
func TestHoldsAHomeWithNothingGuarded(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the fake machine is a Linux one")
	}
	m := newFake(map[string]string{
		"/home/bob/notes.txt":  "",
		"/home/bob/work/a.txt": "",
		"/srv/x":               "",
	})
	set := Build(Inputs{}, m)
	wants := map[string]bool{"/home/bob": true, "/home/bob/work": false, "/srv": false}
	for dir, want := range wants {
		c, got := set.Holds(dir)
		if got != want {
			t.Errorf("Holds(%s) = %v (%+v), want %v", dir, got, c, want)
		}
		if got && !(c.Expand && c.Path == dir) {
			t.Errorf("Holds(%s) gives %+v, want the home itself, to expand", dir, c)
		}
	}
}

// TestAdmitWhereALinkLeads: a grant whose path is a link is admitted as
// it is written and as it resolves: a link to the kernel's files or to
// Sabline's receipts is refused, naming where it leads, though its own
// path lies in no location. The control: a link to a plain directory.
func TestAdmitWhereALinkLeads(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the fake machine is a Linux one")
	}
	m := newFake(map[string]string{
		"/srv/params":               "/proc/sys",
		"/srv/runs":                 "/var/lib/sabline/receipts",
		"/srv/data":                 "/mnt/data",
		"/mnt/data/a.txt":           "",
		"/proc/sys/kernel/hostname": "",
		"/var/lib/sabline/receipts": "/",
	})
	set := Build(Inputs{Sabline: []string{"/var/lib/sabline/receipts"}}, m)
	for allow, wantNamed := range map[string]string{
		"fs:read:/srv/params": "/proc",
		"fs:write:/srv/runs":  "/var/lib/sabline/receipts",
		"fs:read:/srv/data":   "",
	} {
		err := set.Admit(budget.MustParse("/", allow), m.Resolve)
		switch {
		case (err != nil) != (wantNamed != ""):
			t.Errorf("Admit(%s) = %v, want refused %v", allow, err, wantNamed != "")
		case err != nil && !strings.Contains(err.Error(), wantNamed+" ("):
			t.Errorf("Admit(%s): %q does not name %s", allow, err, wantNamed)
		}
	}
}

// TestSablineNamedAsItIs: a location of Sabline's own whose name holds a
// pattern's character (a receipts directory named r[1], a server's token
// t*) is guarded as that name, in the language and in the kernel's
// carve-outs, through the worker's copy of the set and a refresh of it:
// read as a pattern, r[1] guarded r1 beside it, and itself not at all (a
// run granted the directory above read and rewrote the receipts there).
// The controls: r1 beside it is reached, and a location eval names by a
// pattern (SablineMatched, DIR/*.out) still holds every match.
func TestSablineNamedAsItIs(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("the fake machine's paths are Unix paths")
	}
	m := newFake(map[string]string{
		"/srv/r[1]/run.json": "", "/srv/r1/x": "", "/srv/t*": "", "/srv/tx": "",
		"/srv/class/a.out": "", "/srv/class/a.vel": "",
	})
	set := Build(Inputs{Sabline: []string{"/srv/r[1]", "/srv/t*"},
		SablineMatched: []string{"/srv/class/*.out"}}, m)
	tests := []heldCase{
		{path: "/srv/r[1]/run.json", wantLoc: "/srv/r[1]"},
		{path: "/srv/r[1]", wantLoc: "/srv/r[1]"},
		{path: "/srv/t*", wantLoc: "/srv/t*"},
		{path: "/srv/class/a.out", wantLoc: "/srv/class/a.out"},
		{path: "/srv/class/b.out", wantLoc: "/srv/class/b.out"}, // one made later
		{path: "/srv/r1/x"},
		{path: "/srv/tx"},
		{path: "/srv/class/a.vel"},
	}
	heldUnderSrv(t, set, m, tests, []string{"/srv/class/a.out", "/srv/r[1]", "/srv/t*"})
}

// TestOperatorCredentialNamedAsItIs: a location the operator names in
// SABLINE_CREDENTIALS whose last component holds a pattern's character
// is guarded as the name it is, in the language and in the kernel's
// carve-outs, through the worker's copy of the set and a refresh of it.
// Read as a pattern alone, /srv/vault[1] guarded /srv/vault1 and
// /srv/v[ault (a malformed pattern) nothing: a run granted fs:read:/srv,
// or fs:read:/srv/vault[1] itself, read the key at full. The controls: a
// grant that names the location is admitted where the operator lends it,
// a pattern (/srv/keys/*.key) still holds each match, and notes.txt
// beside them is reached.
func TestOperatorCredentialNamedAsItIs(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("the fake machine's paths are Unix paths")
	}
	m := newFake(map[string]string{
		"/srv/vault[1]/k.key": "", "/srv/vault1/k.key": "", "/srv/v[ault/k.key": "",
		"/srv/keys/a.key": "", "/srv/notes.txt": "", "/srv/lent[2]/k.key": "",
	})
	set := Build(Inputs{Credentials: []string{"/srv/vault[1]", "/srv/v[ault", "/srv/keys/*.key",
		"/srv/lent[2]"}, Lent: []string{"/srv/lent[2]"}}, m)
	tests := []heldCase{
		{path: "/srv/vault[1]/k.key", wantLoc: "/srv/vault[1]"},
		{path: "/srv/vault[1]", wantLoc: "/srv/vault[1]"},
		{path: "/srv/v[ault/k.key", wantLoc: "/srv/v[ault"},
		{path: "/srv/lent[2]/k.key", wantLoc: "/srv/lent[2]"},
		{path: "/srv/vault1/k.key", wantLoc: "/srv/vault1"}, // the pattern's match, as before
		{path: "/srv/keys/a.key", wantLoc: "/srv/keys/a.key"},
		{path: "/srv/notes.txt"},
	}
	heldUnderSrv(t, set, m, tests, []string{"/srv/keys/a.key", "/srv/lent[2]", "/srv/v[ault",
		"/srv/vault1", "/srv/vault[1]"})
	for allow, admitted := range map[string]bool{
		"fs:read:/srv/vault[1]": false, "fs:read:/srv/v[ault/k.key": false,
		"fs:read:/srv/lent[2]": true, "fs:read:/srv/notes.txt": true,
	} {
		if err := set.Admit(budget.MustParse("/", allow), m.Resolve); (err == nil) != admitted {
			t.Errorf("Admit(%s) = %v, want admitted %v", allow, err, admitted)
		}
	}
}

// TestMountNamedAsItIs: a kernel file system mounted at a point whose
// name holds a pattern's character (/mnt/p[1]) is guarded as that name:
// read as a pattern, p[1] guarded p1 beside it, and a grant of /mnt
// reached the proc mount itself. The control: p1 beside it, a directory
// of data, is reached.
func TestMountNamedAsItIs(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("the fake machine's paths are Unix paths")
	}
	m := newFake(map[string]string{"/mnt/p[1]/self/environ": "", "/mnt/p1/x": ""})
	set := Build(Inputs{Mounts: []Mount{{ID: 2, Parent: 1, Root: "/", Point: "/mnt/p[1]",
		FSType: "proc", Source: "proc"}}}, m)
	for _, tt := range []struct {
		path    string
		wantLoc string // "" when a grant of /mnt reaches it
	}{
		{path: "/mnt/p[1]/self/environ", wantLoc: "/mnt/p[1]"},
		{path: "/mnt/p[1]", wantLoc: "/mnt/p[1]"},
		{path: "/mnt/p1/x"},
	} {
		l, refused := set.Refuses(tt.path, "/mnt")
		switch {
		case refused != (tt.wantLoc != ""):
			t.Errorf("Refuses(%s, /mnt) = %v (%+v), want %v", tt.path, refused, l, tt.wantLoc != "")
		case refused && l.Path != tt.wantLoc:
			t.Errorf("%s refused by %s, want %s", tt.path, l.Path, tt.wantLoc)
		}
	}
}

// TestCredentialList: the operator's list is split into its absolute
// paths, cleaned, and the entries that are not absolute paths, which
// CheckOperatorCredentials refuses every run for; an empty entry is none.
func TestCredentialList(t *testing.T) {
	sep := string(filepath.ListSeparator)
	abs := func(p string) string { return filepath.Join(string(filepath.Separator)+"srv", p) }
	for _, tt := range []struct {
		name          string
		list          string
		wantPaths     []string
		wantMalformed []string
	}{
		{name: "absolute paths, cleaned", list: abs("vault") + sep + abs("keys/../k"),
			wantPaths: []string{abs("vault"), abs("k")}},
		{name: "a relative entry", list: abs("vault") + sep + "g" + sep + "./k",
			wantPaths: []string{abs("vault")}, wantMalformed: []string{"g", "./k"}},
		{name: "empty entries", list: sep + abs("vault") + sep, wantPaths: []string{abs("vault")}},
		{name: "nothing", list: ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			paths, malformed := credentialList(tt.list)
			if !slices.Equal(paths, tt.wantPaths) || !slices.Equal(malformed, tt.wantMalformed) {
				t.Errorf("credentialList(%q) = %q, %q; want %q, %q", tt.list, paths, malformed,
					tt.wantPaths, tt.wantMalformed)
			}
		})
	}
}

// heldCase is a path beneath /srv and the location a grant of /srv is
// refused it by ("" where the grant reaches it).
type heldCase struct {
	path    string
	wantLoc string
}

// heldUnderSrv checks each case against set as built, as the worker's copy
// of it (Wire) and as that copy refreshed (on the fake machine m), and
// that the kernel's carve-outs of each are wantCarved, the locations
// expanded left out.
func heldUnderSrv(t *testing.T, set *Set, m fakeMachine, tests []heldCase,
	wantCarved []string) {
	t.Helper()
	for name, s := range map[string]*Set{"built": set, "wired": set.Wire().Set(),
		"refreshed": set.Wire().Set().Refresh(Inputs{}, m)} {
		for _, tt := range tests {
			l, refused := s.Refuses(tt.path, "/srv")
			switch {
			case refused != (tt.wantLoc != ""):
				t.Errorf("%s: Refuses(%s, /srv) = %v (%+v), want %v", name, tt.path, refused, l,
					tt.wantLoc != "")
			case refused && l.Path != tt.wantLoc:
				t.Errorf("%s: %s refused by %s, want %s", name, tt.path, l.Path, tt.wantLoc)
			}
		}
		var carved []string
		for _, c := range s.CarveOuts() {
			if !c.Expand {
				carved = append(carved, c.Path)
			}
		}
		if !slices.Equal(carved, wantCarved) {
			t.Errorf("%s: the kernel holds out %q, want %q", name, carved, wantCarved)
		}
	}
}
