package guard

import (
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	goruntime "runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/sabline/sabline/budget"
)

// fakeMachine is a file system of absolute paths: a file or directory
// (entries are implied by the paths beneath it), or a link to its target.
type fakeMachine struct {
	fs fstest.MapFS // relative to "/"
}

func newFake(files map[string]string) fakeMachine {
	m := fstest.MapFS{}
	for p, link := range files {
		rel := strings.TrimPrefix(p, "/")
		switch {
		case link == "":
			m[rel] = &fstest.MapFile{}
		case link == "/":
			m[rel] = &fstest.MapFile{Mode: fs.ModeDir}
		default:
			m[rel] = &fstest.MapFile{Data: []byte(link), Mode: fs.ModeSymlink}
		}
	}
	return fakeMachine{fs: m}
}

func (f fakeMachine) rel(p string) string {
	if p == "/" {
		return "."
	}
	return strings.TrimPrefix(p, "/")
}

func (f fakeMachine) ReadDir(dir string) ([]fs.DirEntry, error) {
	return fs.ReadDir(f.fs, f.rel(f.Resolve(dir)))
}

func (f fakeMachine) Readlink(p string) (string, error) {
	return f.fs.ReadLink(f.rel(filepath.Join(f.Resolve(filepath.Dir(p)), filepath.Base(p))))
}

// Resolve is guard.Resolve on the fake.
func (f fakeMachine) Resolve(p string) string { return Resolve(p, f) }

// machine is the fake world of the tests: root's home with a .ssh that
// is a link into dotfiles, a user whose home is a link to another disk,
// the receipts, and /etc's secrets.
var machine = newFake(map[string]string{
	"/root/notes.txt":                   "",
	"/root/.ssh":                        "dotfiles/ssh",
	"/root/dotfiles/ssh/id_rsa":         "",
	"/root/dotfiles/vimrc":              "",
	"/root/.config/app/conf":            "",
	"/root/.config/gh/hosts.yml":        "",
	"/root/.cache/x":                    "",
	"/home/ana":                         "/mnt/disk2/ana",
	"/mnt/disk2/ana/.aws/creds":         "",
	"/mnt/disk2/ana/work/a.txt":         "",
	"/var/lib/sabline/receipts":         "/",
	"/etc/shadow":                       "",
	"/etc/shadow-":                      "",
	"/etc/passwd":                       "",
	"/etc/ssh/ssh_host_ed25519_key":     "",
	"/etc/ssh/ssh_host_ed25519_key.pub": "",
	"/proc/sys/kernel/hostname":         "",
	"/dev/null":                         "",
	"/dev/sda":                          "",
})

func build(lent ...string) *Set {
	return Build(Inputs{Home: "/root", Sabline: []string{"/var/lib/sabline/receipts"}, Lent: lent}, machine)
}

