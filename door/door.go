// Package door is Sabline's server side: the two doors through which a
// client asks for a run. The HTTP door answers POST /v1/run, POST
// /v1/audit, GET /v1/receipts/{id} and GET /v1/health, and mounts the MCP
// door's Streamable HTTP transport at /mcp, every request behind a bearer
// token and refused first when its Host or Origin is not this server's;
// the MCP door (an *mcp.Server with the tools run and audit, and the
// client's receipts as resources) is served on standard input and output
// too. A client reads the receipts of its own runs only: a client is its
// token over HTTP, its session otherwise. A client names a program (its
// text, or a path under the operator's import root), its arguments, its
// standard input and, at most, a narrowing of the operator's budget;
// everything else (the budget's ceiling, the confinement, the limits) is
// the operator's, and a request that names a confinement setting is
// refused. The door decodes strictly (unknown fields refused, the body
// bounded), holds its own bound on runs in flight and queued (past it: 429
// with Retry-After; while shutting down: 503), and hands each run to a
// Runner, which runs it confined and keeps its receipt: PoolRunner runs it
// in a sabline.Pool, which is how sabline serve and sabline mcp run, and
// how an embedder serves either door over a pool of its own. The door
// counts its runs and refusals in Prometheus metrics of its own, which
// MetricsHandler serves on whatever listener the operator gives them, and
// logs each run with its run id (Config.Logger: log/slog records).
package door

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
)

// RunRequest is one program to run, as a client asked for it. Policy is
// never in it.
type RunRequest struct {
	Source string   // program text; or
	Path   string   // a path under the operator's import root (exactly one of Source, Path)
	Args   []string // the program's arguments
	Stdin  string   // the program's standard input
	Allow  []string // budget items narrowing the operator's ceiling; empty: the ceiling itself
	// Tenant and Ceiling are set by the door, never by the client: the
	// tenant whose token the request carried, and its ceiling (nil: the
	// operator's).
	Tenant  string
	Ceiling *budget.Budget
}

// RunReply is a run that happened (it has a receipt), however it ended.
type RunReply struct {
	Stdout, Stderr string
	ExitStatus     int
	// RunID, Level, Reason, Status, Code and Message are the receipt's
	// run id, confinement level and reason, and outcome.
	RunID, Level, Reason, Status, Code, Message string
	// Position and Stack are where the run's error happened (FILE:LINE:COL)
	// and the calls that led there, innermost first, as the receipt has
	// them; a file beneath the import root is named relative to it.
	Position string
	Stack    []string
	// Testimony, when set, says why the outcome (Status, ExitStatus, Code,
	// Message) is what ran the program reported and could have forged: the
	// receipt's Reported.Testimony, where the outcome is among the fields
	// it reported.
	Testimony string
	Receipt   json.RawMessage // the receipt as stored
	// redacted is Receipt as hostFacts.reply made it, compact and valid
	// JSON the server encoded itself, which a reply is written around
	// without reading it again (runReplyJSON); it is that only while it
	// is Receipt itself, the same bytes in the same place. A Runner of
	// another package cannot set it: its receipts are encoded as before.
	redacted json.RawMessage
}

// AuditRequest is a program to audit: its text or a path under the
// operator's import root (exactly one).
type AuditRequest struct {
	Source, Path string
	// Ceiling is set by the door, never by the client: the ceiling of the
	// tenant whose token the request carried (nil: the operator's).
	Ceiling *budget.Budget
}

// AuditReply is what an audit says of a program: the budget it declares,
// the level each system would give it (system -> level) and why, the level
// on this machine, and whether a run asking for the declared budget would
// be admitted: within the caller's ceiling (its tenant's, else the
// operator's) and onto nothing no grant reaches.
type AuditReply struct {
	Budget  string
	Levels  map[string]string // system -> level
	Reasons map[string]string // system -> why that level
	Here    string            // the level on this machine
	Within  bool              // a run asking for the declared budget would be admitted
}

// Runner runs programs for a door. An error from Run or Audit is a
// refusal before anything ran: a *codes.Error with an E3xx code, which
// the door maps to the HTTP status (statusOf); the reply beside a Run
// error names the receipt of the refusal when there is one (its RunID
// and Receipt). Receipt answers for the runs of tenant only; an error
// from it that wraps fs.ErrNotExist means there is no such receipt, or
// none of tenant's.
type Runner interface {
	Run(ctx context.Context, req RunRequest) (RunReply, error)
	Audit(ctx context.Context, req AuditRequest) (AuditReply, error)
	Receipt(ctx context.Context, tenant, id string) (json.RawMessage, error)
}

