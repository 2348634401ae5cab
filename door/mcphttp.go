package door

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// batchRefusal is the message of the JSON-RPC error (-32600) that
// answers a batch on /mcp, as a batch on standard input is answered.
const batchRefusal = "a batch: send one JSON-RPC message a request"

// mcpHandler is the MCP door over Streamable HTTP, stateless (no session
// is kept between requests), its bodies bounded like the door's own. A
// JSON-RPC batch is refused (-32600), as on standard input.
// Replies are JSON, but for a tools/call that asks for progress (a
// progress token), whose reply is an event stream that carries the
// progress before the result. A request whose method is none the door
// answers is answered -32601 with its id (notFound), as on standard
// input. A tools/call its client cancels
// (notifications/cancelled, in a request of its own) is answered with
// nothing, as MCP has it: its reply is an event stream that ends with
// no answer (unanswered). A body that is not JSON, and every refusal
// the SDK answers in plain text, is answered with a JSON-RPC error.
func (s *Server) mcpHandler() http.Handler {
	opts := mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		MaxRequestBodyBytes: s.cfg.MaxBodyBytes,
	}
	get := func(*http.Request) *mcp.Server { return s.mcp }
	replies := mcp.NewStreamableHTTPHandler(get, &opts)
	opts.JSONResponse = false
	streams := mcp.NewStreamableHTTPHandler(get, &opts)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.refuseStopping(w) {
			return
		}
		// Each write of the reply has replyWrite to be taken: a client
		// that reads none of it lets go of what it holds then.
		jw := &jsonrpcErrors{ResponseWriter: w, deadline: s.replyWrite}
		defer jw.finish()
		h := replies
		// The turns a tools/call took are held until its reply is
		// written, as /v1/run's are (keepUntilReplied).
		held := &heldReplies{}
		defer held.release()
		ctx := context.WithValue(r.Context(), heldRepliesKey{}, held)
		if r.Method == http.MethodPost {
			// A body past freeBodyBytes takes a place at the gate before
			// the rest of it is read (bodyPlace), as /v1/run's does.
			bp := &bodyPlace{}
			defer bp.release()
			body, ok := s.mcpBody(jw, r, bp)
			if !ok {
				return
			}
			if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '[' {
				// As on standard input: a batch's calls would escape
				// cancellation and progress, which name one request.
				s.refused(ctx, "mcp", tenantFrom(ctx), codeBatch, "", batchRefusal)
				writeRPCError(jw, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, batchRefusal)
				return
			}
			m := peek(body)
			if msg := idRefusal(m.ID); msg != "" {
				writeRPCError(jw, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, msg)
				return
			}
			if msg := tokenRefusal(m.Params.Meta["progressToken"]); len(m.ID) > 0 && msg != "" {
				writeRPCError(jw, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, msg)
				return
			}
			if resp := notFound(body, m); resp != nil {
				data, _ := encode(resp)
				jw.Header().Set("Content-Type", "application/json")
				jw.WriteHeader(http.StatusOK)
				_, _ = jw.Write(append(data, '\n'))
				return
			}
			if m.Method == "tools/call" && m.Params.Meta["progressToken"] != nil {
				h = streams
			}
			if m.Method == "tools/call" {
				ctx = context.WithValue(ctx, bodyPlaceKey{}, bp) // its run takes the place on
			} else {
				bp.release() // read: the SDK answers it at once
			}
			// The run of a tools/call ends when its request does
			// (runContext): when its client goes, or cancels it in a
			// request of its own.
			var done func()
			ctx, done = s.calls.track(ctx, tenantFrom(r.Context()).client(), m)
			defer done()
			call := ctx
			jw.cancelled = func() bool { return errors.Is(context.Cause(call), errCallCancelled) }
		}
		h.ServeHTTP(jw, r.WithContext(context.WithValue(ctx, requestKey{}, ctx)))
		if errors.Is(context.Cause(ctx), errCallCancelled) {
			jw.unanswered()
		}
	})
}

// message is what the door reads of a JSON-RPC message on /mcp before the
// SDK does.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta      map[string]json.RawMessage `json:"_meta"`
		RequestID json.RawMessage            `json:"requestId"`
	} `json:"params"`
}

// peek reads body as one message; a batch, or anything else, reads as none.
func peek(body []byte) message {
	var m message
	_ = json.Unmarshal(body, &m)
	return m
}

