package linux

import (
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
)

// carveWorld is a machine's tree: its directories, files, a link and
// devices.
var carveWorld = fstest.MapFS{
	"bin/sh":                 {},
	"etc/passwd":             {},
	"etc/shadow":             {},
	"etc/ssl/certs/ca.pem":   {},
	"etc/ssl/private/k.pem":  {},
	"root/notes.txt":         {},
	"root/.ssh/id_rsa":       {},
	"root/.config/app/c":     {},
	"root/link":              {Data: []byte("/etc/shadow"), Mode: fs.ModeSymlink},
	"proc/sys/kernel/domain": {},
	"dev/null":               {Mode: fs.ModeDevice | fs.ModeCharDevice},
	"dev/urandom":            {Mode: fs.ModeDevice | fs.ModeCharDevice},
	"dev/sda":                {Mode: fs.ModeDevice},
	"dev/shm/x":              {},
	"tmp/a/b.txt":            {},
}

// carveOuts are the world's guarded locations.
var carveOuts = []guard.CarveOut{
	{Path: "/etc/shadow"}, {Path: "/etc/ssl/private"}, {Path: "/root/.ssh"}, {Path: "/root/.config", Named: true},
	{Path: "/proc"}, {Path: "/dev", Allowed: guard.Devices()},
}

func listWorld(dir string) ([]fs.DirEntry, error) {
	rel := strings.TrimPrefix(dir, "/")
	if rel == "" {
		rel = "."
	}
	return fs.ReadDir(carveWorld, rel)
}

// heldAccess is what the rules let a path have: the rights of every rule
// at the path or above it, as Landlock adds them up.
func heldAccess(rules []LandlockRule, p string) uint64 {
	var a uint64
	for _, r := range rules {
		if budget := r.Path; p == budget || strings.HasPrefix(p, strings.TrimSuffix(budget, "/")+"/") {
			a |= r.Access
		}
	}
	return a
}

// guarded reports whether p lies in a carve-out, and not in a name it
// allows.
func guarded(p string) bool {
	for _, c := range carveOuts {
		if guard.Within(p, c.Path) && !slices.ContainsFunc(c.Allowed, func(a string) bool { return guard.Within(p, filepath.Join(c.Path, a)) }) {
			return true
		}
	}
	return false
}

