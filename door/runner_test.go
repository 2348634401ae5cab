package door

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// TestMain hands over first: the pools these tests start run this test
// binary as their workers. A pool that names no receipts directory keeps
// its receipts in the default store, which the tests point at their own.
func TestMain(m *testing.M) {
	sabline.HandOver()
	os.Exit(testkit.RunApart(m)) // its stores, cache and runs apart from the user's
}

// newPoolRunner starts a pool of one worker with o and returns its door
// runner; the pool is closed when the test ends.
func newPoolRunner(t *testing.T, o sabline.PoolOptions) *PoolRunner {
	t.Helper()
	o.Workers = 1
	if o.Timeout == 0 {
		o.Timeout = time.Minute
	}
	pool, err := sabline.NewPool(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	r, err := NewPoolRunner(pool)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestNewPoolRunnerNeedsAnImportRoot: a pool without an import root has
// nothing a request's path could be read under, and is refused; the
// control (newPoolRunner, in every other test) has one.
func TestNewPoolRunnerNeedsAnImportRoot(t *testing.T) {
	pool, err := sabline.NewPool(sabline.PoolOptions{Budget: budget.MustParse(t.TempDir(), "io"), Receipts: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := NewPoolRunner(pool); codes.CodeOf(err) != codes.E301 {
		t.Errorf("NewPoolRunner of a pool without an import root: %v, want E301", err)
	}
}

// TestPoolRunnerPosition: a reply says where the run's error happened as
// the command line does, the file named as the client named it: the line
// and column of a syntax error, and the calls a timed-out run was in.
func TestPoolRunnerPosition(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "spin.vel"), []byte("def spin():\n    while True:\n        pass\nspin()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Budget: budget.MustParse(root, "io"), Receipts: t.TempDir(),
		Timeout: 500 * time.Millisecond})
	tests := []struct {
		name      string
		req       RunRequest
		wantCode  string
		wantPos   string
		wantStack []string
	}{
		{name: "a syntax error", req: RunRequest{Source: "print(1)\nx = (1:2)\n"}, wantCode: "E304", wantPos: SourceName + ":2:8"},
		{name: "a timeout", req: RunRequest{Path: "spin.vel"}, wantCode: "E307", wantPos: "spin.vel:",
			wantStack: []string{" in spin", "spin.vel:4:5 in <toplevel>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply, err := r.Run(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if reply.Code != tt.wantCode || !strings.HasPrefix(reply.Position, tt.wantPos) || len(reply.Stack) != len(tt.wantStack) {
				t.Fatalf("reply %s at %q, stack %q: want %s at %s..., %d frames", reply.Code, reply.Position, reply.Stack, tt.wantCode, tt.wantPos, len(tt.wantStack))
			}
			for i, want := range tt.wantStack {
				if !strings.HasPrefix(reply.Stack[i], "spin.vel:") || !strings.HasSuffix(reply.Stack[i], want) {
					t.Errorf("frame %d %q: want spin.vel:...%s", i, reply.Stack[i], want)
				}
			}
		})
	}
}

// TestPoolRunnerNamesWhatWasSent: a program sent as text that is too
// large is refused naming the text, with advice about its size, and its
// receipt names <source> beneath the import root: never a file
// program.vel that does not exist, and never "check the path". The
// control is a program named by path, whose receipt names its file.
func TestPoolRunnerNamesWhatWasSent(t *testing.T) {
	root, rc := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Budget: budget.MustParse(root, "io"), Receipts: rc})
	reply, err := r.Run(context.Background(), RunRequest{Source: strings.Repeat("#", program.MaxBytes+1)})
	var e *codes.Error
	if !errors.As(err, &e) || e.Code != codes.E316 || !strings.Contains(e.Msg, "the program's text (<source>)") ||
		strings.Contains(e.Msg, "program.vel") || strings.Contains(e.Hint(), "check the path") || !strings.Contains(e.Hint(), "shorter") {
		t.Errorf("a text too large: %v (do: %q); want E316 naming the text, no path advice", err, e.Hint())
	}
	for _, tt := range []struct {
		name, id, wantPath string
	}{
		{"the text too large", reply.RunID, filepath.Join(root, SourceName)},
		{"a program by path", func() string { r, _ := r.Run(context.Background(), RunRequest{Path: "hello.vel"}); return r.RunID }(), filepath.Join(root, "hello.vel")},
	} {
		got, err := receipt.FindRun(rc, tt.id)
		if err != nil || got.Program.Path != tt.wantPath {
			t.Errorf("%s: receipt %v, %v; want program.path %s", tt.name, got.Receipt, err, tt.wantPath)
		}
	}
}

