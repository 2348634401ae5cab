package guard

import (
	"reflect"
	goruntime "runtime"
	"slices"
	"testing"
)

// TestRefreshMadeSinceBuilt: a set built on one machine is refreshed on
// it later, after a home, a location that was not there, a new match of
// a pattern, another Sabline's store (in the register) and a kernel
// surface mounted were made. The refreshed set carves out each as a set
// built then would, and refuses it under a grant of every path; the set
// as built carves out none of them, and the kernel's carving, which lists
// the directories it expands when a worker starts, would grant each whole
// (linux.CarveLandlock gives an entry it finds there that is neither a
// carve-out nor a directory to expand the grant's rights).
func TestRefreshMadeSinceBuilt(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the fake machines are Linux ones")
	}
	before := map[string]string{
		"/home/ana/notes.txt": "", "/home/ana/.aws/credentials": "", "/etc/passwd": "",
		"/etc/shadow": "", "/run/user/x": "", "/srv/app/tok": "/", "/srv/other": "/",
		"/srv/k": "/", "/root/notes": "",
	}
	after := map[string]string{
		"/home/bob/.ssh/id_ed25519": "", "/home/bob/work.txt": "", "/run/secrets/db": "",
		"/etc/shadow-": "", "/srv/app/tok/token": "", "/srv/other/receipts/r.json": "",
		"/srv/k/proc/1": "/",
	}
	for p, v := range before {
		after[p] = v
	}
	in := Inputs{Home: "/root", Sabline: []string{"/srv/app/tok/token"},
		Lent: []string{"/home/ana/.aws"}}
	built := Build(in, newFake(before))
	now := Inputs{Home: "/root", Sabline: []string{"/srv/other/receipts"},
		Mounts: []Mount{{ID: 9, Parent: 1, Root: "/", Point: "/srv/k/proc", FSType: "proc"}}}
	refreshed := built.Refresh(now, newFake(after))
	both := in
	both.Sabline = append(slices.Clone(in.Sabline), now.Sabline...)
	both.Mounts = now.Mounts
	fresh := Build(both, newFake(after)) // what a set built now holds

	carved := func(s *Set, p string) (CarveOut, bool) {
		i := slices.IndexFunc(s.CarveOuts(), func(c CarveOut) bool { return c.Path == p })
		if i < 0 {
			return CarveOut{}, false
		}
		return s.CarveOuts()[i], true
	}
	tests := []struct {
		name, path, refused  string
		wantExpand, wantDots bool
	}{
		{name: "a home made since", path: "/home/bob", refused: "/home/bob/.ssh/id_ed25519",
			wantExpand: true, wantDots: true},
		{name: "a credential location made since", path: "/run/secrets", refused: "/run/secrets/db"},
		{name: "a new match of a pattern", path: "/etc/shadow-", refused: "/etc/shadow-"},
		{name: "Sabline's token written since", path: "/srv/app/tok/token",
			refused: "/srv/app/tok/token"},
		{name: "another Sabline's store registered since", path: "/srv/other/receipts",
			refused: "/srv/other/receipts/r.json"},
		{name: "a kernel surface mounted since", path: "/srv/k/proc", refused: "/srv/k/proc/1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := carved(built, tt.path); ok {
				t.Fatalf("the set as built carves out %s, which was not there", tt.path)
			}
			want, ok := carved(fresh, tt.path)
			if !ok || want.Expand != tt.wantExpand || want.Dots != tt.wantDots {
				t.Fatalf("a set built now carves out %s as %+v (%v)", tt.path, want, ok)
			}
			got, ok := carved(refreshed, tt.path)
			if !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("the refreshed set carves out %s as %+v (%v), want %+v", tt.path, got, ok, want)
			}
			if _, ok := refreshed.Refuses(tt.refused, ""); !ok {
				t.Errorf("the refreshed set lets a grant of every path reach %s", tt.refused)
			}
		})
	}
	// Controls: the refreshed set carves out what a set built now does
	// and what the set as built did, and nothing else (a directory
	// expanded for a location that now exists stays expanded beside it);
	// every location of the set as built is kept, a lent location stays
	// lent (a grant naming it reaches it), and a plain entry made since is
	// neither carved out nor refused.
	type key struct {
		path   string
		expand bool
	}
	want := map[key]bool{}
	for _, c := range append(built.CarveOuts(), fresh.CarveOuts()...) {
		want[key{c.Path, c.Expand}] = true
	}
	got := map[key]bool{}
	for _, c := range refreshed.CarveOuts() {
		got[key{c.Path, c.Expand}] = true
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the refreshed set carves out\n%v\nwhere the set as built and one built now carve out\n%v",
			got, want)
	}
	for _, l := range built.Locations() {
		if !slices.ContainsFunc(refreshed.Locations(), func(k Location) bool {
			return reflect.DeepEqual(k, l)
		}) {
			t.Errorf("the refreshed set lost the location %+v", l)
		}
	}
	// A machine the refresh can list nothing of (a worker under its
	// server's own Landlock domain lists little) takes nothing away.
	blind := built.Refresh(Inputs{}, newFake(map[string]string{}))
	for _, c := range built.CarveOuts() {
		if !slices.ContainsFunc(blind.CarveOuts(), func(k CarveOut) bool { return reflect.DeepEqual(k, c) }) {
			t.Errorf("refreshed on a machine that shows nothing, the set lost the carve-out %+v", c)
		}
	}
	// Nor does it forget a home: a dot-entry made later in a home of the
	// set as built (one no table names) is refused, as the set as built
	// refuses it. The control: a plain entry of that home is not.
	for _, h := range built.Homes() {
		if !slices.Contains(blind.Homes(), h) {
			t.Errorf("refreshed on a machine that shows nothing, the set lost the home %s (has %v)",
				h, blind.Homes())
		}
	}
	for _, tc := range []struct {
		path    string
		refused bool
	}{
		{"/home/ana/.made-later/key", true},
		{"/home/ana/.made-later", true},
		{"/home/ana/notes.txt", false},
	} {
		if _, ok := built.Refuses(tc.path, ""); ok != tc.refused {
			t.Fatalf("the set as built refuses %s: %v, want %v", tc.path, ok, tc.refused)
		}
		if _, ok := blind.Refuses(tc.path, ""); ok != tc.refused {
			t.Errorf("refreshed on a machine that shows nothing, the set refuses %s: %v, want %v",
				tc.path, ok, tc.refused)
		}
	}
	const lent = "/home/ana/.aws/credentials"
	if _, ok := refreshed.Refuses(lent, "/home/ana/.aws"); ok {
		t.Errorf("the refreshed set refuses %s to the grant that names its lent location", lent)
	}
	if _, ok := refreshed.Refuses(lent, ""); !ok {
		t.Errorf("the refreshed set lets a grant of every path reach the lent %s", lent)
	}
	if _, ok := refreshed.Refuses("/home/bob/work.txt", ""); ok {
		t.Errorf("the refreshed set refuses a plain file of the new home")
	}
	if got, want := len(refreshed.Locations()), len(fresh.Locations()); got != want {
		t.Errorf("the refreshed set has %d locations, a set built now %d", got, want)
	}
}
