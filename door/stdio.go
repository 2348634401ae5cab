package door

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/codes"
)

// maxLineBytes bounds one line of the MCP door on a stream: the largest
// body the door reads, and room for the JSON-RPC envelope around it.
const maxLineBytes = MaxBodyBytes + 64<<10

// The bounds of what a stream's client may leave the server holding
// (docs/mcp.md has this table): past any of them, no further line is
// read until an answer goes out.
//
//	maxPending       requests read and not yet answered
//	maxPendingBytes  their lines' bytes
//	maxWaiting       messages made and not yet written (answers, and
//	                 notifications of progress): their client reads
//	                 none of them, or is still reading those before them
//	maxWaitingBytes  their bytes on the line
//
// And while a message waits to be written, no further line is read until
// each request read has its answer made: a request read may be a run,
// and its answer, up to 13.6 MB for a request of a few bytes (a run that
// printed 1 MiB of control bytes), is not counted until it is made. So a
// client that stops reading its answers while it writes requests leaves
// the server holding at most maxWaitingBytes of answers and the last one
// made, and those of the requests it sent before its first answer waited
// (each run within the server's workers and queue, or refused busy);
// before, it held each answer until maxPending requests were read
// (3.5 GB for 256 answers of 13.6 MB). A request is never refused for these
// bounds, only read later, and an answer is never dropped: each is
// written once its client reads again. A client that reads its answers
// as they come is answered well within them.
const (
	maxPending      = 256
	maxPendingBytes = 64 << 20
	maxWaiting      = 64
	maxWaitingBytes = 64 << 20
)

// StreamTransport is the MCP door's transport on a pair of streams
// (sabline mcp's standard input and output): newline-delimited JSON-RPC,
// one message a line of at most maxLineBytes. A line that is not a
// message (not JSON, not a request or notification, past the bound, a
// batch) is answered with a JSON-RPC error (-32700 or -32600, with the
// line's id when it is JSON that has one; a line past the bound, read no
// further, has none) and the next line is read: one bad line loses
// nothing. An error the MCP server answers without a JSON-RPC code is
// sent as -32600 (invalid request). When the input ends, the requests
// already read are answered before the connection closes: a client that
// writes its requests and closes its end gets every answer. A request
// whose id is that of one read and not yet answered is refused (-32600,
// id null): its answer could not be told from the other's. While
// maxPending requests, or maxPendingBytes of them, are unanswered, or
// maxWaiting messages, or maxWaitingBytes of them, wait to be written
// (their client reads none), no further line is read; nor, while any
// waits, until each request read has its answer made. A line that is not
// a message and carries the id of a request not yet answered is answered
// with the id null, as is a request whose id is null (an MCP request's
// id is a string or an integer; a notification has none): either answer,
// with that id, would be taken for another's. A request whose method is
// none the door answers (mcpMethods) is answered -32601 with its id. A
// request its client cancels (notifications/cancelled) while it is not
// yet answered is answered with nothing, as MCP has it: its answer, when
// its handler ends, counts it answered and is not written.
func StreamTransport(r io.Reader, w io.Writer) mcp.Transport {
	return &streamTransport{r: r, w: w}
}

type streamTransport struct {
	r io.Reader
	w io.Writer
	// stop, when closed, ends the input: no further line is read, and
	// the requests already read are answered before the connection
	// closes (ServeStream); nil: the input ends only when r does.
	stop <-chan struct{}
}

func (t *streamTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c := &lineConn{w: t.w, lines: make(chan lineOrErr), pending: map[any]int{},
		cancelled: map[any]bool{}, answered: make(chan struct{}, 1),
		closed: make(chan struct{}), stop: t.stop}
	go c.readLines(t.r)
	return c, nil
}

// ServeStream serves the MCP door on a pair of streams (StreamTransport)
// until r ends or ctx is done. When ctx is done it stops as Serve does:
// it reads no further line, refuses the runs still waiting for a worker
// (the tool error of a server shutting down), answers the requests in
// flight once their runs end, and returns nil. Before, the session was
// closed at once: the runs in flight ran on unanswered, and those waiting
// were ended as if their client had cancelled them.
func (s *Server) ServeStream(ctx context.Context, r io.Reader, w io.Writer) error {
	stop := context.AfterFunc(ctx, s.Stop)
	defer stop()
	err := s.MCP().Run(context.WithoutCancel(ctx), &streamTransport{r: r, w: w, stop: ctx.Done()})
	s.Stop()
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		return fmt.Errorf("door: serve on a stream: %w", err)
	}
	return nil
}

