package door

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sabline/sabline/tenant"
	"golang.org/x/time/rate"
)

// The codes of a tenant's limits, answered 429 with Retry-After.
const (
	CodeRateLimit        = "rate-limit"
	CodeConcurrencyLimit = "concurrency-limit"
)

// tenantState is a tenant with its token's digest as bytes and what its
// limits count.
type tenantState struct {
	tenant.Tenant
	digest   [sha256.Size]byte
	limiter  *rate.Limiter // runs a second; nil: no rate limit
	requests *rate.Limiter // requests a second; nil: no limit
	running  *atomic.Int64 // runs and audits in flight, kept across reloads
	lookups  *atomic.Int64 // receipt lookups reading the store, kept across reloads
	// share bounds the runs in flight of a tenant with no Concurrency of
	// its own beside other tenants (defaultShare); 0: none. lookupShare
	// bounds its receipt lookups reading the store alike: half of those
	// the door lets read it at once.
	share, lookupShare int
}

// defaultShare is the runs a tenant whose Concurrency is not set may
// have running, queued or still being answered at once, on a door of
// more than one tenant: half the door's places (workers and queue),
// rounded up, so that no one tenant can take them all and leave the
// others nothing but 429 busy (eighteen bodies sent a byte at a time,
// with no CPU, would). A door of one tenant holds it to nothing but the
// door's bound.
func defaultShare(tenants, workers, queue int) int {
	if tenants < 2 {
		return 0
	}
	return (workers + queue + 1) / 2
}

// tenants are the door's tenants, replaced whole by SetTenants.
type tenants struct {
	list    []*tenantState
	running map[string]*atomic.Int64 // by name: what a reload keeps
	lookups map[string]*atomic.Int64 // by name: what a reload keeps
}

// tokenTenant is the tenant of a door with one token (Config.Token): its
// name is made from the token's digest, never the token. It is the
// operator's (tenant.Tenant.Operator): one token is the operator's own,
// handed to no tenant of a platform, whose clients each have a token of
// their own in a tenants file.
func tokenTenant(token string) tenant.Tenant {
	sum := sha256.Sum256([]byte(token))
	return tenant.Tenant{Name: "token-" + hex.EncodeToString(sum[:8]),
		TokenSHA256: hex.EncodeToString(sum[:]), Operator: true}
}

// errUnheld is a tenant given to a door with an allow list its ceiling
// was never made from: held to no scope, it would be granted the whole
// of the server's budget.
var errUnheld = errors.New("an allow list with no ceiling: " +
	"read the tenants with tenant.Load, or hold them with tenant.Scope.Hold")