// The codes of the conditions a door answers that are not a run's: they
// are the door's, not a program's, and have no E3xx code.
const (
	CodeUnauthorized = "unauthorized"  // 401: no token, or not the server's
	CodeBusy         = "busy"          // 429: past the bound on runs in flight and queued
	CodeShuttingDown = "shutting-down" // 503: the server is stopping
	CodeNotFound     = "not-found"     // 404: no such endpoint
	CodeMethod       = "method"        // 405: the endpoint takes another method
	CodeInternal     = "internal"      // 500: a fault of the server
)

// statusOf is the HTTP status of a refusal with code c: 400 for a
// malformed request (E301, E311), 403 for a budget, path or confinement
// the operator's settings refuse (E302, E303, E316, E318, E326, E328,
// E329), 413 for arguments past the bound a door accepts (E336), 500 for
// anything else (E317 among them: the server cannot keep receipts).
func statusOf(c codes.Code) int {
	switch c {
	case codes.E301, codes.E311:
		return http.StatusBadRequest
	case codes.E302, codes.E303, codes.E316, codes.E318, codes.E326, codes.E328, codes.E329:
		return http.StatusForbidden
	case codes.E336:
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusInternalServerError
}

// errorBody is the JSON a door answers an error with:
// {"error":{"code":"E3xx","message":"...","do":"..."}}.
type errorBody struct {
	Error errorDetail `json:"error"`
}

// errorDetail is the error inside an errorBody. RetryAfter, in seconds, is
// set when the server is busy or stopping.
type errorDetail struct {
	Code       string `json:"code"`
	Message    string `json:"message"`
	Do         string `json:"do,omitempty"`
	RetryAfter int    `json:"retry_after,omitempty"`
	// RunID names the receipt a refused run left (status usage): the
	// client reads it at /v1/receipts/RUN_ID; "" where none was kept.
	RunID string `json:"run_id,omitempty"`
}

// detailOf is the errorDetail of err: its code, message and what to do
// when it is a *codes.Error, else CodeInternal.
func detailOf(err error) errorDetail {
	var e *codes.Error
	if errors.As(err, &e) {
		// Bounded as the receipt's outcome is (codes.Error.Bounded): a
		// message that quotes a client's text says what it left out, in
		// the same words as the receipt.
		return errorDetail{Code: string(e.Code), Message: codes.Clip(e.Msg, codes.MaxMessageBytes),
			Do: e.Hint()}
	}
	return errorDetail{Code: CodeInternal, Message: err.Error()}
}

// encodedJSON is a reply already encoded as JSON, which writeJSON writes
// as it is (marshalReply).
type encodedJSON []byte

// marshalReply is v encoded as JSON: v itself when it is encodedJSON,
// else json.Marshal of it.
func marshalReply(v any) ([]byte, error) {
	if e, ok := v.(encodedJSON); ok {
		return e, nil
	}
	return json.Marshal(v)
}

// runReplyJSON is the reply of /v1/run for r, to be encoded by
// marshalReply: runJSON written in room made for it once
// (RunOutput.appendJSON), and, when r's receipt is the one
// hostFacts.reply redacted, the receipt's bytes put in as its last
// field, as they are. json.Marshal would compact and check every byte
// of the receipt again, and escape the < and > of the words the
// redaction writes (RedactedImportRoot) as \u003c and \u003e: the same
// JSON value, where the reply now has the receipt's bytes as the
// ledger keeps them and a lookup answers them. A receipt of a Runner of
// another package is compacted and checked as json.Marshal does.
func runReplyJSON(r RunReply) any {
	rec := r.Receipt
	if len(rec) > 0 && !sameBytes(rec, r.redacted) {
		var err error
		if rec, err = json.Marshal(rec); err != nil {
			return runJSON{runOutputOf(r), r.Receipt} // its encoding fails as it did
		}
	}
	const field = `,"receipt":`
	out := runOutputOf(r)
	// Room for the reply whole, and the newline writeJSON ends it with.
	data := out.appendJSON(make([]byte, 0, out.jsonSize()+len(field)+len(rec)+1))
	if len(rec) > 0 {
		data = append(append(append(data[:len(data)-1], field...), rec...), '}')
	}
	return encodedJSON(data)
}

// sameBytes reports whether a and b are one slice: the same length from
// the same place.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// statusOfErr is the HTTP status of a Runner's error.
func statusOfErr(err error) int {
	if c := codes.CodeOf(err); c != "" {
		return statusOf(c)
	}
	return http.StatusInternalServerError
}
