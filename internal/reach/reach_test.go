package reach

import (
	"errors"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
)

func addrs(s ...string) []netip.Addr {
	var out []netip.Addr
	for _, a := range s {
		out = append(out, netip.MustParseAddr(a))
	}
	return out
}

func TestReachable(t *testing.T) {
	cases := []struct {
		name     string
		host     string
		addrs    []netip.Addr
		own      []netip.Addr // this machine's addresses
		want     []netip.Addr
		wantCode codes.Code
	}{
		{name: "a public name keeps its public addresses",
			host: "api.example.com", addrs: addrs("93.184.215.14", "10.0.0.2", "2606:2800:21f::1"),
			want: addrs("93.184.215.14", "2606:2800:21f::1")},
		{name: "a public name behind a private address is a rebinding",
			host: "api.example.com", addrs: addrs("10.0.0.2"), wantCode: codes.E335},
		{name: "a public name behind loopback", host: "api.example.com", addrs: addrs("127.0.0.1", "::1"),
			wantCode: codes.E335},
		{name: "a public name behind a mapped loopback", host: "api.example.com",
			addrs: addrs("::ffff:127.0.0.1"), wantCode: codes.E335},
		{name: "link-local (a cloud's metadata address)", host: "api.example.com",
			addrs: addrs("169.254.169.254"), wantCode: codes.E335},
		{name: "shared address space", host: "api.example.com", addrs: addrs("100.64.1.1"),
			wantCode: codes.E335},
		{name: "unspecified", host: "api.example.com", addrs: addrs("0.0.0.0"), wantCode: codes.E335},
		{name: "unique local IPv6", host: "api.example.com", addrs: addrs("fd00::1"),
			wantCode: codes.E335},
		{name: "localhost keeps loopback", host: "localhost", addrs: addrs("127.0.0.1", "::1"),
			want: addrs("127.0.0.1", "::1")},
		{name: "localhost never leaves the machine", host: "LocalHost", addrs: addrs("93.184.215.14"),
			wantCode: codes.E335},
		{name: "a name beneath .localhost", host: "app.localhost", addrs: addrs("127.0.0.2", "10.0.0.1"),
			want: addrs("127.0.0.2")},
		{name: "an address granted is reached, private or not", host: "10.0.0.2",
			want: addrs("10.0.0.2")},
		{name: "an IPv6 address in brackets", host: "[::1]", want: addrs("::1")},
		{name: "a name with no address", host: "api.example.com", wantCode: codes.E315},
		// A NAT64 gateway connects to the IPv4 address its prefix embeds:
		// a name answering 64:ff9b::10.0.0.5 reaches 10.0.0.5.
		{name: "NAT64 of loopback", host: "api.example.com", addrs: addrs("64:ff9b::7f00:1"),
			wantCode: codes.E335},
		{name: "NAT64 of a private address", host: "api.example.com",
			addrs: addrs("64:ff9b::10.0.0.5"), wantCode: codes.E335},
		{name: "NAT64 of the metadata address", host: "api.example.com",
			addrs: addrs("64:ff9b::169.254.169.254"), wantCode: codes.E335},
		{name: "NAT64 of a public address is public", host: "api.example.com",
			addrs: addrs("64:ff9b::93.184.215.14"), want: addrs("64:ff9b::93.184.215.14")},
		{name: "6to4 of a private address", host: "api.example.com",
			addrs: addrs("2002:a00:5::1"), wantCode: codes.E335},
		{name: "6to4 of a public address is public", host: "api.example.com",
			addrs: addrs("2002:5db8:d70e::1"), want: addrs("2002:5db8:d70e::1")},
		{name: "IPv4-compatible", host: "api.example.com", addrs: addrs("::10.0.0.5"),
			wantCode: codes.E335},
		{name: "IPv4-translated", host: "api.example.com", addrs: addrs("::ffff:0:10.0.0.5"),
			wantCode: codes.E335},
		{name: "site-local", host: "api.example.com", addrs: addrs("fec0::1"), wantCode: codes.E335},
		{name: "NAT64's local-use prefix", host: "api.example.com",
			addrs: addrs("64:ff9b:1::a00:5"), wantCode: codes.E335},
		{name: "IPv6 outside global unicast, assigned or not", host: "api.example.com",
			addrs: addrs("100::1", "4000::1", "e000::1"), wantCode: codes.E335},
		{name: "Teredo", host: "api.example.com",
			addrs: addrs("2001:0:4136:e378:8000:63bf:3fff:fdd2"), wantCode: codes.E335},
		{name: "IPv6 documentation", host: "api.example.com", addrs: addrs("2001:db8::1", "3fff::1"),
			wantCode: codes.E335},
		{name: "localhost folded by Unicode is a name", host: "localhoſt",
			addrs: addrs("127.0.0.1"), wantCode: codes.E335},
		// Each address below is refused alone: one let through would be
		// reached, and the case answer it rather than E335.
		{name: "IPv4 multicast", host: "api.example.com", addrs: addrs("224.0.0.251", "239.1.2.3"),
			wantCode: codes.E335},
		{name: "IPv4 special ranges", host: "api.example.com",
			addrs:    addrs("192.0.0.8", "198.18.0.1", "198.19.255.254", "240.0.0.1", "255.255.255.255"),
			wantCode: codes.E335},
		{name: "6to4 of a private address whose next bytes are public", host: "api.example.com",
			addrs: addrs("2002:c0a8:101::1"), wantCode: codes.E335}, // 192.168.1.1
		{name: "IETF protocol assignments past Teredo", host: "api.example.com",
			addrs: addrs("2001:2::1", "2001:20::1", "2001:1ff::1"), wantCode: codes.E335},
		{name: "global unicast beside the reserved blocks is public", host: "api.example.com",
			addrs: addrs("2001:200::1", "2001:db9::1", "3ffe::1", "198.20.0.1"),
			want:  addrs("2001:200::1", "2001:db9::1", "3ffe::1", "198.20.0.1")},
		// This machine's own public addresses reach every service it
		// listens with on all its addresses: behind a name, a rebinding.
		{name: "a name behind this machine's own public address", host: "api.example.com",
			addrs: addrs("198.51.100.7", "2a01:4f8::7"), own: addrs("127.0.0.1", "198.51.100.7",
				"2a01:4f8::7"), wantCode: codes.E335},
		{name: "a name keeps its public addresses but this machine's", host: "api.example.com",
			addrs: addrs("198.51.100.7", "93.184.215.14"), own: addrs("198.51.100.7"),
			want: addrs("93.184.215.14")},
		{name: "NAT64 of this machine's address", host: "api.example.com",
			addrs: addrs("64:ff9b::198.51.100.7"), own: addrs("198.51.100.7"), wantCode: codes.E335},
		{name: "6to4 of this machine's address", host: "api.example.com",
			addrs: addrs("2002:c633:6407::1"), own: addrs("198.51.100.7"), wantCode: codes.E335},
		{name: "this machine's own 6to4 address", host: "api.example.com",
			addrs: addrs("2002:c633:6407::1"), own: addrs("2002:c633:6407::1"), wantCode: codes.E335},
		{name: "a mapped form of this machine's address", host: "api.example.com",
			addrs: addrs("::ffff:198.51.100.7"), own: addrs("198.51.100.7"), wantCode: codes.E335},
		{name: "this machine's address granted as the address", host: "198.51.100.7",
			own: addrs("198.51.100.7"), want: addrs("198.51.100.7")},
		{name: "localhost is this machine's by its grant", host: "localhost",
			addrs: addrs("127.0.0.1"), own: addrs("127.0.0.1"), want: addrs("127.0.0.1")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := reachable(tc.host, tc.addrs, tc.own)
			if tc.wantCode != "" {
				if codes.CodeOf(err) != tc.wantCode {
					t.Fatalf("reachable = %v, %v; want %s", got, err, tc.wantCode)
				}
				return
			}
			if err != nil || len(got) != len(tc.want) {
				t.Fatalf("reachable = %v, %v; want %v", got, err, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("reachable = %v; want %v", got, tc.want)
				}
			}
		})
	}
}

