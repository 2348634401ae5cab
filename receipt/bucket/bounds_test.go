package bucket

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// TestMessageAtTheBounds: a header of maxHeaderBytes and a body of
// MaxObjectBytes are within the protocol's bounds, written and read back
// whole; a byte more of either is refused on both sides.
func TestMessageAtTheBounds(t *testing.T) {
	empty, err := json.Marshal(request{Op: opCreate})
	if err != nil {
		t.Fatal(err)
	}
	// A key adds ,"key":"..." to the header: 9 bytes and the key's own.
	keyOf := func(headerLen int) string { return strings.Repeat("k", headerLen-len(empty)-9) }
	tests := []struct {
		name      string
		key       string
		body      int
		wantWrite bool
	}{
		{name: "a header of maxHeaderBytes", key: keyOf(maxHeaderBytes), wantWrite: true},
		{name: "a header a byte over", key: keyOf(maxHeaderBytes + 1), wantWrite: false},
		{name: "a body of MaxObjectBytes", key: "k", body: MaxObjectBytes, wantWrite: true},
		{name: "a body a byte over", key: "k", body: MaxObjectBytes + 1, wantWrite: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := request{ID: 7, Op: opCreate, Key: tc.key}
			if h, _ := json.Marshal(req); tc.body == 0 && len(h) != len(tc.key)+len(empty)+9 {
				t.Fatalf("the header is %d bytes, not as the test counts them", len(h))
			}
			body := bytes.Repeat([]byte{'b'}, tc.body)
			var buf bytes.Buffer
			err := writeMessage(&buf, req, body)
			if !tc.wantWrite {
				if err == nil {
					t.Fatal("a message over the bounds was written")
				}
				return
			}
			if err != nil {
				t.Fatalf("writeMessage: %v", err)
			}
			var got request
			gotBody, err := readMessage(&buf, &got)
			if err != nil {
				t.Fatalf("readMessage: %v", err)
			}
			if got != req || !bytes.Equal(gotBody, body) {
				t.Errorf("read back %+v and %d bytes, want %+v and %d",
					got, len(gotBody), req, len(body))
			}
		})
	}
}

// TestReadPartOverTheBound: a part one byte over the limit it is read with
// is refused, and a part of the limit read.
func TestReadPartOverTheBound(t *testing.T) {
	tests := []struct {
		name    string
		size    int
		wantErr bool
	}{
		{name: "at the bound", size: 16, wantErr: false},
		{name: "a byte over", size: 17, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			part := append([]byte{0, 0, 0, byte(tc.size)}, bytes.Repeat([]byte{'p'}, tc.size)...)
			got, err := readPart(bytes.NewReader(part), 16)
			if (err != nil) != tc.wantErr {
				t.Fatalf("readPart of %d bytes at a bound of 16: %v", tc.size, err)
			}
			if !tc.wantErr && len(got) != tc.size {
				t.Errorf("readPart = %d bytes, want %d", len(got), tc.size)
			}
		})
	}
}

// TestAgentReadBound: the agent serves a read of MaxObjectBytes whole and
// refuses one of a byte more with an error in the reply, not a reply its
// own framing would refuse to write.
func TestAgentReadBound(t *testing.T) {
	tests := []struct {
		name    string
		size    int
		wantErr bool
	}{
		{name: "MaxObjectBytes", size: MaxObjectBytes, wantErr: false},
		{name: "a byte more", size: MaxObjectBytes + 1, wantErr: true},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMemory()
			if err := m.Create(ctx, "big", make([]byte, tc.size)); err != nil {
				t.Fatal(err)
			}
			rep, out := do(ctx, m, request{ID: 3, Op: opRead, Key: "big", N: -1}, nil)
			if rep.ID != 3 {
				t.Errorf("reply ID %d, want 3", rep.ID)
			}
			if tc.wantErr {
				if !strings.Contains(rep.Err, "more than") || out != nil {
					t.Errorf("a read of %d bytes: reply %+v with %d bytes, want an error and none",
						tc.size, rep, len(out))
				}
				return
			}
			if rep.Err != "" || len(out) != tc.size {
				t.Errorf("a read of %d bytes: reply %+v with %d bytes, want them all",
					tc.size, rep, len(out))
			}
		})
	}
}

