package door

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// cancelLine is a client's notifications/cancelled naming the request id.
const cancelLine = `{"jsonrpc":"2.0","method":"notifications/cancelled",` +
	`"params":{"requestId":%s,"reason":"enough"}}`

// TestStreamCancelledCallIsNotAnswered: a tools/call its client cancels
// (notifications/cancelled) on standard input has its run stopped and is
// answered with nothing, as MCP has it (the receiver of a cancel should
// not answer the request); once the input ends the server still exits,
// the cancelled call counted answered. Before, its E307 result was
// written, which the TypeScript SDK's client reports as an error ("a
// response for an unknown message ID"). The control is a call not
// cancelled, answered with its result.
func TestStreamCancelledCallIsNotAnswered(t *testing.T) {
	fake := &fakeRunner{start: make(chan struct{}, 2)}
	fake.hold.Store(true)
	s, err := New(Config{Runner: fake})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := newStreamPeer(t, s, true)
	p.initialize(t)
	p.beginRun(t, fake, 2)
	p.send(t, fmt.Sprintf(cancelLine, "2"))
	waitFor(t, func() bool { fake.mu.Lock(); defer fake.mu.Unlock(); return len(fake.ended) == 1 })
	fake.mu.Lock()
	ended := fake.ended[0]
	fake.mu.Unlock()
	if !strings.Contains(ended.Message, errCallCancelled.Error()) {
		t.Errorf("the cancelled run ended %q, want it to say %q", ended.Message, errCallCancelled)
	}
	fake.hold.Store(false)
	p.send(t, fmt.Sprintf(runCall, 4))
	p.in.Close() // the server answers what it read, then ends
	var rest []string
	for l := range p.lines {
		rest = append(rest, l)
	}
	select {
	case <-p.done:
	case <-time.After(testkit.Bound(10 * time.Second)):
		t.Fatal("the server did not end once its input did")
	}
	answered4 := false
	for _, l := range rest {
		if strings.HasPrefix(l, `{"jsonrpc":"2.0","id":2,`) {
			t.Errorf("the cancelled call was answered: %.300s", l)
		}
		answered4 = answered4 || strings.HasPrefix(l, `{"jsonrpc":"2.0","id":4,"result":{`)
	}
	if !answered4 {
		t.Errorf("the call not cancelled was not answered: %q", rest)
	}
}

// TestMCPHTTPCancelledCallIsNotAnswered: over /mcp a tools/call its
// client cancels in a request of its own has its run stopped, and its
// request is answered with an event stream that carries no answer, as on
// standard input; one with a progress token has its progress and no
// answer. Before, a call without a token was answered 200
// application/json with an empty body, which no client can read (the
// TypeScript SDK's reported "Unexpected end of JSON input"). The control
// is a call not cancelled, answered with its result as JSON.
func TestMCPHTTPCancelledCallIsNotAnswered(t *testing.T) {
	for _, mode := range []string{"json", "progress"} {
		t.Run(mode, func(t *testing.T) {
			fake := &fakeRunner{start: make(chan struct{}, 2)}
			fake.hold.Store(true)
			s, err := New(Config{Runner: fake, Token: testToken})
			if err != nil {
				t.Fatal(err)
			}
			s.progressEvery = 20 * time.Millisecond
			ts := httptest.NewServer(s.Handler())
			defer ts.Close()
			post := mcpPoster(t, ts)
			meta := ""
			if mode == "progress" {
				meta = `,"_meta":{"progressToken":"p"}`
			}
			replies := make(chan *http.Response, 1)
			go func() {
				replies <- post(context.Background(), `{"jsonrpc":"2.0","id":7,"method":"tools/call",`+
					`"params":{"name":"run","arguments":{"source":"while True: pass"}`+meta+`}}`)
			}()
			select {
			case <-fake.start:
			case <-time.After(testkit.Bound(10 * time.Second)):
				t.Fatal("the run did not begin")
			}
			resp := post(context.Background(), fmt.Sprintf(cancelLine, "7"))
			resp.Body.Close()
			if resp.StatusCode != http.StatusAccepted {
				t.Errorf("the cancel: %s, want 202", resp.Status)
			}
			var reply *http.Response
			select {
			case reply = <-replies:
			case <-time.After(testkit.Bound(10 * time.Second)):
				t.Fatal("the cancelled call's request did not end")
			}
			body, err := io.ReadAll(reply.Body)
			reply.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			ct := reply.Header.Get("Content-Type")
			if reply.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") ||
				strings.Contains(string(body), `"id":7`) {
				t.Errorf("the cancelled call: %s, %s, %q: want 200, an event stream, no answer",
					reply.Status, ct, body)
			}
			waitFor(t, func() bool { fake.mu.Lock(); defer fake.mu.Unlock(); return len(fake.ended) == 1 })

			fake.hold.Store(false)
			resp = post(context.Background(), `{"jsonrpc":"2.0","id":8,"method":"tools/call",`+
				`"params":{"name":"run","arguments":{"source":"print(8)"}}}`)
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") ||
				!strings.Contains(string(body), `"id":8,"result":{`) {
				t.Errorf("a call not cancelled: %s, %.300s: want its result as JSON", ct, body)
			}
		})
	}
}

