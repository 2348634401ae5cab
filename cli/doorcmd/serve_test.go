package doorcmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// served is a sabline serve the test started.
type served struct {
	cmd    *exec.Cmd
	url    string
	token  string
	rc     string // receipts directory
	root   string // import root
	tmp    string // the server's TMPDIR
	held   string // what the server said of its own domain
	exited chan error
	// dropStderr, set before start, closes the reading end of the
	// server's standard error once it has said where it listens.
	dropStderr bool
	// bin, set before start, is the sabline binary to start (with its
	// sabline-door beside it); sablineBin's by default.
	bin string

	mu   sync.Mutex
	said []string // the lines of its standard error so far
}

// lines are the lines the server has written to its standard error.
func (s *served) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.said...)
}

// runAnswer is a run's reply as runAsync reads it: its HTTP status (0
// when the request failed) and its body.
type runAnswer struct {
	status int
	reply  map[string]any
}

// runAsync sends body to s's /v1/run from a goroutine of its own, and
// sends its reply on the channel it returns once it comes.
func (s *served) runAsync(body string) <-chan runAnswer {
	answered := make(chan runAnswer, 1)
	go func() {
		req, _ := http.NewRequest("POST", s.url+"/v1/run", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+s.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- runAnswer{}
			return
		}
		defer resp.Body.Close()
		var v map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&v)
		answered <- runAnswer{resp.StatusCode, v}
	}()
	return answered
}

// startServe starts sabline serve on 127.0.0.1:0 with an import root
// holding hello.vel, and reads the address it bound from
// its standard error.
func startServe(t *testing.T, extra ...string) *served {
	t.Helper()
	return startServeAs(t, &served{}, extra...)
}

// startServeAs is startServe with s's own settings (dropStderr, bin).
func startServeAs(t *testing.T, s *served, extra ...string) *served {
	t.Helper()
	return startServeEnvAs(t, s, os.Environ(), extra...)
}

