package bucket

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// The agent protocol. Each message, both ways, is a header and a body:
//
//	u32 big-endian length H (at most maxHeaderBytes), H bytes of JSON header,
//	u32 big-endian length D (at most MaxObjectBytes), D bytes of body
//
// A request's header names its id and operation; the body is the data
// of a create. A reply's header names the request's id and how it
// ended; the body is the bytes read, or the keys listed, a JSON list of
// strings (a key may hold any byte, a line's end among them). Requests
// may be in flight together; replies come in any order.
const maxHeaderBytes = 64 << 10

// The operations of the protocol.
const (
	opCreate = "create"
	opRead   = "read"
	opList   = "list"
)

// request is a request's header.
type request struct {
	ID     uint64 `json:"id"`
	Op     string `json:"op"`
	Key    string `json:"key,omitempty"`
	Prefix string `json:"prefix,omitempty"`
	Off    int64  `json:"off,omitempty"`
	N      int64  `json:"n,omitempty"`
}

// reply is a reply's header: Err is "" when the operation was done;
// Exist and NotExist say which condition an error was.
type reply struct {
	ID       uint64 `json:"id"`
	Err      string `json:"err,omitempty"`
	Exist    bool   `json:"exist,omitempty"`
	NotExist bool   `json:"not_exist,omitempty"`
}

// errOverBounds is the error of a message larger than the protocol's
// bounds: nothing of it is written.
var errOverBounds = errors.New("over the protocol's bounds")

// writeMessage writes one message: the header v, then body.
func writeMessage(w io.Writer, v any, body []byte) error {
	h, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(h) > maxHeaderBytes || len(body) > MaxObjectBytes {
		return fmt.Errorf("bucket: a message of %d+%d bytes: %w", len(h), len(body), errOverBounds)
	}
	buf := make([]byte, 0, 8+len(h)+len(body))
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(h)))
	buf = append(buf, h...)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(body)))
	buf = append(buf, body...)
	_, err = w.Write(buf)
	return err
}

// readMessage reads one message into the header v and returns its body.
func readMessage(r io.Reader, v any) ([]byte, error) {
	h, err := readPart(r, maxHeaderBytes)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(h, v); err != nil {
		return nil, fmt.Errorf("bucket: a message header: %w", err)
	}
	return readPart(r, MaxObjectBytes)
}

// readPart reads a length and that many bytes, at most limit.
func readPart(r io.Reader, limit int) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > uint32(limit) {
		return nil, fmt.Errorf("bucket: a message part of %d bytes is over the bound of %d", size, limit)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("bucket: a message cut short: %w", err)
	}
	return b, nil
}

// ServeAgent answers the requests read from r with b, writing the replies
// to w, until r ends; each request is handled as it comes, beside the
// others. A malformed message ends it with an error: the other side is
// the process that started the agent, and a stream out of step cannot be
// read further.
func ServeAgent(ctx context.Context, r io.Reader, w io.Writer, b Bucket) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var wmu sync.Mutex
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		var req request
		body, err := readMessage(br, &req)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep, out := do(ctx, b, req, body)
			wmu.Lock()
			defer wmu.Unlock()
			if err := writeMessage(w, rep, out); errors.Is(err, errOverBounds) {
				// A reply too large to send (the keys of a listing past
				// MaxObjectBytes) is answered with why, not left for the
				// caller to wait its deadline out.
				_ = writeMessage(w, reply{ID: rep.ID, Err: fmt.Sprintf("%s %s: the reply: %v",
					req.Op, req.Key+req.Prefix, err)}, nil)
			}
		}()
	}
}

// do carries out one request.
func do(ctx context.Context, b Bucket, req request, body []byte) (reply, []byte) {
	rep := reply{ID: req.ID}
	var out []byte
	var err error
	switch req.Op {
	case opCreate:
		err = b.Create(ctx, req.Key, body)
	case opRead:
		out, err = b.Read(ctx, req.Key, req.Off, req.N)
		if err == nil && len(out) > MaxObjectBytes {
			out, err = nil, fmt.Errorf("read %s: more than %d bytes, the most one read carries",
				req.Key, MaxObjectBytes)
		}
	case opList:
		var keys []string
		keys, err = b.List(ctx, req.Prefix)
		if err == nil {
			out, err = json.Marshal(keys)
		}
	default:
		err = fmt.Errorf("unknown operation %q", req.Op)
	}
	if err != nil {
		rep.Err = err.Error()
		rep.Exist = errors.Is(err, ErrExist)
		rep.NotExist = errors.Is(err, ErrNotExist)
		out = nil
	}
	return rep, out
}

// Agent is a Bucket served by a store agent process (the command
// sabline-store) that it started and owns: a call goes to the agent and
// waits for its reply. An agent that ends before Close is not started
// again (a server holds itself to a domain that could not start it, and
// would hold it there): every call fails from then on, and Done says so
// to the agent's owner.
type Agent struct {
	cmd    *exec.Cmd
	log    *agentLog // its standard error, written into the caller's
	stdin  io.WriteCloser
	exited chan struct{} // closed once cmd is waited for
	// writing is taken while a message is written, one at a time: a
	// call that gives up (its deadline) leaves its message to be written
	// whole, so that the stream stays in step, and waits for it no more.
	writing chan struct{}

	mu      sync.Mutex // guards what follows
	pending map[uint64]chan result
	nextID  uint64
	ended   error // why the agent ended, once it did
	closed  bool
}

// result is a reply as a call receives it.
type result struct {
	rep  reply
	body []byte
	err  error
}

