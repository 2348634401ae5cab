package windows

import (
	"strings"
	"testing"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit/confinetest"
)

func TestAssessWindows(t *testing.T) {
	all := Held{Job: true, Token: true, LowIntegrity: true, AppContainer: true}
	off := func(h Held, why string) Held {
		h.AppContainer, h.ContainerOffReason = false, why
		return h
	}
	medium := all
	medium.LowIntegrity = false
	for _, tc := range []struct {
		name       string
		allow      string
		held       Held
		wantLevel  core.Level
		wantLayers []string
		want       []string
	}{
		{name: "every layer", allow: "io", held: all, wantLevel: core.Full,
			wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerLowIntegrity, core.LayerAppContainer}},
		// The container's ACE for a write grant carries read: a read
		// back there is the language's alone, as it is not on Linux.
		{name: "a write grant inside the container", allow: "io,fs:write:/srv/out", held: medium,
			wantLevel:  core.Partial,
			wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerAppContainer},
			want: []string{"reads beneath the write grant /srv/out are held by the language alone: the " +
				"container's ACE for a write grant carries read"}},
		{name: "a write grant granted for reading too", allow: "io,fs:read:/srv/out,fs:write:/srv/out",
			held: medium, wantLevel: core.Full,
			wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerAppContainer}},
		{name: "a write grant beneath a read grant", allow: "io,fs:read:/srv,fs:write:/srv/out",
			held: medium, wantLevel: core.Full,
			wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerAppContainer}},
		{name: "a read grant beneath a write grant", allow: "io,fs:read:/srv/in,fs:write:/srv",
			held: medium, wantLevel: core.Partial,
			wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerAppContainer},
			want:       []string{"reads beneath the write grant /srv are held by the language alone"}},
		// A low token still writes to what is labelled low, as
		// AppData\LocalLow is: the reason does not say writes are held.
		{name: "container off, low integrity holds writes but to what is low", allow: "io", held: off(all, "a loopback host is granted"),
			wantLevel: core.Partial, wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerLowIntegrity},
			want: []string{"the AppContainer was left off (a loopback host is granted): reads, writes to what is labelled " +
				`low integrity (AppData\LocalLow is) and network connections are not held`}},
		{name: "container off at medium integrity", allow: "io,fs:write:/srv/out", held: off(medium, ""),
			wantLevel: core.Partial, wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs},
			want: []string{"the AppContainer was not applied: reads, writes and network connections are not held"}},
		{name: "container off with nothing it would hold", allow: "io,fs,net,net:udp", held: off(medium, "the budget restricts neither reads nor writes"),
			wantLevel: core.Partial, wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs},
			want: []string{"reads and writes of the guarded locations",
				"binding a UDP port is held by the language alone"}},
		{name: "TCP granted, UDP not held", allow: "io,fs,net", held: off(medium, "the budget restricts neither reads nor writes"),
			wantLevel: core.Partial, wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs},
			want: []string{"reads and writes of the guarded locations",
				"UDP, which no grant allows, is held by the language alone"}},
		// fs reaches no guarded location in the language, and Landlock
		// holds them out of it: with the container off, nothing here does.
		{name: "every path granted, the container off", allow: "io,fs",
			held: off(medium, "the budget restricts neither reads nor writes"), wantLevel: core.Partial,
			wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs},
			want: []string{"network connections are not held",
				"reads and writes of the guarded locations " +
					"are held by the language alone: the AppContainer is off"}},
		// Reads granted everywhere hold every write grant for reading: none
		// is read back beyond its grant.
		{name: "reads granted everywhere beside a write grant", allow: "io,fs:read,fs:write:/srv/out",
			held: medium, wantLevel: core.Full,
			wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerAppContainer}},
		{name: "reads granted everywhere, the container on", allow: "io,fs:read", held: all,
			wantLevel:  core.Full,
			wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerLowIntegrity, core.LayerAppContainer}},
		{name: "a named host", allow: "io,net:example.org", held: all, wantLevel: core.Partial,
			wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerLowIntegrity, core.LayerAppContainer},
			want:       []string{"the host in net:example.org is held by the language alone", "UDP, which no grant allows, is held by the language alone"}},
		{name: "no job object", allow: "io", held: Held{Token: true, LowIntegrity: true, AppContainer: true},
			wantLevel: core.Partial, wantLayers: []string{core.LayerTokenPrivs, core.LayerLowIntegrity, core.LayerAppContainer},
			want: []string{"starting a process is not held"}},
		{name: "privileges kept", allow: "io", held: Held{Job: true, LowIntegrity: true, AppContainer: true},
			wantLevel: core.Partial, wantLayers: []string{core.LayerJobObject, core.LayerLowIntegrity, core.LayerAppContainer},
			want: []string{"privileges were not removed"}},
		{name: "nothing applied", allow: "io", held: Held{}, wantLevel: core.None,
			want: []string{"reads, writes and network connections are not held", "starting a process"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			confinetest.CheckResult(t, Assess(confinetest.PolicyOf(tc.allow, false), tc.held), tc.wantLevel, tc.wantLayers, tc.want)
		})
	}
}

