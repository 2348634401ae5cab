package darwin

import (
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
	}{
		{name: "no grant", allow: "io", held: Held{Profile: true}, wantLevel: core.Partial,
			want: []string{"Apple has deprecated sandbox profiles", "reads are held only under the home directory and /Volumes"}},
		{name: "reads granted everywhere", allow: "io,fs:read", held: Held{Profile: true}, wantLevel: core.Partial,
			want: []string{"Apple has deprecated sandbox profiles"}},
		{name: "a named host", allow: "io,fs,net:example.org:443", held: Held{Profile: true}, wantLevel: core.Partial,
			want: []string{"deprecated", "the host and port in net:example.org:443", "UDP, which no grant allows, is held by the language alone",
				"Unix sockets are not held"}},
		{name: "a host module opens the network", allow: "io,fs,ffi:socket", held: Held{Profile: true}, wantLevel: core.Partial,
			want: []string{"deprecated", "UDP, which no grant allows", "Unix sockets are not held"}},
		{name: "a UDP grant", allow: "io,fs,net:udp:10.0.0.2:514", held: Held{Profile: true}, wantLevel: core.Partial,
			want: []string{"deprecated", "the host and port in net:udp:10.0.0.2:514", "binding a UDP port", "Unix sockets are not held"}},
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
			confinetest.CheckResult(t, Assess(confinetest.PolicyOf(tc.allow, false), tc.held), tc.wantLevel, layers, tc.want)
		})
	}
}
