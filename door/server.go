package door

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/tenant"
)

// Config is what a door is made of. Only Runner is required.
type Config struct {
	Runner Runner
	// Token is the bearer token every HTTP request must carry
	// (Authorization: Bearer TOKEN), compared in constant time: its
	// holders are one tenant with no limits of its own, named from the
	// token's digest, and the operator's (tenant.Tenant.Operator): one
	// token is its operator's own. With neither a token nor Tenants, every HTTP
	// request is refused: the HTTP door has no open mode. The MCP door on
	// standard input and output needs none.
	Token string
	// Tenants, instead of Token, are the clients of the HTTP door, each
	// with its own token and limits (SetTenants replaces them); those
	// marked Operator read what /v1/health tells the operator alone. Of
	// more than one, each whose Concurrency is not set is held to half
	// of Workers+Queue (defaultShare).
	Tenants []tenant.Tenant
	// Ready, when set, says why the server should be sent no traffic,
	// or nil when it may: GET /readyz answers 503 with its reason alone
	// (a *NotReady's, else ReasonOther), /v1/health that reason to every
	// tenant and its detail too to the operator's, and the log all of it.
	Ready func() error
	// Workers is how many runs run at once (at least 1); Queue is how many
	// more may wait for one of them. Past Workers+Queue a request is
	// answered busy (429 with Retry-After) and nothing runs.
	Workers, Queue int
	// RetryAfter is what a busy or stopping server tells a client to wait
	// (whole seconds, at least one).
	RetryAfter time.Duration
	// MaxBodyBytes bounds a request body; 0 is MaxBodyBytes.
	MaxBodyBytes int64
	// MaxConns bounds the connections Serve holds that have sent the
	// token; past it, a request with the token on another connection is
	// answered busy (429) and that connection closed. A connection that
	// has not sent the token does not count: it is pending, bounded by
	// MaxPendingConns, and closed when its headers take longer than
	// ReadHeaderTimeout or its first request is refused. 0 is MaxConns.
	MaxConns int
	// MaxPendingConns bounds the connections Serve holds that have not
	// sent the token yet; past it, the oldest of them is closed. 0 is
	// MaxPendingConns.
	MaxPendingConns int
	// Origins are the origins (http://HOST[:PORT], https://HOST[:PORT])
	// that a request may name beside this server's own address: as its
	// Origin (a page of that origin in a browser) or as its Host (a name
	// that leads here). A request naming any other is refused (403)
	// before its token is looked at.
	Origins []string
	// Logf, when set, is told of each run and each refusal: one line each.
	Logf func(format string, args ...any)
	// Logger, when set, is told of each run and each refusal instead of
	// Logf: one record each, the line Logf would have had as its message,
	// with the door, the tenant and, for a run, its run_id, outcome,
	// confinement level and duration as attributes.
	Logger *slog.Logger
	// Shipping, when set, is the shipping of the door's receipts to a
	// shared store, whose lag and failure the metrics tell.
	Shipping Shipping
}

// MaxConns is the default bound on the connections Serve holds that have
// sent the token.
const MaxConns = 1024

// Server is a door: the HTTP handler, the MCP server, and the bound on
// runs both share.
type Server struct {
	cfg       Config
	tenants   atomic.Pointer[tenants]
	tenantsMu sync.Mutex // one SetTenants at a time
	origins   []origin
	gate      *gate // runs and audits
	lookups   *gate // receipt lookups that read the store
	conns     *conns
	ledger    *ledger
	metrics   *metrics
	sessions  sessions
	calls     httpCalls
	mcp       *mcp.Server
	handler   http.Handler
	stopping  chan struct{}
	stopOnce  sync.Once
	// halted is cancelled by Halt: every run in flight is cancelled with
	// it (haltable).
	halted context.Context
	halt   context.CancelFunc
	ready  readyLog
	// readHeaderTimeout is ReadHeaderTimeout; tests change it.
	readHeaderTimeout time.Duration
	// progressEvery is ProgressInterval; tests shorten it.
	progressEvery time.Duration
	// replyWrite is replyWriteTimeout; tests shorten it.
	replyWrite time.Duration
}

