package broker

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
)

func TestParseRequest(t *testing.T) {
	long := strings.Repeat("a", 254)
	cases := []struct {
		name    string
		in      string
		want    Request
		wantErr string
	}{
		{name: "tcp", in: `{"id":1,"network":"tcp","host":"localhost","port":8080}`,
			want: Request{ID: 1, Network: TCP, Host: "localhost", Port: 8080}},
		{name: "udp to an IPv6 address", in: `{"id":2,"network":"udp","host":"[::1]","port":514}`,
			want: Request{ID: 2, Network: UDP, Host: "[::1]", Port: 514}},
		{name: "unknown network", in: `{"id":1,"network":"unix","host":"x","port":1}`,
			wantErr: `network "unix"`},
		{name: "unknown field", in: `{"id":1,"network":"tcp","host":"x","port":1,"fd":3}`,
			wantErr: "unknown field"},
		{name: "no host", in: `{"id":1,"network":"tcp","host":"","port":1}`, wantErr: "a host of 0 bytes"},
		{name: "host too long", in: `{"id":1,"network":"tcp","host":"` + long + `","port":1}`,
			wantErr: "a host of 254 bytes"},
		{name: "a host with a slash", in: `{"id":1,"network":"tcp","host":"a/b","port":1}`,
			wantErr: "a slash"},
		{name: "a host with a newline", in: `{"id":1,"network":"tcp","host":"a\nb","port":1}`,
			wantErr: "control character"},
		{name: "a host with a C1 control, a terminal's CSI",
			in: `{"id":1,"network":"tcp","host":"a\u009b31mb","port":1}`, wantErr: "control"},
		{name: "a host with a next line (U+0085)",
			in: `{"id":1,"network":"tcp","host":"a\u0085b","port":1}`, wantErr: "control"},
		{name: "a host with a right-to-left override",
			in: `{"id":1,"network":"tcp","host":"x\u202egro.elpmaxe","port":1}`, wantErr: "format"},
		{name: "a host with a no-break space",
			in: `{"id":1,"network":"tcp","host":"a\u00a0b","port":1}`, wantErr: "blank"},
		{name: "a host in another script (the control)",
			in:   `{"id":3,"network":"tcp","host":"bücher.example","port":443}`,
			want: Request{ID: 3, Network: TCP, Host: "bücher.example", Port: 443}},
		{name: "port 0", in: `{"id":1,"network":"tcp","host":"x","port":0}`, wantErr: "port 0"},
		{name: "port past 65535", in: `{"id":1,"network":"tcp","host":"x","port":65536}`,
			wantErr: "port 65536"},
		{name: "two objects", in: `{"id":1,"network":"tcp","host":"x","port":1}{}`,
			wantErr: "more after the object"},
		{name: "a brace after it", in: `{"id":1,"network":"tcp","host":"x","port":1}}`,
			wantErr: "more after the object"},
		{name: "white space after it", in: `{"id":1,"network":"tcp","host":"x","port":1}` + " \n",
			want: Request{ID: 1, Network: TCP, Host: "x", Port: 1}},
		{name: "too long", in: `{"id":1,"network":"tcp","host":"x","port":1}` +
			strings.Repeat(" ", MaxMessageBytes), wantErr: "more than 1024"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseRequest([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseRequest = %+v, %v; want an error with %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseRequest = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// FuzzParseRequest holds ParseRequest, which reads what a worker wrote,
// to its promises on any bytes: it returns, and what it accepts is one
// JSON value, a request it would accept again, within its bounds.
func FuzzParseRequest(f *testing.F) {
	f.Add([]byte(`{"id":1,"network":"tcp","host":"localhost","port":8080}`))
	f.Add([]byte(`{"id":18446744073709551615,"network":"udp","host":"[::1]","port":65535}`))
	f.Add([]byte(`{"network":"tcp","host":"\u0000","port":1}`))
	f.Add([]byte(`{"id":1,"network":"tcp","host":"x","port":1}}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseRequest(b)
		if err != nil {
			return
		}
		if len(b) > MaxMessageBytes || !json.Valid(b) || r.Port < 1 || r.Port > 65535 ||
			len(r.Host) > 253 || (r.Network != TCP && r.Network != UDP) {
			t.Fatalf("accepted %q as %+v", b, r)
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := ParseRequest(again); err != nil || back != r {
			t.Fatalf("%+v does not read back: %+v, %v", r, back, err)
		}
	})
}

// FuzzParseReply holds ParseReply, which reads the supervisor's answers,
// to its bounds and its codes: what it accepts is one JSON value.
func FuzzParseReply(f *testing.F) {
	f.Add([]byte(`{"id":1,"address":"127.0.0.1:8080"}`))
	f.Add([]byte(`{"id":1,"code":"E335","message":"no"}`))
	f.Add([]byte(`{"id":1,"code":"E999"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseReply(b)
		if err != nil {
			return
		}
		if len(b) > MaxMessageBytes || !json.Valid(b) {
			t.Fatalf("accepted %q", b)
		}
		if _, ok := codes.Info(r.Code); r.Code != "" && !ok {
			t.Fatalf("accepted the code %q", r.Code)
		}
	})
}

func TestReplyEncodeFits(t *testing.T) {
	r := Reply{ID: 7, Code: codes.E315, Message: strings.Repeat("é", MaxMessageBytes)}
	b := r.encode()
	if len(b) > MaxMessageBytes {
		t.Fatalf("an encoded reply of %d bytes, more than %d", len(b), MaxMessageBytes)
	}
	back, err := ParseReply(b)
	if err != nil || back.ID != 7 || back.Code != codes.E315 || back.Message == "" {
		t.Fatalf("ParseReply(encode) = %+v, %v", back, err)
	}
	if short := (Reply{ID: 1, Message: "ok"}).encode(); !bytes.Contains(short, []byte(`"ok"`)) {
		t.Fatalf("a short reply was cut: %s", short)
	}
}

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
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Reachable(tc.host, tc.addrs)
			if tc.wantCode != "" {
				if codes.CodeOf(err) != tc.wantCode {
					t.Fatalf("Reachable = %v, %v; want %s", got, err, tc.wantCode)
				}
				return
			}
			if err != nil || len(got) != len(tc.want) {
				t.Fatalf("Reachable = %v, %v; want %v", got, err, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("Reachable = %v; want %v", got, tc.want)
				}
			}
		})
	}
}

func TestReachableSaysWhatToGrant(t *testing.T) {
	_, err := Reachable("db.example.com", addrs("10.0.0.2", "fd00::1"))
	for _, want := range []string{"10.0.0.2 and fd00::1", "grant the address itself, as net:10.0.0.2"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v; want it to say %q", err, want)
		}
	}
}

func TestAdmission(t *testing.T) {
	b := budget.MustParse("/", "io,net:localhost:8080@2,net:udp:10.0.0.2:514")
	a := newAdmission(GrantsOf(b, core.OSPolicy(b, core.Options{})))
	cases := []struct {
		name      string
		req       Request
		wantGrant string
		wantNamed bool
		wantCode  codes.Code
	}{
		{name: "granted, first use", req: Request{Network: TCP, Host: "localhost", Port: 8080},
			wantGrant: "net:localhost:8080@2", wantNamed: true},
		{name: "granted, second use", req: Request{Network: TCP, Host: "LOCALHOST", Port: 8080},
			wantGrant: "net:localhost:8080@2", wantNamed: true},
		{name: "the count is used up", req: Request{Network: TCP, Host: "localhost", Port: 8080},
			wantCode: codes.E303},
		{name: "another port", req: Request{Network: TCP, Host: "localhost", Port: 8081},
			wantCode: codes.E302},
		{name: "a UDP grant is not a TCP one", req: Request{Network: TCP, Host: "10.0.0.2", Port: 514},
			wantCode: codes.E302},
		{name: "the UDP grant", req: Request{Network: UDP, Host: "10.0.0.2", Port: 514},
			wantGrant: "net:udp:10.0.0.2:514", wantNamed: true},
	}
	for _, tc := range cases {
		grant, named, err := a.admit(tc.req)
		if codes.CodeOf(err) != tc.wantCode || grant != tc.wantGrant || named != tc.wantNamed {
			t.Errorf("%s: admit = %q, %v, %v; want %q, %v, %s", tc.name, grant, named, err,
				tc.wantGrant, tc.wantNamed, tc.wantCode)
		}
	}
}

func TestAdmissionUnderWidening(t *testing.T) {
	cases := []struct {
		name      string
		budget    string
		req       Request
		wantGrant string
		wantNamed bool
		wantCode  codes.Code
	}{
		{name: "a module that reaches any host makes its own TCP connections",
			budget: "io,ffi:socket", req: Request{Network: TCP, Host: "example.org", Port: 443}},
		{name: "but no datagram", budget: "io,ffi:socket",
			req: Request{Network: UDP, Host: "example.org", Port: 53}, wantCode: codes.E302},
		{name: "a grant of any host reaches any address", budget: "io,net",
			req: Request{Network: TCP, Host: "example.org", Port: 443}, wantGrant: "net"},
		{name: "without the module, no grant", budget: "io,ffi:json",
			req: Request{Network: TCP, Host: "example.org", Port: 443}, wantCode: codes.E302},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := budget.MustParse("/", tc.budget)
			a := newAdmission(GrantsOf(b, core.OSPolicy(b, core.Options{})))
			grant, named, err := a.admit(tc.req)
			if codes.CodeOf(err) != tc.wantCode || grant != tc.wantGrant || named != tc.wantNamed {
				t.Errorf("admit = %q, %v, %v; want %q, %v, %s", grant, named, err, tc.wantGrant,
					tc.wantNamed, tc.wantCode)
			}
		})
	}
}