func TestRefuses(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the fake machine is a Linux one: /proc, /sys and /dev are guarded on Linux")
	}
	tests := []struct {
		name     string
		path     string
		grant    string // "" for every path
		lent     []string
		wantLoc  string // "" when the path is reached
		wantKind Kind
	}{
		{name: "a file of the home", path: "/root/notes.txt", grant: "/root"},
		{name: "a key, through the link .ssh is", path: "/root/dotfiles/ssh/id_rsa", grant: "/root",
			wantLoc: "/root/dotfiles/ssh", wantKind: Credential},
		{name: "the key as written", path: "/root/.ssh/id_rsa", grant: "",
			wantLoc: "/root/.ssh", wantKind: Credential},
		{name: "beside the link's target", path: "/root/dotfiles/vimrc", grant: "/root"},
		{name: "a dot-entry under a grant of the home", path: "/root/.config/app/conf", grant: "/root",
			wantLoc: "/root/.config", wantKind: DotEntry},
		{name: "a dot-entry under a grant that names it", path: "/root/.config/app/conf", grant: "/root/.config/app"},
		{name: "a credential within a named dot-entry", path: "/root/.config/gh/hosts.yml", grant: "/root/.config",
			wantLoc: "/root/.config/gh", wantKind: Credential},
		{name: "a dot-entry made after the set was built", path: "/root/.new/x", grant: "",
			wantLoc: "/root/.new", wantKind: DotEntry},
		{name: "a home that is a link, as it resolves", path: "/mnt/disk2/ana/.aws/creds", grant: "/mnt",
			wantLoc: "/mnt/disk2/ana/.aws", wantKind: Credential},
		{name: "that home's plain file", path: "/mnt/disk2/ana/work/a.txt", grant: "/mnt"},
		{name: "a dot-entry of a home that is a link, as it resolves", path: "/mnt/disk2/ana/.config/app/conf", grant: "/mnt",
			wantLoc: "/mnt/disk2/ana/.config", wantKind: DotEntry},
		{name: "a lent credential under a grant that names it", path: "/root/dotfiles/ssh/id_rsa",
			grant: "/root/dotfiles/ssh", lent: []string{"/root/.ssh"}},
		{name: "a lent credential under a broader grant", path: "/root/dotfiles/ssh/id_rsa",
			grant: "/root", lent: []string{"/root/.ssh"}, wantLoc: "/root/dotfiles/ssh", wantKind: Credential},
		{name: "an unlent credential under a grant that names it", path: "/root/dotfiles/ssh/id_rsa",
			grant: "/root/dotfiles/ssh", wantLoc: "/root/dotfiles/ssh", wantKind: Credential},
		{name: "the receipts, under a grant of them", path: "/var/lib/sabline/receipts/r.json",
			grant: "/var/lib/sabline/receipts", wantLoc: "/var/lib/sabline/receipts", wantKind: Sabline},
		{name: "a kernel parameter", path: "/proc/sys/kernel/hostname", grant: "",
			wantLoc: "/proc", wantKind: Kernel},
		{name: "the null device", path: "/dev/null", grant: ""},
		{name: "a disk", path: "/dev/sda", grant: "", wantLoc: "/dev", wantKind: Kernel},
		{name: "the terminal", path: "/dev/tty", grant: "/dev/tty"},
		{name: "a console, whose name begins with the terminal's", path: "/dev/tty1", grant: "",
			wantLoc: "/dev", wantKind: Kernel},
		{name: "a serial line, under a grant of it", path: "/dev/ttyS0", grant: "/dev/ttyS0",
			wantLoc: "/dev", wantKind: Kernel},
		{name: "a null block device", path: "/dev/nullb0", grant: "", wantLoc: "/dev", wantKind: Kernel},
		{name: "the shadow file's backup", path: "/etc/shadow-", grant: "/etc",
			wantLoc: "/etc/shadow-", wantKind: Credential},
		{name: "a host key", path: "/etc/ssh/ssh_host_ed25519_key", grant: "",
			wantLoc: "/etc/ssh/ssh_host_ed25519_key", wantKind: Credential},
		{name: "a host key's public half", path: "/etc/ssh/ssh_host_ed25519_key.pub", grant: ""},
		{name: "the users' table", path: "/etc/passwd", grant: "/etc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, refused := build(tt.lent...).Refuses(tt.path, tt.grant)
			switch {
			case refused != (tt.wantLoc != ""):
				t.Errorf("Refuses(%s, %q) = %v (%+v), want refused %v", tt.path, tt.grant, refused, l, tt.wantLoc != "")
			case refused && (l.Path != tt.wantLoc || l.Kind != tt.wantKind):
				t.Errorf("refused by %s (%s), want %s (%s)", l.Path, l.Kind, tt.wantLoc, tt.wantKind)
			}
		})
	}
}

