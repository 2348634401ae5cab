package darwin

import (
	"strings"
	"testing"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit/confinetest"
)

func TestAssessDarwin(t *testing.T) {
	for _, tc := range []struct {
		name      string
		allow     string
		held      Held
		wantLevel core.Level
		want      []string
		wantNot   string // what the reason does not say
	}{
		{name: "no grant", allow: "io", held: Held{Profile: true}, wantLevel: core.Partial,
			want: []string{"Apple has deprecated sandbox profiles", "reads are held only under the home directory and /Volumes"}},
		{name: "reads granted everywhere", allow: "io,fs:read", held: Held{Profile: true}, wantLevel: core.Partial,
			want: []string{"Apple has deprecated sandbox profiles",
				"reads of the guarded locations are held " +
					"by the language alone: the profile does not refuse them"}},
		{name: "every path granted", allow: "io,fs", held: Held{Profile: true}, wantLevel: core.Partial,
			want: []string{"deprecated",
				"reads and writes of the guarded locations are held by the " +
					"language alone"}},
		{name: "a directory granted", allow: "io,fs:read:/srv,fs:write:/srv/out", held: Held{Profile: true},
			wantLevel: core.Partial, want: []string{"deprecated",
				"reads are held only under the home directory"},
			wantNot: "guarded"},
		// The guarded locations a grant's allowance reaches (guardedBeneath)
		// are named, five of them as four and one more.
		{name: "the home granted, its dot-entries reached", allow: "io,fs:read:/Users/ana",
			held: Held{Profile: true, Guarded: []string{"the dot-entries of /Users/ana",
				"/Users/ana/.ssh", "/Users/ana/.aws", "/Users/ana/.kube", "/Users/ana/.gnupg"}},
			wantLevel: core.Partial, want: []string{"deprecated",
				"reads are held only under the home",
				"the guarded locations the " +
					"dot-entries of /Users/ana, /Users/ana/.ssh, /Users/ana/.aws, /Users/ana/.kube and 1 " +
					"more are held by the language alone: the profile's allowance of a directory above " +
					"them reaches them"}},
		{name: "a named host", allow: "io,fs,net:example.org:443", held: Held{Profile: true}, wantLevel: core.Partial,
			want: []string{"deprecated", "reads and writes of the guarded locations",
				"the host and port in net:example.org:443",
				"UDP, which no grant allows, is held by the language alone",
				"Unix sockets are not held"}},
		{name: "a host module opens the network", allow: "io,fs,ffi:socket", held: Held{Profile: true}, wantLevel: core.Partial,
			want: []string{"deprecated", "reads and writes of the guarded locations",
				"UDP, which no grant allows", "Unix sockets are not held"}},
		{name: "a UDP grant", allow: "io,fs,net:udp:10.0.0.2:514", held: Held{Profile: true}, wantLevel: core.Partial,
			want: []string{"deprecated", "reads and writes of the guarded locations",
				"the host and port in net:udp:10.0.0.2:514", "binding a UDP port",
				"Unix sockets are not held"}},
		// A module whose own I/O the language does not judge is named: the
		// profile holds none of what it reaches.
		{name: "a path module is named", allow: "io,ffi:pathlib", held: Held{Profile: true},
			wantLevel: core.Partial, want: []string{"deprecated",
				"reads and writes of the guarded locations are held by the language alone: the " +
					"profile does not refuse them. The module ffi:pathlib is granted: its own I/O, " +
					"which the language does not judge, reaches any path"}},
		{name: "no profile", allow: "io", held: Held{}, wantLevel: core.None,
			want: []string{"the sandbox profile was not applied"}},
		{name: "off", allow: "io,ffi", held: Held{Profile: true}, wantLevel: core.None,
			want: []string{"plain ffi grants any module"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var layers []string
			if tc.held.Profile && tc.wantLevel != core.None {
				layers = []string{core.LayerSandboxProfile}
			}
			r := Assess(confinetest.PolicyOf(tc.allow, false), tc.held)
			confinetest.CheckResult(t, r, tc.wantLevel, layers, tc.want)
			if tc.wantNot != "" && strings.Contains(r.Reason, tc.wantNot) {
				t.Errorf("reason %q says %q", r.Reason, tc.wantNot)
			}
		})
	}
}
