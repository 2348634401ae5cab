package linux

import (
	"strings"
	"testing"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit/confinetest"
)

func TestAssessLinux(t *testing.T) {
	ll7, ll3 := core.LayerLandlock(7), core.LayerLandlock(3)
	for _, tc := range []struct {
		name       string
		allow      string
		strict     bool
		held       Held
		wantLevel  core.Level
		wantLayers []string
		want       []string
		notWant    []string // what the reason must not say
	}{
		{name: "everything held", allow: "io,fs:read:/srv/in,fs:write:/srv/out",
			held: Held{LandlockABI: 7, Seccomp: true}, wantLevel: core.Full, wantLayers: []string{ll7, core.LayerSeccomp},
			want: []string{"every file, network and process limit"}},
		{name: "a named host: the supervisor connects", allow: "io,net:example.org:443",
			held:      Held{LandlockABI: 7, Seccomp: true},
			wantLevel: core.Full, wantLayers: []string{ll7, core.LayerSeccomp},
			want: []string{"every file, network and process limit", brokeredNote}},
		{name: "a host with no port beside one with a port: the supervisor connects",
			allow:     "io,net:example.org,net:[::1]:8080",
			held:      Held{LandlockABI: 7, Seccomp: true},
			wantLevel: core.Full, wantLayers: []string{ll7, core.LayerSeccomp},
			want: []string{"every file, network and process limit", brokeredNote}},
		{name: "a closed network: no broker", allow: "io",
			held:      Held{LandlockABI: 7, Seccomp: true},
			wantLevel: core.Full, wantLayers: []string{ll7, core.LayerSeccomp},
			want: []string{"every file, network and process limit"}, notWant: []string{brokeredNote}},
		{name: "a grant that does not exist", allow: "io,fs:write:/srv/new",
			held: Held{LandlockABI: 7, Seccomp: true, Missing: []string{"/srv/new"}}, wantLevel: core.Partial,
			wantLayers: []string{ll7, core.LayerSeccomp}, want: []string{"/srv/new does not exist yet"}},
		{name: "no Landlock", allow: "io",
			held: Held{Seccomp: true}, wantLevel: core.Partial, wantLayers: []string{core.LayerSeccomp},
			want: []string{"reads and writes are not held"}},
		{name: "no Landlock, reads granted everywhere", allow: "io,fs:read",
			held: Held{Seccomp: true}, wantLevel: core.Partial, wantLayers: []string{core.LayerSeccomp},
			want: []string{"writes and the guarded locations under a grant of every path are not held"}},
		{name: "no Landlock, every path granted", allow: "io,fs",
			held: Held{Seccomp: true}, wantLevel: core.Partial, wantLayers: []string{core.LayerSeccomp},
			want: []string{"the guarded locations under a grant of every path are not held"}},
		{name: "every path granted, carved", allow: "io,fs",
			held:      Held{LandlockABI: 7, Seccomp: true, Carving: Carving{Expanded: []string{"/", "/root"}}},
			wantLevel: core.Full, wantLayers: []string{ll7, core.LayerSeccomp},
			want: []string{"every file, network and process limit", "no entry can be made in those directories", "/run/secrets) (/, /root)"}},
		{name: "every path granted, a carving past the bound", allow: "io,fs",
			held:      Held{LandlockABI: 7, Seccomp: true, Carving: Carving{LanguageOnly: []string{"/root/.ssh"}}},
			wantLevel: core.Partial, wantLayers: []string{ll7, core.LayerSeccomp},
			want: []string{"the guarded locations /root/.ssh are held by the language only"}},
		{name: "a module that does its own file I/O", allow: "io,ffi:pathlib",
			held: Held{LandlockABI: 7, Seccomp: true}, wantLevel: core.Full, wantLayers: []string{ll7, core.LayerSeccomp},
			want: []string{"The module ffi:pathlib is granted: its own I/O, which the language does not judge, reaches any path, " +
				"which the kernel holds to every path but the guarded locations"}},
		{name: "a module that does its own file I/O, without Landlock", allow: "io,ffi:pathlib",
			held: Held{Seccomp: true}, wantLevel: core.Partial, wantLayers: []string{core.LayerSeccomp},
			want: []string{"Landlock was not applied: the guarded locations under a grant of " +
				"every path are not held. The module ffi:pathlib is granted: its own I/O, " +
				"which the language does not judge, reaches any path, the guarded locations " +
				"among them"}},
		{name: "a module that does its own file I/O, a carving past the bound",
			allow: "io,ffi:pathlib",
			held: Held{LandlockABI: 7, Seccomp: true,
				Carving: Carving{LanguageOnly: []string{"/root/.ssh"}}},
			wantLevel: core.Partial, wantLayers: []string{ll7, core.LayerSeccomp},
			want: []string{"the guarded locations /root/.ssh are held by the language only: " +
				"the grant above them has too many entries to hold one by one, or one could not " +
				"be listed. The module ffi:pathlib is granted: its own I/O, which the language " +
				"does not judge, reaches any path, the guarded locations among them"}},
		{name: "four guarded locations past the bound, named whole", allow: "io,fs",
			held: Held{LandlockABI: 7, Seccomp: true, Carving: Carving{
				LanguageOnly: []string{"/a/.ssh", "/b/.ssh", "/c/.ssh", "/d/.ssh"}}},
			wantLevel: core.Partial, wantLayers: []string{ll7, core.LayerSeccomp},
			want: []string{"the guarded locations /a/.ssh, /b/.ssh, /c/.ssh, /d/.ssh are held " +
				"by the language only"}},
		{name: "five, the fifth counted", allow: "io,fs",
			held: Held{LandlockABI: 7, Seccomp: true, Carving: Carving{
				LanguageOnly: []string{"/a/.ssh", "/b/.ssh", "/c/.ssh", "/d/.ssh", "/e/.ssh"}}},
			wantLevel: core.Partial, wantLayers: []string{ll7, core.LayerSeccomp},
			want: []string{"the guarded locations /a/.ssh, /b/.ssh, /c/.ssh, /d/.ssh and 1 more " +
				"are held by the language only"}},
		{name: "no Landlock, every path and host granted", allow: "io,fs,net",
			held: Held{Seccomp: true}, wantLevel: core.Partial, wantLayers: []string{core.LayerSeccomp},
			want: []string{"Landlock was not applied: the guarded locations under a grant of every " +
				"path are not held. " + brokeredNote}, notWant: []string{"TCP binds"}},
		{name: "no Landlock under a named host: seccomp refuses the worker's sockets",
			allow: "io,net:example.org:443",
			held:  Held{Seccomp: true}, wantLevel: core.Partial, wantLayers: []string{core.LayerSeccomp},
			want:    []string{"Landlock was not applied: reads and writes are not held. " + brokeredNote},
			notWant: []string{"TCP binds", "held by the language alone"}},
		{name: "no seccomp at ABI 7", allow: "io",
			held: Held{LandlockABI: 7}, wantLevel: core.Partial, wantLayers: []string{ll7},
			want: []string{"seccomp was not installed: forking a process"}},
		{name: "no seccomp at ABI 3", allow: "io",
			held: Held{LandlockABI: 3}, wantLevel: core.Partial, wantLayers: []string{ll3},
			want: []string{"seccomp was not installed: forking a process (Landlock refuses executing a file), the closed network, signals to other processes and"}},
		{name: "nothing applied", allow: "io",
			held: Held{}, wantLevel: core.None, wantLayers: nil,
			want: []string{"Landlock was not applied", "seccomp was not installed: starting a process"}},
		{name: "ABI 2 cannot hold truncation", allow: "io,fs:write:/srv/out",
			held: Held{LandlockABI: 2, Seccomp: true}, wantLevel: core.Partial, wantLayers: []string{core.LayerLandlock(2), core.LayerSeccomp},
			want: []string{"truncating a file"}},
		{name: "ABI 2 with writes granted everywhere: the guarded locations may be truncated", allow: "io,fs:write",
			held: Held{LandlockABI: 2, Seccomp: true}, wantLevel: core.Partial, wantLayers: []string{core.LayerLandlock(2), core.LayerSeccomp},
			want: []string{"truncating a file (it needs ABI 3): any file the worker's user may write may be truncated, by its " +
				"path or opened to be read, whatever the budget grants, the guarded locations among them"}},
		{name: "ABI 1 with every path granted: the guarded locations may be truncated", allow: "io,fs",
			held: Held{LandlockABI: 1, Seccomp: true}, wantLevel: core.Partial, wantLayers: []string{core.LayerLandlock(1), core.LayerSeccomp},
			want: []string{"the guarded locations among them"}},
		{name: "ABI 2 with no write granted: any file may be truncated", allow: "io,fs:read:/srv/in",
			held: Held{LandlockABI: 2, Seccomp: true}, wantLevel: core.Partial, wantLayers: []string{core.LayerLandlock(2), core.LayerSeccomp},
			want: []string{"any file the worker's user may write may be truncated, by its path or opened to be read, " +
				"whatever the budget grants, the guarded locations among them"}},
		{name: "ABI 2 with a write grant above a guarded location", allow: "io,fs:write:/home/op",
			held: Held{LandlockABI: 2, Seccomp: true}, wantLevel: core.Partial, wantLayers: []string{core.LayerLandlock(2), core.LayerSeccomp},
			want: []string{"whatever the budget grants, the guarded locations among them"}},
		{name: "ABI 2 with a module that widens to any path", allow: "io,ffi:pathlib",
			held: Held{LandlockABI: 2, Seccomp: true}, wantLevel: core.Partial, wantLayers: []string{core.LayerLandlock(2), core.LayerSeccomp},
			want: []string{"the guarded locations among them"}},
		{name: "ABI 2 beside the filter that refuses truncation: full", allow: "io,fs:write:/home/op",
			held:      Held{LandlockABI: 2, Seccomp: true, SeccompTruncate: true},
			wantLevel: core.Full, wantLayers: []string{core.LayerLandlock(2), core.LayerSeccomp},
			notWant: []string{"truncat"}},
		{name: "ABI 2, the filter's truncation said but the filter not installed", allow: "io",
			held:      Held{LandlockABI: 2, SeccompTruncate: true, SeccompFailure: "refused"},
			wantLevel: core.Partial, wantLayers: []string{core.LayerLandlock(2)},
			want: []string{"cannot hold truncating a file (it needs ABI 3): any file the worker's user may write",
				"seccomp was not installed (refused)"}},
		{name: "ABI 3 holds the guarded locations' truncation", allow: "io,fs",
			held: Held{LandlockABI: 3, Seccomp: true}, wantLevel: core.Full, wantLayers: []string{ll3, core.LayerSeccomp}},
		{name: "seccomp holds the closed network below ABI 4", allow: "io",
			held: Held{LandlockABI: 3, Seccomp: true}, wantLevel: core.Full, wantLayers: []string{ll3, core.LayerSeccomp}},
		{name: "below ABI 4 seccomp holds a named host's sockets", allow: "io,net:example.org:443",
			held:      Held{LandlockABI: 3, Seccomp: true},
			wantLevel: core.Full, wantLayers: []string{ll3, core.LayerSeccomp},
			want:    []string{"every file, network and process limit", brokeredNote},
			notWant: []string{"TCP binds"}},
		{name: "below ABI 4 seccomp holds an open network's sockets", allow: "io,net",
			held:      Held{LandlockABI: 3, Seccomp: true},
			wantLevel: core.Full, wantLayers: []string{ll3, core.LayerSeccomp},
			want: []string{brokeredNote}, notWant: []string{"TCP binds"}},
		{name: "below ABI 4 without seccomp the worker's own sockets are not held", allow: "io,net",
			held: Held{LandlockABI: 3}, wantLevel: core.Partial, wantLayers: []string{ll3},
			want: []string{"seccomp was not installed: forking a process (Landlock refuses " +
				"executing a file), the worker's own sockets, which reach past the hosts the " +
				"supervisor connects to, signals to other processes and every system call outside " +
				"the allow-list are not held. " + brokeredNote}},
		{name: "an open network", allow: "io,net",
			held: Held{LandlockABI: 7, Seccomp: true}, wantLevel: core.Full, wantLayers: []string{ll7, core.LayerSeccomp}},
		{name: "a module that widens to any host", allow: "io,ffi:socket",
			held: Held{LandlockABI: 7, Seccomp: true}, wantLevel: core.Full, wantLayers: []string{ll7, core.LayerSeccomp}},
		{name: "a module that widens to any host, without seccomp", allow: "io,ffi:socket",
			held: Held{LandlockABI: 7}, wantLevel: core.Partial, wantLayers: []string{ll7},
			want: []string{"seccomp was not installed: forking a process (Landlock refuses " +
				"executing a file), the worker's own UDP, Unix, netlink and raw sockets (Landlock " +
				"refuses its TCP connections), which reach past the hosts the supervisor connects " +
				"to and every system call outside the allow-list are not held. " + brokeredNote}},
		{name: "a UDP grant, without seccomp", allow: "io,net:udp:10.0.0.2:514",
			held: Held{LandlockABI: 7}, wantLevel: core.Partial, wantLayers: []string{ll7},
			want: []string{"seccomp was not installed: forking a process (Landlock refuses " +
				"executing a file), the worker's own UDP, Unix, netlink and raw sockets (Landlock " +
				"refuses its TCP connections)"},
			notWant: []string{"held by the language alone"}},
		{name: "a UDP grant: the supervisor connects its socket", allow: "io,net:udp:10.0.0.2:514",
			held:      Held{LandlockABI: 7, Seccomp: true},
			wantLevel: core.Full, wantLayers: []string{ll7, core.LayerSeccomp},
			want: []string{brokeredNote}, notWant: []string{"held by the language alone"}},
		{name: "UDP to any host beside TCP to one port", allow: "io,net:udp,net:example.org:443",
			held:      Held{LandlockABI: 7, Seccomp: true},
			wantLevel: core.Full, wantLayers: []string{ll7, core.LayerSeccomp},
			want: []string{brokeredNote}, notWant: []string{"held by the language alone", "UDP"}},
		{name: "why seccomp failed, said once", allow: "io",
			held:      Held{LandlockABI: 7, CapabilitiesDropped: true, SeccompFailure: "seccomp(SECCOMP_SET_MODE_FILTER, TSYNC): invalid argument"},
			wantLevel: core.Partial, wantLayers: []string{ll7, core.LayerCapabilities},
			want: []string{"seccomp was not installed (seccomp(SECCOMP_SET_MODE_FILTER, TSYNC): invalid argument): forking a process"}},
		{name: "every layer, the capability drop listed", allow: "io,fs:read:/srv/in",
			held: Held{LandlockABI: 7, Seccomp: true, CapabilitiesDropped: true}, wantLevel: core.Full,
			wantLayers: []string{ll7, core.LayerSeccomp, core.LayerCapabilities}, want: []string{"every file, network and process limit"}},
		{name: "the capability drop beside seccomp alone", allow: "io,fs",
			held: Held{Seccomp: true, CapabilitiesDropped: true}, wantLevel: core.Partial,
			wantLayers: []string{core.LayerSeccomp, core.LayerCapabilities},
			want:       []string{"Landlock was not applied: the guarded locations under a grant of every path are not held"}},
		{name: "the capability drop alone holds no limit", allow: "io",
			held: Held{CapabilitiesDropped: true}, wantLevel: core.None, wantLayers: []string{core.LayerCapabilities},
			want: []string{"Landlock was not applied: reads and writes are not held", "seccomp was not installed: starting a process"}},
		{name: "the capability drop alone, every path and host granted", allow: "io,fs,net",
			held: Held{CapabilitiesDropped: true}, wantLevel: core.None, wantLayers: []string{core.LayerCapabilities},
			want: []string{
				"Landlock was not applied: the guarded locations under a grant of every path are not held",
				"seccomp was not installed: starting a process, the worker's own sockets, which reach " +
					"past the hosts the supervisor connects to, signals"}},
		{name: "a module that turns the layer off", allow: "io,ffi:os",
			held: Held{LandlockABI: 7, Seccomp: true}, wantLevel: core.None, wantLayers: nil,
			want: []string{"ffi:os is granted", "operating system layer is off"}},
		{name: "strict", allow: "io,ffi:os", strict: true,
			held: Held{LandlockABI: 7, Seccomp: true}, wantLevel: core.Full, wantLayers: []string{ll7, core.LayerSeccomp},
			want: []string{"no granted module widened the policy"}},
		{name: "a problem the apply reported", allow: "io",
			held: Held{LandlockABI: 7, Seccomp: true, Problems: []core.Gap{{Layer: core.LayerMemory, Kind: core.GapUnheld,
				Text: "the address-space limit was refused"}}},
			wantLevel: core.Partial, wantLayers: []string{ll7, core.LayerSeccomp}, want: []string{"the address-space limit was refused"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Assess(confinetest.PolicyOf(tc.allow, tc.strict), tc.held)
			confinetest.CheckResult(t, r, tc.wantLevel, tc.wantLayers, tc.want)
			for _, w := range tc.notWant {
				if strings.Contains(r.Reason, w) {
					t.Errorf("reason %q says %q", r.Reason, w)
				}
			}
		})
	}
}

