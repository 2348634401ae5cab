package door

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
)

// The reasons /readyz gives for a server that should be sent no traffic:
// one word each, and nothing else, since anyone may ask (ReadyReasons).
// What lies behind one goes to the log, and to the operator's token on
// /v1/health (NotReady.Detail).
const (
	// ReasonConfinement: a run sent now would be refused for its level
	// (E326): the workers would hold less than --require-confinement, a
	// granted directory gone among the causes.
	ReasonConfinement = "confinement"
	// ReasonReceipts: the receipts journal takes no records, or cannot
	// be written.
	ReasonReceipts = "receipts"
	// ReasonStoreLagging: the receipts reach the fleet's shared store
	// later than the bound the operator set.
	ReasonStoreLagging = "store-lagging"
	// ReasonOther: Config.Ready said not ready, with no reason of these.
	ReasonOther = "other"
)

// ReadyReasons are every reason /readyz answers, its shutting-down
// among them: the one list of them (docs/openapi.yaml's is checked
// against it).
var ReadyReasons = []string{CodeShuttingDown, ReasonConfinement, ReasonReceipts,
	ReasonStoreLagging, ReasonOther}

// NotReady is why a server should be sent no traffic, as Config.Ready
// says it: a reason of ReadyReasons, which /readyz answers alone, and
// /v1/health to every tenant; a detail, which the operator's token alone
// reads on /v1/health (tenant.Tenant.Operator), and which names no path
// of the operator's and says none of the store's words (its endpoint,
// bucket, keys, replica or journal ids) all the same; and the error with
// all of it, which the server logs.
type NotReady struct {
	Reason string
	Detail string
	Err    error
}

func (e *NotReady) Error() string { return e.Reason + ": " + e.Err.Error() }

// Unwrap is the error with all of it.
func (e *NotReady) Unwrap() error { return e.Err }

// shuttingDownDetail is the NotReady.Detail of a server that stops.
const shuttingDownDetail = "the server is shutting down"

// readiness is whether the server may be sent traffic: nil when it may,
// else why (Config.Ready's error, or shutting-down while it stops). A
// change of reason is logged with the whole error, once.
func (s *Server) readiness(ctx context.Context) *NotReady {
	var nr *NotReady
	switch {
	case s.isStopping():
		nr = &NotReady{Reason: CodeShuttingDown, Detail: shuttingDownDetail, Err: errStopping}
	case s.cfg.Ready != nil:
		if err := s.cfg.Ready(); err != nil && !errors.As(err, &nr) {
			nr = &NotReady{Reason: ReasonOther, Err: err}
		}
	}
	if nr != nil && !knownReason(nr.Reason) {
		nr = &NotReady{Reason: ReasonOther, Detail: nr.Detail, Err: nr}
	}
	s.ready.note(ctx, s, nr)
	return nr
}

func knownReason(r string) bool {
	for _, k := range ReadyReasons {
		if r == k {
			return true
		}
	}
	return false
}

// readyLog logs the changes of a server's readiness: once when it
// becomes not ready or changes reason, with all the error says, and once
// when it is ready again; a probe every few seconds logs nothing more.
type readyLog struct {
	mu     sync.Mutex
	reason string // "" while ready
}

func (l *readyLog) note(ctx context.Context, s *Server, nr *NotReady) {
	reason := ""
	if nr != nil {
		reason = nr.Reason
	}
	l.mu.Lock()
	was := l.reason
	l.reason = reason
	l.mu.Unlock()
	if reason == was || reason == CodeShuttingDown {
		return // shutting down is said by the server as it stops
	}
	if nr == nil {
		s.logState(ctx, slog.LevelInfo, "ready", "")
		return
	}
	s.logState(ctx, slog.LevelWarn, "not ready: "+nr.Reason+": "+nr.Err.Error(), nr.Reason)
}

// logState logs a change of the server's readiness.
func (s *Server) logState(ctx context.Context, level slog.Level, msg, reason string) {
	msg = clipLog(msg)
	if s.cfg.Logger == nil {
		s.cfg.Logf("%s", msg)
		return
	}
	s.cfg.Logger.LogAttrs(ctx, level, msg, slog.String("ready_reason", reason))
}

// maxLogBytes bounds one line of the readiness log: an error that ends in
// a store's reply can be long.
const maxLogBytes = 4096

func clipLog(msg string) string { return codes.Clip(codes.TerminalSafe(msg), maxLogBytes) }

