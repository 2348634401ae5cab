//go:build !windows

package fleet

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/buildbin"
	"github.com/sabline/sabline/internal/testkit/fleettest"
	"github.com/sabline/sabline/internal/testkit/npmpin"
	"github.com/sabline/sabline/receipt/bucket"
	"github.com/sabline/sabline/receipt/ship"
)

// s3rverPins are the pins of testdata/npm: s3rver 3.7.1, an S3-compatible
// server that ignores If-None-Match on PUT (a second create-only write of
// a key replaces the first, answered 200).
var s3rverPins = npmpin.Pins{Dir: filepath.Join("testdata", "npm"),
	What: "the S3-compatible server of checks/fleet/testdata/npm (s3rver)", MinNode: 18}

// s3rverKey is the access key id and the secret s3rver signs with unless
// told otherwise: the agent signs its requests with them, and s3rver
// checks the signature.
const s3rverKey = "S3RVER"

// s3rver is one s3rver process the test started, with the bucket
// "receipts", its files in a directory of the test's.
type s3rver struct {
	URL    string // the receipts URL of its bucket
	Dir    string // its files: Dir/receipts/KEY._S3rver_object holds an object
	cmd    *exec.Cmd
	exited chan struct{}
	log    testkit.LockedBuffer
}

// startS3rver starts s3rver on a port of 127.0.0.1 (the kernel's pick:
// -p 0, the port read from what it prints), in a directory of t's, and
// ends it when t ends.
func startS3rver(t *testing.T) *s3rver {
	t.Helper()
	dir := npmpin.Install(t, s3rverPins)
	node, err := exec.LookPath("node")
	if err != nil {
		npmpin.Missing(t, s3rverPins.What, err)
	}
	s := &s3rver{Dir: t.TempDir(), exited: make(chan struct{})}
	s.cmd = exec.Command(node, filepath.Join(dir, "node_modules", "s3rver", "bin", "s3rver.js"),
		"-d", s.Dir, "-a", "127.0.0.1", "-p", "0", "--configure-bucket", "receipts")
	s.cmd.Stderr = &s.log
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start s3rver: %v", err)
	}
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			s.log.Write([]byte(line + "\n"))
			if _, addr, ok := strings.Cut(line, "S3rver listening on "); ok {
				select {
				case listening <- strings.TrimSpace(addr):
				default:
				}
			}
		}
		s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		s.cmd.Process.Signal(syscall.SIGCONT) // a test that stopped it may have failed first
		s.cmd.Process.Kill()
		<-s.exited
		if t.Failed() {
			t.Logf("s3rver:\n%s", s.log.String())
		}
	})
	select {
	case addr := <-listening:
		if !strings.HasPrefix(addr, "127.0.0.1:") {
			t.Fatalf("s3rver listens on %q, want 127.0.0.1", addr)
		}
		s.URL = fleettest.BucketURL("http://" + addr)
	case <-s.exited:
		t.Fatalf("s3rver ended at start:\n%s", s.log.String())
	case <-time.After(testkit.Bound(30 * time.Second)):
		t.Fatalf("s3rver did not listen within %v:\n%s", testkit.Bound(30*time.Second), s.log.String())
	}
	return s
}

// keys are the keys of the objects s3rver holds that begin with prefix,
// read from its files.
func (s *s3rver) keys(t *testing.T, prefix string) []string {
	t.Helper()
	root := filepath.Join(s.Dir, "receipts")
	var keys []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if key, ok := strings.CutSuffix(p, "._S3rver_object"); ok {
			rel, _ := filepath.Rel(root, key)
			if k := filepath.ToSlash(rel); strings.HasPrefix(k, prefix) {
				keys = append(keys, k)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(keys)
	return keys
}

// object is the object key as s3rver holds it, read from its files.
func (s *s3rver) object(t *testing.T, key string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(s.Dir, "receipts", filepath.FromSlash(key)+"._S3rver_object"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// doubleObjects are the objects under prefix of the test double at
// endpoint, read through its S3 API (it checks no signature).
func doubleObjects(t *testing.T, endpoint, prefix string) map[string]string {
	t.Helper()
	get := func(path string) []byte {
		resp, err := http.Get(endpoint + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %v\n%s", path, resp.StatusCode, err, data)
		}
		return data
	}
	var list struct {
		Contents []struct{ Key string }
	}
	if err := xml.Unmarshal(get("/receipts?list-type=2&prefix="+prefix), &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range list.Contents {
		out[c.Key] = string(get("/receipts/" + c.Key))
	}
	return out
}

// storeEnv is the environment of a replica, and so of its store agent:
// this process's without its AWS_* settings, and s3rver's key in their
// place, a region, no instance metadata, no shared configuration files.
func storeEnv(t *testing.T) []string {
	t.Helper()
	empty := filepath.Join(t.TempDir(), "aws-empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") && !strings.HasPrefix(kv, "SABLINE_RECEIPTS=") {
			env = append(env, kv)
		}
	}
	return append(env, "AWS_ACCESS_KEY_ID="+s3rverKey, "AWS_SECRET_ACCESS_KEY="+s3rverKey,
		"AWS_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE="+empty,
		"AWS_SHARED_CREDENTIALS_FILE="+empty,
		"SABLINE_RECEIPTS="+filepath.Join(t.TempDir(), "default-receipts"))
}

// replicaToken is the bearer token of the replicas these tests start.
const replicaToken = "s3rver-token-0123456789abcdef01234567"

// replica is one sabline serve the test started, with --receipts-url.
type replica struct {
	addr   string // "" when it ended before it listened
	cmd    *exec.Cmd
	exited chan struct{}
	log    testkit.LockedBuffer
	client *http.Client
}

// startReplica starts sabline serve shipping to url every second, with
// args after its own, and returns once it listens or has ended; it is
// ended (SIGKILL) when t ends, if it has not been.
func startReplica(t *testing.T, url string, args ...string) *replica {
	t.Helper()
	sab, err := buildbin.SablineWithDoor() // its serve starts the sabline-door beside it
	if err != nil {
		t.Fatal(err)
	}
	agent, err := buildbin.Build("github.com/sabline/sabline/cmd/sabline-store", "sabline-store")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	testkit.WriteFile(t, filepath.Join(root, "hello.vel"), "print(\"hello, world\")\n")
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte(replicaToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &replica{exited: make(chan struct{}), client: &http.Client{Timeout: time.Minute}}
	r.cmd = exec.Command(sab, append([]string{"serve", "--import-root", root,
		"--listen", "127.0.0.1:0", "--token-file", token, "--receipts", filepath.Join(dir, "receipts"),
		"--receipts-url", url, "--replica", "r1", "--store-agent", agent, "--workers", "1",
		"--allow", "io", "--ship-every", "1s"}, args...)...)
	r.cmd.Env = storeEnv(t)
	stderr, err := r.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			r.log.Write([]byte(line + "\n"))
			if _, rest, ok := strings.Cut(line, "listening on "); ok {
				addr, _, _ := strings.Cut(rest, " ")
				select {
				case listening <- addr:
				default:
				}
			}
		}
		r.cmd.Wait()
		close(r.exited)
	}()
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		<-r.exited
		if t.Failed() {
			t.Logf("replica:\n%s", r.log.String())
		}
	})
	bound := testkit.Bound(2 * time.Minute)
	select {
	case r.addr = <-listening:
	case <-r.exited:
	case <-time.After(bound):
		t.Fatalf("the replica did not listen within %v:\n%s", bound, r.log.String())
	}
	return r
}

// waitLog waits until the replica's log says want, at most a bound.
func (r *replica) waitLog(t *testing.T, want string) {
	t.Helper()
	bound := testkit.Bound(time.Minute)
	deadline := time.Now().Add(bound)
	for !strings.Contains(r.log.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the replica's log did not say %q within %v:\n%s", want, bound, r.log.String())
		}
		select {
		case <-r.exited:
			t.Fatalf("the replica ended (%v) before its log said %q:\n%s", r.cmd.ProcessState, want,
				r.log.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// wait waits for the replica to end, at most bound, and returns its exit
// status.
func (r *replica) wait(t *testing.T, bound time.Duration) int {
	t.Helper()
	select {
	case <-r.exited:
		return r.cmd.ProcessState.ExitCode()
	case <-time.After(bound):
		t.Fatalf("the replica did not end within %v:\n%s", bound, r.log.String())
		return 0
	}
}

// get sends GET path to the replica with its token: the status and body.
func (r *replica) get(t *testing.T, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+r.addr+path, nil)
	req.Header.Set("Authorization", "Bearer "+replicaToken)
	resp, err := r.client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// run runs hello.vel on the replica and returns the run id of its 200.
func (r *replica) run(t *testing.T) string {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+r.addr+"/v1/run",
		strings.NewReader(`{"path":"hello.vel"}`))
	req.Header.Set("Authorization", "Bearer "+replicaToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.client.Do(req)
	if err != nil {
		t.Fatalf("POST /v1/run: %v", err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var v struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal(data, &v); err != nil || resp.StatusCode != 200 || v.RunID == "" {
		t.Fatalf("POST /v1/run: %d %s (%v), want 200 and a run id", resp.StatusCode, data, err)
	}
	return v.RunID
}

// notCreateOnly is what the store agent says of a store that took the
// second write of its probe key.
var notCreateOnly = bucket.ErrNotCreateOnly.Error()

// TestStoreCreateOnlyRefusesS3rver: a replica given s3rver's bucket is
// refused at start, since s3rver took the second create-only write of the
// probe key (its file holds the second bytes): the agent names the store,
// what it did not keep and what to use instead; the server stops, exit
// status 1. The same replica given the test double, which keeps the
// promise, is ready and stays up, the probe holding the first bytes.
func TestStoreCreateOnlyRefusesS3rver(t *testing.T) {
	real := startS3rver(t)
	double, err := fleettest.StartDouble()
	if err != nil {
		t.Fatal(err)
	}
	defer double.Close()
	endpoint := strings.TrimSuffix(strings.SplitN(double.URL, "?", 2)[0], "/")
	tests := []struct {
		name      string
		url       string
		probes    func(t *testing.T) map[string]string // probe key -> what the store holds
		wantExit  int                                  // -1: still serving, ready
		wantLog   []string
		wantProbe string
	}{
		{name: "s3rver ignores If-None-Match", url: real.URL,
			probes: func(t *testing.T) map[string]string {
				out := map[string]string{}
				for _, k := range real.keys(t, bucket.ProbePrefix) {
					out[k] = real.object(t, k)
				}
				return out
			},
			wantExit: 1,
			wantLog: []string{"sabline-store: s3://receipts: " + notCreateOnly,
				"use a store that honours If-None-Match", "the store agent ended", ": stopping"},
			wantProbe: "second\n"},
		{name: "the test double keeps it", url: fleettest.BucketURL(endpoint),
			probes: func(t *testing.T) map[string]string {
				return doubleObjects(t, endpoint, bucket.ProbePrefix)
			},
			wantExit: -1, wantLog: []string{"shipping receipts to s3://receipts"}, wantProbe: "first\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := startReplica(t, tt.url)
			if tt.wantExit >= 0 {
				if got := r.wait(t, testkit.Bound(time.Minute)); got != tt.wantExit {
					t.Errorf("exit status %d, want %d", got, tt.wantExit)
				}
			} else {
				st, body := r.waitReady(t)
				if st != 200 {
					t.Errorf("/readyz: %d %s, want 200", st, body)
				}
				select {
				case <-r.exited:
					t.Errorf("the replica ended: %v", r.cmd.ProcessState)
				default:
				}
			}
			log := r.log.String()
			for _, want := range tt.wantLog {
				if !strings.Contains(log, want) {
					t.Errorf("the replica's log does not say %q:\n%s", want, log)
				}
			}
			// The URL's query carries the store's settings: the log
			// names the store without it.
			if _, query, _ := strings.Cut(tt.url, "?"); query == "" || strings.Contains(log, query) {
				t.Errorf("the replica's log names the URL's query %q, or the URL has none (%s):\n%s",
					query, tt.url, log)
			}
			probes := tt.probes(t)
			if len(probes) != 1 {
				t.Fatalf("the store holds %d probe keys (%v), want 1: one per start", len(probes), probes)
			}
			for k, v := range probes {
				if v != tt.wantProbe {
					t.Errorf("probe %s holds %q, want %q", k, v, tt.wantProbe)
				}
				t.Logf("probe %s holds %q", k, v)
			}
			t.Logf("the replica said:\n%s", log)
		})
	}
}

// waitReady polls /readyz until it answers 200 or the replica ends, at
// most a bound; the last answer.
func (r *replica) waitReady(t *testing.T) (int, string) {
	t.Helper()
	deadline := time.Now().Add(testkit.Bound(time.Minute))
	for {
		st, body := r.get(t, "/readyz")
		if st == 200 || time.Now().After(deadline) {
			return st, body
		}
		select {
		case <-r.exited:
			return st, body
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestStoreStoppedS3rver: a replica started while s3rver is stopped
// (SIGSTOP: its port takes connections and answers nothing) serves all
// the same once its calls to the store have run out their deadlines: its
// runs are answered and their receipts read back from its journal, and
// nothing reaches the store. When s3rver answers again (SIGCONT), the
// check the agent could not make at start is made before the first
// write, and refuses it: the replica keeps serving from its journal,
// ships nothing (s3rver holds probe keys alone) and says why in its log
// and in /readyz. A store that ignores If-None-Match never takes the
// replica's receipts, so that they ship once the store answers again
// cannot be shown against s3rver: receipt/ship's tests show it with a
// bucket that fails and then answers.
func TestStoreStoppedS3rver(t *testing.T) {
	s := startS3rver(t)
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	r := startReplica(t, s.URL, "--ready-max-lag", "1s")
	if r.addr == "" {
		t.Fatalf("the replica ended at start, status %v", r.cmd.ProcessState)
	}
	var ids []string
	for range 3 {
		ids = append(ids, r.run(t))
	}
	for _, id := range ids {
		if st, body := r.get(t, "/v1/receipts/"+id); st != 200 || !strings.Contains(body, id) {
			t.Errorf("receipt %s while the store is stopped: %d %s", id, st, body)
		}
	}
	if keys := s.keys(t, ""); len(keys) != 0 {
		t.Errorf("s3rver, stopped, holds %v", keys)
	}
	// The agent's check at start runs out its deadline about when the
	// replica's first listing does: s3rver is let go once the agent
	// serves without it (were it let go before, the check would end
	// then, refuse the store, and stop the replica as at start).
	r.waitLog(t, "cannot be checked yet")
	if err := s.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(testkit.Bound(2 * time.Minute))
	var st int
	var body string
	for {
		st, body = r.get(t, "/readyz")
		// /readyz says what in a word; the refusal itself is in the log.
		if st != 200 && strings.Contains(r.log.String(), notCreateOnly) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz after SIGCONT: %d %s, want 503 and the refusal in the log:\n%s", st,
				body, r.log.String())
		}
		select {
		case <-r.exited:
			t.Fatalf("the replica ended: %v", r.cmd.ProcessState)
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Logf("/readyz once s3rver answers again: %d %s", st, strings.TrimSpace(body))
	// It still serves, from its journal.
	ids = append(ids, r.run(t))
	for _, id := range ids {
		if st, body := r.get(t, "/v1/receipts/"+id); st != 200 || !strings.Contains(body, id) {
			t.Errorf("receipt %s once the store is refused: %d %s", id, st, body)
		}
	}
	// The check cut short at start left its first write in s3rver's
	// socket, taken when it answered again; the check made again wrote
	// a probe key of its own, twice.
	keys := s.keys(t, "")
	replaced := 0
	for _, k := range keys {
		if !strings.HasPrefix(k, bucket.ProbePrefix) {
			t.Errorf("s3rver holds %s: want probe keys alone, nothing under %s", k, ship.Prefix)
		}
		if s.object(t, k) == "second\n" {
			replaced++
		}
	}
	if replaced != 1 {
		t.Errorf("s3rver holds %v, %d of them written twice: want the check's probe key", keys, replaced)
	}
	t.Logf("s3rver holds %v", keys)
	log := r.log.String()
	for _, want := range []string{"cannot be checked yet", notCreateOnly} {
		if !strings.Contains(log, want) {
			t.Errorf("the replica's log does not say %q:\n%s", want, log)
		}
	}
	t.Logf("the replica said:\n%s", log)
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code := r.wait(t, testkit.Bound(time.Minute))
	t.Logf("SIGTERM: exit status %d", code)
}