// startServeEnvAs is startServeAs with the server's environment env.
func startServeEnvAs(t *testing.T, s *served, env []string, extra ...string) *served {
	t.Helper()
	bin := s.bin
	if bin == "" {
		bin = sablineBin(t)
	}
	dir := t.TempDir()
	s.root, s.rc, s.exited = filepath.Join(dir, "root"), filepath.Join(dir, "receipts"), make(chan error, 1)
	if err := os.MkdirAll(s.root, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{
		"hello.vel": "print(\"hello, world\")\n",
	} {
		if err := os.WriteFile(filepath.Join(s.root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := append([]string{"serve", "--import-root", s.root, "--allow", "io", "--listen", "127.0.0.1:0", "--receipts", s.rc, "--workers", "1", "--queue", "1"}, extra...)
	// The server's temporary directory is its own, so that the rest of
	// the test's directory lies outside every grant of its domain.
	s.tmp = filepath.Join(dir, "tmp")
	s.start(t, bin, args, env)
	return s
}

// start starts bin with args, in env with TMPDIR=s.tmp (made here), keeps
// what it writes to its standard error (lines), and returns once it says
// where it listens, with s.url, s.held (what it said of its own domain)
// and s.token (the token file in s.rc) set. The server is killed when the
// test ends; what it said is logged if the test failed.
func (s *served) start(t *testing.T, bin string, args, env []string) {
	t.Helper()
	if err := os.MkdirAll(s.tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Env = append(append([]string(nil), env...), "TMPDIR="+s.tmp)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		listening := false
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.said = append(s.said, line)
			s.mu.Unlock()
			if listening {
				continue
			}
			if strings.Contains(line, "the server process") {
				s.held = line // said before where it listens: read once that is known
			}
			if _, rest, ok := strings.Cut(line, "listening on "); ok {
				a, _, _ := strings.Cut(rest, " ")
				listening = true
				addr <- a
				if s.dropStderr {
					stderr.Close() // the reader gone
					break
				}
			}
		}
		s.exited <- s.cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = s.cmd.Process.Kill()
		<-s.exited
		if t.Failed() {
			t.Logf("sabline serve said:\n%s", strings.Join(s.lines(), "\n"))
		}
	})
	bound := testkit.Bound(time.Minute)
	select {
	case a := <-addr:
		s.url = "http://" + a
	case err := <-s.exited:
		s.exited <- err
		t.Fatalf("sabline serve ended (%v) before it listened:\n%s", err,
			strings.Join(s.lines(), "\n"))
	case <-time.After(bound):
		t.Fatalf("sabline serve did not listen within %v:\n%s", bound,
			strings.Join(s.lines(), "\n"))
	}
	tok, err := os.ReadFile(filepath.Join(s.rc, tokenFileName))
	if err != nil {
		t.Fatalf("the token file in the receipts directory: %v", err)
	}
	s.token = strings.TrimSpace(string(tok))
}

// post sends a JSON body to the server and decodes the answer.
func (s *served) do(t *testing.T, method, path, token, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	data, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s %s: not JSON: %q", method, path, data)
	}
	return resp.StatusCode, v
}

// receipts counts the receipts in the server's receipts directory.
func (s *served) receipts(t *testing.T) int {
	t.Helper()
	runs, err := receipt.List(s.rc)
	if err != nil {
		t.Fatal(err)
	}
	return len(runs)
}

// wantFull checks a level is full where this kernel's Landlock holds a
// run of io fully (ABI 4 and up: confine_levels.txtar), and says why it
// does not check otherwise.
func wantFull(t *testing.T, what string, level any) {
	t.Helper()
	if goruntime.GOOS != "linux" || confine.Probe().LandlockABI < 4 {
		t.Logf("not checking %s's level (%v): Landlock ABI %d on this machine, full needs 4", what, level, confine.Probe().LandlockABI)
		return
	}
	if level != "full" {
		t.Errorf("%s: level %v, want full", what, level)
	}
}

func TestServeRuns(t *testing.T) {
	s := startServe(t)
	st, v := s.do(t, "POST", "/v1/run", s.token, `{"path":"hello.vel"}`)
	if st != 200 || v["stdout"] != "hello, world\n" || v["exit_status"] != float64(0) {
		t.Fatalf("run hello.vel: %d %v", st, v)
	}
	wantFull(t, "hello.vel through HTTP", v["level"])
	id, _ := v["run_id"].(string)
	st, rec := s.do(t, "GET", "/v1/receipts/"+id, s.token, "")
	if st != 200 || rec["run_id"] != id {
		t.Fatalf("receipt %s: %d %v", id, st, rec)
	}
	params, _ := rec["run_parameters"].(map[string]any)
	wantFull(t, "the stored receipt", params["confinement"])

	st, v = s.do(t, "POST", "/v1/run", s.token, `{"source":"print(ARGS[0], io.read_line())","args":["a"],"stdin":"b\n","allow":["io"]}`)
	if st != 200 || v["stdout"] != "a b\n" {
		t.Errorf("run a source with args and stdin: %d %v", st, v)
	}
	wantFull(t, "a source through HTTP", v["level"])

	before := s.receipts(t)
	refusals := []struct {
		name       string
		token      string
		body       string
		wantStatus int
		wantCode   string
	}{
		{name: "no token", body: `{"path":"hello.vel"}`, wantStatus: 401, wantCode: "unauthorized"},
		{name: "wrong token", token: strings.Repeat("0", 64), body: `{"path":"hello.vel"}`, wantStatus: 401, wantCode: "unauthorized"},
		{name: "confinement", token: s.token, body: `{"path":"hello.vel","no_confine":true}`, wantStatus: 400, wantCode: "E301"},
		{name: "wider budget", token: s.token, body: `{"path":"hello.vel","allow":["fs:read"]}`, wantStatus: 403, wantCode: "E328"},
		{name: "path out of the root", token: s.token, body: `{"path":"../receipts/serve.token"}`, wantStatus: 403, wantCode: "E316"},
		{name: "unknown field", token: s.token, body: `{"path":"hello.vel","timeout":"1h"}`, wantStatus: 400, wantCode: "E301"},
	}
	for _, r := range refusals {
		st, v := s.do(t, "POST", "/v1/run", r.token, r.body)
		e, _ := v["error"].(map[string]any)
		if st != r.wantStatus || e["code"] != r.wantCode {
			t.Errorf("%s: %d %v, want %d %s", r.name, st, v, r.wantStatus, r.wantCode)
		}
	}
	onlyRefusals(t, s.rc, before)
	st, v = s.do(t, "GET", "/v1/receipts/ffffffffffffffff", s.token, "")
	if st != 404 {
		t.Errorf("an unknown receipt: %d %v, want 404", st, v)
	}
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestServeMCP runs hello.vel through /mcp of a real sabline serve with
// the SDK's Streamable HTTP client: the run is full, and its receipt is
// stored; without the token the client cannot connect.
func TestServeMCP(t *testing.T) {
	s := startServe(t)
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	if _, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp", MaxRetries: -1}, nil); err == nil {
		t.Fatal("connected to /mcp without the token")
	}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{s.token}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	out := mcpHello(t, cs, "over /mcp")
	wantFull(t, "hello.vel through /mcp", out.Level)
	st, rec := s.do(t, "GET", "/v1/receipts/"+out.RunID, s.token, "")
	params, _ := rec["run_parameters"].(map[string]any)
	if st != 200 {
		t.Fatalf("receipt of the /mcp run: %d %v", st, rec)
	}
	wantFull(t, "the receipt of the /mcp run", params["confinement"])
}

// TestServeStops sends SIGTERM while a run is in flight: the server stops
// taking requests, the run ends (ok) and its request is answered with its
// receipt kept, and the server exits 0.
func TestServeStops(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("SIGTERM is a POSIX signal")
	}
	// The run in flight waits for a file the test makes once the server
	// was told to stop: it is in flight then however slow the machine.
	gate := t.TempDir()
	s := startServe(t, "--allow", "io,fs:read:"+gate, "--timeout", "10m")
	wait := fmt.Sprintf("for i in range(1000000000):\n    if fs.exists(%q):\n        break\nprint(\"opened\")\n",
		filepath.Join(gate, "open"))
	if err := os.WriteFile(filepath.Join(s.root, "wait.vel"), []byte(wait), 0o644); err != nil {
		t.Fatal(err)
	}
	answered := s.runAsync(`{"path":"wait.vel"}`)
	for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); ; time.Sleep(20 * time.Millisecond) {
		_, h := s.do(t, "GET", "/v1/health", s.token, "")
		if h["running"] == float64(1) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run never started")
		}
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gate, "open"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a := <-answered
	if a.status != 200 || a.reply["status"] != "ok" {
		t.Errorf("the request in flight got %d, status %v; want 200, ok: a stopping server lets its runs end", a.status, a.reply["status"])
	}
	select {
	case err := <-s.exited:
		var exit *exec.ExitError
		if errors.As(err, &exit) || err != nil {
			t.Errorf("sabline serve after SIGTERM: %v, want exit 0", err)
		}
		s.exited <- nil // for the cleanup
	case <-time.After(testkit.Bound(30 * time.Second)):
		t.Fatal("sabline serve did not exit after SIGTERM")
	}
	id, _ := a.reply["run_id"].(string)
	if got, err := receipt.Find(s.rc, id); err != nil || got.Outcome.Status != "ok" {
		t.Errorf("the run in flight's receipt: %v (%v), want it kept, ok", got.Receipt, err)
	}
}