// New makes a door from cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Runner == nil {
		return nil, errors.New("door: new: no Runner")
	}
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if cfg.Queue < 0 {
		cfg.Queue = 0
	}
	if cfg.RetryAfter < time.Second {
		cfg.RetryAfter = time.Second
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = MaxBodyBytes
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = MaxConns
	}
	if cfg.MaxPendingConns <= 0 {
		cfg.MaxPendingConns = MaxPendingConns
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	origins, err := parseOrigins(cfg.Origins)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:               cfg,
		origins:           origins,
		stopping:          make(chan struct{}),
		readHeaderTimeout: ReadHeaderTimeout,
		progressEvery:     ProgressInterval,
		replyWrite:        replyWriteTimeout,
	}
	ts := cfg.Tenants
	switch {
	case cfg.Token != "" && len(cfg.Tenants) > 0:
		return nil, errors.New("door: new: a Token and Tenants both: give one")
	case cfg.Token != "":
		ts = []tenant.Tenant{tokenTenant(cfg.Token)}
	}
	if err := s.SetTenants(ts); err != nil {
		return nil, err
	}
	s.gate = newGate(cfg.Workers, cfg.Queue, s.stopping)
	s.lookups = newGate(cfg.Workers, cfg.Workers, s.stopping)
	s.conns = newConns(cfg.MaxConns, cfg.MaxPendingConns)
	s.halted, s.halt = context.WithCancel(context.Background())
	s.ledger = newLedger()
	s.metrics = s.newMetrics(cfg.Shipping)
	s.mcp = s.newMCPServer()
	s.handler = s.newHandler()
	return s, nil
}

// Handler is the HTTP door: /v1/run, /v1/audit, /v1/receipts/{id},
// /v1/health and /mcp, each behind a tenant's token, and each refused
// first when its Host or Origin is not this server's (sameOrigin); and
// /healthz and /readyz, open to a load balancer's probes.
func (s *Server) Handler() http.Handler { return s.handler }

// MCP is the MCP door, to serve on any transport (sabline mcp serves it on
// standard input and output, by ServeStream).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Stop begins the door's shutdown: from then on a request is answered
// 503, and a run waiting in the queue is answered 503 too; runs already
// running finish.
func (s *Server) Stop() { s.stopOnce.Do(func() { close(s.stopping) }) }

// Halt ends the door's shutdown at once: it stops the door, as Stop
// does, and cancels every run in flight, whose receipt then ends E307
// saying the server was halted, and whose client is answered so.
func (s *Server) Halt() {
	s.Stop()
	s.halt()
}

// errHalted is why a run ends when its server is halted (Halt): the
// cause its receipt's E307 names.
var errHalted = errors.New("the server was halted: its operator stopped it at once")

// haltable is ctx, cancelled with errHalted when the server is halted.
func (s *Server) haltable(ctx context.Context) (context.Context, func()) {
	run, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(s.halted, func() { cancel(errHalted) })
	return run, func() {
		stop()
		cancel(nil)
	}
}

// The HTTP server's bounds: a client that sends its headers or body slowly
// is cut off, and an idle keep-alive connection is closed. A connection
// that has not sent the token has ReadHeaderTimeout to send a request
// that does.
const (
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 60 * time.Second
	IdleTimeout       = 120 * time.Second
	// MaxHeaderBytes bounds a request's head: its request line and its
	// headers, the blank line after them included.
	MaxHeaderBytes = 16 << 10
	// ProgressInterval is how often a tools/call that asked for progress
	// is told how long its run has lasted.
	ProgressInterval = time.Second
	// replyWriteTimeout is how long a client has to read a reply once
	// its run is over.
	replyWriteTimeout = 30 * time.Second
)

// HTTPServer is an *http.Server for the door, with its bounds set and its
// connections counted (Config.MaxConns, Config.MaxPendingConns).
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s.handler,
		ConnContext:       s.conns.connContext,
		ConnState:         s.conns.state,
		ReadHeaderTimeout: s.readHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes - headerSlop,
	}
}

// headerSlop is what net/http reads of a request's head past its
// http.Server.MaxHeaderBytes: so much is taken off it, and a head of
// MaxHeaderBytes is the longest the door reads (TestHeaderBound).
const headerSlop = 4096

// Serve answers HTTP requests on ln until ctx is done, holding at most
// Config.MaxConns connections that have sent the token and
// Config.MaxPendingConns that have not; then it stops accepting
// connections, answers 503 to what is still queued, waits for the runs in
// flight to finish, and returns nil.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := s.HTTPServer()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("door: serve: %w", err)
	case <-ctx.Done():
	}
	s.Stop()
	err := hs.Shutdown(context.Background())
	<-errc
	if err != nil {
		return fmt.Errorf("door: shut down: %w", err)
	}
	return nil
}

// newHandler is the door's routes behind the origin and token checks,
// and the probes beside them. A path not in its clean form (a "//", a
// "." or ".." segment) names no endpoint: it is checked as every other
// request is, then answered 404, where a ServeMux would answer a
// redirect to the clean path before any check, to a foreign Host too.
func (s *Server) newHandler() http.Handler {
	mux, open := http.NewServeMux(), http.NewServeMux()
	var paths []string
	for _, rt := range s.routes() {
		h := rt.handler
		if rt.method != "" {
			h = s.method(rt.method, rt.handler)
		}
		if rt.open {
			open.Handle(rt.path, h)
		} else {
			mux.Handle(rt.path, h)
		}
		paths = append(paths, rt.path)
	}
	notFound := fmt.Sprintf("no such endpoint: the endpoints are %s", strings.Join(paths, ", "))
	none := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound,
			errorDetail{Code: CodeNotFound, Message: notFound, Do: notFoundDo})
	})
	mux.Handle("/", none)
	open.Handle("/", s.sameOrigin(s.authorized(mux)))
	unclean := s.sameOrigin(s.authorized(none))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !cleanPath(r.URL.EscapedPath()) {
			unclean.ServeHTTP(w, r)
			return
		}
		open.ServeHTTP(w, r)
	})
}