// TestCarveLandlock carves rules of / for reading and for writing around
// the world's guarded locations and checks every path of the world: one
// in a guarded location has no right but listing, one beside them has
// every right its rule gave, and a directory on the way down has no right
// to make or remove an entry.
func TestCarveLandlock(t *testing.T) {
	write := landlockEverywhereWrite(LandlockMaxABI)
	tests := []struct {
		name   string
		access uint64
	}{
		{name: "reads", access: landlockReadRights},
		{name: "writes", access: write},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := LandlockRuleset{ABI: LandlockMaxABI, Rules: []LandlockRule{
				{Path: "/", Access: tt.access, Grant: true, Why: "grant (every path)"},
				{Path: "/dev/null", Access: tt.access & landlockFileRights, Why: "interpreter: /dev/null"},
			}}
			carved, c := CarveLandlock(plan, carveOuts, listWorld, MaxCarvedRules)
			if len(c.LanguageOnly) > 0 {
				t.Fatalf("locations left to the language: %q", c.LanguageOnly)
			}
			wantExpanded := []string{"/", "/etc", "/etc/ssl", "/root"}
			if !slices.Equal(c.Expanded, wantExpanded) {
				t.Errorf("expanded %q, want %q", c.Expanded, wantExpanded)
			}
			checked := 0
			err := fs.WalkDir(carveWorld, ".", func(rel string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				p := "/" + rel
				if rel == "." {
					p = "/"
				}
				got := heldAccess(carved.Rules, p)
				checked++
				switch {
				case d.Type()&fs.ModeSymlink != 0:
					// A link is judged by where it leads.
				case guarded(p):
					if got&^LandlockFSReadDir != 0 {
						t.Errorf("%s, guarded, has %v", p, LandlockAccessNames(got))
					}
				case slices.Contains(wantExpanded, p):
					if got&^LandlockFSReadDir != 0 {
						t.Errorf("%s, expanded, has %v: an entry made or removed in it reaches into the guarded ones",
							p, LandlockAccessNames(got))
					}
					if got&LandlockFSReadDir != tt.access&LandlockFSReadDir {
						t.Errorf("%s, expanded, may not be listed as its grant says", p)
					}
				case d.IsDir():
					if got != tt.access {
						t.Errorf("%s has %v, want its grant's %v", p, LandlockAccessNames(got), LandlockAccessNames(tt.access))
					}
				default:
					// A file has what the rules above give a file.
					if got&landlockFileRights != tt.access&landlockFileRights {
						t.Errorf("%s has %v, want its grant's file rights %v", p, LandlockAccessNames(got),
							LandlockAccessNames(tt.access&landlockFileRights))
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if checked < len(carveWorld) {
				t.Errorf("checked %d paths of a world of %d", checked, len(carveWorld))
			}
			for _, r := range carved.Rules {
				if r.Path == "/dev/urandom" && r.Access&LandlockFSReadFile != tt.access&LandlockFSReadFile {
					t.Errorf("/dev/urandom, a device /dev allows, has %v", LandlockAccessNames(r.Access))
				}
			}
			if c.Added != len(carved.Rules)-len(plan.Rules) {
				t.Errorf("Added = %d, for %d rules from %d", c.Added, len(carved.Rules), len(plan.Rules))
			}
			for _, r := range carved.Rules {
				if r.Carved == (r.Path == "/dev/null" && r.Why == plan.Rules[1].Why) {
					t.Errorf("rule %s (%s) is marked carved %v", r.Path, r.Why, r.Carved)
				}
			}
		})
	}
}

// TestCarveLandlockBounded: a rule whose carving passes the bound stays
// whole, and the locations beneath it are the language's only; a rule
// with nothing guarded beneath it, or one within a guarded location (a
// grant that names a dot-entry), stays as it is.
func TestCarveLandlockBounded(t *testing.T) {
	plan := LandlockRuleset{Rules: []LandlockRule{
		{Path: "/", Access: landlockReadRights, Grant: true},
		{Path: "/tmp", Access: landlockReadRights, Grant: true},
		{Path: "/root/.config/app", Access: landlockReadRights, Grant: true},
	}}
	carved, c := CarveLandlock(plan, carveOuts, listWorld, 3)
	if !slices.Equal(carved.Rules, plan.Rules) {
		t.Errorf("past the bound the rules are %+v, want them unchanged", carved.Rules)
	}
	want := []string{"/dev", "/etc/shadow", "/etc/ssl/private", "/proc", "/root/.config", "/root/.ssh"}
	if !slices.Equal(c.LanguageOnly, want) {
		t.Errorf("language only %q, want %q", c.LanguageOnly, want)
	}
	if len(c.Expanded) != 0 || c.Added != 0 {
		t.Errorf("a carving past the bound expanded %q, added %d", c.Expanded, c.Added)
	}
	// The control: within the bound, / is carved and the others stay.
	carved, c = CarveLandlock(plan, carveOuts, listWorld, MaxCarvedRules)
	if len(c.LanguageOnly) != 0 || !slices.Contains(carved.Rules, plan.Rules[1]) || !slices.Contains(carved.Rules, plan.Rules[2]) {
		t.Errorf("within the bound: language only %q, rules %+v", c.LanguageOnly, carved.Rules)
	}
}

// TestCarveLandlockBoundShared: the bound is on the rules the carving of
// the whole ruleset adds, not of each rule. Carving /etc adds 3 rules
// (/etc/passwd, /etc/ssl, /etc/ssl/certs beside /etc), /root 1
// (/root/notes.txt): at a bound of 4 both are carved, the bound reached;
// at 3 the second stays whole and its guarded locations are the
// language's.
func TestCarveLandlockBoundShared(t *testing.T) {
	plan := LandlockRuleset{Rules: []LandlockRule{
		{Path: "/etc", Access: landlockReadRights, Grant: true},
		{Path: "/root", Access: landlockReadRights, Grant: true},
	}}
	tests := []struct {
		name             string
		maxRules         int
		wantAdded        int
		wantWhole        []string // the rules left as they were
		wantLanguageOnly []string
	}{
		{name: "exactly the bound", maxRules: 4, wantAdded: 4},
		{name: "one short of it", maxRules: 3, wantAdded: 3, wantWhole: []string{"/root"},
			wantLanguageOnly: []string{"/root/.config", "/root/.ssh"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			carved, c := CarveLandlock(plan, carveOuts, listWorld, tt.maxRules)
			var whole []string
			for _, r := range carved.Rules {
				if !r.Carved {
					whole = append(whole, r.Path)
				}
			}
			if c.Added != tt.wantAdded || c.Added != len(carved.Rules)-len(plan.Rules) {
				t.Errorf("Added = %d for %d rules, want %d",
					c.Added, len(carved.Rules), tt.wantAdded)
			}
			if !slices.Equal(whole, tt.wantWhole) ||
				!slices.Equal(c.LanguageOnly, tt.wantLanguageOnly) {
				t.Errorf("whole %q, language only %q; want %q, %q", whole, c.LanguageOnly,
					tt.wantWhole, tt.wantLanguageOnly)
			}
			if got := heldAccess(carved.Rules, "/etc/shadow"); got&^LandlockFSReadDir != 0 {
				t.Errorf("/etc/shadow, guarded, has %v", LandlockAccessNames(got))
			}
		})
	}
}

// TestCarveLandlockAllowedEntries: in a guarded directory, a name it
// allows gets a file's rule only where an entry of that name is there and
// is no link: a device the name allows, not a link at the name (which
// the kernel would follow, to /etc/shadow here), nor a name with nothing
// there.
func TestCarveLandlockAllowedEntries(t *testing.T) {
	world := fstest.MapFS{
		"dev/null":   {Mode: fs.ModeDevice | fs.ModeCharDevice},
		"dev/sda":    {Mode: fs.ModeDevice},
		"dev/tty":    {Data: []byte("/etc/shadow"), Mode: fs.ModeSymlink},
		"etc/shadow": {},
	}
	list := func(dir string) ([]fs.DirEntry, error) {
		rel := strings.TrimPrefix(dir, "/")
		if rel == "" {
			rel = "."
		}
		return fs.ReadDir(world, rel)
	}
	tests := []struct {
		name     string
		allowed  string
		wantRule bool
	}{
		{name: "a device there", allowed: "null", wantRule: true},
		{name: "a link at the name", allowed: "tty"},
		{name: "nothing at the name", allowed: "zero"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cos := []guard.CarveOut{
				{Path: "/dev", Allowed: []string{tt.allowed}}, {Path: "/etc/shadow"}}
			plan := LandlockRuleset{Rules: []LandlockRule{
				{Path: "/", Access: landlockReadRights, Grant: true}}}
			carved, _ := CarveLandlock(plan, cos, list, MaxCarvedRules)
			var inDev []string
			for _, r := range carved.Rules {
				if guard.Within(r.Path, "/dev") {
					inDev = append(inDev, r.Path)
				}
			}
			var want []string
			if tt.wantRule {
				want = []string{"/dev/" + tt.allowed}
			}
			if !slices.Equal(inDev, want) {
				t.Errorf("rules in /dev %q, want %q", inDev, want)
			}
		})
	}
}

// TestCarveLandlockWithheld: a grant whose path lies in a guarded
// location that no grant reaches (one that became a link into it after
// the run was admitted), or a TLS root the operator's environment named
// there, is left out of the ruleset, and said; the
// controls are a grant that lies in a location a naming grant reaches (a
// dot-entry), a grant of a device /dev allows, and a need (the
// interpreter's) in a guarded location, which stay as they are.
func TestCarveLandlockWithheld(t *testing.T) {
	tests := []struct {
		name         string
		rule         LandlockRule
		wantWithheld bool
	}{
		{name: "a grant in a credential location", rule: LandlockRule{Path: "/root/.ssh", Grant: true}, wantWithheld: true},
		{name: "a grant beneath one", rule: LandlockRule{Path: "/root/.ssh/keys", Grant: true}, wantWithheld: true},
		{name: "a grant of a kernel file", rule: LandlockRule{Path: "/proc/sys/kernel", Grant: true}, wantWithheld: true},
		{name: "a grant of a device /dev does not allow", rule: LandlockRule{Path: "/dev/sda", Grant: true},
			wantWithheld: true},
		{name: "a grant in a dot-entry (the control)", rule: LandlockRule{Path: "/root/.config/app", Grant: true}},
		{name: "a grant of a device /dev allows (the control)", rule: LandlockRule{Path: "/dev/urandom", Grant: true}},
		{name: "a need in a guarded location (the control)", rule: LandlockRule{Path: "/proc/sys/kernel"}},
		{name: "an operator's TLS root in a credential location",
			rule: LandlockRule{Path: "/root/.ssh/ca.pem", Operator: true}, wantWithheld: true},
		{name: "an operator's TLS root of a kernel file",
			rule: LandlockRule{Path: "/proc/sys/kernel", Operator: true}, wantWithheld: true},
		{name: "an operator's TLS root beside (the control)",
			rule: LandlockRule{Path: "/root/notes.txt", Operator: true}},
		{name: "a grant beside (the control)", rule: LandlockRule{Path: "/root/notes.txt", Grant: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.rule.Access = landlockReadRights
			carved, c := CarveLandlock(LandlockRuleset{Rules: []LandlockRule{tt.rule}}, carveOuts, listWorld, MaxCarvedRules)
			kept := slices.Contains(carved.Rules, tt.rule)
			if withheld := slices.Equal(c.Withheld, []string{tt.rule.Path}); withheld != tt.wantWithheld || kept == tt.wantWithheld {
				t.Errorf("rules %+v, withheld %q; want withheld %v", carved.Rules, c.Withheld, tt.wantWithheld)
			}
		})
	}
}

// TestCarveLandlockUnlistable: a directory that cannot be listed leaves
// its rule whole, and says so.
func TestCarveLandlockUnlistable(t *testing.T) {
	home := []guard.CarveOut{{Path: "/root", Expand: true, Dots: true}}
	tests := []struct {
		name             string
		rule             string
		carveOuts        []guard.CarveOut
		unlistable       string // a directory whose listing fails
		wantWhole        bool   // the rule stays as it was
		wantLanguageOnly []string
		wantUnlisted     []string
		wantNoRule       string // a path no rule reaches
	}{
		{name: "the rule's own directory, above guarded locations", rule: "/root", carveOuts: carveOuts,
			unlistable: "/root", wantWhole: true, wantLanguageOnly: []string{"/root/.config", "/root/.ssh"}},
		{name: "a home the rule is of, with nothing guarded beneath it now", rule: "/root", carveOuts: home,
			unlistable: "/root", wantWhole: true, wantLanguageOnly: []string{"/root"}},
		{name: "a home beneath the rule: no rule for it", rule: "/", carveOuts: home, unlistable: "/root",
			wantUnlisted: []string{"/root"}, wantNoRule: "/root/notes.txt"},
		{name: "control: every directory listed", rule: "/", carveOuts: home, wantNoRule: "/root/.ssh/id_rsa"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := LandlockRuleset{Rules: []LandlockRule{{Path: tt.rule, Access: landlockReadRights, Grant: true}}}
			list := func(dir string) ([]fs.DirEntry, error) {
				if dir == tt.unlistable {
					return nil, fs.ErrPermission
				}
				return listWorld(dir)
			}
			carved, c := CarveLandlock(plan, tt.carveOuts, list, MaxCarvedRules)
			if whole := slices.Equal(carved.Rules, plan.Rules); whole != tt.wantWhole {
				t.Errorf("the rule stays whole %v, want %v: %+v", whole, tt.wantWhole, carved.Rules)
			}
			if !slices.Equal(c.LanguageOnly, tt.wantLanguageOnly) || !slices.Equal(c.Unlisted, tt.wantUnlisted) {
				t.Errorf("language only %q, unlisted %q; want %q, %q", c.LanguageOnly, c.Unlisted,
					tt.wantLanguageOnly, tt.wantUnlisted)
			}
			if tt.wantNoRule != "" && heldAccess(carved.Rules, tt.wantNoRule)&^LandlockFSReadDir != 0 {
				t.Errorf("%s has %v", tt.wantNoRule, LandlockAccessNames(heldAccess(carved.Rules, tt.wantNoRule)))
			}
			if !tt.wantWhole && heldAccess(carved.Rules, "/etc/passwd") == 0 {
				t.Error("/etc/passwd, beside the home, has nothing: the carving lost the rest of the grant")
			}
		})
	}
}