func TestAdmit(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the fake machine is a Linux one")
	}
	tests := []struct {
		name      string
		allow     string
		lent      []string
		wantNamed string // the location the refusal names; "" when admitted
	}{
		{name: "every path", allow: "fs:read"},
		{name: "the home", allow: "fs:read:/root"},
		{name: "a dot-entry, named", allow: "fs:read:/root/.config/app"},
		{name: "a credential", allow: "fs:read:/root/.ssh", wantNamed: "/root/.ssh"},
		{name: "a credential by where its link leads", allow: "fs:read:/root/dotfiles/ssh", wantNamed: "/root/dotfiles/ssh"},
		{name: "a credential the operator lent", allow: "fs:read:/root/.ssh", lent: []string{"/root/.ssh"}},
		{name: "the lent one by where it leads", allow: "fs:read:/root/dotfiles/ssh/id_rsa", lent: []string{"/root/.ssh"}},
		{name: "the receipts", allow: "fs:write:/var/lib/sabline/receipts", wantNamed: "/var/lib/sabline/receipts"},
		{name: "a file in the receipts", allow: "fs:read:/var/lib/sabline/receipts/x.json", wantNamed: "/var/lib/sabline/receipts"},
		{name: "kernel parameters", allow: "fs:write:/proc/sys", wantNamed: "/proc"},
		{name: "a disk", allow: "fs:read:/dev/sda", wantNamed: "/dev"},
		{name: "the null device", allow: "fs:read:/dev/null"},
		{name: "a shadow backup", allow: "fs:read:/etc/shadow-", wantNamed: "/etc/shadow-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := build(tt.lent...).Admit(budget.MustParse("/", tt.allow), machine.Resolve)
			if (err != nil) != (tt.wantNamed != "") {
				t.Fatalf("Admit(%s) = %v, want refused %v", tt.allow, err, tt.wantNamed != "")
			}
			if err != nil && !strings.Contains(err.Error(), tt.wantNamed+" (") {
				t.Errorf("the refusal %q does not name %s", err, tt.wantNamed)
			}
		})
	}
}

func TestNarrows(t *testing.T) {
	tests := []struct {
		name, ceiling, allow string
		wantRefused          bool
	}{
		{name: "a plain file beneath the ceiling", ceiling: "fs:read", allow: "fs:read:/root/notes.txt"},
		{name: "onto a dot-entry the ceiling covers and does not name", ceiling: "fs:read", allow: "fs:read:/root/.config/app",
			wantRefused: true},
		{name: "onto a dot-entry the ceiling names", ceiling: "fs:read:/root/.config", allow: "fs:read:/root/.config/app"},
		{name: "onto a dot-entry through another ceiling item", ceiling: "fs:read:/root/.cache,fs:read",
			allow: "fs:read:/root/.config/app", wantRefused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, ceiling := budget.MustParse("/", tt.allow), budget.MustParse("/", tt.ceiling)
			if err := b.Beneath(ceiling); err != nil {
				t.Fatalf("the case is not beneath its ceiling: %v", err)
			}
			err := build().Narrows(b, ceiling, machine.Resolve)
			if (err != nil) != tt.wantRefused {
				t.Errorf("Narrows(%s, %s) = %v, want refused %v", tt.allow, tt.ceiling, err, tt.wantRefused)
			}
		})
	}
}

func TestCarveOuts(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the fake machine is a Linux one")
	}
	var got []string
	var dev CarveOut
	for _, c := range build().CarveOuts() {
		got = append(got, c.Path)
		if c.Path == "/dev" {
			dev = c
		}
	}
	want := []string{"/root/.ssh", "/root/dotfiles/ssh", "/root/.config", "/root/.config/gh", "/root/.cache",
		"/mnt/disk2/ana/.aws", "/home/ana/.aws", "/var/lib/sabline/receipts", "/etc/shadow", "/etc/shadow-",
		"/etc/ssh/ssh_host_ed25519_key", "/proc", "/dev"}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s is not carved out; the carve-outs are %q", w, got)
		}
	}
	for _, no := range []string{"/etc/passwd", "/etc/ssh/ssh_host_ed25519_key.pub", "/root/notes.txt", "/root/dotfiles",
		"/root/.aws", "/sys"} {
		if slices.Contains(got, no) {
			t.Errorf("%s is carved out: it is no location, or it does not exist", no)
		}
	}
	if !slices.Equal(dev.Allowed, Devices()) {
		t.Errorf("/dev keeps %q reachable, want %q", dev.Allowed, Devices())
	}
	if !sort.StringsAreSorted(got) {
		t.Errorf("the carve-outs are not sorted: %q", got)
	}
}