// TestAssessLinuxAgreesWithLandlockPlan holds what linux.Assess says a
// Landlock ABI cannot hold to what LandlockPlan handles at that ABI:
// truncation (of the guarded locations, when writes are unrestricted); and, without seccomp, the
// worker's TCP connections as Landlock's to refuse exactly where the plan
// handles connect, under a closed network and under a brokered one.
func TestAssessLinuxAgreesWithLandlockPlan(t *testing.T) {
	needs := core.Needs{Executable: "/opt/sabline/bin/sabline", TempDir: "/tmp/sabline-run"}
	checked := 0
	for _, allow := range []string{"io", "io,fs:write:/srv/out", "io,fs:write", "io,net:example.org:443",
		"io,net:example.org", "io,net", "io,ffi:socket", "io,net:udp:10.0.0.2:514"} {
		p := confinetest.PolicyOf(allow, false)
		for abi := 1; abi <= LandlockMaxABI; abi++ {
			plan, err := LandlockPlan(p, needs, abi)
			if err != nil {
				t.Fatalf("%s at ABI %d: %v", allow, abi, err)
			}
			r := Assess(p, Held{LandlockABI: abi, Seccomp: true})
			bare := Assess(p, Held{LandlockABI: abi})
			connect := plan.HandledNet&LandlockNetConnectTCP != 0
			for _, tc := range []struct {
				name   string
				reason string
				phrase string
				said   bool
			}{
				{name: "truncation unheld", reason: r.Reason, phrase: "truncating a file",
					said: plan.HandledFS&LandlockFSTruncate == 0},
				{name: "TCP binds unheld", reason: r.Reason, phrase: "TCP binds"},
				{name: "TCP held by Landlock, network closed", reason: bare.Reason,
					phrase: "sockets other than TCP", said: connect && !Brokered(p)},
				{name: "TCP held by Landlock, brokered", reason: bare.Reason,
					phrase: "(Landlock refuses its TCP connections)", said: connect && Brokered(p)},
				{name: "every socket unheld, brokered", reason: bare.Reason,
					phrase: "the worker's own sockets,", said: !connect && Brokered(p)},
			} {
				if said := strings.Contains(tc.reason, tc.phrase); said != tc.said {
					t.Errorf("%s at ABI %d (%s): the reason %q says %q: %v, want %v", allow, abi, tc.name,
						tc.reason, tc.phrase, said, tc.said)
				}
				checked++
			}
		}
	}
	t.Logf("checked %d cases", checked)
}