// TestCarveLandlockProperty carves random rules in random worlds around
// random guarded locations and checks every path of each world against
// what the rules mean, written from the rules: a grant that lies in a
// guarded location that no grant reaches gives nothing, a path within a
// guarded location beneath a rule gets nothing from that rule, a directory on the
// way down to one gets only the right to be listed, every other path
// beneath a rule gets the rule's rights (a file's, for a file); and no
// rule is ever on a link, which the kernel would follow. (read_dir, which
// Landlock hands down, is left out of the comparison.)
func TestCarveLandlockProperty(t *testing.T) {
	names := []string{"a", "b", "c", ".d"}
	worlds := testkit.Size(t, "worlds", 100, 300)
	checked := 0
	for seed := range worlds {
		r := rand.New(rand.NewPCG(uint64(seed), 21))
		world := fstest.MapFS{}
		var dirs, all []string
		var grow func(dir string, depth int)
		grow = func(dir string, depth int) {
			for _, n := range names {
				p := strings.TrimPrefix(dir+"/"+n, "/")
				switch k := r.IntN(5); {
				case k == 0 || depth == 3:
					world[p] = &fstest.MapFile{Data: []byte(p)}
					all = append(all, "/"+p)
				case k == 1:
					world[p] = &fstest.MapFile{Data: []byte("/" + names[r.IntN(len(names))]), Mode: fs.ModeSymlink}
					all = append(all, "/"+p)
				case k == 2:
					// absent
				default:
					world[p] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
					dirs = append(dirs, "/"+p)
					all = append(all, "/"+p)
					grow("/"+p, depth+1)
				}
			}
		}
		grow("", 0)
		if len(all) == 0 {
			continue
		}
		list := func(dir string) ([]fs.DirEntry, error) {
			rel := strings.TrimPrefix(dir, "/")
			if rel == "" {
				rel = "."
			}
			return fs.ReadDir(world, rel)
		}
		var carveOuts []guard.CarveOut
		for range 1 + r.IntN(3) {
			carveOuts = append(carveOuts, guard.CarveOut{Path: all[r.IntN(len(all))], Named: r.IntN(2) == 0})
		}
		rulePaths := append([]string{"/"}, dirs...)
		for range r.IntN(3) { // homes, and where a guarded location that is not there would be made
			carveOuts = append(carveOuts, guard.CarveOut{Path: rulePaths[r.IntN(len(rulePaths))], Expand: true,
				Dots: r.IntN(2) == 0})
		}
		var rules []LandlockRule
		for range 1 + r.IntN(2) {
			access := []uint64{landlockReadRights, landlockEverywhereWrite(LandlockMaxABI)}[r.IntN(2)]
			rules = append(rules, LandlockRule{Path: rulePaths[r.IntN(len(rulePaths))], Access: access, Grant: true})
		}
		carved, c := CarveLandlock(LandlockRuleset{Rules: rules}, carveOuts, list, MaxCarvedRules)
		if len(c.LanguageOnly) > 0 {
			t.Fatalf("world %d: left to the language: %q", seed, c.LanguageOnly)
		}
		for _, cr := range carved.Rules {
			if fi, err := world.Lstat(strings.TrimPrefix(cr.Path, "/")); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				t.Errorf("world %d: a rule on %s, a link", seed, cr.Path)
			}
		}
		for _, p := range all {
			fi, _ := world.Lstat(strings.TrimPrefix(p, "/"))
			if fi.Mode()&fs.ModeSymlink != 0 {
				continue
			}
			var want uint64
			for _, rule := range rules {
				if !guard.Within(p, rule.Path) {
					continue
				}
				if slices.ContainsFunc(carveOuts, func(co guard.CarveOut) bool {
					return !co.Named && !co.Expand && guard.Within(rule.Path, co.Path)
				}) {
					continue // a grant in a location no grant reaches gives nothing
				}
				beneath := strictlyBeneath(carveOuts, rule.Path)
				expanded := func(co guard.CarveOut) bool { return co.Expand && guard.Within(co.Path, rule.Path) }
				switch {
				case slices.ContainsFunc(beneath, func(co guard.CarveOut) bool { return !co.Expand && guard.Within(p, co.Path) }):
				case slices.ContainsFunc(carveOuts, func(co guard.CarveOut) bool {
					return expanded(co) && co.Dots && co.Path != p && guard.Within(p, co.Path) &&
						strings.HasPrefix(strings.TrimPrefix(strings.TrimPrefix(p, co.Path), "/"), ".")
				}):
					// a home's dot-entry: no rule reaches it but one that names it
				case slices.ContainsFunc(beneath, func(co guard.CarveOut) bool { return co.Path != p && guard.Within(co.Path, p) }),
					slices.ContainsFunc(carveOuts, func(co guard.CarveOut) bool { return expanded(co) && co.Path == p }):
					want |= rule.Access & LandlockFSReadDir
				case fi.IsDir():
					want |= rule.Access
				default:
					want |= rule.Access & landlockFileRights
				}
			}
			got := heldAccess(carved.Rules, p)
			if !fi.IsDir() {
				got &= landlockFileRights
			}
			if got&^LandlockFSReadDir != want&^LandlockFSReadDir {
				t.Errorf("world %d, rules %+v, guarded %+v: %s has %v, want %v", seed, rules, carveOuts, p,
					LandlockAccessNames(got), LandlockAccessNames(want))
			}
			checked++
		}
	}
	t.Logf("%d paths of %d worlds checked", checked, worlds)
}

