package linux

import (
	"encoding/binary"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit/confinetest"
	"golang.org/x/net/bpf"
)

// TestSocketRuleOf: a policy's filter makes no socket under a closed
// network, and takes the sockets its supervisor hands in (Brokered)
// under every net grant, UDP ones included, and any-host widening, of a
// policy that enforces something.
func TestSocketRuleOf(t *testing.T) {
	for _, tc := range []struct {
		name   string
		allow  string
		strict bool
		want   socketRule
	}{
		{name: "no net grant", allow: "io", want: socketsRefused},
		{name: "a module that widens nothing", allow: "io,ffi:json", want: socketsRefused},
		{name: "a host and port", allow: "io,net:example.org:443", want: socketsHanded},
		{name: "any host", allow: "io,net", want: socketsHanded},
		{name: "a module that widens to any host", allow: "io,ffi:socket", want: socketsHanded},
		// ffi:os turns the layer off: no filter is installed, and the
		// worker dials for itself.
		{name: "a module that turns the layer off", allow: "io,ffi:os", want: socketsRefused},
		{name: "a UDP grant alone", allow: "io,net:udp:10.0.0.2:514", want: socketsHanded},
		{name: "UDP to any host beside TCP", allow: "io,net,net:udp", want: socketsHanded},
		{name: "a UDP grant under --confine strict", allow: "io,ffi:requests,net:udp:[::1]:53", strict: true,
			want: socketsHanded},
		{name: "a widening under --confine strict", allow: "io,ffi:socket", strict: true, want: socketsRefused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := core.OSPolicy(budget.MustParse("/", tc.allow), core.Options{Mode: confinetest.ModeOf(tc.strict)})
			if got := socketRuleOf(p); got != tc.want {
				t.Errorf("socketRuleOf = %d, want %d", got, tc.want)
			}
			if got := seccompConfig(p, 4242, LandlockMaxABI).Sockets; got != tc.want {
				t.Errorf("seccompConfig(...).Sockets = %d, want %d", got, tc.want)
			}
			if got := Brokered(p); got != (tc.want == socketsHanded) {
				t.Errorf("Brokered = %v, want %v", got, tc.want == socketsHanded)
			}
		})
	}
}

// TestBrokeredNeedsEnforcement: a policy that enforces nothing has no
// supervisor's broker on Linux, whatever its network; its control, the
// same policy enforced, has.
func TestBrokeredNeedsEnforcement(t *testing.T) {
	p := core.OSPolicy(budget.MustParse("/", "io,net"), core.Options{})
	if !p.Enforced || !Brokered(p) {
		t.Fatalf("control: Enforced %v, Brokered %v; want both", p.Enforced, Brokered(p))
	}
	p.Enforced = false
	if Brokered(p) {
		t.Error("Brokered is true of a policy that enforces nothing")
	}
	if got := socketRuleOf(p); got != socketsRefused {
		t.Errorf("socketRuleOf = %d of a policy that enforces nothing, want %d", got, socketsRefused)
	}
}

// filterCase is a call, under a budget, and whether the built filter
// lets it through.
type filterCase struct {
	name      string
	allow     string
	call      string
	args      [6]uint64
	wantAllow bool
}