// cleanPath reports whether p, a request's path as it was sent, is in
// the form a ServeMux matches without redirecting: rooted, with no empty,
// "." or ".." segment (a trailing slash is kept).
func cleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c == p
}

// route is one endpoint of the HTTP door: the method it takes ("" for
// /mcp, whose transport answers each method itself), its handler, and
// whether it is open (a probe: no token, any Host or Origin).
type route struct {
	path, method string
	handler      http.Handler
	open         bool
}

// routes are the HTTP door's endpoints, the one table of them:
// docs/openapi.yaml is checked against it (TestOpenAPI).
func (s *Server) routes() []route {
	return []route{
		{"/v1/run", http.MethodPost, http.HandlerFunc(s.handleRun), false},
		{"/v1/audit", http.MethodPost, http.HandlerFunc(s.handleAudit), false},
		{"/v1/receipts/{id}", http.MethodGet, http.HandlerFunc(s.handleReceipt), false},
		{"/v1/health", http.MethodGet, http.HandlerFunc(s.handleHealth), false},
		{"/mcp", "", s.mcpHandler(), false},
		{"/healthz", http.MethodGet, http.HandlerFunc(s.handleAlive), true},
		{"/readyz", http.MethodGet, http.HandlerFunc(s.handleReady), true},
	}
}

// authorized refuses, 401, every request without a tenant's token, and
// closes its connection. A request with one takes a turn of its tenant's
// bound of requests (429 rate-limit past it) and one of the slots for
// its connection (429 busy when its tenant holds its own bound, or when
// every slot is taken and none could be taken back fairly), and carries
// its tenant in its context.
func (s *Server) authorized(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := s.tenantOf(r.Header.Get("Authorization"))
		if t == nil {
			s.metrics.refusals.With(CodeUnauthorized, "").Inc()
			unauthorized(w, r)
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), tenantKey{}, t))
		if err := t.request(); err != nil {
			s.refusedErr(r.Context(), "http", t, err)
			s.holdBack(r.Context(), err)
			s.writeRefusal(w, err, "")
			return
		}
		if err := s.conns.authorize(r, t.Name, t.Connections); err != nil {
			s.metrics.refusals.With(CodeBusy, t.Name).Inc()
			s.setRetryAfter(w)
			w.Header().Set("Connection", "close")
			msg := fmt.Sprintf(connsFullMessage, s.cfg.MaxConns)
			if errors.Is(err, errConnLimit) {
				msg = fmt.Sprintf(connLimitMessage, t.Name, t.Connections)
			}
			writeError(w, http.StatusTooManyRequests, errorDetail{Code: CodeBusy, Message: msg,
				Do:         connsDo,
				RetryAfter: s.retryAfterSeconds()})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// maxHoldBack bounds how long holdBack holds a refusal.
const maxHoldBack = time.Second

// holdBack holds the refusal of a request past its tenant's bound of
// requests for its Retry-After, at most maxHoldBack, or until the client
// goes or the server stops: a client that sends again at once, refusal
// after refusal, sends one request a connection a second, not as many as
// the server can refuse (BenchmarkServeFlood/hostile).
func (s *Server) holdBack(ctx context.Context, err error) {
	var le *limitError
	if !errors.As(err, &le) {
		return
	}
	t := time.NewTimer(holdFor(le))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	case <-s.stopping:
	}
}

// holdFor is how long holdBack holds the refusal le: the Retry-After
// its reply says, in whole seconds as the header has it, at most
// maxHoldBack. Held for less, a client that sends again at once would
// send more than one request a connection a second.
func holdFor(le *limitError) time.Duration {
	return min(time.Duration(seconds(le.retryAfter))*time.Second, maxHoldBack)
}

// The replies of a request refused a connection slot.
const (
	connsFullMessage = "the server holds %d connections that sent a token, its bound, and none " +
		"it could take back fairly: nothing ran"
	connLimitMessage = "tenant %s may hold %d connections at once, and holds them: nothing ran"
	connsDo          = "Send the request again after Retry-After seconds, or on a connection " +
		"the client already has."
)

// notFoundDo is what to do about a request to no endpoint (404).
const notFoundDo = "Send the request to one of the endpoints the message names; " +
	"docs/serve.md and docs/openapi.yaml say what each takes. Nothing ran."

// methodDo is what to do about a request refused for its method (405),
// as every error reply says what to do (%s: the method the endpoint
// takes).
const methodDo = "Send the request again with the method %s, which the Allow header names; " +
	"nothing ran."