// TestServeHaltsAtTheSecondSignal: a second SIGTERM ends the runs in
// flight now: the request in flight is answered E307 naming the halt,
// its receipt is kept (never left unfinished), and the server exits 0.
// At the first, the server says how it stops and that a second would end
// the runs (TestServeStops: the first alone lets the run end as it
// would). Before, a second signal did nothing: the run went on to its
// timeout.
func TestServeHaltsAtTheSecondSignal(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("SIGTERM is a POSIX signal")
	}
	s := startServe(t, "--timeout", "10m")
	if err := os.WriteFile(filepath.Join(s.root, "loop.vel"), []byte(loopAt), 0o644); err != nil {
		t.Fatal(err)
	}
	answered := s.runAsync(`{"path":"loop.vel"}`)
	said := func(what string) bool {
		for _, l := range s.lines() {
			if strings.Contains(l, what) {
				return true
			}
		}
		return false
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s; the server said %q", what, s.lines())
			}
		}
	}
	waitFor("the run never started", func() bool {
		_, h := s.do(t, "GET", "/v1/health", s.token, "")
		return h["running"] == float64(1)
	})
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor("no word of stopping", func() bool { return said("a second SIGINT or SIGTERM ends them now") })
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var a runAnswer
	select {
	case a = <-answered:
	case <-time.After(testkit.Bound(30 * time.Second)):
		t.Fatalf("the run in flight was not ended by the second SIGTERM; the server said %q", s.lines())
	}
	msg, _ := a.reply["message"].(string)
	if a.status != 200 || a.reply["code"] != "E307" || !strings.Contains(msg, "halted") {
		t.Errorf("the request in flight got %d %v; want 200, E307 naming the halt", a.status, a.reply)
	}
	if !said("halting: the runs in flight end now") {
		t.Errorf("the server did not say it was halting: %q", s.lines())
	}
	select {
	case err := <-s.exited:
		if err != nil {
			t.Errorf("sabline serve after a second SIGTERM: %v, want exit 0", err)
		}
		s.exited <- nil // for the cleanup
	case <-time.After(testkit.Bound(30 * time.Second)):
		t.Fatal("sabline serve did not exit after a second SIGTERM")
	}
	id, _ := a.reply["run_id"].(string)
	if got, err := receipt.Find(s.rc, id); err != nil || got.Outcome.Code != "E307" ||
		!strings.Contains(got.Outcome.Message, "halted") {
		t.Errorf("the halted run's receipt: %+v (%v), want it kept, E307 naming the halt", got.Receipt.Outcome, err)
	}
}