// TestSeccompFilterBuilt: the filter seccompFilter builds, run in x/net's
// BPF machine on a call's seccomp_data as the kernel would run it, lets
// getpid through; under a closed network it refuses an IPv4 socket and
// recvmsg; under every net grant (a host, a UDP grant, any host, a module
// that widens to any host) it refuses every call that would make a
// connection of the worker's own or send past the one it was handed
// (socket of any family, socketpair, connect, bind, listen, accept4,
// sendto with an address, sendmsg, sendmmsg, setsockopt), while recvmsg
// and shutdown, the handed socket's calls, are let through.
func TestSeccompFilterBuilt(t *testing.T) {
	a, ok := nativeArch()
	if !ok {
		t.Skip("skipped: no seccomp table for this architecture")
	}
	const allow = 0x7fff0000 // SECCOMP_RET_ALLOW
	tests := []filterCase{
		{name: "getpid", allow: "io", call: "getpid", wantAllow: true},
		{name: "a TCP socket, network closed", allow: "io", call: "socket", args: [6]uint64{2, 1},
			wantAllow: false},
		{name: "a TCP socket, network open: the supervisor makes it", allow: "io,net", call: "socket",
			args: [6]uint64{2, 1}, wantAllow: false},
		{name: "a connect, network open", allow: "io,net", call: "connect", args: [6]uint64{3}},
		{name: "recvmsg, network closed: no broker channel", allow: "io", call: "recvmsg",
			args: [6]uint64{3}, wantAllow: false},
		{name: "recvmsg, network open: a handed socket arrives", allow: "io,net", call: "recvmsg",
			args: [6]uint64{3}, wantAllow: true},
		{name: "shutdown, a host granted", allow: "io,net:example.org:443", call: "shutdown",
			args: [6]uint64{3, 1}, wantAllow: true},
	}
	// The worker makes no connection of its own under any net grant: each
	// call that would make one, or send past where its socket is
	// connected, is refused whatever the grant.
	for _, allow := range []string{"io,net:example.org:443", "io,net:udp:10.0.0.2:514", "io,net",
		"io,ffi:socket"} {
		for _, c := range []struct {
			call string
			args [6]uint64
		}{
			{"socket", [6]uint64{2, 1}}, {"socket", [6]uint64{10, 2}}, {"socket", [6]uint64{1, 5}},
			{"socketpair", [6]uint64{1, 1}}, {"connect", [6]uint64{3}}, {"bind", [6]uint64{3}},
			{"listen", [6]uint64{3}}, {"accept4", [6]uint64{3}},
			{"sendto", [6]uint64{3, 0, 1, 0, 0x1000, 16}}, {"sendmsg", [6]uint64{3}},
			{"sendmmsg", [6]uint64{3}}, {"setsockopt", [6]uint64{3, 1, 2}},
		} {
			tests = append(tests, filterCase{name: c.call + " under " + allow, allow: allow, call: c.call, args: c.args})
		}
		tests = append(tests, filterCase{name: "recvmsg under " + allow, allow: allow, call: "recvmsg", args: [6]uint64{3},
			wantAllow: true})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := core.OSPolicy(budget.MustParse("/", tt.allow), core.Options{})
			raw, err := seccompFilter(p, 4242, LandlockMaxABI, a)
			if err != nil {
				t.Fatal(err)
			}
			var ins []bpf.Instruction
			for _, r := range raw {
				ins = append(ins, r.Disassemble())
			}
			vm, err := bpf.NewVM(ins)
			if err != nil {
				t.Fatalf("the built filter is no program x/net/bpf runs: %v", err)
			}
			// struct seccomp_data, each 32-bit word as x/net's machine
			// loads it (big-endian), where the kernel loads native words:
			// a 64-bit argument is its low word, then its high one.
			data := make([]byte, 64)
			binary.BigEndian.PutUint32(data[0:], uint32(a.Table[tt.call]))
			binary.BigEndian.PutUint32(data[4:], a.AuditArch)
			for i, v := range tt.args {
				binary.BigEndian.PutUint32(data[16+8*i:], uint32(v))
				binary.BigEndian.PutUint32(data[20+8*i:], uint32(v>>32))
			}
			ret, err := vm.Run(data)
			if err != nil {
				t.Fatal(err)
			}
			if got := uint32(ret)&0xffff0000 == allow; got != tt.wantAllow {
				t.Errorf("%s under %s: action %#x, allowed %v, want %v", tt.call, tt.allow, ret, got,
					tt.wantAllow)
			}
		})
	}
}

// TestSeccompConfigTruncation: a worker's filter refuses the
// truncations the kernel does not check against the Landlock ruleset
// where that ruleset is below the ABI of the truncate right, or absent,
// and leaves them to Landlock from it.
func TestSeccompConfigTruncation(t *testing.T) {
	p := core.OSPolicy(budget.MustParse("/", "io,fs:read:/tmp"), core.Options{})
	for abi := 0; abi <= LandlockMaxABI; abi++ {
		want := abi < LandlockABITruncate()
		if got := seccompConfig(p, 4242, abi).TruncateRefused; got != want {
			t.Errorf("ABI %d: TruncateRefused %v, want %v", abi, got, want)
		}
	}
}