// unauthorized answers 401 to a request without one of the server's
// tokens, and closes its connection. Its WWW-Authenticate header names the
// scheme as RFC 6750 does: Bearer realm="sabline" alone when the request
// sent no Authorization, with error="invalid_token" when it sent a bearer
// token that is none of the server's, and error="invalid_request" when it
// sent another scheme. The body says how to send the token; on /mcp, how
// an MCP client sends it.
func unauthorized(w http.ResponseWriter, r *http.Request) {
	challenge := `Bearer realm="sabline"`
	msg := "no bearer token: the request has no Authorization header"
	if auth := r.Header.Get("Authorization"); auth != "" {
		scheme, _, _ := strings.Cut(auth, " ")
		if strings.EqualFold(scheme, "Bearer") {
			challenge += `, error="invalid_token", ` +
				`error_description="the token is not one of this server's"`
			msg = "the bearer token is not one of this server's (its token's, or a tenant's)"
		} else {
			challenge += `, error="invalid_request", ` +
				`error_description="Authorization is not Bearer TOKEN"`
			msg = "the Authorization header is not Bearer TOKEN"
		}
	}
	do := "Send Authorization: Bearer TOKEN with the token in the file sabline serve names at " +
		"start (--token-file), or the one the operator gave your tenant."
	if r.URL.Path == "/mcp" {
		do += " An MCP client sends it as a header of its Streamable HTTP transport: the MCP " +
			"inspector's --header \"Authorization: Bearer TOKEN\", the TypeScript SDK's " +
			"requestInit: {headers: {Authorization: 'Bearer TOKEN'}} (docs/mcp.md). The server " +
			"takes no OAuth: a client that starts an OAuth login here will not get a token."
	}
	w.Header().Set("WWW-Authenticate", challenge)
	w.Header().Set("Connection", "close")
	writeError(w, http.StatusUnauthorized, errorDetail{Code: CodeUnauthorized, Message: msg, Do: do})
}

// method answers 405 to a request with any method but m.
func (s *Server) method(m string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != m {
			w.Header().Set("Allow", m)
			writeError(w, http.StatusMethodNotAllowed, errorDetail{
				Code:    CodeMethod,
				Message: fmt.Sprintf("%s takes %s, not %s", r.URL.Path, m, r.Method),
				Do:      fmt.Sprintf(methodDo, m),
			})
			return
		}
		h.ServeHTTP(w, r)
	})
}

// runJSON is the reply of /v1/run: what the MCP tool run answers, and the
// receipt.
type runJSON struct {
	RunOutput
	Receipt json.RawMessage `json:"receipt,omitempty"`
}

// runOutputOf is the reply of a run as both doors give it.
func runOutputOf(r RunReply) RunOutput {
	return RunOutput{
		RunID:      r.RunID,
		Status:     r.Status,
		ExitStatus: r.ExitStatus,
		Level:      r.Level,
		Reason:     r.Reason,
		Code:       r.Code,
		Message:    r.Message,
		Position:   r.Position,
		Stack:      r.Stack,
		Stdout:     r.Stdout,
		Stderr:     r.Stderr,
		Testimony:  r.Testimony,
	}
}

// auditOutputOf is the reply of an audit as both doors give it (levels an
// object, never null).
func auditOutputOf(a AuditReply) AuditOutput {
	if a.Levels == nil {
		a.Levels = map[string]string{}
	}
	return AuditOutput(a)
}

// admit takes a turn of the tenant's limits and a place at the gate for
// a request, then reads its body, then waits for a slot to run in: a
// request past a bound is answered before its body is read, so the bounds
// hold the memory of bodies too, and a body still being read holds no
// slot, so that a client that sends its body slowly keeps no other
// tenant's run waiting (TestSlowBodyHoldsNoSlot). A refusal is answered
// and logged here, and ok is false; otherwise the caller releases the
// turns.
func (s *Server) admit(w http.ResponseWriter,
	r *http.Request) (data []byte, held *turn, ok bool) {
	ctx, t := r.Context(), tenantFrom(r.Context())
	refuse := func(err error) ([]byte, *turn, bool) {
		s.refusedErr(ctx, "http", t, err)
		s.writeRefusal(w, err, "")
		return nil, nil, false
	}
	held, err := s.place(t)
	if err != nil {
		return refuse(err)
	}
	if data, ok = s.readBody(w, r); !ok {
		held.release()
		return nil, nil, false
	}
	if err := held.take(ctx); err != nil {
		held.release()
		return refuse(err)
	}
	return data, held, true
}

// enter takes a turn of t's limits, then of the gate, slot and all; the
// turn's release gives back both. The place a tools/call's body took on
// /mcp (bodyPlace), when ctx carries one, is taken on with t's rate.
func (s *Server) enter(ctx context.Context, t *tenantState) (*turn, error) {
	held, err := s.placed(ctx, t)
	if err != nil {
		return nil, err
	}
	if err := held.take(ctx); err != nil {
		held.release()
		return nil, err
	}
	return held, nil
}