// TestServeRefusesToStart: settings that cannot be served are refused at
// start, exit 2, with the code.
func TestServeRefusesToStart(t *testing.T) {
	bin := sablineBin(t)
	root := t.TempDir()
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "no import root", args: []string{"serve"}, wantErr: "--import-root"},
		{name: "import root missing", args: []string{"serve", "--import-root", filepath.Join(root, "none")}, wantErr: "no such directory"},
		{name: "every interface without a token file", args: []string{"serve", "--import-root", root, "--listen", "0.0.0.0:0"}, wantErr: "not a loopback address"},
		{name: "a program", args: []string{"serve", "--import-root", root, "x.vel"}, wantErr: "takes no program"},
		{name: "no-confine", args: []string{"serve", "--import-root", root, "--no-confine"}, wantErr: "no such flag"},
		{name: "zero workers", args: []string{"serve", "--import-root", root, "--workers", "0"}, wantErr: "at least 1"},
		{name: "an unknown durability", args: []string{"serve", "--import-root", root, "--durability", "later"},
			wantErr: `--durability "later": want one of flush, background, none`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			cmd.Env = append(os.Environ(), "SABLINE_RECEIPTS="+filepath.Join(root, "rc"))
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Fatalf("%v: %v, want exit 2\n%s", tt.args, err, out)
			}
			if !strings.Contains(string(out), "E301") || !strings.Contains(string(out), tt.wantErr) {
				t.Errorf("%v said %q, want E301 and %q", tt.args, out, tt.wantErr)
			}
		})
	}
}

// TestServeDurability: a server keeps each receipt as --durability says,
// flush when it is not given, and the receipt says which.
func TestServeDurability(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want receipt.Durability
	}{
		{name: "default", want: receipt.Flush},
		{name: "background", args: []string{"--durability", "background"}, want: receipt.Background},
		{name: "none", args: []string{"--durability", "none"}, want: receipt.None},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startServe(t, tt.args...)
			code, reply := s.do(t, "POST", "/v1/run", s.token, `{"path":"hello.vel"}`)
			id, _ := reply["run_id"].(string)
			if code != 200 || id == "" {
				t.Fatalf("run: %d %v", code, reply)
			}
			got, err := receipt.Find(s.rc, id)
			if err != nil || got.RunParameters.Durability != tt.want {
				t.Fatalf("the kept receipt (%v) says durability %q, want %q", err,
					got.RunParameters.Durability, tt.want)
			}
		})
	}
}

// serveAsTheDoc reads docs/serve.md and starts a server with the budget
// of the page's first command; it returns the page and the server.
func serveAsTheDoc(t *testing.T) (string, *served) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "serve.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	start, _, _ := strings.Cut(doc[strings.Index(doc, "sabline serve --import-root"):], "\n")
	_, allow, ok := strings.Cut(start, "--allow ")
	if !ok {
		t.Fatalf("the page's first command %q has no --allow", start)
	}
	return doc, startServe(t, "--allow", strings.Fields(allow)[0])
}