// SetTenants replaces the door's tenants (a tenants file read again):
// from its return a request is held to the new ones. A tenant whose rate
// and burst did not change keeps what its limiter counted; every tenant
// keeps its count of runs in flight, one the file stops naming too, for a
// later reload that names it again; a tenant marked the operator's, or
// no longer, is answered so from its next request (/v1/health). A tenant
// out of a tenants file's bounds (tenant.Tenant.Check), or whose allow
// list was never held to the server's ceiling (tenant.Scope.Hold), is
// refused, and the door keeps the tenants it had.
func (s *Server) SetTenants(ts []tenant.Tenant) error {
	for _, t := range ts {
		if err := t.Check(); err != nil {
			return fmt.Errorf("door: tenants: %w", err)
		}
		if t.Allow != nil && t.Ceiling == nil {
			return fmt.Errorf("door: tenants: %s: %w", t.Name, errUnheld)
		}
	}
	s.tenantsMu.Lock()
	defer s.tenantsMu.Unlock()
	old := s.tenants.Load()
	next := &tenants{running: map[string]*atomic.Int64{}, lookups: map[string]*atomic.Int64{}}
	for _, t := range ts {
		st := &tenantState{Tenant: t}
		if t.Concurrency == 0 {
			st.share = defaultShare(len(ts), s.cfg.Workers, s.cfg.Queue)
			// Half the lookups reading the store at once (Workers, New):
			// another tenant's lookup finds one free, not only a place
			// to wait in.
			st.lookupShare = defaultShare(len(ts), s.cfg.Workers, 0)
		}
		if _, err := hex.Decode(st.digest[:], []byte(t.TokenSHA256)); err != nil {
			return fmt.Errorf("door: tenants: %s: token_sha256: %w", t.Name, err)
		}
		perSecond, burst := t.RequestLimit()
		if old != nil {
			for _, o := range old.list {
				if o.Name != t.Name {
					continue
				}
				if o.Rate == t.Rate && o.Burst == t.Burst {
					st.limiter = o.limiter
				}
				if p, b := o.RequestLimit(); p == perSecond && b == burst {
					st.requests = o.requests
				}
			}
			st.running, st.lookups = old.running[t.Name], old.lookups[t.Name]
		}
		if st.limiter == nil && t.Rate > 0 {
			burst := t.Burst
			if burst <= 0 {
				burst = max(1, int(math.Ceil(t.Rate)))
			}
			st.limiter = rate.NewLimiter(rate.Limit(t.Rate), burst)
		}
		if st.requests == nil && perSecond > 0 {
			st.requests = rate.NewLimiter(rate.Limit(perSecond), burst)
		}
		if st.running == nil {
			st.running = new(atomic.Int64)
		}
		if st.lookups == nil {
			st.lookups = new(atomic.Int64)
		}
		next.running[t.Name], next.lookups[t.Name] = st.running, st.lookups
		next.list = append(next.list, st)
	}
	if old != nil {
		// A tenant the file no longer names, with runs or lookups in
		// flight, keeps their counts for a reload that names it again:
		// counted from zero, it had twice its bound in flight a while.
		for name, r := range old.running {
			if _, listed := next.running[name]; !listed &&
				(r.Load() > 0 || old.lookups[name].Load() > 0) {
				next.running[name], next.lookups[name] = r, old.lookups[name]
			}
		}
	}
	s.tenants.Store(next)
	if old != nil {
		// The ledger keeps every tenant's runs (ledger.client): those of
		// a tenant the file no longer names are let go.
		for _, o := range old.list {
			if !slices.ContainsFunc(next.list, func(st *tenantState) bool {
				return st.Name == o.Name
			}) {
				s.ledger.forget(o.client())
			}
		}
	}
	return nil
}

// tenantOf is the tenant whose token an Authorization header carries, or
// nil. Every tenant's digest is compared, in constant time, whichever
// matches: the time taken says nothing of which, or how much of one.
func (s *Server) tenantOf(header string) *tenantState {
	scheme, tok, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	var found *tenantState
	for _, t := range s.tenants.Load().list {
		if subtle.ConstantTimeCompare(got[:], t.digest[:]) == 1 {
			found = t
		}
	}
	return found
}

// tenantKey is the context key of the tenant a request came from.
type tenantKey struct{}

// tenantFrom is the tenant of an authorized request's context.
func tenantFrom(ctx context.Context) *tenantState {
	t, _ := ctx.Value(tenantKey{}).(*tenantState)
	return t
}

// operator reports whether t is the operator's (tenant.Tenant.Operator);
// no tenant is not.
func (t *tenantState) operator() bool { return t != nil && t.Operator }

// name is t's name; "" for none.
func (t *tenantState) name() string {
	if t == nil {
		return ""
	}
	return t.Name
}

// client is the ledger's name of a tenant; "" for none.
func (t *tenantState) client() string {
	if t == nil {
		return ""
	}
	return "tenant " + t.Name
}

// limitError is a refusal by one of a tenant's limits.
type limitError struct {
	code       string
	msg        string
	retryAfter time.Duration
}

func (e *limitError) Error() string { return e.msg }

