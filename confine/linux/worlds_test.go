package linux

import (
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
)

// mapMachine is a guard.Machine over a tree with no links.
type mapMachine fstest.MapFS

func (m mapMachine) ReadDir(dir string) ([]fs.DirEntry, error) {
	rel := strings.TrimPrefix(dir, "/")
	if rel == "" {
		rel = "."
	}
	return fs.ReadDir(fstest.MapFS(m), rel)
}

func (m mapMachine) Readlink(string) (string, error) { return "", fs.ErrInvalid }

// landlockMakeRights are the rights to make or remove an entry in a
// directory.
const landlockMakeRights = landlockFSMakeChar | LandlockFSMakeDir | LandlockFSMakeReg | landlockFSMakeSock |
	landlockFSMakeFifo | landlockFSMakeBlock | landlockFSMakeSym | LandlockFSRemoveFile | LandlockFSRemoveDir

// TestGuardedWorldsProperty builds the guarded set of random machines
// (guard.Build: homes with and without dot-entries, credential locations
// there or missing, another Sabline's store, a procfs mounted elsewhere)
// and carves a grant of every path for writing around it, then checks
// what the kernel would hold: nothing in a guarded location or a home's
// dot-entry but the right to list it; where each guarded location that
// does not exist would be made (the nearest directory above it that
// exists), no right to make an entry, nor in a home; and every other
// path keeps its grant's rights (the control).
func TestGuardedWorldsProperty(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the worlds are Linux machines: /home, /run, /proc")
	}
	worlds := testkit.Size(t, "worlds", 60, 200)
	write := landlockEverywhereWrite(LandlockMaxABI)
	checked, missingChecked := 0, 0
	for seed := range worlds {
		r := rand.New(rand.NewPCG(uint64(seed), 31))
		world := fstest.MapFS{}
		file := func(p string) { world[strings.TrimPrefix(p, "/")] = &fstest.MapFile{Data: []byte("x")} }
		maybe := func(p string) {
			if r.IntN(2) == 0 {
				file(p)
			}
		}
		for _, p := range []string{"/etc/passwd", "/srv/data/a.txt", "/usr/lib/x", "/proc/1/status", "/dev/null"} {
			file(p)
		}
		for _, p := range []string{"/etc/shadow", "/run/secrets/token", "/run/user/0/x", "/var/lib/sss/db",
			"/var/lib/app/y", "/other-sabline/receipts/r.json", "/mnt/hostproc/sys/kernel/hostname"} {
			maybe(p)
		}
		if r.IntN(2) == 0 {
			world["home"] = &fstest.MapFile{Mode: fs.ModeDir | 0o755} // there, if empty
		}
		homes := []string{"/root"}
		for _, u := range []string{"ana", "bo"} {
			if r.IntN(3) > 0 {
				homes = append(homes, "/home/"+u)
			}
		}
		for _, h := range homes {
			file(h + "/notes.txt")
			for _, p := range []string{"/.ssh/id_ed25519", "/.bashrc", "/.config/app/c", "/.config/gh/hosts.yml",
				"/work/.git/config", "/.zz-app/token"} {
				maybe(h + p)
			}
		}
		in := guard.Inputs{Home: "/root", Sabline: []string{"/other-sabline/receipts"},
			Mounts: []guard.Mount{{ID: 40, Parent: 1, Root: "/", Point: "/mnt/hostproc", FSType: "proc", Source: "proc"}}}
		set := guard.Build(in, mapMachine(world))
		list := mapMachine(world).ReadDir
		carved, c := CarveLandlock(LandlockRuleset{Rules: []LandlockRule{{Path: "/", Access: write, Grant: true}}},
			set.CarveOuts(), list, MaxCarvedRules)
		if len(c.LanguageOnly) > 0 || len(c.Withheld) > 0 {
			t.Fatalf("world %d: language only %q, withheld %q", seed, c.LanguageOnly, c.Withheld)
		}
		inHome := func(p string) (string, bool) {
			for _, h := range homes {
				if rest, ok := strings.CutPrefix(p, h+"/"); ok {
					return rest, true
				}
			}
			return "", false
		}
		// What no grant reaches, named here rather than read from the set.
		roots := []string{"/etc/shadow", "/run/secrets", "/var/lib/sss", "/other-sabline/receipts", "/mnt/hostproc",
			"/proc", "/dev"}
		guarded := func(p string) bool {
			if rest, ok := inHome(p); ok && strings.HasPrefix(rest, ".") {
				return true // a home's dot-entry
			}
			for _, g := range roots {
				if guard.Within(p, g) {
					return true
				}
			}
			return false
		}
		err := fs.WalkDir(world, ".", func(rel string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			p := "/" + rel
			if rel == "." {
				p = "/"
			}
			got := heldAccess(carved.Rules, p)
			if !d.IsDir() {
				got &= landlockFileRights
			}
			_, expanded := set.Holds(p)
			switch {
			case p == "/dev/null":
			case guarded(p):
				if got&^LandlockFSReadDir != 0 {
					t.Errorf("world %d: %s, guarded, has %v", seed, p, LandlockAccessNames(got))
				}
			case d.IsDir() && expanded:
				if got&landlockMakeRights != 0 {
					t.Errorf("world %d: %s, held as its entries, has %v", seed, p, LandlockAccessNames(got))
				}
			case d.IsDir():
				if got != write {
					t.Errorf("world %d: %s has %v, want every right of its grant", seed, p, LandlockAccessNames(got))
				}
			default:
				if got != write&landlockFileRights {
					t.Errorf("world %d: %s has %v, want its grant's file rights", seed, p, LandlockAccessNames(got))
				}
			}
			checked++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// Where each guarded location that is not there would be made.
		var missing []string
		for _, h := range homes {
			missing = append(missing, h+"/.ssh/authorized_keys", h+"/.bashrc", h+"/.config/gh/hosts.yml", h+"/.new")
		}
		missing = append(missing, "/run/secrets/token", "/var/lib/sss/db", "/etc/shadow-", "/home/newuser/.ssh/id")
		for _, m := range missing {
			at := m
			for {
				if _, err := world.Stat(strings.TrimPrefix(at, "/")); err == nil || at == "/" {
					break
				}
				at = filepath.Dir(at)
			}
			if at == m {
				continue // it is there: the walk above held it
			}
			if got := heldAccess(carved.Rules, at); got&landlockMakeRights != 0 {
				t.Errorf("world %d: %s, where %s would be made, has %v", seed, at, m, LandlockAccessNames(got))
			}
			missingChecked++
		}
	}
	t.Logf("%d paths and %d missing locations of %d worlds checked", checked, missingChecked, worlds)
}