// TestServeDocRefusals: the refusals docs/serve.md shows are what a server
// started as the page's first command answers: each curl of the section
// Refusals is sent, and its answer compared with the line after it.
func TestServeDocRefusals(t *testing.T) {
	doc, s := serveAsTheDoc(t)
	_, refusals, ok := strings.Cut(doc, "## Refusals")
	if !ok {
		t.Fatal("docs/serve.md has no section Refusals")
	}
	lines := strings.Split(refusals, "\n")
	n := 0
	for i, line := range lines {
		if !strings.HasPrefix(line, "$ curl ") || i+1 == len(lines) {
			continue
		}
		_, body, _ := strings.Cut(line, " -d '")
		body, _, _ = strings.Cut(body, "' ")
		_, want := s.do(t, http.MethodPost, "/v1/run", s.token, body)
		var shown map[string]any
		if err := json.Unmarshal([]byte(lines[i+1]), &shown); err != nil {
			t.Fatalf("the answer shown after %q: %v", line, err)
		}
		// A refusal's run id is its own each time: the page shows RUN_ID.
		if detail, ok := want["error"].(map[string]any); ok {
			if id, _ := detail["run_id"].(string); receipt.ValidRunID(id) {
				detail["run_id"] = "RUN_ID"
			}
		}
		got, _ := json.Marshal(want)
		if doc, _ := json.Marshal(shown); string(got) != string(doc) {
			t.Errorf("%s\n  answers %s\n  the page shows %s", body, got, doc)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no curl in the section Refusals")
	}
}

// TestServeDocAudit sends the page's /v1/audit request (docs/serve.md,
// Requests) to a server started with the page's first command's budget,
// and holds what the page shows of the answer (each field it gives, not
// those it shows as {...}) to what the server answers: the levels of
// each system are predicted from the budget alone, and here is this
// machine's, where the page's Linux has Landlock with its network rights
// (ABI 4).
func TestServeDocAudit(t *testing.T) {
	doc, s := serveAsTheDoc(t)
	body, shown, got := askAsTheDoc(t, doc, s, "/v1/audit")
	for k, v := range shown {
		if v == nil {
			continue // shown as {...}
		}
		if k == "here" && (goruntime.GOOS != "linux" || confine.Probe().LandlockABI < 4) {
			continue // the page's machine, not this one
		}
		want, _ := json.Marshal(v)
		have, _ := json.Marshal(got[k])
		if string(have) != string(want) {
			t.Errorf("/v1/audit %s: %s is %s, the page shows %s", body, k, have, want)
		}
	}
}

// askAsTheDoc sends s the request the section Requests of docs/serve.md
// (doc) shows first for path, as its curl line writes it, and returns the
// request's body, the answer the page shows after it ({...} as null) and
// the server's.
func askAsTheDoc(t *testing.T, doc string, s *served, path string) (body string, shown,
	got map[string]any) {
	t.Helper()
	_, requests, ok := strings.Cut(doc, "## Requests")
	if !ok {
		t.Fatal("docs/serve.md has no section Requests")
	}
	lines := strings.Split(requests, "\n")
	i := slices.IndexFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "$ curl ") && strings.Contains(l, path)
	})
	if i < 0 || i+1 == len(lines) {
		t.Fatalf("no curl of %s, with its answer, in the section Requests", path)
	}
	_, body, _ = strings.Cut(lines[i], " -d '")
	body, _, _ = strings.Cut(body, "' ")
	answer := strings.ReplaceAll(lines[i+1], "{...}", "null")
	if err := json.Unmarshal([]byte(answer), &shown); err != nil {
		t.Fatalf("the answer shown after %q: %v", lines[i], err)
	}
	status, got := s.do(t, http.MethodPost, path, s.token, body)
	if status != http.StatusOK {
		t.Fatalf("%s: status %d, %v", body, status, got)
	}
	return body, shown, got
}