// placed is the place the body of the request ctx came in took
// (bodyPlace), with a turn of t's rate, or else place(t).
func (s *Server) placed(ctx context.Context, t *tenantState) (*turn, error) {
	bp, _ := ctx.Value(bodyPlaceKey{}).(*bodyPlace)
	held := bp.claim()
	if held == nil {
		return s.place(t)
	}
	if err := t.rate(); err != nil {
		held.release()
		return nil, err
	}
	return held, nil
}

// placeBody takes a turn of t's concurrency, then a place at the gate
// with no slot yet, for a body to be read; the turn's release gives
// back both.
func (s *Server) placeBody(t *tenantState) (*turn, error) {
	untenant, err := t.concurrent()
	if err != nil {
		return nil, err
	}
	held, err := s.gate.place()
	if err != nil {
		untenant()
		return nil, err
	}
	held.owner, held.then = t.name(), untenant
	return held, nil
}

// place takes a turn of t's rate, then of its concurrency and a place at
// the gate with no slot yet (placeBody); the turn's release gives back
// both. A rate turn taken is not given back when the concurrency or the
// gate refuses.
func (s *Server) place(t *tenantState) (*turn, error) {
	if err := t.rate(); err != nil {
		return nil, err
	}
	return s.placeBody(t)
}

func (s *Server) handleRun(w http.ResponseWriter, r *http.Request) {
	data, held, ok := s.admit(w, r)
	if !ok {
		return
	}
	defer held.release()
	req, err := decodeRunRequest(data)
	if err != nil {
		s.refusedErr(r.Context(), "http", tenantFrom(r.Context()), err)
		writeError(w, http.StatusBadRequest, detailOf(err))
		return
	}
	t := tenantFrom(r.Context())
	reply, err := s.runHeld(r.Context(), "http", t.client(), t, req)
	// The run is over: another may run while this reply is written.
	held.ran()
	if err != nil {
		s.writeRefusal(w, err, reply.RunID)
		return
	}
	s.replyDeadline(w)
	writeJSON(w, http.StatusOK, runReplyJSON(reply))
}

// replyDeadline gives the reply about to be written to w replyWrite to
// be taken: a client that reads none of it lets go of what it holds then
// (a receipt's reply is up to 8 MiB of the server's memory).
func (s *Server) replyDeadline(w http.ResponseWriter) { writeWithin(w, s.replyWrite) }

// writeWithin gives what is written to w from now d to be taken.
func writeWithin(w http.ResponseWriter, d time.Duration) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d))
}

func (s *Server) handleAudit(w http.ResponseWriter, r *http.Request) {
	data, held, ok := s.admit(w, r) // an audit reads a program too
	if !ok {
		return
	}
	defer held.release()
	req, err := decodeAuditRequest(data)
	if err != nil {
		s.refusedErr(r.Context(), "http", tenantFrom(r.Context()), err)
		writeError(w, http.StatusBadRequest, detailOf(err))
		return
	}
	if t := tenantFrom(r.Context()); t != nil {
		req.Ceiling = t.Ceiling
	}
	reply, err := s.cfg.Runner.Audit(r.Context(), req)
	if err != nil {
		s.writeRefusal(w, err, "")
		return
	}
	s.replyDeadline(w)
	writeJSON(w, http.StatusOK, auditOutputOf(reply))
}

func (s *Server) handleReceipt(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !receipt.ValidRunID(id) {
		writeError(w, http.StatusBadRequest, detailOf(malformedID(id)))
		return
	}
	t := tenantFrom(r.Context())
	rec, err := s.receiptOf(r.Context(), "http", t.client(), t, id)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d := detailOf(err)
		d.Do = "Give the run_id a run's reply named; a server answers for the runs its own clients " +
			"asked for."
		writeError(w, http.StatusNotFound, d)
		return
	case err != nil:
		s.writeLookupError(w, r, id, err)
		return
	}
	s.replyDeadline(w)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(rec)
}

// receiptOf is the receipt of run id, when client (of tenant t, through
// door) asked for it: from memory while the ledger keeps it, else from the Runner, which
// answers for t's runs only (whichever replica ran them), taking a turn
// of t's lookups and of the door's, never of the runs' gate, to read the
// store. A client of no tenant (an MCP session)
// reads the runs the ledger keeps for it alone. Another client's run is
// not found, as a run that never was.
func (s *Server) receiptOf(ctx context.Context, door, client string, t *tenantState,
	id string) (json.RawMessage, error) {
	rec, ours := s.ledger.get(client, id)
	switch {
	case rec != nil:
		return rec, nil
	case !ours && t == nil:
		return nil, codes.Errorf(codes.E317, "no receipt %s among this client's runs: %w", id,
			fs.ErrNotExist)
	}
	unlook, err := t.lookup()
	if err != nil {
		s.refusedErr(ctx, door, t, err)
		return nil, err
	}
	defer unlook()
	look, err := s.lookups.enter(ctx)
	if err != nil {
		s.refusedErr(ctx, door, t, err)
		return nil, err
	}
	defer look.release()
	tenant := ""
	if t != nil {
		tenant = t.Name
	}
	return s.cfg.Runner.Receipt(ctx, tenant, id)
}