func TestReachableSaysWhatToGrant(t *testing.T) {
	_, err := reachable("db.example.com", addrs("10.0.0.2", "fd00::1"), nil)
	for _, want := range []string{"10.0.0.2 and fd00::1", "grant the address itself, as net:10.0.0.2"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v; want it to say %q", err, want)
		}
	}
	_, err = reachable("db.example.com", addrs("2a01:4f8::7"), addrs("2a01:4f8::7"))
	for _, want := range []string{"2a01:4f8::7 only, this machine's own",
		"grant the address itself, as net:[2a01:4f8::7]"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v; want it to say %q", err, want)
		}
	}
}

// TestOwnReadsThisMachine: ownAddrs lists this machine's addresses, loopback
// among them wherever a loopback interface is up, and Check reads it
// for a name alone.
func TestOwnReadsThisMachine(t *testing.T) {
	own, err := ownAddrs()
	if err != nil {
		t.Fatalf("ownAddrs: %v", err)
	}
	if !slices.ContainsFunc(own, netip.Addr.IsLoopback) {
		t.Skipf("no loopback address among this machine's %v: nothing to compare with", own)
	}
	// A name behind an address of this machine's is refused by Check,
	// and the same address granted by itself is reached.
	if _, err := Check("tcp", "api.example.com", 443, own); codes.CodeOf(err) != codes.E335 {
		t.Errorf("Check(a name, %v) = %v; want E335", own, err)
	}
	got, err := Check("tcp", own[0].String(), 443, nil)
	if err != nil || len(got) != 1 || got[0] != own[0] {
		t.Errorf("Check(%s) = %v, %v; want the address itself", own[0], got, err)
	}
}

// TestCheckRefusesWhereOwnCannotBeRead: where this machine's addresses
// cannot be read, a name's public address is refused (E335), since it
// could be one of them; the controls: the same address granted by itself
// is reached, localhost reaches its loopback address, and the same name
// is reached once the addresses are read and hold none of its.
func TestCheckRefusesWhereOwnCannotBeRead(t *testing.T) {
	public := addrs("93.184.215.14")
	t.Cleanup(func() { interfaceAddrs = net.InterfaceAddrs })
	interfaceAddrs = func() ([]net.Addr, error) {
		return nil, errors.New("netlink: a refusal of the test's")
	}
	if got, err := Check("tcp", "api.example.com", 443, public); codes.CodeOf(err) != codes.E335 {
		t.Errorf("Check(a name) with no addresses read = %v, %v; want E335", got, err)
	}
	if got, err := Check("tcp", "93.184.215.14", 443, nil); err != nil || len(got) != 1 {
		t.Errorf("Check(the address itself) = %v, %v; want it", got, err)
	}
	if got, err := Check("tcp", "localhost", 443, addrs("127.0.0.1")); err != nil || len(got) != 1 {
		t.Errorf("Check(localhost) = %v, %v; want 127.0.0.1", got, err)
	}
	interfaceAddrs = func() ([]net.Addr, error) {
		return []net.Addr{&net.IPNet{IP: net.ParseIP("192.0.2.7"), Mask: net.CIDRMask(24, 32)}}, nil
	}
	if got, err := Check("tcp", "api.example.com", 443, public); err != nil || len(got) != 1 {
		t.Errorf("Check(a name) with the addresses read = %v, %v; want its address", got, err)
	}
}