type lineOrErr struct {
	line    []byte
	tooLong bool
	err     error
}

// lineConn is the connection of a StreamTransport. It counts the requests
// it has read and not yet answered; once its input ends, Read waits for
// that count to reach zero before it says so.
type lineConn struct {
	w     io.Writer
	wmu   sync.Mutex
	lines chan lineOrErr

	mu sync.Mutex
	// pending holds the requests read and not answered: each id, with the
	// size of its line, and bytes the sizes' sum.
	pending map[any]int
	bytes   int
	// waiting counts the messages Write has made and not yet written
	// (their client reads nothing, or those before them are still being
	// written), and waitingBytes their bytes on the line; made counts the
	// requests pending whose answers Write has been handed.
	waiting      int
	waitingBytes int
	made         int
	// cancelled holds the requests pending that their client cancelled:
	// their answers are not written.
	cancelled map[any]bool
	answered  chan struct{}
	closed    chan struct{}
	closeOnce sync.Once
	stop      <-chan struct{} // closed: read no further line (streamTransport.stop)
}

// readLines sends each line of r, its newline cut, to c.lines; a line
// past maxLineBytes (its newline not counted) is sent as tooLong, its
// bytes dropped.
func (c *lineConn) readLines(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		var line []byte
		tooLong := false
		var err error
		for {
			var part []byte
			part, err = br.ReadSlice('\n')
			if !tooLong {
				// The bound is the line's: its newline is not counted.
				n := len(line) + len(part)
				if bytes.HasSuffix(part, []byte{'\n'}) {
					n--
				}
				if n > maxLineBytes {
					tooLong, line = true, nil
				} else {
					line = append(line, part...)
				}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if len(line) > 0 || tooLong {
			select {
			case c.lines <- lineOrErr{line: bytes.TrimRight(line, "\r\n"), tooLong: tooLong}:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			select {
			case c.lines <- lineOrErr{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if err := c.room(ctx); err != nil {
			return nil, err
		}
		var l lineOrErr
		select {
		case l = <-c.lines:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case <-c.stop:
			return nil, c.drain(ctx, io.EOF)
		}
		if l.err != nil {
			return nil, c.drain(ctx, l.err)
		}
		msg, refusal := decodeLine(l)
		if refusal != nil {
			if refusal.ID.IsValid() && c.inUse(refusal.ID) {
				// With the id of a request not yet answered, the refusal
				// would be taken for that request's answer, and would
				// count it answered: the input's end would not wait for it.
				refusal.ID = jsonrpc.ID{}
			}
			if err := c.Write(ctx, refusal); err != nil {
				return nil, err
			}
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok && !req.IsCall() &&
			req.Method == "notifications/cancelled" {
			c.cancel(req.Params)
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
			c.mu.Lock()
			_, inUse := c.pending[req.ID.Raw()]
			if !inUse {
				c.pending[req.ID.Raw()] = len(l.line)
				c.bytes += len(l.line)
			}
			c.mu.Unlock()
			if inUse {
				if err := c.Write(ctx, idInUse(req.ID)); err != nil {
					return nil, err
				}
				continue
			}
		}
		return msg, nil
	}
}

// cancel marks the request a cancel's params name, if it is read and not
// yet answered, as cancelled by its client: MCP's receiver of a cancel
// should not answer the request, and its sender ignores an answer that
// comes after (the TypeScript SDK's client reports it as an error, "a
// response for an unknown message ID"). The SDK stops its handler.
func (c *lineConn) cancel(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil || !id.IsValid() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[id.Raw()]; ok {
		c.cancelled[id.Raw()] = true
	}
}

// inUse reports whether id is that of a request read and not answered.
func (c *lineConn) inUse(id jsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[id.Raw()]
	return ok
}

// room waits until fewer than maxPending requests, of fewer than
// maxPendingBytes in all, are read and not answered, and fewer than
// maxWaiting messages, of fewer than maxWaitingBytes in all, wait to be
// written, and, while any waits, each request read has its answer made;
// once the input is stopped, it waits for every answer and returns
// io.EOF.
func (c *lineConn) room(ctx context.Context) error {
	for {
		c.mu.Lock()
		n, b := len(c.pending), c.bytes
		w, wb := c.waiting, c.waitingBytes
		behind := w > 0 && c.made < n // answers wait, and runs whose answers are not made
		c.mu.Unlock()
		if n < maxPending && b < maxPendingBytes && w < maxWaiting && wb < maxWaitingBytes &&
			!behind {
			return nil
		}
		select {
		case <-c.answered:
		case <-ctx.Done():
			return ctx.Err()
		case <-c.closed:
			return io.EOF
		case <-c.stop:
			return c.drain(ctx, io.EOF)
		}
	}
}

// idInUse is the refusal of a request whose id is that of a request read
// and not yet answered. It carries the id null: an answer with that id
// would be taken for the answer of the other request.
func idInUse(id jsonrpc.ID) *jsonrpc.Response {
	raw, _ := json.Marshal(id.Raw())
	return &jsonrpc.Response{Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
		Message: fmt.Sprintf("the id %s is that of a request not yet answered: give each "+
			"request in flight an id of its own", raw)}}
}

// decodeLine reads one line as a JSON-RPC message, or returns the error
// response that answers it.
func decodeLine(l lineOrErr) (jsonrpc.Message, *jsonrpc.Response) {
	refuse := func(code int64, format string, args ...any) (jsonrpc.Message, *jsonrpc.Response) {
		var withID struct {
			ID any `json:"id"`
		}
		_ = json.Unmarshal(l.line, &withID)
		id, _ := jsonrpc.MakeID(withID.ID)
		return nil, &jsonrpc.Response{
			ID:    id,
			Error: &jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)},
		}
	}
	line := bytes.TrimSpace(l.line)
	switch {
	case l.tooLong:
		return refuse(jsonrpc.CodeInvalidRequest,
			"the line is longer than %d bytes: send one message a line, within the bound", maxLineBytes)
	case len(line) == 0:
		return refuse(jsonrpc.CodeInvalidRequest, "the line is empty: send one JSON-RPC message a line")
	case !json.Valid(line):
		return refuse(jsonrpc.CodeParseError,
			"parse error: the line is not JSON: send one JSON-RPC message a line")
	case line[0] == '[':
		return refuse(jsonrpc.CodeInvalidRequest, "a batch: send one JSON-RPC message a line")
	}
	// The parts of a message the SDK would not carry as they were sent,
	// read as written.
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(line, &head) == nil {
		if string(head.ID) == "null" && head.Method != nil {
			// JSON-RPC's request, not a notification (which has no id),
			// and MCP's never: the SDK would take it for a notification
			// and answer nothing, and its client would wait for ever.
			return nil, &jsonrpc.Response{Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: "the id is null: give a request an id, a string or an integer, " +
					"and a notification none"}}
		}
		if msg := idRefusal(head.ID); msg != "" {
			return nil, &jsonrpc.Response{Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: msg}}
		}
		var params struct {
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
			RequestID json.RawMessage `json:"requestId"`
		}
		if len(head.Params) > 0 && json.Unmarshal(head.Params, &params) == nil {
			var method string
			_ = json.Unmarshal(head.Method, &method)
			if msg := tokenRefusal(params.Meta.ProgressToken); head.ID != nil && msg != "" {
				return refuse(jsonrpc.CodeInvalidRequest, "%s", msg)
			}
			if id := params.RequestID; method == "notifications/cancelled" && !carried(id) {
				// The SDK would read it as it reads an id, and stop the
				// call of another id (2.5 or 2.0 that of 2).
				return refuse(jsonrpc.CodeInvalidRequest, "the cancel names the request id %s, "+
					"which is not a string of text or an integer within ±%d: it would stop "+
					"another request; name the id the request was sent with",
					codes.Clip(string(id), 64), maxID)
			}
		}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return refuse(jsonrpc.CodeInvalidRequest, "not a JSON-RPC 2.0 request or notification: %v", err)
	}
	if req, ok := msg.(*jsonrpc.Request); ok {
		if resp := methodNotFound(req); resp != nil {
			return nil, resp
		}
	}
	return msg, nil
}

// drain waits, once the input has ended with err, for every request read
// to be answered, then returns err.
func (c *lineConn) drain(ctx context.Context, err error) error {
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return err
		}
		select {
		case <-c.answered:
		case <-ctx.Done():
			return err
		case <-c.closed:
			return err
		}
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, isResp := msg.(*jsonrpc.Response)
	if isResp {
		msg = withCode(resp)
	}
	parts, err := onTheLine(msg)
	if err != nil {
		return fmt.Errorf("encode a message: %w", err)
	}
	onLine := 0 // the message's bytes
	for _, p := range parts {
		onLine += len(p)
	}
	unasked := false // the answer of a request its client cancelled
	c.mu.Lock()
	if isResp && resp.ID.IsValid() {
		unasked = c.cancelled[resp.ID.Raw()]
		if _, ok := c.pending[resp.ID.Raw()]; ok {
			c.made++
		}
	}
	if !unasked {
		// Counted waiting until written: while its client reads none of
		// them, room reads no further request.
		c.waiting++
		c.waitingBytes += onLine
	}
	c.mu.Unlock()
	c.signal()
	if !unasked {
		c.wmu.Lock()
		for _, p := range parts {
			if _, err = c.w.Write(p); err != nil {
				break
			}
		}
		c.wmu.Unlock()
		c.mu.Lock()
		c.waiting--
		c.waitingBytes -= onLine
		c.mu.Unlock()
	}
	if isResp && resp.ID.IsValid() {
		c.mu.Lock()
		id := resp.ID.Raw()
		if size, ok := c.pending[id]; ok {
			c.bytes -= size
			c.made--
			delete(c.pending, id)
		}
		delete(c.cancelled, id)
		c.mu.Unlock()
	}
	c.signal()
	return err
}

