// Package reach says which addresses a connection granted by a host's
// name may go to: the rule against rebinding that the supervisor's
// broker holds for a confined run on Linux (internal/broker) and that the
// language holds for a run that dials itself (in the caller's own
// process, under --no-confine, and on systems with no broker), so that a
// grant reaches the same addresses in every run.
package reach

import (
	"fmt"
	"net/netip"
	"strings"

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

// Reachable returns those of addrs, the addresses host was looked up to,
// that a connection granted by naming host may go to, in their order:
//
//   - host is an address: that address, which the grant names;
//   - host is localhost, or a name beneath .localhost: loopback
//     addresses only;
//   - any other name: public addresses only. A private, loopback,
//     link-local, shared (100.64.0.0/10), unspecified or multicast address
//     behind a name could be a rebinding (a name that answers with an
//     address inside the operator's network), so it is reached only where
//     a grant names the address itself. An IPv6 address reaches only
//     global unicast space, and one that embeds an IPv4 address for a
//     NAT64 gateway or a 6to4 relay is judged by the IPv4 address (public).
//
// None left is an E335 that says which addresses were refused and how
// to grant one.
func Reachable(host string, addrs []netip.Addr) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(TrimBrackets(host)); err == nil {
		return []netip.Addr{a.Unmap()}, nil
	}
	const sub = ".localhost"
	local := budget.SameHost(host, "localhost") ||
		len(host) > len(sub) && budget.SameHost(host[len(host)-len(sub):], sub)
	var out, refused []netip.Addr
	for _, a := range addrs {
		a = a.Unmap()
		if local && a.IsLoopback() || !local && public(a) {
			out = append(out, a)
		} else {
			refused = append(refused, a)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	if len(refused) == 0 {
		return nil, codes.Errorf(codes.E315, "%s has no address", host)
	}
	if local {
		return nil, codes.Errorf(codes.E335, "%s resolved to %s, not a loopback address: "+
			"localhost reaches this machine only", host, refused[0])
	}
	return nil, codes.Errorf(codes.E335, "%s resolved to %s only, which a grant of a name does not "+
		"reach (a private or loopback address behind a name could be a rebinding): grant the "+
		"address itself, as net:%s, to reach it", host, joinAddrs(refused), hostForm(refused[0]))
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
	for _, e := range embedsIPv4 {
		if e.prefix.Contains(a) {
			b := a.As16()
			return public(netip.AddrFrom4([4]byte(b[e.at : e.at+4])))
		}
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
