package door

import (
	"container/list"
	"encoding/json"
	"sync"
	"time"
)

// The ledger's bounds: the runs it remembers for each client, the clients
// it remembers, and the bytes of receipts it keeps in memory (past them,
// the oldest receipts are read from the store again when asked for).
const (
	MaxClientRuns   = 256
	maxClients      = 64
	maxLedgerBytes  = 16 << 20
	maxLedgerRecord = 1 << 20
)

// ledger remembers, for each client of the door, the runs it asked for:
// a client reads its own receipts, and no other's. A client is the
// door's name for who sent a request: over HTTP, the token it carried
// (the tenant it belongs to); on any other transport, its MCP session. The ledger
// keeps the most recent MaxClientRuns runs of each tenant (the tenants
// file bounds them, and a tenant it no longer names is forgotten:
// Server.SetTenants) and of each of at most maxClients sessions, and
// keeps the receipts themselves while they fit in maxLedgerBytes, so that
// answering for a recent run reads no store. A tenant's runs are never
// forgotten for another client's: when they were, among maxClients
// clients of every kind, 64 other tenants that ran once each emptied a
// tenant's resources/list.
type ledger struct {
	mu       sync.Mutex
	clients  map[string]*list.Element // -> *clientRuns in lru
	lru      *list.List               // of *clientRuns, least recently used first
	sessions int                      // clients in lru that are no tenant's
	held     *list.List               // of *ledgerRun whose receipt is kept, oldest first
	bytes    int                      // receipt bytes kept
}

// clientRuns are one client's runs, oldest first.
type clientRuns struct {
	client string
	tenant bool       // a tenant's, never forgotten for room
	runs   *list.List // of *ledgerRun
	byID   map[string]*list.Element
}

// ledgerRun is one run of a client, as its reply said it.
type ledgerRun struct {
	ID, Status, Code, Level string
	At                      time.Time
	receipt                 json.RawMessage // nil once dropped for room
	held                    *list.Element
}

func newLedger() *ledger {
	return &ledger{clients: map[string]*list.Element{}, lru: list.New(), held: list.New()}
}

// add remembers a run of client (a tenant's, when tenant is set), its
// receipt with it when one fits.
func (l *ledger) add(client string, tenant bool, r RunReply) {
	if client == "" || r.RunID == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.client(client, tenant)
	if old, ok := c.byID[r.RunID]; ok { // the same run answered twice: keep the newer
		l.drop(c, old)
	}
	run := &ledgerRun{
		ID:     r.RunID,
		Status: r.Status,
		Code:   r.Code,
		Level:  r.Level,
		At:     time.Now().UTC(),
	}
	c.byID[r.RunID] = c.runs.PushBack(run)
	if c.runs.Len() > MaxClientRuns {
		l.drop(c, c.runs.Front())
	}
	if len(r.Receipt) > 0 && len(r.Receipt) <= maxLedgerRecord {
		run.receipt = r.Receipt
		run.held = l.held.PushBack(run)
		l.bytes += len(r.Receipt)
		for l.bytes > maxLedgerBytes {
			l.unhold(l.held.Front().Value.(*ledgerRun))
		}
	}
}

// client returns client's runs, made if new, and marks it used; past
// maxClients sessions the least recently used session is forgotten.
func (l *ledger) client(client string, tenant bool) *clientRuns {
	if e, ok := l.clients[client]; ok {
		l.lru.MoveToBack(e)
		return e.Value.(*clientRuns)
	}
	c := &clientRuns{client: client, tenant: tenant, runs: list.New(),
		byID: map[string]*list.Element{}}
	l.clients[client] = l.lru.PushBack(c)
	if tenant {
		return c
	}
	l.sessions++
	for e := l.lru.Front(); l.sessions > maxClients && e != nil; {
		next := e.Next()
		if old := e.Value.(*clientRuns); !old.tenant {
			l.forgetLocked(old.client)
		}
		e = next
	}
	return c
}

func (l *ledger) drop(c *clientRuns, e *list.Element) {
	run := c.runs.Remove(e).(*ledgerRun)
	delete(c.byID, run.ID)
	l.unhold(run)
}

func (l *ledger) unhold(run *ledgerRun) {
	if run.held == nil {
		return
	}
	l.held.Remove(run.held)
	l.bytes -= len(run.receipt)
	run.receipt, run.held = nil, nil
}

// forget drops client and its runs: a session that ended.
func (l *ledger) forget(client string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forgetLocked(client)
}

func (l *ledger) forgetLocked(client string) {
	e, ok := l.clients[client]
	if !ok {
		return
	}
	c := l.lru.Remove(e).(*clientRuns)
	delete(l.clients, client)
	if !c.tenant {
		l.sessions--
	}
	for e := c.runs.Front(); e != nil; e = e.Next() {
		l.unhold(e.Value.(*ledgerRun))
	}
}

// get says whether id is a run of client, and returns its receipt when
// the ledger still keeps it.
func (l *ledger) get(client, id string) (receipt json.RawMessage, ours bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.clients[client]
	if !ok {
		return nil, false
	}
	run, ok := e.Value.(*clientRuns).byID[id]
	if !ok {
		return nil, false
	}
	return run.Value.(*ledgerRun).receipt, true
}

// runs are client's runs, newest first.
func (l *ledger) runs(client string) []ledgerRun {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.clients[client]
	if !ok {
		return nil
	}
	c := e.Value.(*clientRuns)
	out := make([]ledgerRun, 0, c.runs.Len())
	for e := c.runs.Back(); e != nil; e = e.Prev() {
		r := *e.Value.(*ledgerRun)
		r.receipt, r.held = nil, nil
		out = append(out, r)
	}
	return out
}