// TestCarveOutsNamed: a carve-out is Named where a grant that names it
// reaches it, and only there: ~/.ssh is a dot-entry and a credential
// location, Named once the operator lends it.
func TestCarveOutsNamed(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the fake machine is a Linux one")
	}
	tests := []struct {
		name      string
		path      string
		lent      []string
		wantNamed bool
	}{
		{name: "a credential location that is a dot-entry too", path: "/root/.ssh"},
		{name: "the same, lent", path: "/root/.ssh", lent: []string{"/root/.ssh"}, wantNamed: true},
		{name: "where the credential link leads", path: "/root/dotfiles/ssh"},
		{name: "a credential location outside homes", path: "/etc/shadow"},
		{name: "the receipts", path: "/var/lib/sabline/receipts"},
		{name: "a kernel surface", path: "/proc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := slices.IndexFunc(build(tt.lent...).CarveOuts(), func(c CarveOut) bool { return c.Path == tt.path && !c.Expand })
			if i < 0 {
				t.Fatalf("%s is not carved out", tt.path)
			}
			if got := build(tt.lent...).CarveOuts()[i].Named; got != tt.wantNamed {
				t.Errorf("%s Named %v, want %v", tt.path, got, tt.wantNamed)
			}
		})
	}
}

// TestCarveOutsExpand: every home is a directory to expand, whatever it
// holds when the run starts, its dot-entries held by name; so is the
// nearest directory above a guarded location that does not exist yet, and
// no other.
func TestCarveOutsExpand(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the fake machines are Linux ones")
	}
	bare := newFake(map[string]string{ // a service account's home with no dot-entry, and no /run
		"/home/svc/data.txt": "", "/etc/passwd": "", "/var/lib/x": "", "/srv/h/a": "", "/root/notes": "",
		"/opt/app/x": "",
	})
	tests := []struct {
		name       string
		set        *Set
		path       string
		wantExpand bool
		wantDots   bool
	}{
		{name: "the operator's home", set: build(), path: "/root", wantExpand: true, wantDots: true},
		{name: "a home that is a link, where it leads", set: build(), path: "/mnt/disk2/ana", wantExpand: true, wantDots: true},
		{name: "the homes' directory", set: build(), path: "/home", wantExpand: true},
		{name: "a home with no dot-entry", set: Build(Inputs{}, bare), path: "/home/svc", wantExpand: true, wantDots: true},
		{name: "an operator's home elsewhere with no dot-entry", set: Build(Inputs{Home: "/srv/h"}, bare), path: "/srv/h",
			wantExpand: true, wantDots: true},
		{name: "above ~/.config/git/credentials, not there yet", set: build(), path: "/root/.config", wantExpand: true},
		{name: "above ~/.ssh of a home without one", set: Build(Inputs{}, bare), path: "/home/svc", wantExpand: true,
			wantDots: true},
		{name: "above /var/lib/sss, not there", set: Build(Inputs{}, bare), path: "/var/lib", wantExpand: true},
		{name: "above /run/secrets, with no /run", set: Build(Inputs{}, bare), path: "/", wantExpand: true},
		{name: "above /etc/shadow*, no match", set: Build(Inputs{}, bare), path: "/etc", wantExpand: true},
		{name: "control: a directory beside a home", set: build(), path: "/root/dotfiles"},
		{name: "control: the disk a home lies on", set: build(), path: "/mnt/disk2"},
		{name: "control: a home's plain entry", set: Build(Inputs{}, bare), path: "/home/svc/data.txt"},
		{name: "control: a directory with nothing guarded in it", set: Build(Inputs{}, bare), path: "/srv"},
		{name: "root's home, the operator's elsewhere", set: Build(Inputs{Home: "/srv/h"}, bare), path: "/root",
			wantExpand: true, wantDots: true},
		{name: "above a receipts directory not made yet", set: Build(Inputs{Sabline: []string{"/opt/app/receipts"}}, bare),
			path: "/opt/app", wantExpand: true},
		{name: "control: above an operator's credential that is there", set: Build(Inputs{Credentials: []string{"/opt/app/x"}}, bare),
			path: "/opt/app"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got CarveOut
			for _, c := range tt.set.CarveOuts() {
				if c.Path == tt.path && c.Expand {
					got = c
				}
			}
			if got.Expand != tt.wantExpand || got.Dots != tt.wantDots {
				t.Errorf("%s: expanded %v, dots %v; want %v, %v", tt.path, got.Expand, got.Dots, tt.wantExpand, tt.wantDots)
			}
			if _, holds := tt.set.Holds(tt.path); tt.wantExpand && !holds {
				t.Errorf("Holds(%s) is false for a directory to expand", tt.path)
			}
		})
	}
}

// testWait bounds a wait for what should end at once: a loaded machine's
// minute, not a measure of speed.
const testWait = time.Minute

// TestResolveLinkCycle: a resolution through links that lead to each
// other ends, as the kernel's lookup does after its bound of links.
func TestResolveLinkCycle(t *testing.T) {
	m := newFake(map[string]string{"/a": "/b", "/b": "/a", "/c": "/d", "/d/e": ""})
	done := make(chan string, 1)
	go func() { done <- Resolve("/a/x", m) }()
	select {
	case got := <-done:
		if got == "" {
			t.Error("Resolve of a cycle is empty")
		}
	case <-time.After(testWait):
		t.Fatal("Resolve of a cycle of links did not end")
	}
	if got := Resolve("/c/e", m); got != "/d/e" {
		t.Errorf("control: Resolve(/c/e) = %q, want /d/e", got)
	}
}

// TestHomeLinksGuarded: a home's dot-entry that is a link is held where it
// leads, and its plain entry that is a link is not.
func TestHomeLinksGuarded(t *testing.T) {
	m := newFake(map[string]string{"/home/ana/.cfg": "/data/cfg", "/data/cfg/k": "", "/home/ana/work": "/data/work",
		"/data/work/f": ""})
	set := Build(Inputs{}, m)
	if _, refused := set.Refuses("/data/cfg/k", "/data"); !refused {
		t.Error("/data/cfg, where the dot-entry ~/.cfg leads, is not guarded")
	}
	if l, refused := set.Refuses("/data/work/f", "/data"); refused {
		t.Errorf("/data/work, where the plain entry ~/work leads, is guarded as %+v", l)
	}
}

func TestNilSetGuardsNothing(t *testing.T) {
	var s *Set
	if _, refused := s.Refuses("/root/.ssh/id_rsa", ""); refused {
		t.Error("a nil set refused")
	}
	if err := s.Admit(budget.MustParse("/", "fs:read:/proc"), nil); err != nil {
		t.Errorf("a nil set refused a budget: %v", err)
	}
}

// BenchmarkBuild builds the set of this machine, as every run does when it
// starts.
func BenchmarkBuild(b *testing.B) {
	for b.Loop() {
		s := Build(Inputs{Home: "/root", Sabline: []string{"/var/lib/sabline-bench"}}, OS())
		b.ReportMetric(float64(len(s.CarveOuts())), "carve-outs")
	}
}

