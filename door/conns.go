package door

import (
	"container/list"
	"context"
	"net"
	"net/http"
	"sync"
)

// MaxPendingConns is the default bound on the connections Serve holds
// that have not yet sent a request with the token: past it, the oldest of
// them is closed, so that connections that never send a token cannot hold
// the place of one that does.
const MaxPendingConns = 1024

// conns counts the connections Serve holds. A connection is pending from
// its accept until a request on it carries the token; then it is
// authorized and holds one of the slots until it closes. Only authorized
// connections count against the slots.
type conns struct {
	mu         sync.Mutex
	pending    *list.List // of net.Conn, oldest first
	at         map[net.Conn]*list.Element
	authorized map[net.Conn]bool
	maxPending int
	slots      int
}

func newConns(slots, maxPending int) *conns {
	return &conns{
		pending:    list.New(),
		at:         map[net.Conn]*list.Element{},
		authorized: map[net.Conn]bool{},
		maxPending: maxPending,
		slots:      slots,
	}
}

// connKey is the context key of the connection a request came on.
type connKey struct{}

// connContext puts the connection in its requests' context
// (http.Server.ConnContext).
func (c *conns) connContext(ctx context.Context, conn net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, conn)
}

// state follows a connection's life (http.Server.ConnState): a new one is
// pending, and the oldest pending one is closed when there are too many; a
// closed one gives back its place.
func (c *conns) state(conn net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew:
		c.mu.Lock()
		c.at[conn] = c.pending.PushBack(conn)
		var oldest net.Conn
		if c.pending.Len() > c.maxPending {
			oldest = c.pending.Remove(c.pending.Front()).(net.Conn)
			delete(c.at, oldest)
		}
		c.mu.Unlock()
		if oldest != nil {
			oldest.Close()
		}
	case http.StateClosed, http.StateHijacked:
		c.mu.Lock()
		if e, ok := c.at[conn]; ok {
			c.pending.Remove(e)
			delete(c.at, conn)
		}
		delete(c.authorized, conn)
		c.mu.Unlock()
	}
}

// authorize gives the connection of r, which carried the token, one of the
// slots, and reports whether it has one. A request on a connection Serve
// does not hold (the handler mounted elsewhere) needs none.
func (c *conns) authorize(r *http.Request) bool {
	conn, ok := r.Context().Value(connKey{}).(net.Conn)
	if !ok {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.authorized[conn] {
		return true
	}
	if len(c.authorized) >= c.slots {
		return false
	}
	c.authorized[conn] = true
	if e, ok := c.at[conn]; ok {
		c.pending.Remove(e)
		delete(c.at, conn)
	}
	return true
}

// count is how many connections are pending and how many authorized.
func (c *conns) count() (pending, authorized int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pending.Len(), len(c.authorized)
}