// probeJSON is the reply of /healthz and /readyz: the state alone, and
// for a server not ready, why in one word of ReadyReasons.
type probeJSON struct {
	Status string `json:"status"` // alive, ready, not-ready or shutting-down
	Reason string `json:"reason,omitempty"`
}

// handleAlive is /healthz: the process answers, whatever its state.
func (s *Server) handleAlive(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, probeJSON{Status: "alive"})
}

func malformedID(id string) error {
	e := codes.Errorf(codes.E301, "%q is not a run id: a run id is %s",
		codes.TerminalSafe(codes.Clip(id, 64)), receipt.RunIDForm)
	e.Do = "Give the run_id a run's reply named."
	return e
}

// readBody reads the request body, at most MaxBodyBytes; past that it
// answers 413 and returns false.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	tooLarge := func() ([]byte, bool) {
		s.metrics.refusals.With(string(codes.E301),
			tenantLabel(tenantFrom(r.Context()))).Inc()
		e := codes.Errorf(codes.E301, "the request body is larger than %d bytes", s.cfg.MaxBodyBytes)
		e.Do = "Send a smaller program, or name a file under the server's import root with path. " +
			"Nothing ran."
		writeError(w, http.StatusRequestEntityTooLarge, detailOf(e))
		return nil, false
	}
	if r.ContentLength > s.cfg.MaxBodyBytes {
		return tooLarge()
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return tooLarge()
	case err != nil:
		e := bodyUnread(err)
		s.refusedErr(r.Context(), "http", tenantFrom(r.Context()), e)
		writeError(w, http.StatusBadRequest, detailOf(e))
		return nil, false
	}
	return data, true
}

// bodyUnread is the E301 of a request body that did not come whole (err,
// its read's error). It says why in the door's words alone: a read's
// error names the connection's addresses, the server's and the client's
// as the server sees them, which behind a proxy are neither the address
// the client named nor its own.
func bodyUnread(err error) error {
	why := "the connection ended before it came whole"
	if errors.Is(err, os.ErrDeadlineExceeded) {
		why = "it did not come whole within the server's bound on a request's time"
	}
	return malformed("the request body could not be read: %s", why)
}

// run admits req past t's limits and the bound on runs and hands it to
// the Runner. door names the door it came through, for the log; client
// who sent it, for the ledger; t its tenant (nil: none). Over HTTP, the
// turns it took are held until the reply is written (keepUntilReplied),
// as /v1/run's are.
func (s *Server) run(ctx context.Context, door, client string, t *tenantState,
	req RunRequest) (RunReply, error) {
	held, err := s.enter(ctx, t)
	if err != nil {
		s.refusedErr(ctx, door, t, err)
		return RunReply{}, err
	}
	release := held.release
	defer func() { release() }()
	reply, err := s.runHeld(ctx, door, client, t, req)
	// The run is over: another may run while this reply is written.
	held.ran()
	release = keepUntilReplied(ctx, held)
	return reply, err
}

// heldReplies are the turns the tool calls of one request on /mcp hold
// while its reply is written: the SDK writes it after the tool has
// returned, and the bound on runs and the tenant's concurrency hold the
// replies' memory, as /v1/run's, only while they count it.
type heldReplies struct {
	mu    sync.Mutex
	done  bool // the reply is written, or its request is over
	turns []*turn
}

// heldRepliesKey is the context key of a request's heldReplies.
type heldRepliesKey struct{}

// keepUntilReplied hands held, whose run is over, to the request ctx came
// in, to be released once its reply is written, and returns what its
// caller releases: nothing then, else held.release (a transport that is
// not HTTP, or a request already answered).
func keepUntilReplied(ctx context.Context, held *turn) (release func()) {
	if h, ok := ctx.Value(heldRepliesKey{}).(*heldReplies); ok {
		h.mu.Lock()
		defer h.mu.Unlock()
		if !h.done {
			h.turns = append(h.turns, held)
			return func() {}
		}
	}
	return held.release
}

// release gives back the turns h holds, once its reply is written.
func (h *heldReplies) release() {
	h.mu.Lock()
	h.done = true
	turns := h.turns
	h.turns = nil
	h.mu.Unlock()
	for _, t := range turns {
		t.release()
	}
}