// rate takes a turn of t's rate of runs, or says that it refuses.
func (t *tenantState) rate() error {
	if t == nil {
		return nil
	}
	return t.take(t.limiter, fmt.Sprintf("tenant %s may start %g runs a second", t.Name, t.Rate))
}

// concurrent takes a turn of t's runs at once, or says that it refuses;
// release gives it back.
func (t *tenantState) concurrent() (release func(), err error) {
	if t == nil {
		return func() {}, nil
	}
	if t.share > 0 {
		return t.holdTo(t.running, t.share, "runs (its share: half the server's places, "+
			"the tenants file setting no concurrency of its own)")
	}
	return t.hold(t.running, "runs")
}

// request takes a turn of t's bound of requests of every kind, or says
// that it refuses.
func (t *tenantState) request() error {
	if t == nil {
		return nil
	}
	perSecond, _ := t.RequestLimit()
	return t.take(t.requests, fmt.Sprintf("tenant %s may send %g requests a second", t.Name,
		perSecond))
}

// lookup takes a turn of t's bound of receipt lookups reading the store
// at once (its Concurrency, else its share of the door's lookup places
// beside other tenants), or says that it refuses.
func (t *tenantState) lookup() (release func(), err error) {
	if t == nil {
		return func() {}, nil
	}
	if t.lookupShare > 0 {
		return t.holdTo(t.lookups, t.lookupShare, "receipt lookups (its share: half of those "+
			"the server reads at once, the tenants file setting no concurrency of its own)")
	}
	return t.hold(t.lookups, "receipt lookups")
}

// take takes a turn of l (nil: no limit) at once, or refuses with
// CodeRateLimit, the time to wait, and what (what the limit allows)
// in its message.
func (t *tenantState) take(l *rate.Limiter, what string) error {
	if l == nil {
		return nil
	}
	now := time.Now()
	r := l.ReserveN(now, 1)
	if d := r.DelayFrom(now); !r.OK() || d > 0 {
		r.CancelAt(now)
		if !r.OK() {
			d = time.Second
		}
		return &limitError{code: CodeRateLimit, retryAfter: d,
			msg: fmt.Sprintf("%s (a burst of %d): nothing ran", what, l.Burst())}
	}
	return nil
}

// hold counts one more of what in n, within t's Concurrency, or refuses
// with CodeConcurrencyLimit; release counts it back once.
func (t *tenantState) hold(n *atomic.Int64, what string) (release func(), err error) {
	return t.holdTo(n, t.Concurrency, what)
}

// holdTo counts one more of what in n, within most (0: no bound), or
// refuses with CodeConcurrencyLimit; release counts it back once.
func (t *tenantState) holdTo(n *atomic.Int64, most int, what string) (release func(), err error) {
	if most <= 0 {
		return func() {}, nil
	}
	if k := n.Add(1); k > int64(most) {
		n.Add(-1)
		return nil, &limitError{code: CodeConcurrencyLimit, retryAfter: time.Second,
			msg: fmt.Sprintf("tenant %s may have %d %s at once, and has them: nothing ran",
				t.Name, most, what)}
	}
	var once sync.Once
	return func() { once.Do(func() { n.Add(-1) }) }, nil
}

// limitDetail is the body of a limitError.
func limitDetail(e *limitError) errorDetail {
	return errorDetail{Code: e.code, Message: e.msg, RetryAfter: seconds(e.retryAfter),
		Do: "Send the request again after Retry-After seconds; the limit is the tenant's, set by the " +
			"server's operator."}
}

// seconds is d in whole seconds, rounded up, at least 1.
func seconds(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}

// writeLimit answers a limitError: 429 with Retry-After.
func writeLimit(w http.ResponseWriter, e *limitError) {
	d := limitDetail(e)
	w.Header().Set("Retry-After", fmt.Sprint(d.RetryAfter))
	writeError(w, http.StatusTooManyRequests, d)
}
