package lang

import (
	"errors"
	"net"
	"syscall"
	"testing"
)

// TestHeldDialer: the dialer of a connection to a name calls the route's
// check (reach.Control) before it connects, after a Control of its own,
// and a refusal of either is the dial's; the control: with no check, or
// one that passes, the connection is made.
func TestHeldDialer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	refused, ownRefused := errors.New("routed here"), errors.New("its own")
	pass := func(string, string, syscall.RawConn) error { return nil }
	refuse := func(string, string, syscall.RawConn) error { return refused }
	for _, tt := range []struct {
		name      string
		own, held func(string, string, syscall.RawConn) error
		want      error
	}{
		{name: "no check", held: nil},
		{name: "a check that passes", own: pass, held: pass},
		{name: "the check refuses", held: refuse, want: refused},
		{name: "its own refuses first", own: func(string, string, syscall.RawConn) error {
			return ownRefused
		}, held: refuse, want: ownRefused},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := heldDialer(net.Dialer{Control: tt.own}, tt.held)
			c, err := d.Dial("tcp", l.Addr().String())
			if err == nil {
				c.Close()
			}
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("Dial = %v; want %v", err, tt.want)
			}
		})
	}
}
