package confine

import (
	"slices"
	"testing"

	"github.com/sabline/sabline/confine/core"
)

// TestRefusedBy pins every errno of the refusals table, system by system,
// and the errnos no layer gives.
func TestRefusedBy(t *testing.T) {
	tests := []struct {
		name  string
		sys   System
		errno string
		want  string
	}{
		{name: "linux EPERM: the filter first", sys: Linux, errno: "EPERM", want: core.LayerSeccomp},
		{name: "linux ENOSYS: clone3 and numbers past the table", sys: Linux, errno: "ENOSYS", want: core.LayerSeccomp},
		{name: "linux EPROTONOSUPPORT is no refusal: no rule answers it", sys: Linux, errno: "EPROTONOSUPPORT"},
		{name: "linux EACCES: a file or a TCP port", sys: Linux, errno: "EACCES", want: core.LayerLandlockFamily},
		{name: "linux EXDEV: a rename into another directory", sys: Linux, errno: "EXDEV", want: core.LayerLandlockFamily},
		{name: "linux ENOENT is no refusal", sys: Linux, errno: "ENOENT"},
		{name: "linux EINVAL is no refusal", sys: Linux, errno: "EINVAL"},
		{name: "linux a Windows name is no refusal", sys: Linux, errno: "ERROR_ACCESS_DENIED"},
		{name: "macOS EPERM: the profile", sys: Darwin, errno: "EPERM", want: core.LayerSandboxProfile},
		{name: "macOS EACCES: the file's own permissions", sys: Darwin, errno: "EACCES"},
		{name: "macOS EXDEV is no refusal", sys: Darwin, errno: "EXDEV"},
		{name: "macOS ENOSYS is no refusal", sys: Darwin, errno: "ENOSYS"},
		{name: "macOS EPROTONOSUPPORT is no refusal", sys: Darwin, errno: "EPROTONOSUPPORT"},
		{name: "windows access denied: the container first", sys: Windows, errno: "ERROR_ACCESS_DENIED", want: core.LayerAppContainer},
		{name: "windows WSAEACCES: the container's network", sys: Windows, errno: "WSAEACCES", want: core.LayerAppContainer},
		{name: "windows not enough quota: the job's one process", sys: Windows, errno: "ERROR_NOT_ENOUGH_QUOTA", want: core.LayerJobObject},
		{name: "windows privilege not held: the token", sys: Windows, errno: "ERROR_PRIVILEGE_NOT_HELD", want: core.LayerTokenPrivs},
		{name: "windows EPERM is no Windows error", sys: Windows, errno: "EPERM"},
		{name: "windows EACCES is no Windows error", sys: Windows, errno: "EACCES"},
		{name: "a system with no confinement", sys: "plan9", errno: "EPERM"},
	}
	covered := map[Refusal]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RefusedBy(tt.sys, tt.errno); got != tt.want {
				t.Errorf("RefusedBy(%s, %s) = %q, want %q", tt.sys, tt.errno, got, tt.want)
			}
		})
		for _, r := range refusals {
			if r.System == tt.sys && r.Errno == tt.errno {
				covered[r] = true
			}
		}
	}
	for _, r := range refusals {
		if !covered[r] {
			t.Errorf("the table's %s %s (%s) is pinned by no case", r.System, r.Errno, r.Layer)
		}
	}
}

