package broker

import (
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/codes"
)

// rawChannel is a broker channel whose worker's end the test writes to
// as a worker's program making raw calls would, with no Client.
func rawChannel(t *testing.T) (*Broker, *net.UnixConn) {
	t.Helper()
	b, w := unservedChannel(t)
	go b.serve()
	return b, w
}

// unservedChannel is rawChannel before its broker reads any request:
// the test starts b.serve when it will.
func unservedChannel(t *testing.T) (*Broker, *net.UnixConn) {
	t.Helper()
	theirs, b, err := unserved(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	fc, err := net.FileConn(theirs)
	theirs.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fc.Close() })
	return b, fc.(*net.UnixConn)
}

// ask writes the request text on the worker's end w and returns the
// reply that comes within bounded, with the descriptor it carries (-1
// for none), which is closed when t ends.
func ask(t *testing.T, w *net.UnixConn, text string) (Reply, int) {
	t.Helper()
	if _, _, err := w.WriteMsgUnix([]byte(text), nil, nil); err != nil {
		t.Fatal(err)
	}
	return replied(t, w)
}

// replied is the next reply on w, as ask returns it.
func replied(t *testing.T, w *net.UnixConn) (Reply, int) {
	t.Helper()
	_ = w.SetReadDeadline(time.Now().Add(bounded))
	buf, oob := make([]byte, MaxMessageBytes+1), make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := w.ReadMsgUnix(buf, oob)
	if err != nil {
		t.Fatalf("no reply: %v", err)
	}
	rep, err := ParseReply(buf[:n])
	if err != nil {
		t.Fatal(err)
	}
	fd := -1
	if fds := rights(oob[:oobn]); len(fds) == 1 {
		fd = fds[0]
		t.Cleanup(func() { unix.Close(fd) })
	}
	return rep, fd
}

// TestBrokerEmptyRequest: an empty message on the channel is a
// malformed request, refused (E335), and the broker goes on answering.
// It took it for the channel's end: it stopped reading, and every later
// request of the worker went unanswered. The control: the next request
// is answered, its connection made.
func TestBrokerEmptyRequest(t *testing.T) {
	b, w := rawChannel(t)
	l, port := listener(t)
	begin(b, "io,net:127.0.0.1:"+port)
	if rep, fd := ask(t, w, ""); rep.Code != codes.E335 || fd >= 0 {
		t.Fatalf("the empty request: %+v with descriptor %d; want E335 and none", rep, fd)
	}
	rep, fd := ask(t, w, `{"id":2,"network":"tcp","host":"127.0.0.1","port":`+port+`}`)
	if rep.ID != 2 || rep.Code != "" || fd < 0 {
		t.Fatalf("the request after it: %+v with descriptor %d; want a connection", rep, fd)
	}
	peer, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	peer.Close()
	if list, _ := b.End(); len(list) != 2 || list[0].Code != codes.E335 || list[1].Code != "" {
		t.Fatalf("End = %+v; want the refusal, then the connection", list)
	}
}

// TestBrokerRequestOfAnEndedRun: a request a worker sent during one run
// and the broker had not read when the run ended is refused as that
// run's (E335, in its list), never answered under the grants of the run
// that begins next in the same worker. It was: the broker read it once
// the next run had begun, made the connection that run's grant admits,
// counted it against that grant and listed it in that run's receipt.
// The broker reads nothing until the next run has begun (its reading
// is started then): on one processor, the test had it so as a rule, and
// a loaded machine's scheduler let it read the request before the run
// ended, under that run's grants (E302), in 385 of 10,000. The control:
// the same request sent during the next run connects.
func TestBrokerRequestOfAnEndedRun(t *testing.T) {
	b, w := unservedChannel(t)
	l, port := listener(t)
	req := `{"id":1,"network":"tcp","host":"127.0.0.1","port":` + port + `}`
	begin(b, "io,net:udp:127.0.0.1:1") // nothing of l's
	if _, _, err := w.WriteMsgUnix([]byte(req), nil, nil); err != nil {
		t.Fatal(err)
	}
	ended, _ := b.End()
	begin(b, "io,net:127.0.0.1:"+port+"@1")
	go b.serve()
	rep, fd := replied(t, w)
	if rep.ID != 1 || rep.Code != codes.E335 || fd >= 0 {
		t.Fatalf("the request of the run that ended: %+v with descriptor %d; want E335", rep, fd)
	}
	nothingArrived(t, l)
	if len(ended) != 1 || ended[0].Code != codes.E335 ||
		ended[0].Port != l.Addr().(*net.TCPAddr).Port {
		t.Fatalf("the ended run's list %+v; want its request, refused", ended)
	}
	rep, fd = ask(t, w, `{"id":2,"network":"tcp","host":"127.0.0.1","port":`+port+`}`)
	if rep.ID != 2 || rep.Code != "" || fd < 0 {
		t.Fatalf("the same request in the next run: %+v with descriptor %d; want a connection",
			rep, fd)
	}
	peer, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	peer.Close()
	if list, _ := b.End(); len(list) != 1 || list[0].Code != "" {
		t.Fatalf("the next run's list %+v; want its own connection alone", list)
	}
}
