package door

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// receiptOfSize is a receipt of n bytes: none when n is 0 (an empty,
// non-nil RawMessage), else a JSON value of n bytes.
func receiptOfSize(n int) json.RawMessage {
	switch {
	case n == 0:
		return json.RawMessage{}
	case n == 1:
		return json.RawMessage(`1`)
	}
	return json.RawMessage(`"` + strings.Repeat("x", n-2) + `"`)
}

// TestLedgerReceiptBytes: the ledger keeps a receipt of up to
// maxLedgerRecord bytes, none larger, and an empty one is no receipt; it
// keeps receipts while they total at most maxLedgerBytes, exactly that
// much included, and past it drops the oldest. A run whose receipt is not
// kept is still its client's.
func TestLedgerReceiptBytes(t *testing.T) {
	full := maxLedgerBytes / maxLedgerRecord // records that fill the ledger
	fill := func(extra ...int) []int {
		sizes := make([]int, full)
		for i := range sizes {
			sizes[i] = maxLedgerRecord
		}
		return append(sizes, extra...)
	}
	keptFrom := func(n, from int) []bool {
		kept := make([]bool, n)
		for i := from; i < n; i++ {
			kept[i] = true
		}
		return kept
	}
	tests := []struct {
		name      string
		sizes     []int  // the receipts' sizes, oldest first
		wantKept  []bool // whether each receipt is kept
		wantBytes int
	}{
		{"a receipt of maxLedgerRecord bytes", []int{maxLedgerRecord}, []bool{true},
			maxLedgerRecord},
		{"one byte past maxLedgerRecord", []int{maxLedgerRecord + 1}, []bool{false}, 0},
		{"an empty receipt is none", []int{0, 1}, []bool{false, true}, 1},
		{"exactly maxLedgerBytes", fill(), keptFrom(full, 0), maxLedgerBytes},
		{"one byte past maxLedgerBytes, the oldest dropped", fill(1), keptFrom(full+1, 1),
			maxLedgerBytes - maxLedgerRecord + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLedger()
			id := func(n int) string { return fmt.Sprintf("%016x", n) }
			for n, size := range tt.sizes {
				l.add("c", false, RunReply{RunID: id(n), Receipt: receiptOfSize(size)})
			}
			for n, want := range tt.wantKept {
				rec, ours := l.get("c", id(n))
				kept := rec != nil
				if !ours || kept != want || (want && len(rec) != tt.sizes[n]) {
					t.Errorf("run %d of %d bytes: ours %v, kept %v (%d bytes); want ours, kept %v",
						n, tt.sizes[n], ours, kept, len(rec), want)
				}
			}
			if l.bytes != tt.wantBytes {
				t.Errorf("%d bytes of receipts counted, want %d", l.bytes, tt.wantBytes)
			}
		})
	}
}

// TestLedgerClients: the ledger remembers maxClients clients, no more;
// past them it forgets the least recently used, which a client's new
// run makes it no longer.
func TestLedgerClients(t *testing.T) {
	name := func(n int) string { return fmt.Sprint("client ", n) }
	tests := []struct {
		name        string
		clients     int  // clients that ran, client 0 first
		touch0      bool // client 0 runs again before the last client
		wantForgot  int  // the client forgotten, or -1
		wantClients int
	}{
		{"maxClients clients", maxClients, false, -1, maxClients},
		{"one client past maxClients", maxClients + 1, false, 0, maxClients},
		{"client 0 used again", maxClients + 1, true, 1, maxClients},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLedger()
			for n := range tt.clients {
				if tt.touch0 && n == tt.clients-1 {
					l.add(name(0), false, RunReply{RunID: "00000000000000ff"})
				}
				l.add(name(n), false, RunReply{RunID: fmt.Sprintf("%016x", n)})
			}
			for n := range tt.clients {
				_, ours := l.get(name(n), fmt.Sprintf("%016x", n))
				if want := n != tt.wantForgot; ours != want {
					t.Errorf("client %d's run: remembered %v, want %v", n, ours, want)
				}
			}
			if got := len(l.clients); got != tt.wantClients {
				t.Errorf("%d clients remembered, want %d", got, tt.wantClients)
			}
		})
	}
}

