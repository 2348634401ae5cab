package linux

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// TestPlanCgroup: where a supervisor may make its workers' memory
// cgroups, from what it reads of the machine.
func TestPlanCgroup(t *testing.T) {
	const (
		v2       = "30 25 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n"
		hybrid   = "31 25 0:27 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n40 25 0:30 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
		v1only   = "40 25 0:30 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
		service  = "/sys/fs/cgroup/system.slice/sabline.service"
		supervis = service + "/supervisor"

		// A container's view: the hierarchy mounted from the cgroup it was
		// started in, as a runtime without a cgroup namespace mounts it.
		fromCt = "30 25 0:26 /system.slice/ct.scope /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
	)
	tests := []struct {
		name       string
		self       string
		mountinfo  string
		files      map[string]string // cgroup interface files
		delegated  []string
		wantParent string
		wantEnable bool
		wantWhy    string
	}{
		{name: "the root cgroup, which hands memory down", self: "0::/\n", mountinfo: v2,
			files:      map[string]string{"/sys/fs/cgroup/cgroup.controllers": "cpu memory pids", "/sys/fs/cgroup/cgroup.subtree_control": "memory pids"},
			wantParent: "/sys/fs/cgroup"},
		{name: "a subgroup of a delegated service cgroup", self: "0::/system.slice/sabline.service/supervisor\n", mountinfo: v2,
			files:      map[string]string{supervis + "/cgroup.controllers": "memory pids", supervis + "/cgroup.subtree_control": "", service + "/cgroup.subtree_control": ""},
			delegated:  []string{service},
			wantParent: service, wantEnable: true},
		{name: "the same, memory handed down already", self: "0::/system.slice/sabline.service/supervisor\n", mountinfo: v2,
			files:      map[string]string{supervis + "/cgroup.controllers": "memory", service + "/cgroup.subtree_control": "memory"},
			delegated:  []string{service},
			wantParent: service},
		{name: "a delegated cgroup that holds the process itself", self: "0::/system.slice/sabline.service\n", mountinfo: v2,
			files:     map[string]string{service + "/cgroup.controllers": "memory pids", service + "/cgroup.subtree_control": ""},
			delegated: []string{service},
			wantWhy:   "is delegated to it but holds it"},
		{name: "a cgroup of someone else's", self: "0::/user.slice/user-0.slice/session-1.scope\n", mountinfo: v2,
			files:   map[string]string{"/sys/fs/cgroup/user.slice/user-0.slice/session-1.scope/cgroup.controllers": "memory pids"},
			wantWhy: "does not hand the memory controller to its children, and no cgroup is delegated to it"},
		{name: "memory on a cgroup v1 hierarchy", self: "4:memory:/x\n0::/\n", mountinfo: hybrid,
			files:   map[string]string{"/sys/fs/cgroup/unified/cgroup.controllers": "hugetlb"},
			wantWhy: "the cgroup v2 hierarchy at /sys/fs/cgroup/unified offers no memory controller to this process's cgroup: the memory controller is on a cgroup v1 hierarchy"},
		{name: "in the cgroup the hierarchy is mounted from",
			self: "0::/system.slice/ct.scope\n", mountinfo: fromCt,
			files: map[string]string{"/sys/fs/cgroup/cgroup.controllers": "memory",
				"/sys/fs/cgroup/cgroup.subtree_control": "memory"},
			wantParent: "/sys/fs/cgroup"},
		{name: "in a cgroup beneath it", self: "0::/system.slice/ct.scope/sup\n", mountinfo: fromCt,
			files: map[string]string{"/sys/fs/cgroup/sup/cgroup.controllers": "memory",
				"/sys/fs/cgroup/sup/cgroup.subtree_control": "memory"},
			wantParent: "/sys/fs/cgroup/sup"},
		{name: "in a cgroup beside it, whose name it begins",
			self: "0::/system.slice/ct.scope2\n", mountinfo: fromCt,
			files: map[string]string{"/sys/fs/cgroup/2/cgroup.controllers": "memory",
				"/sys/fs/cgroup/2/cgroup.subtree_control": "memory"},
			wantWhy: "this process's cgroup /system.slice/ct.scope2 lies outside " +
				"the cgroup v2 hierarchy mounted at /sys/fs/cgroup"},
		{name: "in a cgroup elsewhere", self: "0::/user.slice\n", mountinfo: fromCt,
			wantWhy: "lies outside the cgroup v2 hierarchy mounted at /sys/fs/cgroup"},
		{name: "no cgroup v2 at all", self: "4:memory:/x\n", mountinfo: v1only, wantWhy: "in no cgroup v2 hierarchy"},
		{name: "in one, none mounted", self: "0::/\n", mountinfo: v1only, wantWhy: "no cgroup v2 hierarchy is mounted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := planCgroup(cgroupFacts{Self: tt.self, Mountinfo: tt.mountinfo,
				Read: func(file string) (string, error) {
					if s, ok := tt.files[file]; ok {
						return s, nil
					}
					return "", fs.ErrNotExist
				},
				Delegated: func(dir string) bool {
					for _, d := range tt.delegated {
						if d == dir {
							return true
						}
					}
					return false
				},
			})
			if got.Parent != tt.wantParent || got.Enable != tt.wantEnable || !strings.Contains(got.Why, tt.wantWhy) || (tt.wantWhy == "") != (got.Why == "") {
				t.Errorf("planCgroup = %+v, want parent %q, enable %v, why containing %q", got, tt.wantParent, tt.wantEnable, tt.wantWhy)
			}
		})
	}
}

// TestHasWord: a controller is found among the words of its file only.
func TestHasWord(t *testing.T) {
	read := func(s string) func(string) (string, error) {
		return func(string) (string, error) { return s, nil }
	}
	tests := []struct {
		name string
		read func(string) (string, error)
		want bool
	}{
		{name: "among others", read: read("cpu memory pids\n"), want: true},
		{name: "a longer word", read: read("memory_recursiveprot")},
		{name: "unreadable", read: func(string) (string, error) { return "memory", errors.New("no") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hasWord(tt.read, "f", "memory"); got != tt.want {
				t.Errorf("hasWord = %v, want %v", got, tt.want)
			}
		})
	}
}