// TestServeDocRun sends the page's first /v1/run request (docs/serve.md,
// Requests) to a server of the budget io (the page's, but its
// /srv/data, which this machine may not have: a grant of a directory not
// there is held partial), and holds what the page shows of the answer
// to what the server answers: each field it gives (not those shown as
// {...}), a string shown ending "..." by its beginning, and the level and
// reason where this machine's Linux has Landlock, as the page's has. The
// page showed a reason a door's run never has: each says too that its
// workers may read the import root.
func TestServeDocRun(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "serve.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc, s := string(data), startServe(t)
	body, shown, got := askAsTheDoc(t, doc, s, "/v1/run")
	landlock := goruntime.GOOS == "linux" && confine.Probe().LandlockABI >= 1
	n := 0
	for k, v := range shown {
		switch {
		case v == nil || k == "run_id":
			continue // shown as {...}, or this run's own
		case !landlock && (k == "level" || k == "reason"):
			continue // the page's machine, not this one
		}
		n++
		if w, ok := v.(string); ok && strings.HasSuffix(w, "...") {
			if have, _ := got[k].(string); !strings.HasPrefix(have, strings.TrimSuffix(w, "...")) {
				t.Errorf("/v1/run %s: %s is %q, the page shows it begins %q", body, k, have,
					strings.TrimSuffix(w, "..."))
			}
			continue
		}
		want, _ := json.Marshal(v)
		have, _ := json.Marshal(got[k])
		if string(have) != string(want) {
			t.Errorf("/v1/run %s: %s is %s, the page shows %s", body, k, have, want)
		}
	}
	if n == 0 {
		t.Error("the page's answer gives no field this test compares")
	}
}

// heldPlaces are the paths a server's first line says it reads and
// writes, each by its last element (a machine's own directories differ).
func heldPlaces(t *testing.T, line string) (reads, writes []string) {
	t.Helper()
	_, rest, ok := strings.Cut(line, ": it reads ")
	r, rest, ok2 := strings.Cut(rest, "; writes ")
	w, _, ok3 := strings.Cut(rest, "; connects ")
	if !ok || !ok2 || !ok3 {
		t.Fatalf("not a line of what the server holds: %q", line)
	}
	for _, p := range strings.Split(r, ", ") {
		reads = append(reads, filepath.Base(p))
	}
	for _, p := range strings.Split(w, ", ") {
		writes = append(writes, filepath.Base(p))
	}
	return reads, writes
}

// TestServeDocHeldLine holds the first line docs/serve.md shows a server
// print ("What the server itself may touch") to the one a server under
// the same budget (io) prints: the same places, each named by its last
// element: the places it writes, in the same order, and each it reads,
// but for the import root, which is the operator's own. A server writes
// the runs' directory, never /tmp itself, and runs sabline-door.
func TestServeDocHeldLine(t *testing.T) {
	if goruntime.GOOS != "linux" || confine.Probe().LandlockABI < 1 {
		t.Skipf("skipped: the page shows a Linux server with Landlock, and this is %s "+
			"with Landlock ABI %d", goruntime.GOOS, confine.Probe().LandlockABI)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "serve.md"))
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "sabline serve: the server process is held"
	var shown string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, prefix) {
			shown = l
			break
		}
	}
	if shown == "" {
		t.Fatalf("docs/serve.md shows no line %q", prefix)
	}
	s := startServe(t)
	docReads, docWrites := heldPlaces(t, shown)
	reads, writes := heldPlaces(t, s.held)
	if !slices.Equal(docWrites, writes) {
		t.Errorf("the server writes %v, the page shows %v\n server: %s\n page: %s",
			writes, docWrites, s.held, shown)
	}
	// A dynamically linked build reads its loader too: each place the
	// page shows is one the server reads.
	for _, r := range docReads[1:] {
		if !slices.Contains(reads[1:], r) {
			t.Errorf("the server reads %v, the page shows %s (the import root first)"+
				"\n server: %s\n page: %s", reads, r, s.held, shown)
		}
	}
}

// mcpOut is what a test reads of the tool run's structured result.
type mcpOut struct {
	Stdout string `json:"stdout"`
	Level  string `json:"level"`
	RunID  string `json:"run_id"`
}

// mcpHello calls the tool run on hello.vel in cs and returns its result,
// failing the test unless it printed hello, world.
func mcpHello(t *testing.T, cs *mcp.ClientSession, how string) mcpOut {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run",
		Arguments: map[string]any{"path": "hello.vel"}})
	if err != nil {
		t.Fatal(err)
	}
	var out mcpOut
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil || res.IsError || out.Stdout != "hello, world\n" {
		t.Fatalf("run %s: %v %s (%v)", how, res.IsError, data, err)
	}
	return out
}
