// Package reach says which addresses a connection granted by a host's
// name may go to: the rule against rebinding that the supervisor's
// broker holds for a confined run on Linux (internal/broker) and that the
// language holds for a run that dials itself (in the caller's own
// process, under --no-confine, and on systems with no broker), so that a
// grant reaches the same addresses in every run.
package reach

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"syscall"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
)

// MaxConnections is the most connections one run makes, and MaxOpen the
// most it holds open at once, whoever makes them: the supervisor's broker
// for a confined run on Linux, the language for a run that dials itself;
// past either, a connection is refused (E335).
const (
	MaxConnections = 1024
	MaxOpen        = 64
)

// reachable returns those of addrs, the addresses host was looked up to,
// that a connection granted by naming host may go to, in their order,
// where own are this machine's addresses (ownAddrs):
//
//   - host is an address: that address, which the grant names;
//   - host is localhost, or a name beneath .localhost: loopback
//     addresses only;
//   - any other name: public addresses only, none of them this
//     machine's own. A private, loopback, link-local, shared
//     (100.64.0.0/10), unspecified or multicast address behind a name
//     could be a rebinding (a name that answers with an address inside
//     the operator's network), and so could one of this machine's own
//     public addresses, which reaches every service it listens with on
//     all its addresses; each is reached only where a grant names the
//     address itself. An IPv6 address reaches only global unicast space,
//     and one that embeds an IPv4 address for a NAT64 gateway or a 6to4
//     relay is judged by the IPv4 address (public, not this machine's).
//
// None left is an E335 that says which addresses were refused and how
// to grant one. Check is reachable with own read from this machine.
func reachable(host string, addrs, own []netip.Addr) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(TrimBrackets(host)); err == nil {
		return []netip.Addr{a.Unmap()}, nil
	}
	local := isLocal(host)
	var out, refused, mine []netip.Addr
	for _, a := range addrs {
		a = a.Unmap()
		switch {
		case local && a.IsLoopback():
			out = append(out, a)
		case !local && public(a) && !ownOrCarried(a, own):
			out = append(out, a)
		case !local && public(a):
			mine = append(mine, a)
		default:
			refused = append(refused, a)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	if len(refused)+len(mine) == 0 {
		return nil, codes.Errorf(codes.E315, "%s has no address", host)
	}
	if local {
		return nil, codes.Errorf(codes.E335, "%s resolved to %s, not a loopback address: "+
			"localhost reaches this machine only", host, refused[0])
	}
	if len(refused) == 0 {
		return nil, codes.Errorf(codes.E335, "%s resolved to %s only, this machine's own, which a "+
			"grant of a name does not reach (a name that leads to this machine could be a "+
			"rebinding, and reaches every service it listens with): grant the address itself, as "+
			"net:%s, to reach it", host, joinAddrs(mine), hostForm(mine[0]))
	}
	return nil, codes.Errorf(codes.E335, "%s resolved to %s only, which a grant of a name does not "+
		"reach (a private or loopback address behind a name could be a rebinding): grant the "+
		"address itself, as net:%s, to reach it", host, joinAddrs(append(refused, mine...)),
		hostForm(refused[0]))
}

// Check is reachable judged against this machine's addresses as they are
// now (ownAddrs, and those of addrs the kernel routes to it, for a
// connection over network, tcp or udp, to port: routedHere), read only
// where host is a name whose addresses are judged.
// A machine whose addresses cannot be read reaches no address behind a
// name (E335): a refusal that names the address to grant rather than a
// connection to the machine itself.
func Check(network, host string, port int, addrs []netip.Addr) ([]netip.Addr, error) {
	if _, err := netip.ParseAddr(TrimBrackets(host)); err == nil || isLocal(host) {
		return reachable(host, addrs, nil)
	}
	own, err := ownAddrs()
	if err != nil {
		return nil, codes.Errorf(codes.E335, "%s: this machine's own addresses could not be read "+
			"(%w), so none behind a name is reached: grant the address itself", host, err)
	}
	// An address no interface holds is this machine's too where the
	// kernel routes it here (routedHere).
	here, err := routedHere(network, uint16(port), addrs)
	if err != nil {
		return nil, codes.Errorf(codes.E335, "%s: whether the kernel routes its addresses to "+
			"this machine could not be read (%w), so none behind a name is reached: grant the "+
			"address itself", host, err)
	}
	own = append(own, here...)
	return reachable(host, addrs, own)
}

// Control is the Control of a net.Dialer that connects to an address
// Check found for host, nil where host is an address or localhost, whose
// addresses are not judged: on Linux, the socket takes its source port
// before it connects, and a connection the kernel routes to this machine
// from that port is refused (E335), as Check refuses one it routes here
// to that destination (routeHeld).
func Control(host string) func(network, address string, c syscall.RawConn) error {
	if _, err := netip.ParseAddr(TrimBrackets(host)); err == nil || isLocal(host) {
		return nil
	}
	return routeHeld
}

// ownAddrs returns the addresses of this machine's network interfaces, as
// they are now, every scope among them.
func ownAddrs() ([]netip.Addr, error) {
	as, err := interfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("read this machine's addresses: %w", err)
	}
	out := make([]netip.Addr, 0, len(as))
	for _, a := range as {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			out = append(out, p.Addr().Unmap())
		}
	}
	return out, nil
}

