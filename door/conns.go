package door

import (
	"container/list"
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// MaxPendingConns is the default bound on the connections Serve holds
// that have not yet sent a request with the token: past it, the oldest of
// them is closed, so that connections that never send a token cannot hold
// the place of one that does.
const MaxPendingConns = 1024

// conns counts the connections Serve holds. A connection is pending from
// its accept until a request on it carries a token; then it is
// authorized, holds one of the slots until it closes, and is charged to
// the tenant whose token its latest request carried. Only authorized
// connections count against the slots.
//
// The slots are shared fairly: a tenant may hold at most its own bound
// (tenant.Tenant.Connections), and when every slot is taken, a tenant
// holding fewer than another takes the longest idle connection of the
// one holding most, which is closed (an HTTP client opens another when
// it next sends). A tenant that holds every slot with idle keep-alive
// connections so leaves the others theirs.
type conns struct {
	mu         sync.Mutex
	pending    *list.List // of net.Conn, oldest first
	at         map[net.Conn]*list.Element
	authorized map[net.Conn]*held
	held       map[string]int // authorized connections by tenant
	maxPending int
	slots      int
}

// held is an authorized connection: its tenant, and since when it has
// been idle (zero while a request is on it).
type held struct {
	tenant string
	idle   time.Time
}

func newConns(slots, maxPending int) *conns {
	return &conns{
		pending:    list.New(),
		at:         map[net.Conn]*list.Element{},
		authorized: map[net.Conn]*held{},
		held:       map[string]int{},
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
// pending, and the oldest pending one is closed when there are too many;
// an authorized one is marked idle between requests; a closed one gives
// back its place.
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
	case http.StateIdle, http.StateActive:
		c.mu.Lock()
		if h := c.authorized[conn]; h != nil {
			h.idle = time.Time{}
			if st == http.StateIdle {
				h.idle = time.Now()
			}
		}
		c.mu.Unlock()
	case http.StateClosed, http.StateHijacked:
		c.mu.Lock()
		if e, ok := c.at[conn]; ok {
			c.pending.Remove(e)
			delete(c.at, conn)
		}
		c.release(conn)
		c.mu.Unlock()
	}
}

// release gives back conn's slot, if it holds one. c.mu is held.
func (c *conns) release(conn net.Conn) {
	if h := c.authorized[conn]; h != nil {
		if c.held[h.tenant]--; c.held[h.tenant] <= 0 {
			delete(c.held, h.tenant)
		}
		delete(c.authorized, conn)
	}
}

// errConnLimit and errConnsFull are why authorize refuses a connection a
// slot: its tenant holds its own bound, or every slot is taken and none
// could be taken back fairly.
var (
	errConnLimit = errors.New("the tenant holds its bound of connections")
	errConnsFull = errors.New("every connection slot is taken")
)

// authorize gives the connection of r, whose request carried the token
// of tenant (bound: the tenant's own bound of connections, 0 for none),
// one of the slots, or says why not. A request on a connection Serve does
// not hold (the handler mounted elsewhere) needs none.
func (c *conns) authorize(r *http.Request, tenant string, bound int) error {
	conn, ok := r.Context().Value(connKey{}).(net.Conn)
	if !ok {
		return nil
	}
	c.mu.Lock()
	if h := c.authorized[conn]; h != nil && h.tenant == tenant {
		c.mu.Unlock()
		return nil
	}
	if bound > 0 && c.held[tenant] >= bound {
		c.mu.Unlock()
		return errConnLimit
	}
	c.release(conn) // a connection that carried another tenant's token is charged anew
	var evict net.Conn
	if len(c.authorized) >= c.slots {
		if evict = c.takeBack(tenant); evict == nil {
			c.mu.Unlock()
			return errConnsFull
		}
		c.release(evict)
	}
	c.authorized[conn] = &held{tenant: tenant}
	c.held[tenant]++
	if e, ok := c.at[conn]; ok {
		c.pending.Remove(e)
		delete(c.at, conn)
	}
	c.mu.Unlock()
	if evict != nil {
		evict.Close()
	}
	return nil
}

// takeBack is the longest idle connection of the tenant holding most
// connections, when it holds more than tenant does plus one; nil when
// there is none to take. c.mu is held.
func (c *conns) takeBack(tenant string) net.Conn {
	most, n := "", 0
	for t, k := range c.held {
		if k > n || (k == n && t < most) {
			most, n = t, k
		}
	}
	if most == tenant || n <= c.held[tenant]+1 {
		return nil
	}
	var oldest net.Conn
	var since time.Time
	for conn, h := range c.authorized {
		if h.tenant == most && !h.idle.IsZero() && (oldest == nil || h.idle.Before(since)) {
			oldest, since = conn, h.idle
		}
	}
	return oldest
}

// count is how many connections are pending and how many authorized.
func (c *conns) count() (pending, authorized int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pending.Len(), len(c.authorized)
}