// TestRefusalsTable: each line names a system of Systems, a layer that
// system applies, and why; Windows lines carry their number, the others
// none; a Landlock ABI only on a Landlock line.
func TestRefusalsTable(t *testing.T) {
	for _, r := range refusals {
		where := string(r.System) + " " + r.Errno + " " + r.Layer
		if !slices.Contains(systems, r.System) {
			t.Errorf("%s: not a system of Systems", where)
		}
		if !slices.Contains(osLayers[r.System], r.Layer) && !(r.System == Linux && r.Layer == core.LayerCapabilities) {
			t.Errorf("%s: %s is not a layer of %s", where, r.Layer, r.System)
		}
		if r.Why == "" {
			t.Errorf("%s: no reason", where)
		}
		if (r.System == Windows) != (r.Code != 0) {
			t.Errorf("%s: code %d: Windows lines carry their number, the others none", where, r.Code)
		}
		if r.FromLandlockABI != 0 && r.Layer != core.LayerLandlockFamily {
			t.Errorf("%s: an ABI on a line that is not Landlock's", where)
		}
	}
	for _, tc := range []struct {
		name   string
		code   uint32
		want   string
		wantOK bool
	}{
		{name: "access denied", code: 5, want: "ERROR_ACCESS_DENIED", wantOK: true},
		{name: "WSAEACCES", code: 10013, want: "WSAEACCES", wantOK: true},
		{name: "not enough quota", code: 1816, want: "ERROR_NOT_ENOUGH_QUOTA", wantOK: true},
		{name: "privilege not held", code: 1314, want: "ERROR_PRIVILEGE_NOT_HELD", wantOK: true},
		{name: "file not found is not in the table", code: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := WindowsErrnoName(tc.code); got != tc.want || ok != tc.wantOK {
				t.Errorf("WindowsErrnoName(%d) = %q, %v; want %q, %v", tc.code, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// TestRefusingLayers: the layers a run applied that may have given an
// errno, as the runtime names them after "refused by".
func TestRefusingLayers(t *testing.T) {
	linux := []string{core.LayerLandlock(7), core.LayerSeccomp, core.LayerCapabilities}
	tests := []struct {
		name    string
		sys     System
		errno   string
		applied []string
		want    []string
	}{
		{name: "EPERM at ABI 7: the filter, Landlock's scope or a capability", sys: Linux, errno: "EPERM", applied: linux, want: linux},
		{name: "EPERM at ABI 5: Landlock has no scope", sys: Linux, errno: "EPERM",
			applied: []string{core.LayerLandlock(5), core.LayerSeccomp, core.LayerCapabilities}, want: []string{core.LayerSeccomp, core.LayerCapabilities}},
		{name: "EACCES: Landlock alone", sys: Linux, errno: "EACCES", applied: linux, want: []string{core.LayerLandlock(7)}},
		{name: "EXDEV: Landlock alone", sys: Linux, errno: "EXDEV", applied: linux, want: []string{core.LayerLandlock(7)}},
		{name: "EXDEV at ABI 1 too", sys: Linux, errno: "EXDEV", applied: []string{core.LayerLandlock(1)}, want: []string{core.LayerLandlock(1)}},
		{name: "ENOSYS: the filter alone", sys: Linux, errno: "ENOSYS", applied: linux, want: []string{core.LayerSeccomp}},
		{name: "EACCES with Landlock not applied", sys: Linux, errno: "EACCES", applied: []string{core.LayerSeccomp}},
		{name: "ENOENT: nothing", sys: Linux, errno: "ENOENT", applied: linux},
		{name: "nothing applied", sys: Linux, errno: "EPERM"},
		{name: "macOS EPERM: the profile", sys: Darwin, errno: "EPERM", applied: []string{core.LayerSandboxProfile}, want: []string{core.LayerSandboxProfile}},
		{name: "macOS EACCES: not the profile", sys: Darwin, errno: "EACCES", applied: []string{core.LayerSandboxProfile}},
		{name: "windows access denied: every layer that may give it", sys: Windows, errno: "ERROR_ACCESS_DENIED",
			applied: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerLowIntegrity, core.LayerAppContainer},
			want:    []string{core.LayerJobObject, core.LayerLowIntegrity, core.LayerAppContainer}},
		{name: "windows WSAEACCES without the container", sys: Windows, errno: "WSAEACCES",
			applied: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerLowIntegrity}},
		{name: "a layer of another system is never named", sys: Linux, errno: "EPERM", applied: []string{core.LayerSandboxProfile}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RefusingLayers(tt.sys, tt.errno, tt.applied); !slices.Equal(got, tt.want) {
				t.Errorf("RefusingLayers(%s, %s, %v) = %v, want %v", tt.sys, tt.errno, tt.applied, got, tt.want)
			}
		})
	}
}
