package windows

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/internal/testkit/confinetest"
)

// countFiles tells PlanFor how many files a path holds: those in
// counts, and 10 for any other.
func countFiles(counts map[string]int) func(string) int {
	return func(path string) int {
		if n, ok := counts[path]; ok {
			return n
		}
		return 10
	}
}

func TestWindowsPlanGolden(t *testing.T) {
	for _, tt := range confinetest.PlanBudgets() {
		t.Run(tt.Name, func(t *testing.T) {
			plan := PlanFor(confinetest.PolicyOf(tt.Allow, tt.Strict), confinetest.Needs(), countFiles(nil), 512)
			out, err := json.MarshalIndent(struct {
				Allow string `json:"allow"`
				Plan  Plan   `json:"plan"`
			}{tt.Allow, plan}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "windows", tt.Name, append(out, '\n'))
		})
	}
}

func TestWindowsPlanFor(t *testing.T) {
	tests := []struct {
		name          string
		allow         string
		strict        bool
		counts        map[string]int
		wantContainer bool
		wantOff       string // a phrase of ContainerOffReason
		wantIntegrity string
		wantCaps      []string
		wantACEs      map[string]string // path: access, for grants and needs alike
	}{
		{
			name: "a read grant", allow: "io,fs:read:/srv/data",
			wantContainer: true, wantIntegrity: "low",
			wantACEs: map[string]string{"/srv/data": "read", "/tmp/sabline-run": "read-write", "/opt/sabline/bin/sabline": "read"},
		},
		{
			name: "a write grant raises the integrity level", allow: "io,fs:write:/srv/out",
			wantContainer: true, wantIntegrity: "medium",
			wantACEs: map[string]string{"/srv/out": "read-write"},
		},
		{
			name: "read and write of one directory is one ACE", allow: "io,fs:read:/srv/work,fs:write:/srv/work",
			wantContainer: true, wantIntegrity: "medium",
			wantACEs: map[string]string{"/srv/work": "read-write"},
		},
		{
			name: "localhost", allow: "io,net:localhost:8080",
			wantOff: "a loopback host is granted", wantIntegrity: "low",
		},
		{
			name: "an address in 127.0.0.0/8", allow: "io,net:127.9.9.9", wantOff: "loopback", wantIntegrity: "low",
		},
		{
			name: "::1", allow: "io,net:[::1]:80", wantOff: "loopback", wantIntegrity: "low",
		},
		{
			name: "an IPv4 loopback address written as IPv6", allow: "io,net:[::ffff:127.0.0.1]", wantOff: "loopback", wantIntegrity: "low",
		},
		{
			name: "a UDP grant of a loopback address", allow: "io,net:udp:127.0.0.1:514", wantOff: "loopback", wantIntegrity: "low",
		},
		{
			name: "a UDP grant elsewhere", allow: "io,net:udp:10.0.0.2:514",
			wantContainer: true, wantIntegrity: "low", wantCaps: []string{"internetClient"},
		},
		{
			name: "a host elsewhere", allow: "io,net:example.org:443",
			wantContainer: true, wantIntegrity: "low", wantCaps: []string{"internetClient"},
		},
		{
			name: "any host", allow: "io,net,fs:read:/srv/data",
			wantContainer: true, wantIntegrity: "low", wantCaps: []string{"internetClient"},
			wantACEs: map[string]string{"/srv/data": "read"},
		},
		{
			name: "neither reads nor writes restricted", allow: "io,fs",
			wantOff: "neither reads nor writes", wantIntegrity: "medium",
		},
		{
			name: "a path widening restricts neither", allow: "io,ffi:pathlib",
			wantOff: "neither reads nor writes", wantIntegrity: "medium",
		},
		{
			name: "strict keeps the container", allow: "io,ffi:pathlib", strict: true,
			wantContainer: true, wantIntegrity: "low",
		},
		{
			name: "unrestricted reads alone keep the container", allow: "io,fs:read,fs:write:/srv/out",
			wantContainer: true, wantIntegrity: "medium",
			wantACEs: map[string]string{"/srv/out": "read-write"},
		},
		{
			name: "a grant of too many files", allow: "io,fs:read:/srv/data,fs:write:/srv/big",
			counts: map[string]int{"/srv/big": 1001}, wantOff: "the grant /srv/big covers more than 1000 files", wantIntegrity: "medium",
		},
		{
			name: "a grant of just few enough files", allow: "io,fs:read:/srv/big",
			counts: map[string]int{"/srv/big": 1000}, wantContainer: true, wantIntegrity: "low",
			wantACEs: map[string]string{"/srv/big": "read"},
		},
		{
			name: "the size of a need does not count", allow: "io",
			counts: map[string]int{"/usr/share/zoneinfo": 5000}, wantContainer: true, wantIntegrity: "low",
			wantACEs: map[string]string{"/usr/share/zoneinfo": "read"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := PlanFor(confinetest.PolicyOf(tt.allow, tt.strict), confinetest.Needs(), countFiles(tt.counts), 256)
			if plan.AppContainer != tt.wantContainer || !strings.Contains(plan.ContainerOffReason, tt.wantOff) ||
				(plan.ContainerOffReason == "") != tt.wantContainer {
				t.Errorf("AppContainer = %v, %q; want %v, %q", plan.AppContainer, plan.ContainerOffReason, tt.wantContainer, tt.wantOff)
			}
			if plan.IntegrityLevel != tt.wantIntegrity || plan.IntegrityReason == "" {
				t.Errorf("IntegrityLevel = %q (%q), want %q", plan.IntegrityLevel, plan.IntegrityReason, tt.wantIntegrity)
			}
			if !slices.Equal(plan.Capabilities, tt.wantCaps) {
				t.Errorf("Capabilities = %q, want %q", plan.Capabilities, tt.wantCaps)
			}
			for path, want := range tt.wantACEs {
				i := slices.IndexFunc(plan.ACEs, func(a windowsACE) bool { return a.Path == path })
				if i < 0 || plan.ACEs[i].Access != want {
					t.Errorf("no ACE %s for %s in %+v", want, path, plan.ACEs)
				}
			}
			if plan.JobActiveProcessLimit != 1 || plan.JobMemoryLimitMB != 256 ||
				!slices.Equal(plan.PrivilegesKept, []string{"SeChangeNotifyPrivilege"}) || len(plan.JobUIRestrictions) != 8 {
				t.Errorf("job and token = %d, %d MB, %q, %q", plan.JobActiveProcessLimit, plan.JobMemoryLimitMB, plan.PrivilegesKept, plan.JobUIRestrictions)
			}
			seen := map[string]bool{}
			for _, ace := range plan.ACEs {
				if seen[ace.Path] || ace.Path == "/dev/null" || ace.Path == "/dev/urandom" {
					t.Errorf("ACE %+v is repeated or names no file of Windows", ace)
				}
				seen[ace.Path] = true
			}
			if !plan.AppContainer && len(plan.ACEs) > 0 {
				t.Errorf("ACEs %+v without a container", plan.ACEs)
			}
		})
	}
}

func TestWindowsPlanNotEnforced(t *testing.T) {
	p := confinetest.PolicyOf("io,ffi:os", false)
	plan := PlanFor(p, confinetest.Needs(), countFiles(nil), 256)
	if plan.JobActiveProcessLimit != 0 || plan.JobMemoryLimitMB != 0 || plan.AppContainer || plan.JobUIRestrictions != nil ||
		plan.PrivilegesKept != nil || plan.IntegrityLevel != "medium" {
		t.Errorf("the plan of a policy that enforces nothing applies %+v", plan)
	}
	if plan.ContainerOffReason != p.OffReason() || p.OffReason() == "" {
		t.Errorf("ContainerOffReason = %q, want the policy's %q", plan.ContainerOffReason, p.OffReason())
	}
}
