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
// network, TCP ones under every net grant and any-host widening, and UDP
// ones beside them only under a UDP grant.
func TestSocketRuleOf(t *testing.T) {
	for _, tc := range []struct {
		name   string
		allow  string
		strict bool
		want   socketRule
	}{
		{name: "no net grant", allow: "io", want: socketsRefused},
		{name: "a module that widens nothing", allow: "io,ffi:json", want: socketsRefused},
		{name: "a host and port", allow: "io,net:example.org:443", want: socketsTCP},
		{name: "any host", allow: "io,net", want: socketsTCP},
		{name: "a module that widens to any host", allow: "io,ffi:socket", want: socketsTCP},
		{name: "a module that turns the layer off", allow: "io,ffi:os", want: socketsTCP},
		{name: "a UDP grant alone", allow: "io,net:udp:10.0.0.2:514", want: socketsUDP},
		{name: "UDP to any host beside TCP", allow: "io,net,net:udp", want: socketsUDP},
		{name: "a UDP grant under --confine strict", allow: "io,ffi:requests,net:udp:[::1]:53", strict: true, want: socketsUDP},
		{name: "a widening under --confine strict", allow: "io,ffi:socket", strict: true, want: socketsRefused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := core.OSPolicy(budget.MustParse("/", tc.allow), core.Options{Mode: confinetest.ModeOf(tc.strict)})
			if got := socketRuleOf(p); got != tc.want {
				t.Errorf("socketRuleOf = %d, want %d", got, tc.want)
			}
			if got := seccompConfig(p, 4242).Sockets; got != tc.want {
				t.Errorf("seccompConfig(...).Sockets = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestSeccompFilterBuilt: the filter seccompFilter builds, run in x/net's
// BPF machine on a call's seccomp_data as the kernel would run it, lets
// getpid through and refuses an IPv4 socket under a closed network; its
// control, the same socket under an open network, is let through.
func TestSeccompFilterBuilt(t *testing.T) {
	a, ok := nativeArch()
	if !ok {
		t.Skip("skipped: no seccomp table for this architecture")
	}
	const allow = 0x7fff0000 // SECCOMP_RET_ALLOW
	tests := []struct {
		name      string
		allow     string
		call      string
		args      [6]uint64
		wantAllow bool
	}{
		{name: "getpid", allow: "io", call: "getpid", wantAllow: true},
		{name: "a TCP socket, network closed", allow: "io", call: "socket", args: [6]uint64{2, 1},
			wantAllow: false},
		{name: "a TCP socket, network open", allow: "io,net", call: "socket", args: [6]uint64{2, 1},
			wantAllow: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := core.OSPolicy(budget.MustParse("/", tt.allow), core.Options{})
			raw, err := seccompFilter(p, 4242, a)
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