// signal wakes room or drain, if either waits, to look again at what is
// pending and waiting.
func (c *lineConn) signal() {
	select {
	case c.answered <- struct{}{}:
	default:
	}
}

// onTheLine is msg on the wire, its newline after it, in parts written
// in turn. A result past oneWrite is written as it is between the bytes
// of the response around it, as jsonrpc.EncodeMessage would write the
// response: it compacts the result, which the SDK encoded compact (the
// same bytes), into a buffer it then copies, twice the size of a
// tool's result, which may be 27 MB. A smaller one is joined to them,
// a line in one write.
func onTheLine(msg jsonrpc.Message) ([][]byte, error) {
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error == nil && len(resp.Result) > 0 {
		around, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: resp.ID})
		if err == nil && bytes.HasSuffix(around, []byte("}")) {
			parts := [][]byte{around[:len(around)-1], []byte(`,"result":`), resp.Result,
				[]byte("}\n")}
			if len(resp.Result) <= oneWrite {
				return [][]byte{bytes.Join(parts, nil)}, nil
			}
			return parts, nil
		}
	}
	data, err := encode(msg)
	if err != nil {
		return nil, err
	}
	return [][]byte{append(data, '\n')}, nil
}

// oneWrite is the largest result onTheLine joins to the rest of its
// response, to write the line in one system call.
const oneWrite = 64 << 10

// encode is msg on the wire; an error answering no request that could be
// read carries the id null, as JSON-RPC has it.
func encode(msg jsonrpc.Message) ([]byte, error) {
	resp, ok := msg.(*jsonrpc.Response)
	var we *jsonrpc.Error
	if !ok || resp.ID.IsValid() || !errors.As(resp.Error, &we) {
		return jsonrpc.EncodeMessage(msg)
	}
	return json.Marshal(struct {
		Version string         `json:"jsonrpc"`
		ID      *int           `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", nil, we})
}

// withCode is resp with a JSON-RPC error code: an error made without one
// (the SDK refusing a request before the session is initialized, say),
// which would go out as code 0, goes out as -32600, invalid request.
func withCode(resp *jsonrpc.Response) *jsonrpc.Response {
	if resp.Error == nil {
		return resp
	}
	var we *jsonrpc.Error
	if errors.As(resp.Error, &we) && we.Code != 0 {
		return resp
	}
	return &jsonrpc.Response{
		ID:    resp.ID,
		Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: resp.Error.Error()},
	}
}

func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }
