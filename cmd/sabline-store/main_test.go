package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt/bucket"
)

// s3Double is an S3-compatible store on loopback that records the
// If-None-Match header of each object written; when ignore is set it
// drops the header before the store sees it, as a store that ignores
// the condition would.
type s3Double struct {
	ignore bool
	url    string // where it listens, once started
	mu     sync.Mutex
	puts   []string // the If-None-Match of each PUT of an object, in order
}

// start serves the double and returns the URL of its bucket "receipts"
// for open, with credentials and a region in the environment and no
// shared configuration files nor instance metadata.
func (d *s3Double) start(t *testing.T) string {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("receipts"); err != nil {
		t.Fatal(err)
	}
	store := gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && strings.Count(strings.Trim(r.URL.Path, "/"), "/") >= 1 {
			d.mu.Lock()
			d.puts = append(d.puts, r.Header.Get("If-None-Match"))
			d.mu.Unlock()
			if d.ignore {
				r.Header.Del("If-None-Match")
			}
		}
		store.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	d.url = srv.URL
	return s3URL(t, srv.URL)
}

// s3URL is the URL of the bucket "receipts" of an S3-compatible store
// at endpoint, with credentials and a region in the environment and no
// shared configuration files nor instance metadata.
func s3URL(t *testing.T, endpoint string) string {
	empty := filepath.Join(t.TempDir(), "aws-empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
		"AWS_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": empty,
		"AWS_SHARED_CREDENTIALS_FILE": empty} {
		t.Setenv(k, v)
	}
	q := neturl.Values{"endpoint": {endpoint}, "region": {"us-east-1"}, "use_path_style": {"true"},
		"disable_https": {"true"}}
	return "s3://receipts?" + q.Encode()
}

// conditions is what the double recorded.
func (d *s3Double) conditions() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.puts...)
}

// TestCreateIsCreateOnly: the agent's Create of a key that holds an
// object already is refused with an error that wraps bucket.ErrExist,
// and the object is left as it was, where docs/scale.md promises it: a
// directory (file://, or a path alone), checked under the agent's own
// lock, and an S3 store, which the agent asks for a create-only write
// (If-None-Match: *) on every object. Against a store that ignores the
// condition, the agent can do no more than ask: the header is on every
// write there too. The controls: a first create of each key, and of
// another key, succeeds and reads back.
func TestCreateIsCreateOnly(t *testing.T) {
	tests := []struct {
		name          string
		double        *s3Double // nil: a directory
		fileScheme    bool      // a directory named by a file:// URL, else by its path alone
		wantRefused   bool      // the second create of a key is refused, ErrExist, the object unchanged
		wantCondition string    // the If-None-Match of every write the double saw
	}{
		{name: "file:// directory", fileScheme: true, wantRefused: true},
		{name: "a path alone", wantRefused: true},
		{name: "S3 that honours If-None-Match", double: &s3Double{}, wantRefused: true, wantCondition: "*"},
		{name: "S3 that ignores If-None-Match", double: &s3Double{ignore: true}, wantCondition: "*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			var u string
			switch {
			case tt.double != nil:
				u = tt.double.start(t)
			case tt.fileScheme:
				dir := t.TempDir()
				u = "file://" + filepath.ToSlash(dir)
				if !strings.HasPrefix(filepath.ToSlash(dir), "/") {
					u = "file:///" + filepath.ToSlash(dir)
				}
			default:
				u = filepath.Join(t.TempDir(), "made", "receipts")
			}
			b, err := open(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			const key = "segments/r1/j1/00000001.journal"
			if err := b.Create(ctx, key, []byte("first")); err != nil {
				t.Fatalf("the first create of %s: %v", key, err)
			}
			if err := b.Create(ctx, "segments/r1/j1/00000002.journal", []byte("another")); err != nil {
				t.Fatalf("the create of another key: %v", err)
			}
			err = b.Create(ctx, key, []byte("second"))
			got, rerr := b.Read(ctx, key, 0, -1)
			if rerr != nil {
				t.Fatalf("read %s: %v", key, rerr)
			}
			if tt.wantRefused {
				if !errors.Is(err, bucket.ErrExist) {
					t.Errorf("a second create of %s: %v; want an error wrapping ErrExist", key, err)
				}
				if string(got) != "first" {
					t.Errorf("%s after a second create: %q, want %q, left as it was", key, got, "first")
				}
			}
			if tt.double != nil {
				conds := tt.double.conditions()
				if len(conds) != 3 {
					t.Errorf("the store saw %d writes, want 3: %q", len(conds), conds)
				}
				for i, c := range conds {
					if c != tt.wantCondition {
						t.Errorf("write %d carried If-None-Match %q, want %q", i+1, c, tt.wantCondition)
					}
				}
			}
			t.Logf("a second create: %v; the object holds %q", err, got)
		})
	}
}

// TestStartChecksCreateOnly: the agent starts over a store that keeps
// create-only writes, and refuses one that takes a second write of a
// key (ErrNotCreateOnly, the URL named, its query not); a store that
// cannot be reached is served (a replica starts while its store is
// down), said so, and its Create is refused until the check can be made.
func TestStartChecksCreateOnly(t *testing.T) {
	ctx := context.Background()
	t.Run("S3 that honours If-None-Match", func(t *testing.T) {
		b, err := start(ctx, (&s3Double{}).start(t), 10*time.Second, t.Logf)
		if err != nil {
			t.Fatalf("start: %v", err)
		}
		b.Close()
	})
	t.Run("S3 that ignores If-None-Match", func(t *testing.T) {
		u := (&s3Double{ignore: true}).start(t)
		b, err := start(ctx, u, 10*time.Second, t.Logf)
		if !errors.Is(err, bucket.ErrNotCreateOnly) || b != nil {
			t.Fatalf("start over a store that ignores If-None-Match: %v; want ErrNotCreateOnly", err)
		}
		if strings.Contains(err.Error(), "endpoint=") {
			t.Errorf("the refusal names the URL's query: %v", err)
		}
	})
	t.Run("a store that is down", func(t *testing.T) {
		d := &s3Double{}
		u := d.start(t)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		down := "http://" + ln.Addr().String()
		ln.Close() // nothing listens there now: refused at once
		u = strings.Replace(u, neturl.QueryEscape(d.url), neturl.QueryEscape(down), 1)
		var said []string
		b, err := start(ctx, u, 5*time.Second, func(f string, a ...any) {
			said = append(said, fmt.Sprintf(f, a...))
		})
		if err != nil {
			t.Fatalf("start while the store is down: %v; want it served", err)
		}
		defer b.Close()
		if len(said) != 1 || !strings.Contains(said[0], "cannot be checked yet") {
			t.Errorf("start while the store is down said %q", said)
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		err = b.Create(cctx, "segments/r1/j1/00000001.journal", []byte("x"))
		if err == nil || errors.Is(err, bucket.ErrNotCreateOnly) {
			t.Errorf("Create while the store is down: %v; want the store's failure", err)
		}
	})
}

// TestMissingDirectory: a file:// store whose directory does not exist
// is refused at open, naming the directory and what to do, not a flag.
func TestMissingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "absent")
	u := "file://" + filepath.ToSlash(dir)
	if !strings.HasPrefix(filepath.ToSlash(dir), "/") {
		u = "file:///" + filepath.ToSlash(dir)
	}
	_, err := open(context.Background(), u)
	if err == nil || !strings.Contains(err.Error(), "does not exist: make it") ||
		strings.Contains(err.Error(), "--receipts ") {
		t.Fatalf("open of %s: %v; want the directory named missing", u, err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("open of a file:// URL made %s", dir)
	}
}

// TestOpenErrorRedacted: a store's URL whose query holds a secret (an
// endpoint's keys) is named in the agent's errors without its query,
// which the server's log and the terminal would show: a URL the driver
// refuses, and a file:// directory that does not exist.
func TestOpenErrorRedacted(t *testing.T) {
	const secret = "SECRETKEY"
	missing := filepath.ToSlash(filepath.Join(t.TempDir(), "absent"))
	if !strings.HasPrefix(missing, "/") {
		missing = "/" + missing
	}
	for _, u := range []string{
		"s3://receipts?endpoint=" + neturl.QueryEscape("http://key:"+secret+"@127.0.0.1:1") + "&bogus=1",
		"file://" + missing + "?token=" + secret,
	} {
		_, err := open(context.Background(), u)
		if err == nil {
			t.Fatalf("open of %s: nil, want it refused", u)
		}
		if strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), bucket.Redact(u)) {
			t.Errorf("open of %s: %q; want the URL named without its query", u, err)
		}
	}
}

