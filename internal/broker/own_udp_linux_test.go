package broker

import (
	"net"
	"net/netip"
	"strconv"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestBrokerRefusesWhatARuleByUDPPortRoutesHere: a rule of the operator's
// by protocol (ip rule add ipproto udp dport 5353 lookup 100, table 100
// holding a local route) routes a UDP datagram to this machine that a TCP
// connection to the same address and port is not: the kernel is asked
// of the route as the connection is, over UDP. Under a grant of a name
// answering 198.51.104.9, a datagram reached a listener on all this
// machine's addresses where the route was asked as TCP's. In a network
// namespace of the test's own, the name is refused (E335); the control:
// the address granted by itself reaches the listener.
func TestBrokerRefusesWhatARuleByUDPPortRoutesHere(t *testing.T) {
	const inside = "198.51.104.9"
	if !testkit.InNetworkOfItsOwn(t, "routed here by a UDP port") {
		return
	}
	run := testkit.IPCommand(t)
	pc, err := net.ListenPacket("udp", ":0") // every address of this machine's
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	port := strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port)
	vethDefault(run)
	run("route", "add", "local", "198.51.104.0/24", "dev", "lo", "table", "100", "src",
		"203.0.113.5")
	run("rule", "add", "ipproto", "udp", "dport", port, "lookup", "100")

	b, c := channel(t, map[string][]netip.Addr{"udp.example.com": addrs(inside)})
	begin(b, "io,net:udp:udp.example.com:"+port)
	conn, err := dial(c, "udp", "udp.example.com:"+port)
	if err == nil {
		_, _ = conn.Write([]byte("the name"))
		conn.Close()
	}
	if codes.CodeOf(err) != codes.E335 {
		t.Errorf("Dial of a name behind %s, which a rule by UDP port routes here = %v; "+
			"want E335", inside, err)
	}
	b.End()

	reachedGranted(t, b, c, pc, net.JoinHostPort(inside, port), "the address",
		func(got string) bool { return got == "the name" })
}
