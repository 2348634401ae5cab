package broker

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/receipt"
)

// channel is both ends of a broker channel in this process: the broker
// and the client a worker would hold. Names resolve through hosts.
func channel(t *testing.T, hosts map[string][]netip.Addr) (*Broker, *Client) {
	t.Helper()
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		if a, ok := hosts[host]; ok {
			return a, nil
		}
		return nil, errors.New("no such host")
	}
	theirs, b, err := Pair(lookup)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	c, err := NewClient(theirs)
	if err != nil {
		t.Fatal(err)
	}
	return b, c
}

// begin starts a run of b under the budget text.
func begin(b *Broker, text string) {
	bud := budget.MustParse("/", text)
	b.Begin(GrantsOf(bud, core.OSPolicy(bud, core.Options{})))
}

// listener is a loopback TCP listener the test started, and its port.
func listener(t *testing.T) (net.Listener, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// nothingArrived fails unless l has no connection waiting: a connection
// the broker made would be in l's queue before Dial returned.
func nothingArrived(t *testing.T, l net.Listener) {
	t.Helper()
	_ = l.(*net.TCPListener).SetDeadline(time.Now())
	defer l.(*net.TCPListener).SetDeadline(time.Time{})
	if c, err := l.Accept(); err == nil {
		c.Close()
		t.Fatal("the listener got a connection the broker should not have made")
	}
}

// bounded is the longest a test waits for a peer to see what it should:
// past it, what the peer waits for is not coming.
const bounded = time.Minute

// readEnd fails unless peer sees the end of the stream within bounded.
func readEnd(t *testing.T, peer net.Conn, after string) {
	t.Helper()
	_ = peer.SetReadDeadline(time.Now().Add(bounded))
	buf := make([]byte, 1)
	if n, err := peer.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("%s the peer read %d bytes, %v; want the end of the stream", after, n, err)
	}
}

// connects fails unless c connects over TCP to address, which l accepts.
func connects(t *testing.T, c *Client, l net.Listener, address string) {
	t.Helper()
	conn, err := dial(c, "tcp", address)
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	peer, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	peer.Close()
}

func dial(c *Client, network, address string) (net.Conn, error) {
	return c.Dial(context.Background(), network, address)
}

func TestBrokerConnects(t *testing.T) {
	b, c := channel(t, map[string][]netip.Addr{"localhost": addrs("127.0.0.1")})
	l, port := listener(t)
	begin(b, "io,net:localhost:"+port)
	conn, err := dial(c, "tcp", "localhost:"+port)
	if err != nil {
		t.Fatal(err)
	}
	peer, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	if _, err := io.WriteString(conn, "hello\n"); err != nil {
		t.Fatal(err)
	}
	_ = peer.SetReadDeadline(time.Now().Add(bounded))
	line, err := bufio.NewReader(peer).ReadString('\n')
	if err != nil || line != "hello\n" {
		t.Fatalf("the peer read %q, %v", line, err)
	}
	if _, err := io.WriteString(peer, "answer"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != "answer" {
		t.Fatalf("read %q, %v", buf, err)
	}
	// The supervisor still holds the socket: the close must still reach
	// the peer.
	conn.Close()
	readEnd(t, peer, "after the close")
	peer.Close()
	list, unlisted := b.End()
	if len(list) != 1 || unlisted != 0 {
		t.Fatalf("End = %+v, %d; want one connection", list, unlisted)
	}
	got := list[0]
	if got.Network != TCP || got.Host != "localhost" || got.Grant != "net:localhost:"+port ||
		got.Address != "127.0.0.1:"+port || got.Code != "" {
		t.Errorf("connection = %+v", got)
	}
	if got.SentBytes == nil || *got.SentBytes != 6 || got.ReceivedBytes == nil || *got.ReceivedBytes != 6 {
		t.Errorf("bytes sent %v, received %v; want 6 and 6", deref(got.SentBytes),
			deref(got.ReceivedBytes))
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestBrokerRefuses(t *testing.T) {
	b, c := channel(t, map[string][]netip.Addr{
		"localhost":       addrs("127.0.0.1"),
		"api.example.com": addrs("127.0.0.1"), // a rebinding: a public name on loopback
	})
	l, port := listener(t)
	other, otherPort := listener(t)
	cases := []struct {
		name     string
		budget   string
		network  string
		address  string
		wantCode codes.Code
	}{
		{name: "another port", budget: "io,net:localhost:" + port, network: "tcp",
			address: "localhost:" + otherPort, wantCode: codes.E302},
		{name: "another host", budget: "io,net:localhost:" + port, network: "tcp",
			address: "127.0.0.1:" + port, wantCode: codes.E302},
		{name: "UDP under a TCP grant", budget: "io,net:localhost:" + port, network: "udp",
			address: "localhost:" + port, wantCode: codes.E302},
		{name: "a public name on loopback", budget: "io,net:api.example.com:" + port, network: "tcp",
			address: "api.example.com:" + port, wantCode: codes.E335},
		{name: "a name that does not resolve", budget: "io,net:nowhere.example:" + port,
			network: "tcp", address: "nowhere.example:" + port, wantCode: codes.E315},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			begin(b, tc.budget)
			conn, err := dial(c, tc.network, tc.address)
			if err == nil {
				conn.Close()
			}
			if codes.CodeOf(err) != tc.wantCode {
				t.Fatalf("Dial = %v; want %s", err, tc.wantCode)
			}
			nothingArrived(t, l)
			nothingArrived(t, other)
			list, _ := b.End()
			if len(list) != 1 || list[0].Code != tc.wantCode || list[0].Refused == "" ||
				list[0].Address != "" {
				t.Fatalf("End = %+v; want the refusal listed with its code and why", list)
			}
		})
	}
	// The positive control: the same channel connects where the grant
	// says, after all those refusals.
	begin(b, "io,net:localhost:"+port)
	connects(t, c, l, "localhost:"+port)
	b.End()
}

func TestBrokerCountsTheGrant(t *testing.T) {
	b, c := channel(t, nil)
	l, port := listener(t)
	begin(b, "io,net:127.0.0.1:"+port+"@1")
	connects(t, c, l, "127.0.0.1:"+port)
	if _, err := dial(c, "tcp", "127.0.0.1:"+port); codes.CodeOf(err) != codes.E303 {
		t.Fatalf("the second connection under @1: %v; want E303", err)
	}
	nothingArrived(t, l)
	list, _ := b.End()
	if len(list) != 2 || list[0].Grant != "net:127.0.0.1:"+port+"@1" || list[1].Code != codes.E303 {
		t.Fatalf("End = %+v", list)
	}
	// A new run counts afresh.
	begin(b, "io,net:127.0.0.1:"+port+"@1")
	connects(t, c, l, "127.0.0.1:"+port)
	b.End()
}

func TestBrokerEndShutsDown(t *testing.T) {
	b, c := channel(t, nil)
	l, port := listener(t)
	begin(b, "io,net:127.0.0.1:"+port)
	conn, err := dial(c, "tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close() // the run's worker keeps it: the end of the run must end it
	peer, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	b.End()
	readEnd(t, peer, "after the run ended")
	if _, err := conn.Write([]byte("late")); err == nil {
		t.Fatal("the worker wrote on a connection of a run that had ended")
	}
}

// smallWindowConn begins a run of b granted one loopback port, and
// returns the connection its client dialled through the broker and the
// peer's end of it, whose receive buffer is a few KiB: the peer's window
// holds back nearly all of what the run writes until the peer reads.
// Both are closed when t ends.
func smallWindowConn(t *testing.T, b *Broker, c *Client) (conn, peer net.Conn) {
	t.Helper()
	lc := net.ListenConfig{Control: func(_, _ string, rc syscall.RawConn) error {
		var err error
		if cerr := rc.Control(func(fd uintptr) {
			err = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF, 4096)
		}); cerr != nil {
			return cerr
		}
		return err
	}}
	l, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	begin(b, "io,net:127.0.0.1:"+port)
	if conn, err = dial(c, "tcp", "127.0.0.1:"+port); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if peer, err = l.Accept(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { peer.Close() })
	return conn, peer
}

// TestBrokerCountsWhatIsQueued: the bytes a run wrote to a peer that
// had read none of them when the run ended are the kernel's to send
// after it, once the peer reads: the receipt counts them as sent, as
// many as the peer then reads, not only the few the peer's small window
// had let out, whether the run left the connection open or closed it
// (its FIN queued behind them). The control: a peer that reads as the
// bytes come, before the run ends.
func TestBrokerCountsWhatIsQueued(t *testing.T) {
	const size = 256 << 10
	payload := bytes.Repeat([]byte("q"), size)
	for _, tc := range []struct{ readsFirst, closes bool }{{false, false}, {false, true}, {true, false}} {
		readsFirst := tc.readsFirst
		t.Run(fmt.Sprintf("the peer reads before the end %v, the run closes %v", readsFirst,
			tc.closes), func(t *testing.T) {
			b, c := channel(t, nil)
			conn, peer := smallWindowConn(t, b, c)
			_ = peer.SetReadDeadline(time.Now().Add(bounded))
			var read []byte
			done := make(chan error, 1)
			if readsFirst {
				go func() {
					buf := make([]byte, size)
					_, err := io.ReadFull(peer, buf)
					read = buf
					done <- err
				}()
			}
			_ = conn.SetWriteDeadline(time.Now().Add(bounded))
			if _, err := conn.Write(payload); err != nil {
				t.Fatalf("the run's write of %d bytes: %v", size, err)
			}
			if readsFirst {
				if err := <-done; err != nil {
					t.Fatalf("the peer read: %v", err)
				}
			}
			if tc.closes {
				conn.Close()
			}
			list, _ := b.End()
			if !readsFirst {
				var err error
				if read, err = io.ReadAll(peer); err != nil {
					t.Fatalf("the peer, after the run ended, read %d bytes: %v", len(read), err)
				}
			}
			if len(read) != size {
				t.Fatalf("the peer read %d bytes; the run wrote %d", len(read), size)
			}
			if len(list) != 1 || list[0].SentBytes == nil || *list[0].SentBytes != size {
				var sent any
				if len(list) == 1 {
					sent = deref(list[0].SentBytes)
				}
				t.Fatalf("the receipt counts %v bytes sent; the peer read %d", sent, len(read))
			}
		})
	}
}

func TestBrokerUDP(t *testing.T) {
	b, c := channel(t, nil)
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	port := strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port)
	begin(b, "io,net:udp:127.0.0.1:"+port)
	conn, err := dial(c, "udp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("datagram")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	_ = pc.SetReadDeadline(time.Now().Add(30 * time.Second))
	n, from, err := pc.ReadFrom(buf)
	if err != nil || string(buf[:n]) != "datagram" {
		t.Fatalf("the listener read %q, %v", buf[:n], err)
	}
	if _, err := pc.WriteTo([]byte("back"), from); err != nil {
		t.Fatal(err)
	}
	if n, err := conn.Read(buf); err != nil || string(buf[:n]) != "back" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	list, _ := b.End()
	if len(list) != 1 || list[0].Network != UDP || list[0].SentBytes != nil {
		t.Fatalf("End = %+v; want one UDP connection with no byte count", list)
	}
}

func TestBrokerBetweenRuns(t *testing.T) {
	b, c := channel(t, nil)
	l, port := listener(t)
	if _, err := dial(c, "tcp", "127.0.0.1:"+port); codes.CodeOf(err) != codes.E335 {
		t.Fatalf("a request with no run under way: %v; want E335", err)
	}
	nothingArrived(t, l)
	if list, _ := b.End(); list != nil {
		t.Fatalf("End with no run = %+v", list)
	}
}

func TestBrokerMalformedRequest(t *testing.T) {
	theirs, b, err := Pair(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	defer theirs.Close()
	begin(b, "io,net")
	if _, err := theirs.Write([]byte(`{"id":9,"network":"tcp","host":"a b","port":1}`)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, MaxMessageBytes)
	n, err := theirs.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ParseReply(buf[:n])
	if err != nil || rep.ID != 9 || rep.Code != codes.E335 {
		t.Fatalf("reply %+v, %v; want E335 to request 9", rep, err)
	}
	list, _ := b.End()
	if len(list) != 1 || list[0].Code != codes.E335 {
		t.Fatalf("End = %+v", list)
	}
}

func TestBrokerHoldsAtMostMaxOpen(t *testing.T) {
	b, c := channel(t, nil)
	l, port := listener(t)
	go func() { // accept and hold every connection until the listener closes
		var held []net.Conn
		defer func() {
			for _, h := range held {
				h.Close()
			}
		}()
		for {
			p, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, p)
		}
	}()
	begin(b, "io,net:127.0.0.1:"+port)
	var open []net.Conn
	for range MaxOpen {
		conn, err := dial(c, "tcp", "127.0.0.1:"+port)
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, conn)
	}
	if _, err := dial(c, "tcp", "127.0.0.1:"+port); codes.CodeOf(err) != codes.E335 {
		t.Fatalf("connection %d: %v; want E335", MaxOpen+1, err)
	}
	c.CloseAll()
	for _, conn := range open {
		if _, err := conn.Write([]byte("x")); err == nil {
			t.Fatal("a connection CloseAll closed still writes")
		}
	}
	// Those the worker closed are let go: it may open as many again.
	for range MaxOpen {
		conn, err := dial(c, "tcp", "127.0.0.1:"+port)
		if err != nil {
			t.Fatalf("once the others were closed: %v", err)
		}
		conn.Close()
	}
	// Listed: the first half of a receipt's rows, all to one place, and
	// the refusal, a place of its own.
	list, unlisted := b.End()
	if want := receipt.MaxConnectionsListed/2 + 1; len(list) != want ||
		len(list)+unlisted != 2*MaxOpen+1 {
		t.Fatalf("End listed %d and counted %d more; want %d in all, %d listed", len(list),
			unlisted, 2*MaxOpen+1, want)
	}
	for i, conn := range list {
		if refusal := i == len(list)-1; conn.SentBytes == nil != refusal ||
			(conn.Code == codes.E335) != refusal {
			t.Fatalf("connection %d: %+v; want one made, its bytes counted, but the last, refused",
				i, conn)
		}
	}
}

// TestBrokerListBound: a run's list holds at most
// receipt.MaxConnectionsListed rows, the rest counted; past half of it, a
// row only for a destination not listed yet.
func TestBrokerListBound(t *testing.T) {
	const half = receipt.MaxConnectionsListed / 2
	tests := []struct {
		name         string
		rows         []receipt.Connection
		wantListed   int
		wantUnlisted int
		wantLast     receipt.Connection // the last row listed
	}{
		{name: "each to a port of its own", rows: ports(1, receipt.MaxConnectionsListed+3),
			wantListed: receipt.MaxConnectionsListed, wantUnlisted: 3,
			wantLast: receipt.Connection{Port: receipt.MaxConnectionsListed}},
		{name: "one port, then another", rows: append(same(7, 2*receipt.MaxConnectionsListed),
			receipt.Connection{Port: 8}), wantListed: half + 1,
			wantUnlisted: 2*receipt.MaxConnectionsListed - half, wantLast: receipt.Connection{Port: 8}},
		{name: "one port, then its refusal", rows: append(same(7, half+1),
			receipt.Connection{Port: 7, Code: codes.E335}), wantListed: half + 1, wantUnlisted: 1,
			wantLast: receipt.Connection{Port: 7, Code: codes.E335}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &runState{}
			for _, row := range tt.rows {
				r.add(row)
			}
			if len(r.list) != tt.wantListed || r.unlisted != tt.wantUnlisted {
				t.Fatalf("listed %d, unlisted %d; want %d and %d", len(r.list), r.unlisted,
					tt.wantListed, tt.wantUnlisted)
			}
			if last := r.list[len(r.list)-1]; last != tt.wantLast {
				t.Errorf("the last row listed %+v, want %+v", last, tt.wantLast)
			}
		})
	}
}

