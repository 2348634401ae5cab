package door

import (
	"context"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StreamTransport is the MCP door's transport on a pair of streams
// (sabline mcp's standard input and output): newline-delimited JSON-RPC,
// as mcp.IOTransport, a line bounded by MaxBodyBytes and a little more,
// except that when the input ends, the requests already read are
// answered before the connection closes. A client that writes its
// requests and closes its end gets every answer.
func StreamTransport(r io.Reader, w io.Writer) mcp.Transport {
	return &drainTransport{inner: &mcp.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}, MaxLineLength: MaxBodyBytes + 64<<10}}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// drainTransport connects a drainConn over another transport.
type drainTransport struct{ inner mcp.Transport }

func (t *drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainConn{Connection: c, pending: map[any]int{}, answered: make(chan struct{}, 1), closed: make(chan struct{})}, nil
}

// drainConn counts the requests it has read and not yet answered; once
// its input ends, Read waits for that count to reach zero before it says
// so.
type drainConn struct {
	mcp.Connection
	mu        sync.Mutex
	pending   map[any]int // request id -> how many read and not answered
	answered  chan struct{}
	closed    chan struct{}
	closeOnce sync.Once
}

func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
			c.mu.Lock()
			c.pending[req.ID.Raw()]++
			c.mu.Unlock()
		}
		return msg, nil
	}
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return nil, err
		}
		select {
		case <-c.answered:
		case <-ctx.Done():
			return nil, err
		case <-c.closed:
			return nil, err
		}
	}
}

func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() {
		c.mu.Lock()
		id := resp.ID.Raw()
		if c.pending[id]--; c.pending[id] <= 0 {
			delete(c.pending, id)
		}
		c.mu.Unlock()
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
	return err
}

func (c *drainConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Connection.Close()
}