// runHeld runs req for a caller that holds its turns, under t's ceiling
// and in t's name, and remembers the run, refused or not, as client's.
func (s *Server) runHeld(ctx context.Context, door, client string, t *tenantState,
	req RunRequest) (RunReply, error) {
	if t != nil {
		req.Tenant, req.Ceiling = t.Name, t.Ceiling
	}
	start := time.Now()
	ctx, stop := s.haltable(ctx)
	defer stop()
	reply, err := s.cfg.Runner.Run(ctx, req)
	s.ledger.add(client, t != nil, reply)
	if err != nil {
		s.refused(ctx, door, t, reasonOf(err), reply.RunID, err.Error())
		return reply, err
	}
	s.ran(ctx, door, t, reply, time.Since(start))
	return reply, nil
}

// writeRefusal answers an error of a limit, the gate or the Runner; a
// Runner's refusal that left a receipt names its run, runID ("" for
// none).
func (s *Server) writeRefusal(w http.ResponseWriter, err error, runID string) {
	var le *limitError
	switch {
	case errors.As(err, &le):
		writeLimit(w, le)
	case errors.Is(err, errBusy):
		s.setRetryAfter(w)
		writeError(w, http.StatusTooManyRequests, s.busyDetail())
	case errors.Is(err, errStopping):
		s.setRetryAfter(w)
		writeError(w, http.StatusServiceUnavailable, s.stoppingDetail())
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		// The client is gone; nobody reads this.
		writeError(w, http.StatusServiceUnavailable,
			errorDetail{Code: CodeShuttingDown, Message: "the request was cancelled before its run started"})
	default:
		d := detailOf(err)
		d.RunID = runID
		writeError(w, statusOfErr(err), d)
	}
}

func (s *Server) retryAfterSeconds() int {
	return int((s.cfg.RetryAfter + time.Second - 1) / time.Second)
}

func (s *Server) setRetryAfter(w http.ResponseWriter) {
	w.Header().Set("Retry-After", strconv.Itoa(s.retryAfterSeconds()))
}

// busyDetail is the refusal of a request past the gate's bound: the
// bound, and what holds its places now (runs, those waiting, and the
// requests whose bodies are read or whose replies are written).
func (s *Server) busyDetail() errorDetail {
	running, admitted := s.gate.taken()
	return errorDetail{Code: CodeBusy,
		Message: fmt.Sprintf(busyMessage, s.cfg.Workers+s.cfg.Queue, s.cfg.Workers, s.cfg.Queue,
			running, max(0, admitted-running)),
		Do:         "Send the request again after Retry-After seconds.",
		RetryAfter: s.retryAfterSeconds()}
}

// busyMessage says a request found the gate full (%d: its places, the
// workers, the queue; then the runs running and those waiting, which
// count the requests whose bodies are still read).
const busyMessage = "the server's %d places (--workers %d, --queue %d) are taken: %d running, " +
	"%d waiting, being read or being answered: nothing ran"

func (s *Server) stoppingDetail() errorDetail {
	return errorDetail{Code: CodeShuttingDown, Message: "the server is shutting down: nothing ran",
		Do: "Send the request again once the server is back.", RetryAfter: s.retryAfterSeconds()}
}

func (s *Server) isStopping() bool {
	select {
	case <-s.stopping:
		return true
	default:
		return false
	}
}

// refuseStopping answers 503 while the server shuts down.
func (s *Server) refuseStopping(w http.ResponseWriter) bool {
	if !s.isStopping() {
		return false
	}
	s.metrics.refusals.With(CodeShuttingDown, "").Inc()
	s.setRetryAfter(w)
	writeError(w, http.StatusServiceUnavailable, s.stoppingDetail())
	return true
}