// handleReady is /readyz: 200 when the server may be sent traffic; 503,
// with one word of ReadyReasons, when Config.Ready says it should not, or
// while it stops. Anyone may ask: the word is all it says.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	nr := s.readiness(r.Context())
	if nr == nil {
		writeJSON(w, http.StatusOK, probeJSON{Status: "ready"})
		return
	}
	s.setRetryAfter(w)
	status := "not-ready"
	if nr.Reason == CodeShuttingDown {
		status = CodeShuttingDown
	}
	writeJSON(w, http.StatusServiceUnavailable, probeJSON{Status: status, Reason: nr.Reason})
}

// healthJSON is the reply of /v1/health. To every tenant: whether the
// server serves, its version, and whether it is ready and, when not, the
// one word of ReadyReasons that /readyz gives anyone. To the operator's
// token (tenant.Tenant.Operator) alone, operatorHealth besides. Nothing
// of the server's settings, files or store, to either.
type healthJSON struct {
	Status  string `json:"status"` // ok or shutting-down
	Version string `json:"version"`
	Ready   bool   `json:"ready"`
	Reason  string `json:"reason,omitempty"`
	// operatorHealth is nil in a reply to any tenant but the operator's.
	*operatorHealth
}

// operatorHealth is what /v1/health tells the operator alone: the
// server's bounds (Config.Workers, Config.Queue) and its load, the runs
// of every tenant together, which one tenant is not to watch of the
// others (a refusal for busy names the bounds to the client it refuses);
// and, when it is not ready, what lies behind the reason
// (NotReady.Detail), in the server's words.
type operatorHealth struct {
	Workers int    `json:"workers"`
	Queue   int    `json:"queue"`
	Running int    `json:"running"`
	Queued  int    `json:"queued"`
	Detail  string `json:"detail,omitempty"`
}

// handleHealth is /v1/health: the state to every tenant, and the
// operator's part of it (operatorHealth) to the operator's token alone.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	h := healthJSON{Status: "ok", Version: receipt.Version, Ready: true}
	nr := s.readiness(r.Context())
	if nr != nil {
		h.Ready, h.Reason = false, nr.Reason
	}
	if tenantFrom(r.Context()).operator() {
		running, queued := s.gate.load()
		h.operatorHealth = &operatorHealth{Workers: s.cfg.Workers, Queue: s.cfg.Queue,
			Running: running, Queued: queued}
		if nr != nil {
			h.Detail = codes.TerminalSafe(nr.Detail)
		}
	}
	status := http.StatusOK
	if s.isStopping() {
		h.Status, status = CodeShuttingDown, http.StatusServiceUnavailable
		s.setRetryAfter(w)
	}
	writeJSON(w, status, h)
}

// CodeReceiptsUnavailable is the code of a receipt lookup that failed for
// the server's own cause (its receipts or the fleet's store did not
// answer): 503, with Retry-After, and nothing of what failed, which the
// log says.
const CodeReceiptsUnavailable = "receipts-unavailable"

// receiptsUnavailable is the message and what to do of
// CodeReceiptsUnavailable.
const (
	receiptsUnavailableMsg = "the receipt could not be read now: the server's receipts store " +
		"did not answer"
	receiptsUnavailableDo = "Ask again after Retry-After seconds: a receipt is kept, and read " +
		"once the store answers. The server's log says what failed."
)

// errReceiptsUnavailable is what a client is told of a lookup that
// failed for the server's own cause.
var errReceiptsUnavailable = errors.New(receiptsUnavailableMsg)

// lookupFailed is what a client is told of a receipt lookup that failed
// with err, other than for no such receipt: a refusal of a limit, the
// gate or the stopping server as it is, and so the end of the request's
// own context (ctx: the client gone); anything else, which the Runner or
// the store said, is logged whole and answered as errReceiptsUnavailable:
// a store that did not answer within its call's deadline among them.
func (s *Server) lookupFailed(ctx context.Context, door string, t *tenantState, id string,
	err error) error {
	var le *limitError
	switch {
	case errors.As(err, &le), errors.Is(err, errBusy), errors.Is(err, errStopping):
		return err
	case ctx.Err() != nil &&
		(errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		return err
	}
	s.refused(ctx, door, t, CodeReceiptsUnavailable, id, "receipt "+id+": "+err.Error())
	return errReceiptsUnavailable
}

// writeLookupError answers a receipt lookup that failed (lookupFailed).
func (s *Server) writeLookupError(w http.ResponseWriter, r *http.Request, id string, err error) {
	err = s.lookupFailed(r.Context(), "http", tenantFrom(r.Context()), id, err)
	if !errors.Is(err, errReceiptsUnavailable) {
		s.writeRefusal(w, err, "")
		return
	}
	s.setRetryAfter(w)
	writeError(w, http.StatusServiceUnavailable, errorDetail{Code: CodeReceiptsUnavailable,
		Message: receiptsUnavailableMsg, Do: receiptsUnavailableDo,
		RetryAfter: s.retryAfterSeconds()})
}
