package door

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"regexp"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/promtext"
	"github.com/sabline/sabline/receipt"
)

// Shipping is what a door reads of the shipping of its receipts to a
// shared store, for its metrics: *ship.Shipper is one.
type Shipping interface {
	// Lag is how long the oldest receipt not yet shipped has waited.
	Lag() time.Duration
	// Err is why the last round shipped nothing, or nil.
	Err() error
	// Objects is how many objects have been shipped.
	Objects() int
}

// liveWorkers is a Runner that knows how many workers it has alive
// (PoolRunner), for the metric of idle workers.
type liveWorkers interface{ liveWorkers() int }

// runBuckets are the bounds, in seconds, of the histogram of run
// latency: from a run that is over in milliseconds to one stopped at a
// timeout of minutes.
var runBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// metrics are a door's Prometheus metrics, in a registry of the door's
// own. Every label is bounded by the door, never by what a client sends:
// tenant is a name in the operator's tenants file (or the one tenant of
// a token, or "" for none: sabline mcp), outcome a receipt's status,
// level a confinement level, reason an error code.
type metrics struct {
	reg      *promtext.Registry
	runs     *promtext.Counter   // outcome, level, tenant
	latency  *promtext.Histogram // tenant
	refusals *promtext.Counter   // reason, tenant
}

// newMetrics makes the door's registry: its runs, latency and refusals,
// the gauges of its workers and queue, the shipping's when sh is set, and
// the process's and the Go runtime's.
func (s *Server) newMetrics(sh Shipping) *metrics {
	reg := promtext.New()
	m := &metrics{
		reg: reg,
		runs: reg.Counter("sabline_runs_total",
			"Runs that happened (they have a receipt), by outcome, confinement level and tenant.",
			"outcome", "level", "tenant"),
		latency: reg.Histogram("sabline_run_duration_seconds",
			"How long a run took, from the door handing it to its worker to its reply, by tenant.",
			runBuckets, "tenant"),
		refusals: reg.Counter("sabline_refusals_total",
			"Requests refused with nothing run, by reason (an error code: unauthorized, "+
				"busy, E328, ...) and tenant (\"\" before a token names one).",
			"reason", "tenant"),
	}
	reg.GaugeFunc("sabline_workers", "Runs the door lets run at once (--workers).",
		func() float64 { return float64(s.cfg.Workers) })
	reg.GaugeFunc("sabline_workers_busy", "Workers running a run now.", func() float64 {
		running, _ := s.gate.load()
		return float64(running)
	})
	reg.GaugeFunc("sabline_workers_idle", "Workers alive and waiting for a run.", func() float64 {
		running, _ := s.gate.load()
		alive := s.cfg.Workers
		if lw, ok := s.cfg.Runner.(liveWorkers); ok {
			alive = lw.liveWorkers()
		}
		return float64(max(0, alive-running))
	})
	reg.GaugeFunc("sabline_queue_depth", "Runs waiting for a worker.", func() float64 {
		_, queued := s.gate.load()
		return float64(queued)
	})
	reg.GaugeFunc("sabline_queue_capacity", "Runs that may wait past the workers (--queue).",
		func() float64 { return float64(s.cfg.Queue) })
	if sh != nil {
		reg.GaugeFunc("sabline_shipping_lag_seconds",
			"How long the oldest receipt not yet in the shared store has waited.",
			func() float64 { return sh.Lag().Seconds() })
		reg.GaugeFunc("sabline_shipping_failing",
			"1 when the last round of shipping to the shared store failed, else 0.",
			func() float64 {
				if sh.Err() != nil {
					return 1
				}
				return 0
			})
		reg.CounterFunc("sabline_shipped_objects_total",
			"Objects of receipts written to the shared store.",
			func() float64 { return float64(sh.Objects()) })
	}
	reg.GoRuntime()
	return m
}

// MetricsHandler is the door's metrics in the Prometheus exposition
// format, from a registry of the door's own, refused (403) like the door
// when its Host or Origin is not this server's. It asks for no token: it
// is served on a listener of its own (sabline serve --metrics-listen),
// which only those the operator lets reach it reach; its labels name the
// operator's tenants, never a client's words.
func (s *Server) MetricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.metrics.reg)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, errorDetail{Code: CodeNotFound,
			Message: "no such endpoint: this listener serves GET /metrics"})
	})
	return s.sameOrigin(mux)
}

// outcomes are the statuses a receipt may have: a run's outcome label.
var outcomes = map[string]bool{
	receipt.StatusOK: true, receipt.StatusFailed: true, receipt.StatusRefused: true,
	receipt.StatusUsage: true, receipt.StatusTimeout: true, receipt.StatusMemory: true,
	receipt.StatusKilled: true, receipt.StatusCrashed: true, receipt.StatusInternal: true,
	receipt.StatusUnfinished: true,
}