// TestAssessWindowsNoneSaysNoModule: a Windows run with no layer applied
// is at level none, and its reason says what was not applied, not what a
// widening module reaches beside layers there are none of. The control
// is the same budget with the job object applied, whose reason names the
// module.
func TestAssessWindowsNoneSaysNoModule(t *testing.T) {
	p := confinetest.PolicyOf("io,ffi:socket", false)
	tests := []struct {
		name       string
		held       Held
		wantLevel  core.Level
		wantModule bool
	}{
		{name: "no layer", wantLevel: core.None},
		{name: "the job object", held: Held{Job: true}, wantLevel: core.Partial, wantModule: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Assess(p, tt.held)
			if r.Level != tt.wantLevel || strings.Contains(r.Reason, "The module") != tt.wantModule {
				t.Errorf("%s %q; want level %s, the module named: %v", r.Level, r.Reason, tt.wantLevel,
					tt.wantModule)
			}
		})
	}
}

// TestPredictWindows: the level predicted where every layer applies
// claims the low integrity level only where the plan lowers the token,
// and the container only where the plan starts one. A write grant keeps
// the token at medium integrity, so that with the container left off
// (a loopback host granted) nothing of Windows holds writes; the
// control is a read grant, held at low integrity in the container.
func TestPredictWindows(t *testing.T) {
	tests := []struct {
		name       string
		allow      string
		wantLevel  core.Level
		wantLayers []string
		want       []string
	}{
		{name: "a read grant: every layer", allow: "io,fs:read:/srv/data", wantLevel: core.Full,
			wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerLowIntegrity,
				core.LayerAppContainer}},
		{name: "a read grant beside a loopback host: low, the container off",
			allow: "io,fs:read:/srv/data,net:localhost:8080", wantLevel: core.Partial,
			wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerLowIntegrity},
			want: []string{"the AppContainer was left off (a loopback host is granted): reads and " +
				`writes to what is labelled low integrity (AppData\LocalLow is) are not held`,
				"the host and port in net:localhost:8080 are held by the language alone",
				"UDP, which no grant allows, is held by the language alone"}},
		{name: "a write grant beside a loopback host: medium, the container off",
			allow: "io,fs:write:/srv/out,net:localhost:8080", wantLevel: core.Partial,
			wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs},
			want: []string{"the AppContainer was left off (a loopback host is granted): reads and " +
				"writes are not held",
				"the host and port in net:localhost:8080 are held by the language alone",
				"UDP, which no grant allows, is held by the language alone"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			confinetest.CheckResult(t, Predict(confinetest.PolicyOf(tt.allow, false)), tt.wantLevel,
				tt.wantLayers, tt.want)
		})
	}
}