// TestMCPHTTPAnswerMadeAfterTheCancel: the SDK writes a call's answer on
// /mcp once its run ends, and stops waiting for it once the request's
// context is done; a cancel (notifications/cancelled) does both, and on a
// loaded machine the run's end came first: the cancelled call was
// answered 200 application/json with its E307, now and then
// (TestMCPHTTPCancelledCallIsNotAnswered). Here the answer is written
// after the cancel, as the SDK wrote it then: nothing of it goes out, and
// the reply is an event stream with no event; on a stream (a progress
// token), the progress written before the cancel goes out, and nothing
// after it. The control is the same answer to a call not cancelled,
// written whole as JSON.
func TestMCPHTTPAnswerMadeAfterTheCancel(t *testing.T) {
	const answer = `{"jsonrpc":"2.0","id":7,"result":{"content":[],"structuredContent":` +
		`{"status":"timeout","code":"E307"}}}`
	const progress = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":" +
		"\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":1}}\n\n"
	for _, tt := range []struct {
		name      string
		stream    bool // a progress token: the SDK answers with an event stream
		cancelled bool
		wantType  string
		wantBody  string
	}{
		{name: "json, cancelled", cancelled: true, wantType: "text/event-stream"},
		{name: "stream, cancelled", stream: true, cancelled: true,
			wantType: "text/event-stream", wantBody: progress},
		{name: "json, not cancelled (the control)", wantType: "application/json",
			wantBody: answer},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			jw := &jsonrpcErrors{ResponseWriter: rec}
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			jw.cancelled = func() bool { return errors.Is(context.Cause(ctx), errCallCancelled) }
			if tt.stream {
				jw.Header().Set("Content-Type", "text/event-stream")
				_, _ = jw.Write([]byte(progress))
			} else {
				jw.Header().Set("Content-Type", "application/json")
			}
			if tt.cancelled {
				cancel(errCallCancelled)
			}
			data := []byte(answer)
			if tt.stream {
				data = []byte("event: message\ndata: " + answer + "\n\n")
			}
			if n, err := jw.Write(data); n != len(data) || err != nil {
				t.Errorf("the answer's write: %d of %d bytes, %v", n, len(data), err)
			}
			jw.finish()
			if ct := rec.Header().Get("Content-Type"); rec.Code != http.StatusOK ||
				!strings.HasPrefix(ct, tt.wantType) || rec.Body.String() != tt.wantBody {
				t.Errorf("%d, %s, %q: want 200, %s, %q", rec.Code, ct, rec.Body.String(),
					tt.wantType, tt.wantBody)
			}
		})
	}
}