// ports is a row to each port from first to last.
func ports(first, last int) []receipt.Connection {
	var rows []receipt.Connection
	for p := first; p <= last; p++ {
		rows = append(rows, receipt.Connection{Port: p})
	}
	return rows
}

// same is n rows to one port.
func same(port, n int) []receipt.Connection {
	return slices.Repeat([]receipt.Connection{{Port: port}}, n)
}

// TestBrokerListsAPlaceAfterADecoy: a run that connects to one port
// twice as many times as a receipt lists rows, then to another, leaves
// the other listed: the receipt names both places, each connection made.
func TestBrokerListsAPlaceAfterADecoy(t *testing.T) {
	b, c := channel(t, nil)
	_, decoy := listener(t)
	_, other := listener(t)
	begin(b, "io,net:127.0.0.1")
	for range 2 * receipt.MaxConnectionsListed {
		conn, err := dial(c, "tcp", "127.0.0.1:"+decoy)
		if err != nil {
			t.Fatal(err)
		}
		conn.Close()
	}
	conn, err := dial(c, "tcp", "127.0.0.1:"+other)
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	list, unlisted := b.End()
	var places []string
	for _, row := range list {
		if row.Code != "" {
			t.Fatalf("row %+v refused; want each connection made", row)
		}
		if !slices.Contains(places, row.Destination()) {
			places = append(places, row.Destination())
		}
	}
	want := []string{"tcp 127.0.0.1:" + decoy, "tcp 127.0.0.1:" + other}
	if !slices.Equal(places, want) || len(list)+unlisted != 2*receipt.MaxConnectionsListed+1 {
		t.Fatalf("listed %d rows to %q and %d more; want %d in all, to %q", len(list), places,
			unlisted, 2*receipt.MaxConnectionsListed+1, want)
	}
}