// StartAgent starts the store agent at path for the bucket url, and
// returns the Bucket it serves. Its standard error is written to stderr
// a line at a time, each bounded, escaped and begun with AgentName
// (whatever in the agent's process wrote it).
func StartAgent(path, url string, stderr io.Writer) (*Agent, error) {
	cmd := exec.Command(path, url)
	log := &agentLog{w: stderr}
	cmd.Stderr = log
	// A process the agent started that keeps its standard error (a
	// credential helper) holds the agent's end no longer than this.
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("bucket: start the store agent: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("bucket: start the store agent: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bucket: start the store agent %s: %w", path, err)
	}
	a := &Agent{cmd: cmd, log: log, stdin: stdin, exited: make(chan struct{}),
		writing: make(chan struct{}, 1), pending: map[uint64]chan result{}}
	go a.replies(bufio.NewReaderSize(stdout, 64<<10))
	return a, nil
}

// Done is closed when the agent has ended, by Close or on its own (then
// Err says why).
func (a *Agent) Done() <-chan struct{} { return a.exited }

// Err is why the agent ended before Close, or nil.
func (a *Agent) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	return a.ended
}

// replies hands each reply of the agent to its call; when the agent's
// output ends, every call still waiting gets an error and the agent is
// waited for.
func (a *Agent) replies(r io.Reader) {
	defer close(a.exited)
	var err error
	for {
		var rep reply
		var body []byte
		body, err = readMessage(r, &rep)
		if err != nil {
			break
		}
		a.mu.Lock()
		c := a.pending[rep.ID]
		delete(a.pending, rep.ID)
		a.mu.Unlock()
		if c != nil {
			c <- result{rep: rep, body: body}
		}
	}
	a.cmd.Process.Kill()
	werr := a.cmd.Wait()
	a.log.end()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ended = fmt.Errorf("bucket: the store agent ended (%v): %v", werr, err)
	for id, c := range a.pending {
		c <- result{err: a.ended}
		delete(a.pending, id)
	}
}

// call sends req with body and waits for its reply, until ctx is done:
// an agent that takes no input (stopped, or hung) holds the call no
// longer than its deadline, even while its pipe is full.
func (a *Agent) call(ctx context.Context, req request, body []byte) ([]byte, error) {
	a.mu.Lock()
	switch {
	case a.closed:
		a.mu.Unlock()
		return nil, errClosed
	case a.ended != nil:
		a.mu.Unlock()
		return nil, a.ended
	}
	a.nextID++
	req.ID = a.nextID
	c := make(chan result, 1)
	a.pending[req.ID] = c
	a.mu.Unlock()

	select {
	case a.writing <- struct{}{}:
	case <-ctx.Done():
		a.forget(req.ID)
		return nil, fmt.Errorf("bucket: send to the store agent: %w", ctx.Err())
	}
	sent := make(chan error, 1)
	go func() {
		defer func() { <-a.writing }()
		sent <- writeMessage(a.stdin, req, body)
	}()
	select {
	case err := <-sent:
		if err != nil {
			a.forget(req.ID)
			return nil, fmt.Errorf("bucket: send to the store agent: %w", err)
		}
	case <-ctx.Done():
		a.forget(req.ID)
		return nil, fmt.Errorf("bucket: send to the store agent: it takes no input: %w", ctx.Err())
	}
	select {
	case res := <-c:
		if res.err != nil {
			return nil, res.err
		}
		switch {
		case res.rep.Exist:
			return nil, &fs.PathError{Op: req.Op, Path: req.Key, Err: ErrExist}
		case res.rep.NotExist:
			return nil, &fs.PathError{Op: req.Op, Path: req.Key, Err: ErrNotExist}
		case res.rep.Err != "":
			// The agent's errors are the bucket package's, and say so.
			return nil, errors.New(ensurePrefix(res.rep.Err, "bucket: "))
		}
		return res.body, nil
	case <-ctx.Done():
		a.forget(req.ID)
		return nil, ctx.Err()
	}
}

func (a *Agent) forget(id uint64) {
	a.mu.Lock()
	delete(a.pending, id)
	a.mu.Unlock()
}

// Create implements Bucket.
func (a *Agent) Create(ctx context.Context, key string, data []byte) error {
	_, err := a.call(ctx, request{Op: opCreate, Key: key}, data)
	return err
}

// Read implements Bucket.
func (a *Agent) Read(ctx context.Context, key string, off, n int64) ([]byte, error) {
	return a.call(ctx, request{Op: opRead, Key: key, Off: off, N: n}, nil)
}

// List implements Bucket.
func (a *Agent) List(ctx context.Context, prefix string) ([]string, error) {
	out, err := a.call(ctx, request{Op: opList, Prefix: prefix}, nil)
	if err != nil {
		return nil, err
	}
	var keys []string
	if err := json.Unmarshal(out, &keys); err != nil {
		return nil, fmt.Errorf("bucket: list %s: the store agent's reply: %w", prefix, err)
	}
	return keys, nil
}

// Close ends the agent: its input is closed, and it exits once the calls
// in flight are answered.
func (a *Agent) Close() error {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.stdin.Close()
	select {
	case <-a.exited:
	case <-time.After(10 * time.Second):
		a.cmd.Process.Kill()
		<-a.exited
	}
	return nil
}

// ensurePrefix is s beginning with prefix, added when it does not.
func ensurePrefix(s, prefix string) string {
	if strings.HasPrefix(s, prefix) {
		return s
	}
	return prefix + s
}
