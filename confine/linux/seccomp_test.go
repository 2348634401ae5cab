package linux

import (
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit/confinetest"
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
