package core

import (
	"slices"
	"testing"
)

func TestNeedPaths(t *testing.T) {
	all := []string{NeedExecutable, NeedDevNull, NeedURandom, NeedTZData, NeedTemp, NeedResolver, NeedTLSRoots}
	tests := []struct {
		name        string
		interpreter []string
		needs       Needs
		want        []NeedPath
	}{
		{
			name: "every need", interpreter: all, needs: testNeeds,
			want: []NeedPath{
				{Need: "executable", Path: "/opt/sabline/bin/sabline", File: true},
				{Need: "/dev/null", Path: "/dev/null", Write: true, File: true},
				{Need: "/dev/urandom", Path: "/dev/urandom", File: true},
				{Need: "tzdata", Path: "/usr/share/zoneinfo"},
				{Need: "private-tmp", Path: "/tmp/sabline-run", Write: true},
				{Need: "resolver", Path: "/etc/resolv.conf", File: true},
				{Need: "resolver", Path: "/etc/hosts", File: true},
				{Need: "tls-roots", Path: "/etc/ssl/certs"},
			},
		},
		{
			name: "only the needs the policy names", interpreter: []string{NeedTemp}, needs: testNeeds,
			want: []NeedPath{{Need: "private-tmp", Path: "/tmp/sabline-run", Write: true}},
		},
		{
			name: "needs with no path here", interpreter: []string{NeedExecutable, NeedTemp, NeedTZData, NeedResolver}, needs: Needs{},
			want: nil,
		},
		{
			name: "a need this code does not know", interpreter: []string{"gpu", NeedURandom}, needs: testNeeds,
			want: []NeedPath{{Need: "/dev/urandom", Path: "/dev/urandom", File: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NeedPaths(Policy{Interpreter: tt.interpreter}, tt.needs)
			if !slices.Equal(got, tt.want) {
				t.Errorf("needPaths = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// testNeeds are fixed needs, so that what a test reads does not depend on
// the machine (as confinetest.Needs, which this package's tests cannot
// import).
var testNeeds = Needs{
	Executable: "/opt/sabline/bin/sabline",
	TempDir:    "/tmp/sabline-run",
	TZData:     []string{"/usr/share/zoneinfo"},
	Resolver:   []string{"/etc/resolv.conf", "/etc/hosts"},
	TLSRoots:   []string{"/etc/ssl/certs"},
}
