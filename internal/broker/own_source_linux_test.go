package broker

import (
	"net/netip"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestBrokerRefusesWhatTheSourceATCPRouteTakesRoutesHere: the kernel
// routes a TCP connection twice, once to choose its source and again from
// that source. Where a rule by protocol and port sends it by a route with
// a source of its own (table 200, src 192.0.2.5) and a rule by that
// source leads to a local route (table 100), the connection is delivered
// here, though neither question the route was asked (with no source, and
// from the source a UDP socket takes, which the rule by protocol passes
// by) found a local route. The name is refused now, nothing arriving at a
// listener on all this machine's addresses; the control: the address
// granted by itself is reached.
func TestBrokerRefusesWhatTheSourceATCPRouteTakesRoutesHere(t *testing.T) {
	const inside = "198.51.103.9"
	if !testkit.InNetworkOfItsOwn(t, "routed here from a TCP route's source") {
		return
	}
	run := testkit.IPCommand(t)
	l, port := transparentListener(t)
	vethDefault(run)
	run("addr", "add", "192.0.2.5/24", "dev", "v0")
	run("route", "add", "default", "via", "192.0.2.1", "src", "192.0.2.5", "table", "200")
	run("route", "add", "local", "198.51.103.0/24", "dev", "lo", "table", "100")
	run("rule", "add", "priority", "100", "from", "192.0.2.5", "lookup", "100")
	run("rule", "add", "priority", "200", "ipproto", "tcp", "dport", port, "lookup", "200")

	b, c := channel(t, map[string][]netip.Addr{"sourced.example.com": addrs(inside)})
	begin(b, "io,net:sourced.example.com:"+port)
	conn, err := dial(c, "tcp", "sourced.example.com:"+port)
	if err == nil {
		conn.Close()
	}
	if codes.CodeOf(err) != codes.E335 {
		t.Fatalf("Dial of a name behind %s, routed here from the source its TCP route takes "+
			"= %v; want E335", inside, err)
	}
	nothingArrived(t, l)
	b.End()

	begin(b, "io,net:"+inside+":"+port)
	connects(t, c, l, inside+":"+port)
	b.End()
}