// levels are the confinement levels: a run's level label.
var levels = map[string]bool{string(core.Full): true, string(core.Partial): true,
	string(core.None): true}

// bounded is v when known holds it, else "other".
func bounded(v string, known map[string]bool) string {
	if known[v] {
		return v
	}
	return "other"
}

// tenantLabel is t's name; "" for none.
func tenantLabel(t *tenantState) string {
	if t == nil {
		return ""
	}
	return t.Name
}

// ran counts and logs a run that happened: door names the door it came
// through, t its tenant.
func (s *Server) ran(ctx context.Context, door string, t *tenantState, reply RunReply,
	took time.Duration) {
	tenant := tenantLabel(t)
	s.metrics.runs.With(bounded(reply.Status, outcomes), bounded(reply.Level, levels),
		tenant).Inc()
	s.metrics.latency.With(tenant).Observe(took.Seconds())
	ended := reply.Status
	if reply.Code != "" {
		ended += " " + reply.Code
	}
	if reply.Testimony != "" {
		ended += " (testimony: reported by what ran the program)"
	}
	msg := codes.TerminalSafe(door + ": run " + reply.RunID + ": " + ended)
	if s.cfg.Logger == nil {
		s.cfg.Logf("%s, exit %d, level %s, %s", msg, reply.ExitStatus,
			codes.TerminalSafe(reply.Level), took.Round(time.Millisecond))
		return
	}
	s.cfg.Logger.LogAttrs(ctx, slog.LevelInfo, msg,
		slog.String("door", door), slog.String("run_id", reply.RunID),
		slog.String("tenant", tenant), slog.String("status", reply.Status),
		slog.String("code", reply.Code), slog.Int("exit", reply.ExitStatus),
		slog.String("confinement", reply.Level), slog.Bool("testimony", reply.Testimony != ""),
		slog.Float64("duration_seconds", took.Seconds()))
}

// codePattern is the form of an error code of codes: a reason label.
var codePattern = regexp.MustCompile(`^E[0-9]{3}$`)

// doorCodes are the codes of the door's own refusals: a reason label.
var doorCodes = map[string]bool{CodeUnauthorized: true, CodeBusy: true, CodeShuttingDown: true,
	CodeForeignOrigin: true, CodeInternal: true, codeBatch: true, codeCancelled: true,
	CodeRateLimit: true, CodeConcurrencyLimit: true, CodeReceiptsUnavailable: true}

// The reasons of refusals that have no code of their own elsewhere.
const (
	codeBatch     = "batch"     // a JSON-RPC batch on /mcp
	codeCancelled = "cancelled" // the client went before its run started
)

// reasonOf is the reason label of a refusal's error.
func reasonOf(err error) string {
	var le *limitError
	switch {
	case errors.As(err, &le):
		return le.code
	case errors.Is(err, errBusy):
		return CodeBusy
	case errors.Is(err, errStopping):
		return CodeShuttingDown
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return codeCancelled
	}
	if c := string(codes.CodeOf(err)); codePattern.MatchString(c) {
		return c
	}
	return CodeInternal
}

// refused counts and logs a refusal: door names the door, t the tenant
// (nil: none known), reason its code (reasonOf), msg what the log says.
// The run id, when a refusal has a receipt, is logged too.
func (s *Server) refused(ctx context.Context, door string, t *tenantState, reason, runID,
	msg string) {
	if !codePattern.MatchString(reason) && !doorCodes[reason] {
		reason = CodeInternal
	}
	tenant := tenantLabel(t)
	s.metrics.refusals.With(reason, tenant).Inc()
	// A message that quotes a request is kept to a message's bound, as
	// the reply and the receipt keep it, saying what it left out.
	msg = codes.TerminalSafe(codes.Clip(msg, codes.MaxMessageBytes))
	if s.cfg.Logger == nil {
		s.cfg.Logf("%s: refused: %s", door, msg)
		return
	}
	attrs := []slog.Attr{slog.String("door", door), slog.String("reason", reason),
		slog.String("tenant", tenant)}
	if runID != "" {
		attrs = append(attrs, slog.String("run_id", runID))
	}
	s.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, door+": refused: "+msg, attrs...)
}

// refusedErr is refused for an error.
func (s *Server) refusedErr(ctx context.Context, door string, t *tenantState, err error) {
	s.refused(ctx, door, t, reasonOf(err), "", err.Error())
}