func TestUnderRoot(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write := func(p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("print(1)\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "hello.vel"))
	write(filepath.Join(root, "lib", "a.vel"))
	write(filepath.Join(root, "notes.txt"))
	write(filepath.Join(outside, "secret.vel"))
	linked := os.Symlink(filepath.Join(outside, "secret.vel"), filepath.Join(root, "out.vel")) == nil
	piped := testkit.Mkfifo(filepath.Join(root, "pipe.vel"))
	tests := []struct {
		name     string
		path     string
		wantCode codes.Code
		needLink bool
		needPipe bool
	}{
		{name: "a file in the root", path: "hello.vel"},
		{name: "a file below", path: "lib/a.vel"},
		{name: "dot dot", path: "../" + filepath.Base(outside) + "/secret.vel", wantCode: codes.E316},
		{name: "dot dot inside", path: "lib/../../x.vel", wantCode: codes.E316},
		{name: "absolute", path: filepath.ToSlash(filepath.Join(outside, "secret.vel")), wantCode: codes.E316},
		{name: "backslash", path: `lib\a.vel`, wantCode: codes.E316},
		{name: "not a program", path: "notes.txt", wantCode: codes.E316},
		{name: "missing", path: "nothing.vel", wantCode: codes.E316},
		{name: "a directory", path: "lib", wantCode: codes.E316},
		{name: "a link out of the root", path: "out.vel", wantCode: codes.E316, needLink: true},
		// Refused at once, not held until a writer comes.
		{name: "a named pipe with no writer", path: "pipe.vel", wantCode: codes.E316, needPipe: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needLink && !linked {
				t.Skip("this system made no symbolic link")
			}
			if tt.needPipe && piped != nil {
				t.Skipf("no named pipe here: %v", piped)
			}
			got, src, err := underRoot(root, tt.path)
			if code := codes.CodeOf(err); code != tt.wantCode {
				t.Fatalf("underRoot(%q): %v, want code %q", tt.path, err, tt.wantCode)
			}
			if err == nil && (got != filepath.Join(root, filepath.FromSlash(tt.path)) || string(src) != "print(1)\n") {
				t.Errorf("underRoot(%q) = %s, %q", tt.path, got, src)
			}
		})
	}
}

// TestPoolRunnerRefuses: each refusal of the runner happens before a
// worker starts, and leaves one receipt saying so: nothing ran.
func TestPoolRunnerRefuses(t *testing.T) {
	root, rc := t.TempDir(), t.TempDir()
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Budget: budget.MustParse(root, "io"), Receipts: rc})
	tests := []struct {
		name     string
		req      RunRequest
		wantCode codes.Code
	}{
		{name: "wider budget", req: RunRequest{Source: "print(1)", Allow: []string{"fs"}}, wantCode: codes.E328},
		{name: "malformed item", req: RunRequest{Source: "print(1)", Allow: []string{"fs:frob:x:y"}}, wantCode: codes.E301},
		{name: "path out of the root", req: RunRequest{Path: "../x.vel"}, wantCode: codes.E316},
		{name: "missing path", req: RunRequest{Path: "x.vel"}, wantCode: codes.E316},
		{name: "program too large", req: RunRequest{Source: strings.Repeat("#", program.MaxBytes+1)}, wantCode: codes.E316},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Run(context.Background(), tt.req)
			if got := codes.CodeOf(err); got != tt.wantCode {
				t.Errorf("Run: %v, want code %s", err, tt.wantCode)
			}
			runs, _ := receipt.List(rc)
			if n := len(runs); n != i+1 || runs[n-1].Outcome.Code != tt.wantCode || runs[n-1].Outcome.Status != receipt.StatusUsage {
				t.Errorf("receipts %d, the newest %+v: want %d, the newest the refusal's, %s, usage (nothing ran)", n, runs, i+1, tt.wantCode)
			}
		})
	}
	if _, err := r.Receipt(context.Background(), "", "0123456789abcdef"); codes.CodeOf(err) != codes.E317 {
		t.Errorf("Receipt of an unknown run: %v, want E317", err)
	}
	if _, err := r.Receipt(context.Background(), "", "../x"); codes.CodeOf(err) != codes.E317 {
		t.Errorf("Receipt of a path: %v, want E317", err)
	}
}