// notFound is the answer (methodNotFound) of a body that is a request
// whose method, m's, is none the door answers, or nil: answered as on
// standard input, -32601 with its id, status 200, as the SDK answers one
// it knows and has no handler for (resources/subscribe).
func notFound(body []byte, m message) *jsonrpc.Response {
	if len(m.ID) == 0 || slices.Contains(mcpMethods, m.Method) {
		return nil // read only for a request the door does not answer
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil {
		return methodNotFound(req)
	}
	return nil
}

// httpCalls are the tools/call requests in flight on /mcp, by client and
// JSON-RPC id. /mcp keeps no session, so a notifications/cancelled comes
// in a request of its own: it ends every call its client has in flight
// under the id it names. Clients that share a token are one client, and
// share its ids: two calls in flight under one id are both ended by its
// cancel, and the end of one leaves the other's cancel in place.
type httpCalls struct {
	mu    sync.Mutex
	next  uint64                                        // the number of the next call
	calls map[string]map[uint64]context.CancelCauseFunc // client + "\x00" + id
}

// track returns the context of an HTTP request carrying m: a tools/call's
// can be ended by its client's notifications/cancelled, which m may be.
// done forgets the call once its request is answered.
func (c *httpCalls) track(ctx context.Context, client string, m message) (context.Context, func()) {
	switch {
	case m.Method == "notifications/cancelled" && len(m.Params.RequestID) > 0:
		c.mu.Lock()
		var cancels []context.CancelCauseFunc
		for _, cancel := range c.calls[client+"\x00"+string(m.Params.RequestID)] {
			cancels = append(cancels, cancel)
		}
		c.mu.Unlock()
		for _, cancel := range cancels {
			cancel(errCallCancelled)
		}
	case m.Method == "tools/call" && len(m.ID) > 0:
		key := client + "\x00" + string(m.ID)
		ctx, cancel := context.WithCancelCause(ctx)
		c.mu.Lock()
		if c.calls == nil {
			c.calls = map[string]map[uint64]context.CancelCauseFunc{}
		}
		if c.calls[key] == nil {
			c.calls[key] = map[uint64]context.CancelCauseFunc{}
		}
		n := c.next
		c.next++
		c.calls[key][n] = cancel
		c.mu.Unlock()
		return ctx, func() {
			c.mu.Lock()
			if delete(c.calls[key], n); len(c.calls[key]) == 0 {
				delete(c.calls, key)
			}
			c.mu.Unlock()
			cancel(nil)
		}
	}
	return ctx, func() {}
}

// requestKey is the context key of the HTTP request an MCP request came in.
type requestKey struct{}

// freeBodyBytes is how much of a body on /mcp is read before it takes a
// place at the gate: a message of every kind (a cancel, a list, a call
// of a short program) fits, and is read and answered whatever the load,
// and the server's connection slots bound the memory of such bodies.
const freeBodyBytes = 64 << 10

// bodyPlace is the place at the gate, and the turn of its tenant's
// concurrency, that a POST to /mcp whose body passes freeBodyBytes takes
// before the rest of it is read: the bound on runs holds the memory of
// those bodies, as of /v1/run's (admit). The run of a tools/call takes
// it on (Server.enter claims it); any other message gives it back once
// read.
type bodyPlace struct {
	mu   sync.Mutex
	turn *turn // nil: none taken, or claimed, or released
}

// bodyPlaceKey is the context key of a tools/call's bodyPlace.
type bodyPlaceKey struct{}

// claim takes b's turn for a run, once; nil when b holds none.
func (b *bodyPlace) claim() *turn {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.turn
	b.turn = nil
	return t
}

// release gives back b's turn, unless a run claimed it.
func (b *bodyPlace) release() {
	if t := b.claim(); t != nil {
		t.release()
	}
}

// mcpBody reads the body of a POST to /mcp, at most MaxBodyBytes, and puts
// it back for the SDK; past freeBodyBytes it takes bp's place first (a
// refusal, busy or the tenant's concurrency, is answered 429 as on
// /v1/run). A body past the bound (413) or not JSON (400) is answered
// here with a JSON-RPC error.
func (s *Server) mcpBody(w http.ResponseWriter, r *http.Request, bp *bodyPlace) ([]byte, bool) {
	br := http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
	body, err := io.ReadAll(io.LimitReader(br, freeBodyBytes+1))
	if err == nil && len(body) > freeBodyBytes {
		t := tenantFrom(r.Context())
		held, perr := s.placeBody(t)
		if perr != nil {
			s.refusedErr(r.Context(), "mcp", t, perr)
			s.writeRefusal(w, perr, "")
			return nil, false
		}
		bp.turn = held
		var rest []byte
		rest, err = io.ReadAll(br)
		body = append(body, rest...)
	}
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		writeRPCError(w, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("the body is larger than %d bytes", s.cfg.MaxBodyBytes))
		return nil, false
	case err != nil:
		e := bodyUnread(err)
		s.refusedErr(r.Context(), "mcp", tenantFrom(r.Context()), e)
		writeRPCError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, detailOf(e).Message)
		return nil, false
	case !json.Valid(body):
		writeRPCError(w, http.StatusBadRequest, jsonrpc.CodeParseError,
			"parse error: the body is not JSON: send one JSON-RPC message")
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, true
}