// TestSetJSON: the set the worker reads, its Wire as JSON, is the one
// the supervisor built; no set is null, and null is no set.
func TestSetJSON(t *testing.T) {
	s := build("/root/.ssh")
	data, err := json.Marshal(s.Wire())
	if err != nil {
		t.Fatal(err)
	}
	var w *Wire
	if err := json.Unmarshal(data, &w); err != nil {
		t.Fatal(err)
	}
	got := w.Set()
	if !reflect.DeepEqual(got.locs, s.locs) || !slices.Equal(got.homes, s.homes) || !reflect.DeepEqual(got.concrete, s.concrete) {
		t.Errorf("the set read back differs:\n%+v\nwant\n%+v", got, *s)
	}
	if _, refused := got.Refuses("/root/dotfiles/ssh/id_rsa", "/root"); !refused {
		t.Error("the set read back does not refuse the key")
	}
	var none *Set
	if data, err := json.Marshal(none.Wire()); err != nil || string(data) != "null" {
		t.Errorf("no set is %s (%v), want null", data, err)
	}
	var back *Wire
	if err := json.Unmarshal([]byte("null"), &back); err != nil || back.Set() != nil {
		t.Errorf("null is %+v (%v), want no set", back.Set(), err)
	}
}

// TestNarrowsProperty: random ceilings and random budgets beneath them,
// over a world with a credential location, a dot-entry and Sabline's
// receipts, against what the rules say, written from them: a budget
// beneath its ceiling is admitted unless an item lies in the credential
// location or the receipts, or in the dot-entry where no ceiling item that
// holds it lies in the dot-entry too.
func TestNarrowsProperty(t *testing.T) {
	m := newFake(map[string]string{
		"/w/h/.cfg/app/x": "", "/w/h/.ssh/id": "", "/w/h/plain/y": "", "/w/r/z.json": "", "/w/p/q": "",
	})
	s := Build(Inputs{Home: "/w/h", Sabline: []string{"/w/r"}}, m)
	paths := []string{"", "/w", "/w/h", "/w/h/.cfg", "/w/h/.cfg/app", "/w/h/.cfg/app/x", "/w/h/.ssh", "/w/h/.ssh/id",
		"/w/h/plain", "/w/h/plain/y", "/w/r", "/w/r/z.json", "/w/p", "/w/p/q"}
	accesses := []budget.Access{budget.Any, budget.Read, budget.Write}
	item := func(r *rand.Rand) budget.Item {
		return budget.Item{Kind: budget.FS, Access: accesses[r.IntN(3)], Path: paths[r.IntN(len(paths))]}
	}
	never := func(p string) bool { return Within(p, "/w/h/.ssh") || Within(p, "/w/r") }
	r := rand.New(rand.NewPCG(7, 7))
	admitted, refused := 0, 0
	for range 5000 {
		ceiling := budget.Budget{Items: []budget.Item{item(r), item(r)}}
		b := budget.Budget{Items: []budget.Item{item(r)}}
		if b.Beneath(ceiling) != nil {
			continue
		}
		want := true
		for _, it := range b.Items {
			switch {
			case it.Path != "" && never(it.Path):
				want = false
			case it.Path != "" && Within(it.Path, "/w/h/.cfg"):
				named := false
				for _, c := range ceiling.Items {
					named = named || c.Path != "" && c.Contains(it) && Within(c.Path, "/w/h/.cfg")
				}
				want = want && named
			}
		}
		got := s.Admit(b, m.Resolve) == nil && s.Narrows(b, ceiling, m.Resolve) == nil
		if got != want {
			t.Errorf("%s beneath %s: admitted %v, want %v", b, ceiling, got, want)
		}
		if got {
			admitted++
		} else {
			refused++
		}
	}
	if admitted == 0 || refused == 0 {
		t.Errorf("%d admitted, %d refused: the generator does not reach both sides", admitted, refused)
	}
}
