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