// TestPoolRunnerGuardsTheTokenFile: a program whose budget reads the
// directory holding the server's token file cannot read the token; the
// file beside it it reads.
func TestPoolRunnerGuardsTheTokenFile(t *testing.T) {
	dir, rc := t.TempDir(), t.TempDir()
	token, beside := filepath.Join(dir, "token"), filepath.Join(dir, "beside")
	for _, p := range []string{token, beside} {
		if err := os.WriteFile(p, []byte("s3cr3t"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: dir, Budget: budget.MustParse(dir, "io", "fs:read:"+dir),
		Receipts: rc, Guarded: []string{token}})
	for _, tt := range []struct {
		path     string
		wantCode string
	}{{beside, ""}, {token, string(codes.E318)}} {
		reply, err := r.Run(context.Background(), RunRequest{Source: "print(fs.read(ARGS[0]))", Args: []string{tt.path}})
		if err != nil || reply.Code != tt.wantCode || (tt.wantCode == "") != (reply.Stdout == "s3cr3t\n") {
			t.Errorf("reading %s: %v, code %q, stdout %q; want code %q and the file printed only without one", tt.path, err, reply.Code, reply.Stdout, tt.wantCode)
		}
	}
}

// TestPoolRunnerReplyReceipt: the receipt a reply carries is the one the
// journal holds, as the store appended it, redacted: the same bytes as
// the receipt read back from the store, encoded again and redacted, for
// a run and for a request refused before the pool took it; the run's
// receipt came from the store's own bytes, not a second encoding.
func TestPoolRunnerReplyReceipt(t *testing.T) {
	root, receipts := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), []byte("print(\"hello\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Budget: budget.MustParse(root, "io"),
		Receipts: receipts})
	tests := []struct {
		name     string
		req      RunRequest
		wantCode codes.Code
	}{
		{name: "a run", req: RunRequest{Path: "hello.vel"}},
		{name: "a path refused", req: RunRequest{Path: "missing.vel"}, wantCode: codes.E316},
		{name: "a budget refused", req: RunRequest{Source: "print(1)", Allow: []string{"nothing-such"}},
			wantCode: codes.E301},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply, err := r.Run(t.Context(), tt.req)
			if codes.CodeOf(err) != tt.wantCode || reply.RunID == "" {
				t.Fatalf("Run: %v, run %q; want %q and a receipt", err, reply.RunID, tt.wantCode)
			}
			kept, err := receipt.FindRun(receipts, reply.RunID)
			if err != nil {
				t.Fatal(err)
			}
			again, err := json.Marshal(kept.Receipt)
			if err != nil {
				t.Fatal(err)
			}
			want, err := r.host.receipt(again)
			if err != nil {
				t.Fatal(err)
			}
			if string(reply.Receipt) != string(want) {
				t.Errorf("the reply's receipt:\n%s\nwant the stored one, redacted:\n%s", reply.Receipt, want)
			}
		})
	}
	res, err := r.pool.Run(t.Context(), sabline.Source(filepath.Join(root, "x.vel"), []byte("print(1)")),
		sabline.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored := res.Receipt.StoredJSON()
	reply, err := r.replyOf(res)
	if err != nil || len(stored) == 0 || len(reply.Receipt) != len(stored) ||
		&reply.Receipt[0] != &stored[0] {
		t.Errorf("replyOf: %s, %v; want the store's own bytes %s", reply.Receipt, err, stored)
	}
}

// TestPoolRunnerStdin: a request's standard input is the program's, and a
// request with none gives the program an empty one.
func TestPoolRunnerStdin(t *testing.T) {
	root := t.TempDir()
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Budget: budget.MustParse(root, "io"),
		Receipts: t.TempDir()})
	tests := []struct {
		name, stdin, wantStdout string
	}{
		{name: "some input", stdin: "x\ny", wantStdout: "\"x\\ny\"\n"},
		{name: "none", wantStdout: "\"\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply, err := r.Run(t.Context(), RunRequest{Source: "print(repr(io.read_all()))", Stdin: tt.stdin})
			if err != nil || reply.Status != "ok" || reply.Stdout != tt.wantStdout {
				t.Errorf("Run: %q %s %s, %v; want %q", reply.Stdout, reply.Status, reply.Message, err,
					tt.wantStdout)
			}
		})
	}
}

// TestReplyTestimony: a run whose outcome was reported by a worker with
// ffi granted (host code beside the program could have written it) says
// so at the reply's top level, beside the status it repeats, and in the
// server's log line: the status was repeated unmarked, where only the
// receipt inside said it was testimony. The control: the same program
// under io alone has no mark.
func TestReplyTestimony(t *testing.T) {
	for _, tt := range []struct {
		name, allow   string
		wantTestimony bool
	}{
		{name: "ffi granted", allow: "io,ffi:ctypes", wantTestimony: true},
		{name: "io alone", allow: "io"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root,
				Budget: budget.MustParse(root, tt.allow), Receipts: t.TempDir()})
			var mu sync.Mutex
			var logged []string
			s, err := New(Config{Runner: r, Token: testToken, Workers: 1, Queue: 1,
				Logf: func(format string, args ...any) {
					mu.Lock()
					defer mu.Unlock()
					logged = append(logged, fmt.Sprintf(format, args...))
				}})
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(s.Handler())
			defer ts.Close()
			allow, _ := json.Marshal(strings.Split(tt.allow, ","))
			resp, v := do(t, ts, "POST", "/v1/run", bearer,
				`{"source":"print(1)","allow":`+string(allow)+`}`)
			if resp.StatusCode != 200 || v["status"] != "ok" {
				t.Fatalf("status %d, reply %v: want a run that ended ok", resp.StatusCode, v)
			}
			testimony, _ := v["testimony"].(string)
			parts, _ := v["receipt"].(map[string]any)["reported"].(map[string]any)
			if tt.wantTestimony != (testimony != "") || testimony != fmt.Sprint(parts["testimony"]) &&
				tt.wantTestimony {
				t.Errorf("testimony %q, the receipt's reported part %v: want it set %v, as the "+
					"receipt says", testimony, parts, tt.wantTestimony)
			}
			if tt.wantTestimony && !strings.Contains(testimony, "ffi:ctypes is granted") {
				t.Errorf("testimony %q: want it to say why", testimony)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(logged) != 1 || strings.Contains(logged[0], "testimony") != tt.wantTestimony {
				t.Errorf("the log %q: want one line, saying testimony %v", logged, tt.wantTestimony)
			}
		})
	}
}