// interfaceAddrs is net.InterfaceAddrs; a test puts a machine whose
// addresses cannot be read in its place.
var interfaceAddrs = net.InterfaceAddrs

// isLocal reports whether host is localhost or a name beneath .localhost.
func isLocal(host string) bool {
	const sub = ".localhost"
	return budget.SameHost(host, "localhost") ||
		len(host) > len(sub) && budget.SameHost(host[len(host)-len(sub):], sub)
}

// ownOrCarried reports whether a is one of own, or an address that
// carries one of own for a NAT64 gateway or a 6to4 relay.
func ownOrCarried(a netip.Addr, own []netip.Addr) bool {
	v4, ok := carried(a)
	return slices.Contains(own, a) || ok && slices.Contains(own, v4)
}

// carried is the IPv4 address a carries for a NAT64 gateway or a 6to4
// relay (embedsIPv4), if it carries one.
func carried(a netip.Addr) (netip.Addr, bool) {
	for _, e := range embedsIPv4 {
		if e.prefix.Contains(a) {
			b := a.As16()
			return netip.AddrFrom4([4]byte(b[e.at : e.at+4])), true
		}
	}
	return netip.Addr{}, false
}

// public reports whether a is an address of the public internet, one a
// name may lead to. An IPv4 address is, but for the special ranges
// below; an IPv6 address only where it is named as public: global unicast
// (2000::/3) outside the blocks of it kept for protocols and
// documentation, or an address that embeds a public IPv4 one for a NAT64
// gateway or a 6to4 relay, which connect to the IPv4 address embedded.
// Every other IPv6 address (loopback, unique local, link-local,
// site-local, multicast, the IPv4-compatible and -translated forms, and
// whatever is assigned outside 2000::/3 later) is refused behind a name.
func public(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	if a.Is4() {
		if a.IsUnspecified() || a.IsLoopback() || a.IsPrivate() || a.IsMulticast() ||
			a.IsLinkLocalUnicast() {
			return false
		}
		return !inAny(notPublic4, a)
	}
	if v4, ok := carried(a); ok {
		return public(v4)
	}
	return globalUnicast6.Contains(a) && !inAny(notPublic6, a)
}

func inAny(ps []netip.Prefix, a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// embedsIPv4 are the IPv6 prefixes whose addresses carry an IPv4 address
// that a translator or a relay on the way connects to, with the byte it
// starts at: NAT64's well-known prefix (RFC 6052), which DNS64 and the
// gateways of IPv6-only networks use, and 6to4 (RFC 3056). Such an
// address is as public as the IPv4 address it carries: a name answering
// 64:ff9b::10.0.0.5 reaches 10.0.0.5 through the gateway.
var embedsIPv4 = []struct {
	prefix netip.Prefix
	at     int
}{
	{netip.MustParsePrefix("64:ff9b::/96"), 12},
	{netip.MustParsePrefix("2002::/16"), 2},
}

// globalUnicast6 is the IPv6 space a name may lead to (RFC 4291).
var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// notPublic4 are the IPv4 ranges beyond netip's predicates that no
// public name should answer with: this network, shared address space
// (carrier-grade NAT), IETF protocol assignments, the benchmarking range,
// and the reserved range with the limited broadcast.
var notPublic4 = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
}

// notPublic6 are the blocks of global unicast kept for protocols and
// documentation: IETF protocol assignments (Teredo, benchmarking, ORCHID
// among them) and the two documentation prefixes (RFC 3849, RFC 9637).
var notPublic6 = []netip.Prefix{
	netip.MustParsePrefix("2001::/23"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("3fff::/20"),
}

// hostForm is how a grant writes a: an IPv6 address in brackets.
func hostForm(a netip.Addr) string {
	if a.Is6() {
		return "[" + a.String() + "]"
	}
	return a.String()
}

func joinAddrs(as []netip.Addr) string {
	s := make([]string, 0, len(as))
	for i, a := range as {
		if i == 4 {
			s = append(s, fmt.Sprintf("%d more", len(as)-4))
			break
		}
		s = append(s, a.String())
	}
	// As confine/core's JoinAnd, which the language may not import.
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// TrimBrackets is h without the brackets a grant writes an IPv6 address in.
func TrimBrackets(h string) string {
	if len(h) > 1 && h[0] == '[' && h[len(h)-1] == ']' {
		return h[1 : len(h)-1]
	}
	return h
}