// TestMemoryReadRange: Read gives the n bytes at off, none for n = 0,
// the rest for n < 0 or an n past the end, and none from the end on.
func TestMemoryReadRange(t *testing.T) {
	tests := []struct {
		name string
		off  int64
		n    int64
		want string
	}{
		{name: "a range within", off: 1, n: 2, want: "bc"},
		{name: "no bytes", off: 1, n: 0, want: ""},
		{name: "no bytes at the start", off: 0, n: 0, want: ""},
		{name: "to the end", off: 2, n: -1, want: "cde"},
		{name: "past the end", off: 3, n: 10, want: "de"},
		{name: "up to the end exactly", off: 3, n: 2, want: "de"},
		{name: "from the end", off: 5, n: 1, want: ""},
		{name: "beyond the end", off: 6, n: 1, want: ""},
		// off+n past the largest int64 wrapped below the end, and the
		// slice's end below its start panicked the agent serving it.
		{name: "an n as large as it goes", off: 1, n: math.MaxInt64, want: "bcde"},
		{name: "an n as large as it goes from the end", off: 5, n: math.MaxInt64, want: ""},
	}
	ctx := context.Background()
	m := NewMemory()
	if err := m.Create(ctx, "k", []byte("abcde")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := m.Read(ctx, "k", tc.off, tc.n)
			if err != nil || string(got) != tc.want {
				t.Errorf("Read(k, %d, %d) = %q, %v; want %q", tc.off, tc.n, got, err, tc.want)
			}
		})
	}
}

func TestEnsurePrefix(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{name: "the agent's own", in: "bucket: the store is down", want: "bucket: the store is down"},
		{name: "another's", in: "s3: no such bucket", want: "bucket: s3: no such bucket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ensurePrefix(tt.in, "bucket: "); got != tt.want {
				t.Errorf("ensurePrefix(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// manyKeys is a bucket whose every listing is n keys of a MiB each.
type manyKeys struct {
	*Memory
	n int
}

func (m manyKeys) List(context.Context, string) ([]string, error) {
	key := strings.Repeat("k", 1<<20) // one string: n keys of it take a MiB
	keys := make([]string, m.n)
	for i := range keys {
		keys[i] = key
	}
	return keys, nil
}

// TestAgentListPastTheBound: a listing whose keys are more than a reply
// carries (MaxObjectBytes: a bucket of some million objects listed whole,
// as sabline receipts list --receipts-url lists it) is answered at once
// with an error that says so, not dropped by the agent while its caller
// waits out its deadline to be told the store did not answer. The
// control: a listing within the bound is answered with its keys.
func TestAgentListPastTheBound(t *testing.T) {
	tests := []struct {
		name    string
		keys    int
		wantErr bool
	}{
		{name: "within the bound", keys: 3},
		{name: "past the bound", keys: MaxObjectBytes>>20 + 1, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reqR, reqW := io.Pipe()
			repR, repW := io.Pipe()
			served := make(chan error, 1)
			go func() { served <- ServeAgent(t.Context(), reqR, repW, manyKeys{NewMemory(), tc.keys}) }()
			defer func() {
				reqW.Close()
				repR.Close()
				<-served
			}()
			type answer struct {
				rep  reply
				body []byte
				err  error
			}
			got := make(chan answer, 1)
			go func() {
				var a answer
				a.body, a.err = readMessage(repR, &a.rep)
				got <- a
			}()
			if err := writeMessage(reqW, request{ID: 7, Op: opList, Prefix: "p/"}, nil); err != nil {
				t.Fatal(err)
			}
			bound := testkit.Bound(30 * time.Second)
			select {
			case a := <-got:
				var keys []string
				switch {
				case a.err != nil || a.rep.ID != 7:
					t.Errorf("the reply: %+v, %v", a.rep, a.err)
				case tc.wantErr && !strings.Contains(a.rep.Err, "over the protocol's bounds"):
					t.Errorf("a listing of %d MiB of keys: reply %+v with %d bytes, want an error "+
						"naming the bound", tc.keys, a.rep, len(a.body))
				case !tc.wantErr && (a.rep.Err != "" || json.Unmarshal(a.body, &keys) != nil ||
					len(keys) != tc.keys):
					t.Errorf("a listing of %d keys: reply %+v, %d keys; want them", tc.keys, a.rep,
						len(keys))
				}
			case <-time.After(bound):
				t.Fatalf("a listing of %d MiB of keys: no reply in %s", tc.keys, bound)
			}
		})
	}
}