// TestMoved: a grant (or the operator's TLS root, held as a grant is)
// that resolves, when the worker starts, otherwise than when the run was
// admitted is withheld; one that resolves as it did, one
// the admission did not resolve and a rule that is no grant are kept.
func TestMoved(t *testing.T) {
	now := map[string]string{"/w/sub": "/home/ana/.ssh", "/w/same": "/w/same", "/srv/current": "/srv/releases/8"}
	resolve := func(p string) string { return now[p] }
	tests := []struct {
		name      string
		rule      LandlockRule
		admitted  map[string]string
		wantMoved bool
	}{
		{name: "swapped for a link after admission", rule: LandlockRule{Path: "/w/sub", Grant: true},
			admitted: map[string]string{"/w/sub": "/w/sub"}, wantMoved: true},
		{name: "a deploy link moved", rule: LandlockRule{Path: "/srv/current", Grant: true},
			admitted: map[string]string{"/srv/current": "/srv/releases/7"}, wantMoved: true},
		{name: "the operator's TLS root swapped for a link", rule: LandlockRule{Path: "/w/sub", Operator: true},
			admitted: map[string]string{"/w/sub": "/w/sub"}, wantMoved: true},
		{name: "control: resolves as admitted", rule: LandlockRule{Path: "/w/same", Grant: true},
			admitted: map[string]string{"/w/same": "/w/same"}},
		{name: "control: not resolved at admission", rule: LandlockRule{Path: "/w/sub", Grant: true},
			admitted: map[string]string{"/other": "/other"}},
		{name: "control: no admission given", rule: LandlockRule{Path: "/w/sub", Grant: true}},
		{name: "control: an interpreter's need", rule: LandlockRule{Path: "/w/sub"},
			admitted: map[string]string{"/w/sub": "/w/sub"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := LandlockRuleset{Rules: []LandlockRule{tt.rule, {Path: "/usr", Why: "a need"}}}
			kept, moved := Moved(plan, tt.admitted, resolve)
			if got := slices.Equal(moved, []string{tt.rule.Path}); got != tt.wantMoved {
				t.Errorf("moved %q, want the rule moved %v", moved, tt.wantMoved)
			}
			if len(kept.Rules)+len(moved) != len(plan.Rules) || !slices.ContainsFunc(kept.Rules,
				func(r LandlockRule) bool { return r.Path == "/usr" }) {
				t.Errorf("kept %+v, moved %q of %+v", kept.Rules, moved, plan.Rules)
			}
		})
	}
}

// TestOutOfReach shows where a need's links may not lead: a guarded
// location, Named or not, but the names it allows, and a home's
// dot-entry. The controls are the home itself, its plain entries, an
// allowed device and a path beside every carve-out.
func TestOutOfReach(t *testing.T) {
	carveOuts := []guard.CarveOut{
		{Path: "/root", Expand: true, Dots: true},
		{Path: "/root/.ssh"},
		{Path: "/home", Expand: true},
		{Path: "/srv/keys", Named: true},
		{Path: "/dev", Allowed: []string{"null"}},
	}
	tests := []struct {
		path string
		want bool
	}{
		{"/root/.ssh/id_ed25519", true},
		{"/root/.config/app", true},
		{"/root/.bashrc", true},
		{"/srv/keys/k", true},
		{"/dev/sda", true},
		{"/root", false},
		{"/root/notes", false},
		{"/home/ana", false},
		{"/dev/null", false},
		{"/usr/share/zoneinfo", false},
	}
	for _, tt := range tests {
		if got := outOfReach(carveOuts, tt.path); got != tt.want {
			t.Errorf("outOfReach(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