// writeRPCError answers a JSON-RPC error that answers no request the
// server could read (id null).
func writeRPCError(w http.ResponseWriter, status int, code int64, msg string) {
	data, _ := encode(&jsonrpc.Response{Error: &jsonrpc.Error{Code: code, Message: msg}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Content-Length")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// jsonrpcErrors is the ResponseWriter of the SDK's handler: a refusal it
// writes in plain text (a missing content type, a method /mcp does not
// take) goes out as a JSON-RPC error with the same status and text, and a
// JSON-RPC error it answers without a code goes out as -32600.
type jsonrpcErrors struct {
	http.ResponseWriter
	deadline time.Duration // each write's, when not 0
	// cancelled reports whether the client cancelled the call the reply
	// answers (notifications/cancelled); nil for a request that is none.
	cancelled func() bool
	started   bool
	status    int          // the status of a refusal held back, 0 if none
	text      bytes.Buffer // its text, the first 4 KiB
}

func (w *jsonrpcErrors) WriteHeader(status int) {
	if w.started {
		return
	}
	w.started = true
	h := w.Header()
	if status >= 400 && strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
		w.status = status
		return
	}
	if strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		h.Del("Content-Length") // a code put right changes it
	}
	w.ResponseWriter.WriteHeader(status)
}

// extend gives the write about to happen w.deadline to be taken.
func (w *jsonrpcErrors) extend() {
	if w.deadline > 0 {
		writeWithin(w.ResponseWriter, w.deadline)
	}
}

func (w *jsonrpcErrors) Write(p []byte) (int, error) {
	if w.status == 0 && w.cancelled != nil && w.cancelled() {
		// The SDK writes each message whole, in one Write: the answer,
		// or an event of the stream. Once the client has cancelled the
		// call, none is written, however the SDK's wait for the request's
		// end and the run's end came in turn: its answer made after the
		// cancel reached the client when the run ended first.
		w.unanswered()
		return len(p), nil
	}
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	w.extend()
	if w.status != 0 {
		if w.text.Len() < 4096 {
			w.text.Write(p[:min(len(p), 4096-w.text.Len())])
		}
		return len(p), nil
	}
	if strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") && len(p) < 64<<10 {
		if msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(p)); err == nil {
			if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error != nil {
				if data, err := encode(withCode(resp)); err == nil {
					_, err = w.ResponseWriter.Write(append(data, '\n'))
					return len(p), err
				}
			}
		}
	}
	return w.ResponseWriter.Write(p)
}

// unanswered ends the reply of a call its client cancelled, if nothing
// of it was written (the SDK writes a JSON reply whole, at its end), as
// an event stream with no event: MCP's receiver of a cancel should not
// answer the request, and over HTTP a request is answered with JSON or
// an event stream: 200 application/json with an empty body, as the SDK
// leaves it, a client fails to read ("Unexpected end of JSON input", the
// TypeScript SDK's).
func (w *jsonrpcErrors) unanswered() {
	if w.started {
		return
	}
	w.started = true
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.ResponseWriter.WriteHeader(http.StatusOK)
}

// finish writes the refusal held back, as a JSON-RPC error.
func (w *jsonrpcErrors) finish() {
	if w.status != 0 {
		w.extend()
		writeRPCError(w.ResponseWriter, w.status, jsonrpc.CodeInvalidRequest,
			strings.TrimSpace(w.text.String()))
	}
}

// Flush sends what was written: a stream's events go out as they come.
func (w *jsonrpcErrors) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && w.status == 0 {
		w.extend()
		f.Flush()
	}
}

// Unwrap is the ResponseWriter under w, for http.ResponseController.
func (w *jsonrpcErrors) Unwrap() http.ResponseWriter { return w.ResponseWriter }