// TestLedgerForget: a client forgotten (a session that ended) takes its
// runs with it and gives back the bytes its receipts held, so they count
// no more against maxLedgerBytes; another client's are untouched.
func TestLedgerForget(t *testing.T) {
	tests := []struct {
		name      string
		runs      int // runs of the client forgotten, each with a receipt
		wantBytes int // what the other client's one receipt holds
	}{
		{"one run", 1, 100},
		{"several runs", 5, 100},
		{"runs that filled the ledger", maxLedgerBytes / maxLedgerRecord, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLedger()
			l.add("other", false, RunReply{RunID: "00000000000000aa", Receipt: receiptOfSize(100)})
			size := min(maxLedgerRecord, (maxLedgerBytes-100)/tt.runs)
			for n := range tt.runs {
				rec := receiptOfSize(size)
				l.add("gone", false, RunReply{RunID: fmt.Sprintf("%016x", n), Receipt: rec})
			}
			l.forget("gone")
			if _, ours := l.get("gone", fmt.Sprintf("%016x", 0)); ours {
				t.Error("a run of the client forgotten is still its")
			}
			if l.bytes != tt.wantBytes || l.held.Len() != 1 {
				t.Errorf("%d bytes in %d receipts kept, want %d in 1 (the other client's)",
					l.bytes, l.held.Len(), tt.wantBytes)
			}
			if rec, ours := l.get("other", "00000000000000aa"); !ours || len(rec) != 100 {
				t.Errorf("the other client's run: ours %v, %d bytes; want ours, 100",
					ours, len(rec))
			}
		})
	}
}

// TestLedgerSessionsBesideTenants: the bound of maxClients holds the
// sessions however many tenants the ledger keeps beside them: past it the
// least recently used session is forgotten, never a tenant, even one
// used less lately.
func TestLedgerSessionsBesideTenants(t *testing.T) {
	l := newLedger()
	id := func(n int) string { return fmt.Sprintf("%016x", n) }
	for n := range 10 {
		l.add(fmt.Sprint("tenant ", n), true, RunReply{RunID: id(n)})
	}
	for n := range maxClients + 1 {
		l.add(fmt.Sprint("session ", n), false, RunReply{RunID: id(100 + n)})
	}
	if _, ours := l.get("session 0", id(100)); ours {
		t.Error("session 0, the least recently used of maxClients+1, still remembered")
	}
	if _, ours := l.get(fmt.Sprint("session ", maxClients), id(100+maxClients)); !ours {
		t.Error("the newest session forgotten")
	}
	for n := range 10 {
		if _, ours := l.get(fmt.Sprint("tenant ", n), id(n)); !ours {
			t.Errorf("tenant %d forgotten for a session", n)
		}
	}
	if l.sessions != maxClients || len(l.clients) != maxClients+10 {
		t.Errorf("%d sessions of %d clients remembered, want %d of %d", l.sessions, len(l.clients),
			maxClients, maxClients+10)
	}
}

// TestLedgerSameRunTwice: a run a Runner answers twice is one run of its
// client, as the newer answer says it, its receipt counted once; the
// control, another run, is a run of its own.
func TestLedgerSameRunTwice(t *testing.T) {
	l := newLedger()
	const id, other = "00000000000000aa", "00000000000000bb"
	l.add("c", false, RunReply{RunID: id, Status: "ok", Receipt: receiptOfSize(100)})
	l.add("c", false, RunReply{RunID: id, Status: "failed", Receipt: receiptOfSize(200)})
	runs := l.runs("c")
	if len(runs) != 1 || runs[0].ID != id || runs[0].Status != "failed" {
		t.Errorf("runs %+v, want the one, as the newer answer says it", runs)
	}
	if rec, ours := l.get("c", id); !ours || len(rec) != 200 || l.bytes != 200 {
		t.Errorf("the run: ours %v, %d bytes, %d bytes kept; want ours, the newer 200, 200",
			ours, len(rec), l.bytes)
	}
	l.add("c", false, RunReply{RunID: other, Status: "ok", Receipt: receiptOfSize(50)})
	if runs := l.runs("c"); len(runs) != 2 || runs[0].ID != other || l.bytes != 250 {
		t.Errorf("another run: runs %+v, %d bytes kept; want two, the newest first, 250", runs,
			l.bytes)
	}
}
