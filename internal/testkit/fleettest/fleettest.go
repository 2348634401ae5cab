// Package fleettest starts a fleet of sabline serve replicas on this
// machine, for the tests and benchmarks that hold a fleet to its
// promises: an S3-compatible bucket in the calling process (gofakes3,
// on a loopback listener), N replicas each with its own receipts
// directory and replica id shipping to it, and a small reverse proxy
// that sends each token to one replica (the next live one when that one
// is down). Every address is on loopback; the AWS SDK in the store
// agents is given credentials and told not to look for others, so that
// nothing reaches beyond this machine.
package fleettest

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/sabline/sabline/internal/testkit/buildbin"
	"github.com/sabline/sabline/receipt/bucket"
	"github.com/sabline/sabline/tenant"
)

// Tenant is one tenant of the fleet, with its token.
type Tenant struct {
	Name, Token       string
	Rate              float64
	Burst, Concurrent int
}

// Options are a fleet's settings.
type Options struct {
	Replicas  int
	Tenants   []Tenant
	Workers   int           // per replica
	ShipEvery time.Duration // --ship-every
	Program   string        // hello.vel's text
	Extra     []string      // more flags of each replica's sabline serve
}

// Fleet is a running fleet. Its owner stops it (Stop).
type Fleet struct {
	Dir       string // scratch: the import root, the tenants file, each replica's receipts
	Sabline   string // the sabline binary
	Agent     string // the sabline-store binary
	BucketURL string
	Proxy     *httptest.Server
	Replicas  []*Replica
	Tenants   []Tenant

	o      Options
	s3     *httptest.Server
	env    []string
	mu     sync.Mutex // guards the replicas' addresses
	client *http.Client
}

// Replica is one sabline serve.
type Replica struct {
	ID       string
	Receipts string
	args     []string
	cmd      *exec.Cmd
	addr     string
	exited   chan struct{}
	logMu    sync.Mutex
	log      strings.Builder
}

// Log is what the replica wrote to its standard error, every life of it.
func (r *Replica) Log() string {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	return r.log.String()
}

// Start builds the binaries and starts the fleet: the bucket, the
// replicas (each ready before Start returns), the proxy.
func Start(o Options) (*Fleet, error) {
	sab, err := buildbin.SablineWithDoor() // its serve starts the sabline-door beside it
	if err != nil {
		return nil, err
	}
	agent, err := buildbin.Build("github.com/sabline/sabline/cmd/sabline-store", "sabline-store")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "sabline-fleet-")
	if err != nil {
		return nil, err
	}
	f := &Fleet{Dir: dir, Sabline: sab, Agent: agent, Tenants: o.Tenants, o: o,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	if err := f.startBucket(); err != nil {
		f.Stop()
		return nil, err
	}
	root := filepath.Join(dir, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), []byte(o.Program), 0o644); err != nil {
		return nil, err
	}
	tenants := filepath.Join(dir, "tenants.json")
	if err := os.WriteFile(tenants, tenantsFile(o.Tenants), 0o600); err != nil {
		return nil, err
	}
	for i := range o.Replicas {
		r := &Replica{
			ID:       fmt.Sprintf("r%d", i+1),
			Receipts: filepath.Join(dir, fmt.Sprintf("receipts-%d", i+1)),
		}
		r.args = []string{"serve", "--import-root", root, "--listen", "127.0.0.1:0", "--tenants", tenants,
			"--receipts", r.Receipts, "--receipts-url", f.BucketURL, "--replica", r.ID,
			"--store-agent", agent,
			"--workers", fmt.Sprint(max(1, o.Workers)), "--queue", "64", "--allow", "io", "--timeout", "20s",
			"--ship-every", o.ShipEvery.String()}
		r.args = append(r.args, o.Extra...)
		f.Replicas = append(f.Replicas, r)
		if err := f.Restart(i); err != nil {
			f.Stop()
			return nil, err
		}
	}
	f.Proxy = httptest.NewServer(http.HandlerFunc(f.forward))
	return f, nil
}

