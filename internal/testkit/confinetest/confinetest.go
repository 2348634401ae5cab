// Package confinetest holds what the tests of confine and its system
// packages share: a policy from an --allow text, and a Result held to a
// level, its layers and the limits its reason names. Only tests import it.
package confinetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
)

// PolicyOf derives the policy of an --allow text, paths taken from /,
// under --confine strict when strict.
func PolicyOf(allow string, strict bool) core.Policy {
	return core.OSPolicy(budget.MustParse("/", allow), core.Options{Mode: ModeOf(strict)})
}

// ModeOf is core.ModeStrict when strict, else core.ModeDefault.
func ModeOf(strict bool) core.Mode {
	if strict {
		return core.ModeStrict
	}
	return core.ModeDefault
}

// CheckResult holds r to a level and its layers. A partial reason names
// one limit not held per part, parts joined by "; ": it has len(want)
// parts, part i saying want[i]. Any other reason says each of want.
func CheckResult(t *testing.T, r core.Result, wantLevel core.Level, wantLayers, want []string) {
	t.Helper()
	if r.Level != wantLevel {
		t.Errorf("level %s, want %s (reason %q)", r.Level, wantLevel, r.Reason)
	}
	if wantLayers == nil {
		wantLayers = []string{}
	}
	if !slices.Equal(r.Layers, wantLayers) {
		t.Errorf("layers %v, want %v", r.Layers, wantLayers)
	}
	if r.Level != core.Partial {
		for _, w := range want {
			if !strings.Contains(r.Reason, w) {
				t.Errorf("reason %q does not say %q", r.Reason, w)
			}
		}
		return
	}
	parts := strings.Split(r.Reason, "; ")
	if len(parts) != len(want) {
		t.Fatalf("reason names %d limits, want %d: %q", len(parts), len(want), r.Reason)
	}
	for i, w := range want {
		if !strings.Contains(parts[i], w) {
			t.Errorf("limit %d is %q, want it to say %q", i+1, parts[i], w)
		}
	}
}

// Needs are fixed needs, so that plans do not depend on the machine.
func Needs() core.Needs {
	return core.Needs{
		Executable: "/opt/sabline/bin/sabline",
		TempDir:    "/tmp/sabline-run",
		TZData:     []string{"/usr/share/zoneinfo"},
		Resolver:   []string{"/etc/resolv.conf", "/etc/hosts"},
		TLSRoots:   []string{"/etc/ssl/certs"},
	}
}

// PlanBudget is a budget whose plans the golden files hold, by name.
type PlanBudget struct {
	Name   string
	Allow  string
	Strict bool
}

// PlanBudgets are the budgets whose plans the golden files of every system
// hold, in the files' order.
func PlanBudgets() []PlanBudget {
	return []PlanBudget{
		{Name: "no-fs", Allow: "io"},
		{Name: "fs-read", Allow: "io,fs:read:/srv/data"},
		{Name: "fs-write", Allow: "io,fs:write:/srv/out"},
		{Name: "fs-read-write", Allow: "io,fs:read:/srv/data,fs:write:/srv/out"},
		{Name: "fs", Allow: "io,fs"},
		{Name: "net-closed", Allow: "io,fs:read:/srv/work,fs:write:/srv/work"},
		{Name: "net-localhost-8080", Allow: "io,net:localhost:8080"},
		{Name: "net", Allow: "io,net"},
		{Name: "ffi-pathlib", Allow: "io,ffi:pathlib"},
		{Name: "ffi-socket", Allow: "io,ffi:socket"},
		{Name: "strict-ffi-requests", Allow: "io,ffi:requests", Strict: true},
	}
}
