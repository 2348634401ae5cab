package windows

import (
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit/confinetest"
)

// testCarveOuts are the guarded locations of a machine whose operator's
// home is /Users/ana, as guard.Set.CarveOuts lists them: the home (its
// dot-entries held by name), its ~/.ssh, a lent credential, a receipts
// store, and the directory where a token not there yet would be made.
var testCarveOuts = []guard.CarveOut{
	{Path: "/Users/ana", Expand: true, Dots: true},
	{Path: "/Users/ana/.ssh"},
	{Path: "/Users/ana/.aws", Named: true},
	{Path: "/srv/work/receipts"},
	{Path: "/srv/state", Expand: true},
}

// TestWindowsGuardedBeneathACE: a container's ACE on a directory is
// inherited by everything beneath it, so a grant above a guarded
// location lets the kernel reach it; the run is partial and its reason
// names the location. A grant beside them, and one that names a lent
// credential, stay full.
func TestWindowsGuardedBeneathACE(t *testing.T) {
	tests := []struct {
		name        string
		allow       string
		resolve     map[string]string // where a granted link leads
		wantLevel   core.Level
		wantReasons []string
	}{
		{name: "a grant beside every guarded location", allow: "io,fs:read:/srv/data", wantLevel: core.Full},
		{name: "a grant beneath the home, beside its dot-entries",
			allow: "io,fs:read:/Users/ana/job,fs:write:/Users/ana/job", wantLevel: core.Full},
		{name: "a grant that names a lent credential", allow: "io,fs:read:/Users/ana/.aws",
			wantLevel: core.Full},
		{name: "the home granted", allow: "io,fs:read:/Users/ana", wantLevel: core.Partial,
			wantReasons: []string{"the dot-entries of /Users/ana", "/Users/ana/.ssh", "/Users/ana/.aws",
				"held by the language alone"}},
		{name: "a write grant above a receipts store", allow: "io,fs:write:/srv/work", wantLevel: core.Partial,
			wantReasons: []string{"/srv/work/receipts are held by the language alone"}},
		{name: "where a guarded location would be made", allow: "io,fs:write:/srv", wantLevel: core.Partial,
			wantReasons: []string{"/srv/work/receipts", "what is made in /srv/state"}},
		// An ACE is written where its path leads: a junction to the
		// home (C:\Documents and Settings is one to C:\Users) reaches
		// what the home holds, as Landlock's rule at the resolved path
		// would, were it not carved.
		{name: "a link to the home granted", allow: "io,fs:read:/Documents and Settings/ana",
			resolve:   map[string]string{"/Documents and Settings/ana": "/Users/ana"},
			wantLevel: core.Partial, wantReasons: []string{"the dot-entries of /Users/ana",
				"/Users/ana/.ssh"}},
		{name: "a link to a receipts store's parent granted", allow: "io,fs:write:/data/work",
			resolve:   map[string]string{"/data/work": "/srv/work"},
			wantLevel: core.Partial, wantReasons: []string{"/srv/work/receipts are held by the language alone"}},
		{name: "the home by its short (8.3) name", allow: "io,fs:read:/Users/ANA~1",
			resolve:   map[string]string{"/Users/ANA~1": "/Users/ana"},
			wantLevel: core.Partial, wantReasons: []string{"/Users/ana/.ssh"}},
		{name: "a link beside every guarded location", allow: "io,fs:read:/data/ana",
			resolve: map[string]string{"/data/ana": "/srv/data"}, wantLevel: core.Full},
		{name: "a link to a lent credential, named", allow: "io,fs:read:/data/aws",
			resolve: map[string]string{"/data/aws": "/Users/ana/.aws"}, wantLevel: core.Full},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := confinetest.PolicyOf(tt.allow, false)
			plan := PlanFor(p, core.Needs{}, countFiles(nil), 0)
			if !plan.AppContainer {
				t.Fatalf("the plan leaves the container off (%s)", plan.ContainerOffReason)
			}
			job, _ := windowsJobLimits(plan)
			o := windowsObserved{Job: job, Privileges: []string{"SeChangeNotifyPrivilege"},
				IntegrityRID: lowIntegrityRID, ContainerTold: sidA, IsContainer: true, ContainerSID: sidA,
				CarveOuts: testCarveOuts, Resolve: func(p string) string { return tt.resolve[p] }}
			r := windowsResult(p, plan, o)
			if r.Level != tt.wantLevel {
				t.Fatalf("level %s (%s), want %s", r.Level, r.Reason, tt.wantLevel)
			}
			for _, want := range tt.wantReasons {
				if !strings.Contains(r.Reason, want) {
					t.Errorf("reason %q lacks %q", r.Reason, want)
				}
			}
			if !slices.Contains(r.Layers, core.LayerAppContainer) {
				t.Errorf("layers %v lack the container", r.Layers)
			}
		})
	}
}

// TestWindowsWithin: paths are compared as Windows compares them.
func TestWindowsWithin(t *testing.T) {
	tests := []struct {
		p, dir string
		want   bool
	}{
		{`C:\Users\ana\.ssh`, `C:\Users\ana`, true},
		{`C:\Users\ana`, `C:\Users\ana`, true},
		{`c:\users\ANA\.ssh\id_ed25519`, `C:\Users\Ana`, true},
		{`C:/Users/ana/.ssh`, `C:\Users\ana\`, true},
		{`\\?\C:\Users\ana\.ssh`, `C:\Users\ana`, true},
		{`C:\Users\ana\.ssh`, `\\?\C:\Users`, true},
		{`\\srv\share\ana\.ssh`, `\\?\UNC\srv\share`, true},
		{`C:\Users\ana\.ssh`, `\\.\C:\Users\ana`, true},
		{`C:\Users\ana\.ssh`, `\??\C:\Users`, true},
		{`C:\`, `C:\`, true},
		{`C:\Users\ana\.ssh`, `C:\Users\ana\.ssh:$I30:$INDEX_ALLOCATION`, true},
		{`C:\Users\ana\.ssh\id_ed25519`, `C:\Users\ana\.ssh::$INDEX_ALLOCATION`, true},
		{`C:\Users\ana\.ssh`, `C:\Users\ana\.ssh. .`, true},
		{`C:\Users\ana\.ssh`, `C:\Users\ana.\`, true},
		// Names NTFS's table of upper cases takes for one: ſ and ı are S
		// and I there, and ToLower left them as they are.
		{`C:\Users\ana\.config\ſops\age`, `C:\Users\ana\.config\sops`, true},
		{`C:\Users\ana\.ssh`, `C:\Users\ana\.SſH`, true},
		{`C:\Users\ana\.fıle`, `C:\Users\ana\.FILE`, true},
		{`C:\Users\ana\.kube`, `C:\Users\ana\.Kube`, true}, // the Kelvin sign
		{`C:\Users\ana\.config\tops`, `C:\Users\ana\.config\sops`, false},
		{`C:\Users\anabel`, `C:\Users\ana`, false},
		{`C:\Users`, `C:\Users\ana`, false},
		{`D:\Users\ana`, `C:\Users\ana`, false},
	}
	for _, tt := range tests {
		if got := windowsWithin(tt.p, tt.dir); got != tt.want {
			t.Errorf("windowsWithin(%q, %q) = %v, want %v", tt.p, tt.dir, got, tt.want)
		}
	}
}
