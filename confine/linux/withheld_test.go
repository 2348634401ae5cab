package linux

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit/confinetest"
)

// TestAssessLinuxNamesWithheld shows that the reason a receipt records
// names each granted path left out of the kernel's ruleset
// (Carving.Withheld: a link was made on its way after the run was
// admitted, or it resolved into a location no grant reaches), beside the
// directories held as their entries, and says nothing of it when none
// was left out (the control).
func TestAssessLinuxNamesWithheld(t *testing.T) {
	tests := []struct {
		name    string
		carving Carving
		// wantSaid are what the reason says; wantNotSaid what it does not.
		wantSaid, wantNotSaid []string
	}{
		{name: "control: nothing withheld", carving: Carving{Expanded: []string{"/srv"}},
			wantSaid: []string{"(/srv)"}, wantNotSaid: []string{"left out of the kernel's ruleset"}},
		{name: "a grant with a link on its way", carving: Carving{Withheld: []string{"/srv/work/keys"}},
			wantSaid: []string{withheldNote + " (/srv/work/keys)"}},
		{name: "a withheld grant beside expanded directories",
			carving:     Carving{Expanded: []string{"/", "/root"}, Withheld: []string{"/srv/work/keys"}},
			wantSaid:    []string{withheldNote + " (/srv/work/keys)", "(/, /root)"},
			wantNotSaid: []string{withheldNote + " (/, /root)"}},
		{name: "more than four withheld",
			carving:  Carving{Withheld: []string{"/a", "/b", "/c", "/d", "/e"}},
			wantSaid: []string{withheldNote + " (/a, /b, /c, /d and 1 more)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			held := Held{LandlockABI: 7, Seccomp: true, Carving: tt.carving}
			r := Assess(confinetest.PolicyOf("io,fs:read:/srv", false), held)
			for _, w := range tt.wantSaid {
				if !strings.Contains(r.Reason, w) {
					t.Errorf("the reason %q does not say %q", r.Reason, w)
				}
			}
			for _, w := range tt.wantNotSaid {
				if strings.Contains(r.Reason, w) {
					t.Errorf("the reason %q says %q", r.Reason, w)
				}
			}
		})
	}
}

// TestCarveLandlockSkipsDevices shows that a device node that lies
// beneath a carved grant, outside the names a guarded location allows
// (/dev/null), never becomes a rule of its own: the language refuses such
// a device (guard.RefusesDevice), and a rule would let the kernel open
// it. The files and directories beside it get their rules (the
// controls), and so does the device /dev allows.
func TestCarveLandlockSkipsDevices(t *testing.T) {
	world := fstest.MapFS{
		"srv/secret/k":     {},
		"srv/data.txt":     {},
		"srv/sub/a.txt":    {},
		"srv/disk":         {Mode: fs.ModeDevice},
		"srv/mem":          {Mode: fs.ModeDevice | fs.ModeCharDevice},
		"home/u/notes.txt": {},
		"home/u/tty":       {Mode: fs.ModeDevice | fs.ModeCharDevice},
		"dev/null":         {Mode: fs.ModeDevice | fs.ModeCharDevice},
		"dev/sda":          {Mode: fs.ModeDevice},
	}
	list := func(dir string) ([]fs.DirEntry, error) {
		rel := strings.TrimPrefix(dir, "/")
		if rel == "" {
			rel = "."
		}
		return fs.ReadDir(world, rel)
	}
	outs := []guard.CarveOut{{Path: "/srv/secret"}, {Path: "/home/u", Expand: true, Dots: true},
		{Path: "/dev", Allowed: guard.Devices()}}
	tests := []struct {
		name     string
		path     string
		wantRule bool
	}{
		{name: "control: a file beside the guarded location", path: "/srv/data.txt", wantRule: true},
		{name: "control: a directory beside it", path: "/srv/sub", wantRule: true},
		{name: "control: a file of a home", path: "/home/u/notes.txt", wantRule: true},
		{name: "control: a device /dev allows", path: "/dev/null", wantRule: true},
		{name: "a block device beside a guarded location", path: "/srv/disk"},
		{name: "a character device beside a guarded location", path: "/srv/mem"},
		{name: "a character device in a home", path: "/home/u/tty"},
		{name: "a disk in /dev", path: "/dev/sda"},
	}
	for _, access := range []struct {
		name string
		bits uint64
	}{{name: "reads", bits: landlockReadRights}, {name: "writes", bits: landlockEverywhereWrite(LandlockMaxABI)}} {
		plan := LandlockRuleset{ABI: LandlockMaxABI, Rules: []LandlockRule{{Path: "/", Access: access.bits, Grant: true, Why: "grant"}}}
		carved, c := CarveLandlock(plan, outs, list, MaxCarvedRules)
		if len(c.LanguageOnly) > 0 {
			t.Fatalf("%s: left to the language: %q", access.name, c.LanguageOnly)
		}
		for _, tt := range tests {
			t.Run(access.name+"/"+tt.name, func(t *testing.T) {
				var rules []LandlockRule
				for _, r := range carved.Rules {
					if r.Path == tt.path {
						rules = append(rules, r)
					}
				}
				if got := len(rules) > 0; got != tt.wantRule {
					t.Errorf("a rule on %s: %v (%+v), want %v", tt.path, got, rules, tt.wantRule)
				}
				if got := heldAccess(carved.Rules, tt.path) & landlockFileRights; (got != 0) != tt.wantRule {
					t.Errorf("%s is held with %v, want file rights %v", tt.path, LandlockAccessNames(got), tt.wantRule)
				}
			})
		}
	}
}
