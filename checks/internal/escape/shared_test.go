package escape

import (
	"net"
	"testing"
)

// TestSharedMarkerSentAgain: a marker that never reaches the receiver (a
// datagram dropped from a full buffer, or led by its source port to a
// socket a stray of the run still holds) is sent again from the next
// sender, and the count is read as soon as a copy arrives. Before, the
// one marker lost, the harness waited out its bound and failed the run:
// "the receiver did not read the marker". The control: a receiver that
// missed a datagram is told so.
func TestSharedMarkerSentAgain(t *testing.T) {
	sp, err := startShared()
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	sp.stopOnce.Do(func() { close(sp.stop) }) // no datagrams but those the test sends
	// The first sender leads nowhere: a port no socket holds.
	sink, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lost, err := net.Dial("udp4", sink.LocalAddr().String())
	sink.Close()
	if err != nil {
		t.Fatal(err)
	}
	sp.mu.Lock()
	sp.senders[0].Close()
	sp.senders[0] = lost
	sp.mu.Unlock()
	if n, err := sp.missed(); err != nil || n != 0 {
		t.Fatalf("missed() = %d, %v; want 0, nil", n, err)
	}
	// The control: one datagram counted as sent that the receiver never
	// read is missed.
	sp.mu.Lock()
	sp.sent++
	sp.mu.Unlock()
	if n, err := sp.missed(); err != nil || n != 1 {
		t.Fatalf("with one datagram lost, missed() = %d, %v; want 1, nil", n, err)
	}
}