// tenantsFile is the tenants file of ts.
func tenantsFile(ts []Tenant) []byte {
	var b strings.Builder
	b.WriteString(`{"tenants": [`)
	for i, t := range ts {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name": %q, "token_sha256": %q, "rate": %g, "burst": %d, "concurrency": %d}`,
			t.Name, tenant.DigestOf(t.Token), t.Rate, t.Burst, t.Concurrent)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// BucketURL is the receipts URL of the bucket "receipts" of the
// S3-compatible server at endpoint (http://127.0.0.1:PORT), in the form
// gocloud.dev/blob's s3 driver reads: the endpoint, path-style addresses,
// a region, plain HTTP.
func BucketURL(endpoint string) string {
	q := url.Values{
		"endpoint":       {endpoint},
		"region":         {"us-east-1"},
		"use_path_style": {"true"},
		"disable_https":  {"true"},
	}
	return "s3://receipts?" + q.Encode()
}

// StartDouble starts the S3-compatible test double the fleet ships to
// (gofakes3, in memory, on a loopback listener), with the bucket
// "receipts" (BucketURL); its owner closes it. It keeps the create-only
// promise: a PUT with If-None-Match: * over an object is refused.
func StartDouble() (*httptest.Server, error) {
	backend := s3mem.New()
	if err := backend.CreateBucket("receipts"); err != nil {
		return nil, err
	}
	return httptest.NewServer(
		gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()), nil
}

// startBucket starts the S3-compatible bucket on loopback, and the
// environment every replica and agent is given: credentials, a region,
// no instance metadata, no shared configuration files.
func (f *Fleet) startBucket() error {
	s3, err := StartDouble()
	if err != nil {
		return err
	}
	f.s3 = s3
	f.BucketURL = BucketURL(f.s3.URL)
	empty := filepath.Join(f.Dir, "aws-empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		return err
	}
	// The agents, the replicas' and this process's own (Bucket), read
	// these: set here, they are inherited by every one.
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "fleettest",
		"AWS_SECRET_ACCESS_KEY": "fleettest", "AWS_REGION": "us-east-1",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": empty,
		"AWS_SHARED_CREDENTIALS_FILE": empty} {
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	f.env = append(os.Environ(), "SABLINE_RECEIPTS="+filepath.Join(f.Dir, "default-receipts"))
	return nil
}

// Bucket is a store agent of the fleet's bucket, for reading it from the
// test: its owner closes it.
func (f *Fleet) Bucket() (*bucket.Agent, error) {
	return bucket.StartAgent(f.Agent, f.BucketURL, os.Stderr)
}

// Restart starts replica i (again, after Kill): same flags, same receipts
// directory, same id; it returns once the replica answers ready.
func (f *Fleet) Restart(i int) error {
	r := f.Replicas[i]
	cmd := exec.Command(f.Sabline, r.args...)
	cmd.Env = f.env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	listening := make(chan string, 1)
	exited := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			r.logMu.Lock()
			r.log.WriteString(line + "\n")
			r.logMu.Unlock()
			if _, rest, ok := strings.Cut(line, "listening on "); ok {
				addr, _, _ := strings.Cut(rest, " ")
				select {
				case listening <- addr:
				default:
				}
			}
		}
		cmd.Wait()
		close(exited)
	}()
	var addr string
	select {
	case addr = <-listening:
	case <-exited:
		return fmt.Errorf("replica %s ended at start:\n%s", r.ID, r.Log())
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		return fmt.Errorf("replica %s did not listen within 2 minutes:\n%s", r.ID, r.Log())
	}
	f.mu.Lock()
	r.cmd, r.addr, r.exited = cmd, addr, exited
	f.mu.Unlock()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := f.client.Get("http://" + addr + "/readyz")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("replica %s not ready within 2 minutes:\n%s", r.ID, r.Log())
		}
		select {
		case <-exited:
			return fmt.Errorf("replica %s ended before it was ready:\n%s", r.ID, r.Log())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Pid is replica i's process id.
func (f *Fleet) Pid(i int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.Replicas[i].cmd.Process.Pid
}

// Addr is replica i's address, "" while it is down.
func (f *Fleet) Addr(i int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.Replicas[i].addr
}

// Kill ends replica i with SIGKILL and waits for it.
func (f *Fleet) Kill(i int) {
	f.mu.Lock()
	r := f.Replicas[i]
	r.addr = ""
	f.mu.Unlock()
	r.cmd.Process.Kill()
	<-r.exited
}

// Stop ends every replica with SIGTERM (each ships what it has left),
// waits for them, and stops the proxy and the bucket.
func (f *Fleet) Stop() {
	for _, r := range f.Replicas {
		if r.cmd != nil && r.cmd.ProcessState == nil {
			// Windows has no SIGTERM: there the replica is killed, and
			// its receipts wait in its journal.
			if r.cmd.Process.Signal(syscall.SIGTERM) != nil {
				r.cmd.Process.Kill()
			}
		}
	}
	for _, r := range f.Replicas {
		if r.exited != nil {
			select {
			case <-r.exited:
			case <-time.After(time.Minute):
				r.cmd.Process.Kill()
				<-r.exited
			}
		}
	}
	if f.Proxy != nil {
		f.Proxy.Close()
	}
	if f.s3 != nil {
		f.s3.Close()
	}
	os.RemoveAll(f.Dir)
}

// pick is the replica a token goes to: one chosen by the token's digest,
// the same for every request of the token.
func (f *Fleet) pick(token string) int {
	sum := sha256.Sum256([]byte(token))
	return int(binary.BigEndian.Uint32(sum[:4]) % uint32(len(f.Replicas)))
}

// Home is the replica a tenant's requests go to while it is up.
func (f *Fleet) Home(t Tenant) int { return f.pick(t.Token) }

// errDial marks a request that never reached its replica.
var errDial = errors.New("dial")

// forward is the proxy: each request goes to its token's replica, or, when
// that one cannot be reached (down, or its address refuses), to the next
// live one. A request that reached a replica is never sent again.
func (f *Fleet) forward(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	_, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	first := f.pick(token)
	for k := range f.Replicas {
		addr := f.Addr((first + k) % len(f.Replicas))
		if addr == "" {
			continue
		}
		resp, err := f.send(r, addr, body)
		if errors.Is(err, errDial) {
			continue
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
		resp.Body.Close()
		return
	}
	http.Error(w, "no replica is up", http.StatusBadGateway)
}

// proxyTransport marks a failure to connect, which the proxy may send
// elsewhere, apart from a failure after the request was sent.
var proxyTransport = &http.Transport{
	MaxIdleConnsPerHost: 64,
	DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errDial, err)
		}
		return c, nil
	},
}