// TestReadPastTheBound: a read through the agent of an object larger than
// bucket.MaxObjectBytes (one someone else wrote: the replicas write none)
// is refused, naming the bound, not cut at it without a word, so that
// sabline receipts list names the object it passes over. The control: an
// object within the bound reads whole.
func TestReadPastTheBound(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "small"), []byte("small"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Sparse: it takes no room on the disk.
	if err := os.WriteFile(filepath.Join(dir, "huge"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(dir, "huge"), 2*bucket.MaxObjectBytes); err != nil {
		t.Fatal(err)
	}
	t.Setenv(asMain, "1")
	a, err := bucket.StartAgent(os.Args[0], dir, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if got, err := a.Read(ctx, "small", 0, -1); err != nil || string(got) != "small" {
		t.Errorf("a read of an object within the bound = %q, %v; want it whole", got, err)
	}
	got, err := a.Read(ctx, "huge", 0, -1)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(bucket.MaxObjectBytes)) {
		t.Errorf("a read of an object of %d bytes = %d bytes, %v; want an error naming the bound",
			2*bucket.MaxObjectBytes, len(got), err)
	}
}

// TestSaysTheStoresWordsEscaped: what the agent says on its standard
// error, which sabline serve writes into its log, can quote the store's
// answer: an S3 store that refuses every call with a message holding a
// newline, a line that reads as the server's, a bidirectional override
// and a C1 control had them all written raw, and the log showed the
// store's line as sabline serve's own. Each is escaped now, and every
// line of the agent's process in the log begins with its name (the
// SDK's own warnings too, which it writes there itself); a message of
// 64 KiB, said whole before, is kept to a message's bound, saying how
// much it left out. The control: a store refusing with a plain message
// has it said as it is.
func TestSaysTheStoresWordsEscaped(t *testing.T) {
	for _, tt := range []struct {
		name, msg string
		cut       bool
	}{
		{name: "a message with a line of its own", msg: "slow down\nsabline serve: listening on " +
			"0.0.0.0:80\u202e\u009b31m"},
		{name: "a message of 64 KiB", msg: "slow down " + strings.Repeat("a", 64<<10), cut: true},
		{name: "a plain message (the control)", msg: "slow down"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>AccessDenied</Code>" +
				"<Message>" + tt.msg + "</Message><RequestId>1</RequestId></Error>"
			refuse := func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusForbidden)
				if r.Method != http.MethodHead {
					_, _ = w.Write([]byte(body))
				}
			}
			srv := httptest.NewServer(http.HandlerFunc(refuse))
			defer srv.Close()
			url := s3URL(t, srv.URL)
			t.Setenv(asMain, "1")
			var log bytes.Buffer
			a, err := bucket.StartAgent(os.Args[0], url, &log) // it serves, though refused
			if err != nil {
				t.Fatal(err)
			}
			a.Close() // and ends: what it said is in the log
			// And what it says itself, started by hand: its own line
			// escaped (a library's lines are the server's to escape).
			direct := exec.Command(os.Args[0], url) // no input: it serves, then ends
			direct.Env = append(os.Environ(), asMain+"=1")
			var own bytes.Buffer
			direct.Stderr = &own
			_ = direct.Run() // how it ended is not what is judged: what it said is
			want := "api error AccessDenied: " + codes.TerminalSafe(tt.msg) + "): serving"
			if tt.cut {
				want = "api error AccessDenied: slow down aaaa"
			}
			for _, src := range []struct {
				name, said string
				every      bool // every line judged, not the agent's own alone
			}{{"the server's log", log.String(), true}, {"its own standard error", own.String(), false}} {
				if !strings.Contains(src.said, want) {
					t.Errorf("%s: the agent said %q; want the store's message as %q", src.name,
						codes.Clip(src.said, 1024), want)
				}
				for _, line := range strings.SplitAfter(strings.TrimSuffix(src.said, "\n"), "\n") {
					line = strings.TrimSuffix(line, "\n")
					if !src.every && !strings.Contains(line, "api error") {
						continue
					}
					if !strings.HasPrefix(line, bucket.AgentName+": ") ||
						codes.TerminalSafe(line) != line {
						t.Errorf("%s: the agent wrote the line %q: want each begun with its name, "+
							"and nothing a terminal acts on", src.name, line)
					}
					if tt.cut && strings.Contains(line, want) &&
						(len(line) > codes.MaxMessageBytes+len(bucket.AgentName+": ") ||
							!strings.HasSuffix(line, " bytes more)")) {
						t.Errorf("%s: the agent said %d bytes ending %q; want at most a message's "+
							"%d, saying how much it left out", src.name, len(line),
							line[max(0, len(line)-60):], codes.MaxMessageBytes)
					}
				}
			}
		})
	}
}