func writeError(w http.ResponseWriter, status int, d errorDetail) {
	writeJSON(w, status, errorBody{Error: d})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := marshalReply(v)
	if err != nil {
		status = http.StatusInternalServerError
		data = []byte(`{"error":{"code":"internal","message":"encode the reply"}}`)
	}
	data = append(data, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// Its length, known: a reply past the server's buffer (a run's, with
	// its receipt) is then sent whole, not in chunks.
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

var (
	errBusy     = errors.New("busy")
	errStopping = errors.New("shutting down")
)

// gate bounds the runs of a door: at most workers run at once, and at
// most queue more wait for a turn. Past that, enter refuses at once. A
// request whose run is over while its reply is still being written
// (turn.ran) runs no more and waits for nothing, but still counts
// against the bound, so that the bound holds the replies' memory too.
// A slot given back goes to the turn waiting whose owner (its tenant)
// runs fewest at that moment; among those, to the owner given a slot
// least lately, and then to the first to come: a tenant whose runs wait
// in the queue behind another's many takes the next slot, not the one
// after all of them.
type gate struct {
	workers  int
	stopping <-chan struct{}
	mu       sync.Mutex
	admitted int               // running, waiting, and replying
	replying int               // past turn.ran, not yet released
	running  int               // slots taken
	owners   map[string]int    // slots taken, by the owner of their turn
	served   map[string]uint64 // when each owner was last given a slot (grants)
	grants   uint64            // slots given
	waiting  []*turn           // turns waiting for a slot, in the order they came
	limit    int
}

func newGate(workers, queue int, stopping <-chan struct{}) *gate {
	return &gate{workers: workers, stopping: stopping, limit: workers + queue,
		owners: map[string]int{}, served: map[string]uint64{}}
}

// turn is a request's place at a gate: a place among those admitted,
// from place to release, and a slot to run in, from take to ran.
type turn struct {
	g       *gate
	owner   string        // whose turn it is (a tenant's name), for the slots' order
	ready   chan struct{} // closed when a slot is given to this turn waiting
	slotted bool          // a slot was given to it (under g.mu)
	done    bool          // ran: the slot was given back
	then    func()        // called by release, after the gate's turn is given back; may be nil
}

// enter waits for a turn to run, a place and a slot (place, then take):
// errBusy when the bound is reached, errStopping when the door stops
// first, ctx's error when the caller goes. The turn's release gives it
// back.
func (g *gate) enter(ctx context.Context) (*turn, error) {
	t, err := g.place()
	if err != nil {
		return nil, err
	}
	if err := t.take(ctx); err != nil {
		t.release()
		return nil, err
	}
	return t, nil
}

// place takes a place among those admitted, with no slot yet: errBusy
// when the bound is reached, errStopping when the door is stopping. The
// turn's release gives it back, whether or not take took a slot.
func (g *gate) place() (*turn, error) {
	select {
	case <-g.stopping: // stopping is said first, busy or not
		return nil, errStopping
	default:
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.admitted >= g.limit {
		return nil, errBusy
	}
	g.admitted++
	return &turn{g: g}, nil
}

// take waits for a slot to run in, for a turn placed: errStopping when
// the door stops first, ctx's error when the caller goes (the turn stays
// placed, for its release).
func (t *turn) take(ctx context.Context) error {
	g := t.g
	select {
	case <-g.stopping:
		return errStopping
	default:
	}
	g.mu.Lock()
	if g.running < g.workers && len(g.waiting) == 0 {
		g.grant(t)
		g.mu.Unlock()
		return nil
	}
	t.ready = make(chan struct{})
	g.waiting = append(g.waiting, t)
	g.mu.Unlock()
	var err error
	select {
	case <-t.ready:
		return nil
	case <-g.stopping:
		err = errStopping
	case <-ctx.Done():
		err = ctx.Err()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if t.slotted { // given a slot as it went: given on
		t.slotted = false
		g.free(t.owner)
		return err
	}
	for i, w := range g.waiting {
		if w == t {
			g.waiting = append(g.waiting[:i], g.waiting[i+1:]...)
			break
		}
	}
	return err
}

// grant gives t a slot; g.mu is held.
func (g *gate) grant(t *turn) {
	t.slotted = true
	g.running++
	g.owners[t.owner]++
	g.grants++
	g.served[t.owner] = g.grants
}

// before reports whether a waiting turn of owner a is to be given a
// slot before one of owner b: a runs fewer, or as many and was given one
// less lately. g.mu is held.
func (g *gate) before(a, b string) bool {
	if g.owners[a] != g.owners[b] {
		return g.owners[a] < g.owners[b]
	}
	return g.served[a] < g.served[b]
}

// free gives back a slot of owner's and hands the free slots on to the
// turns waiting, in the order gate says. g.mu is held.
func (g *gate) free(owner string) {
	g.running--
	if g.owners[owner]--; g.owners[owner] <= 0 {
		delete(g.owners, owner)
	}
	for g.running < g.workers && len(g.waiting) > 0 {
		next := 0
		for i, w := range g.waiting {
			if g.before(w.owner, g.waiting[next].owner) {
				next = i
			}
		}
		t := g.waiting[next]
		g.waiting = append(g.waiting[:next], g.waiting[next+1:]...)
		g.grant(t)
		close(t.ready)
	}
}

// ran gives back t's slot, once: its run is over, and another may run
// while its reply is written. It stays admitted until release.
func (t *turn) ran() {
	g := t.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if t.done || !t.slotted {
		return
	}
	t.done = true
	g.free(t.owner)
	g.replying++
}

// release gives back what t still holds of its gate, then calls t.then.
func (t *turn) release() {
	g := t.g
	g.mu.Lock()
	switch {
	case t.done:
		g.replying--
	case t.slotted:
		g.free(t.owner)
	}
	g.admitted--
	g.mu.Unlock()
	if t.then != nil {
		t.then()
	}
}

// taken is how many runs are running, and how many places are taken in
// all (runs running and waiting, bodies read, replies written).
func (g *gate) taken() (running, admitted int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.running, g.admitted
}

// load is how many runs are running and how many wait.
func (g *gate) load() (running, queued int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.running, max(0, g.admitted-g.running-g.replying)
}