func (f *Fleet) send(r *http.Request, addr string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(r.Context(), r.Method, "http://"+addr+r.URL.RequestURI(),
		strings.NewReader(string(body)))
	if err != nil {
		return nil, err
	}
	req.Header = r.Header.Clone()
	req.Host = addr
	return proxyTransport.RoundTrip(req)
}

// Answer is the answer to one run sent through the proxy.
type Answer struct {
	Tenant     int // index in Fleet.Tenants
	Status     int
	RunID      string // of a 200
	Code       string // of a refusal
	Message    string
	RetryAfter string
	Sent, Done time.Time
}

// Load sends n runs of hello.vel through the proxy from c clients at
// once; run i is tenant i%len(Tenants)'s. Before it is sent, before(i) is
// called, and after(answer) once it is answered (nil: nothing).
func (f *Fleet) Load(n, c int, before func(i int), after func(Answer)) []Answer {
	out := make([]Answer, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if before != nil {
					before(i)
				}
				out[i] = f.run(i % len(f.Tenants))
				if after != nil {
					after(out[i])
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// run sends one run of tenant t through the proxy.
func (f *Fleet) run(t int) Answer {
	a := Answer{Tenant: t, Sent: time.Now()}
	req, _ := http.NewRequest("POST", f.Proxy.URL+"/v1/run", strings.NewReader(`{"path":"hello.vel"}`))
	req.Header.Set("Authorization", "Bearer "+f.Tenants[t].Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.client.Do(req)
	a.Done = time.Now()
	if err != nil {
		a.Message = err.Error()
		return a
	}
	defer resp.Body.Close()
	var v struct {
		RunID string `json:"run_id"`
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	data, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(data, &v)
	a.Status, a.RunID, a.Code, a.Message = resp.StatusCode, v.RunID, v.Error.Code, v.Error.Message
	a.RetryAfter = resp.Header.Get("Retry-After")
	if a.Code == "" && resp.StatusCode != 200 {
		a.Message = strings.TrimSpace(string(data))
	}
	return a
}

// Receipt asks replica i, directly, for run id's receipt with tenant t's
// token, and returns the status and the run id the receipt names.
func (f *Fleet) Receipt(i, t int, id string) (int, string, error) {
	req, _ := http.NewRequest("GET", "http://"+f.Addr(i)+"/v1/receipts/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+f.Tenants[t].Token)
	resp, err := f.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var v struct {
		RunID  string `json:"run_id"`
		Tenant string `json:"tenant"`
	}
	data, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(data, &v)
	if resp.StatusCode == 200 && v.Tenant != f.Tenants[t].Name {
		return resp.StatusCode, v.RunID, fmt.Errorf("receipt %s names tenant %q, want %q", id,
			v.Tenant, f.Tenants[t].Name)
	}
	return resp.StatusCode, v.RunID, nil
}