// tcpInfo is the kernel's TCP_INFO of c, a connection the broker handed.
func tcpInfo(t *testing.T, c net.Conn) *unix.TCPInfo {
	t.Helper()
	rc, err := c.(*handed).Conn.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var info *unix.TCPInfo
	if cerr := rc.Control(func(fd uintptr) {
		info, err = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
	}); cerr != nil {
		t.Fatal(cerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// TestBrokerCountsNothingAResetDropped: a peer that resets the
// connection (it closes with the run's bytes unread) ends it: what the
// kernel still held to send is dropped, never to reach the peer, and the
// receipt counts as sent only what the kernel had sent, as TCP_INFO said
// once the reset came. Counted with what was queued, the receipt said
// the whole 256 KiB the run wrote had gone. The control: the same peer
// reading all before the run ends (TestBrokerCountsWhatIsQueued).
func TestBrokerCountsNothingAResetDropped(t *testing.T) {
	const size = 256 << 10
	b, c := channel(t, nil)
	conn, peer := smallWindowConn(t, b, c)
	_ = conn.SetWriteDeadline(time.Now().Add(bounded))
	if _, err := conn.Write(bytes.Repeat([]byte("r"), size)); err != nil {
		t.Fatalf("the run's write of %d bytes: %v", size, err)
	}
	if err := peer.(*net.TCPConn).SetLinger(0); err != nil {
		t.Fatal(err)
	}
	peer.Close() // a reset, the run's bytes unread
	var info *unix.TCPInfo
	for deadline := time.Now().Add(bounded); ; time.Sleep(time.Millisecond) {
		if info = tcpInfo(t, conn); info.State == tcpClose {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run's connection in state %d a minute after the peer's reset", info.State)
		}
	}
	sent := int64(info.Bytes_sent - info.Bytes_retrans)
	if sent >= size {
		t.Fatalf("the kernel sent %d bytes before the reset; the test wants it to hold some back",
			sent)
	}
	list, _ := b.End()
	if len(list) != 1 || list[0].SentBytes == nil || *list[0].SentBytes != sent {
		var got any
		if len(list) == 1 {
			got = deref(list[0].SentBytes)
		}
		t.Fatalf("the receipt counts %v bytes sent; the kernel sent %d before the peer reset "+
			"the connection, and dropped the rest", got, sent)
	}
}
