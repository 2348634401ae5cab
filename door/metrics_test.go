package door

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/tenant"
)

// scrape reads the door's metrics as Prometheus does: GET /metrics on
// the metrics handler, parsed by the exposition format's own parser.
func scrape(t *testing.T, ms *httptest.Server) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := ms.Client().Get(ms.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// series is the metric of family name whose labels are exactly labels
// (name=value pairs), nil when there is none.
func series(fams map[string]*dto.MetricFamily, name string, labels ...string) *dto.Metric {
	f := fams[name]
	if f == nil {
		return nil
	}
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, lp := range m.GetLabel() {
			got[lp.GetName()] = lp.GetValue()
		}
		if len(got) != len(labels)/2 {
			continue
		}
		match := true
		for i := 0; i < len(labels); i += 2 {
			if v, ok := got[labels[i]]; !ok || v != labels[i+1] {
				match = false
			}
		}
		if match {
			return m
		}
	}
	return nil
}

// counter is the value of a counter series, 0 when there is none.
func counter(fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	return series(fams, name, labels...).GetCounter().GetValue()
}

// gaugeValue is the value of a gauge without labels, -1 when there is none.
func gaugeValue(fams map[string]*dto.MetricFamily, name string) float64 {
	m := series(fams, name)
	if m == nil {
		return -1
	}
	return m.GetGauge().GetValue()
}

// metricsServer is a door of the tenants acme (no limits) and beta (one
// run, then rate-limited), with its metrics on a listener of their own.
func metricsServer(t *testing.T, fake *fakeRunner,
	cfg Config) (*Server, *httptest.Server, *httptest.Server) {
	t.Helper()
	cfg.Runner = fake
	if cfg.Tenants == nil {
		cfg.Tenants = []tenant.Tenant{
			{Name: "acme", TokenSHA256: digest(tokenAcme)},
			{Name: "beta", TokenSHA256: digest(tokenBeta), Rate: 0.001, Burst: 1},
		}
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	ms := httptest.NewServer(s.MetricsHandler())
	t.Cleanup(ms.Close)
	return s, ts, ms
}

// TestMetricsRuns: the counters of runs move by exactly the runs made,
// per tenant and outcome; the histogram counts them; a refused request
// moves the refusals and no run.
func TestMetricsRuns(t *testing.T) {
	fake := &fakeRunner{statuses: map[string]string{"fail()": "failed"}}
	_, ts, ms := metricsServer(t, fake, Config{Workers: 4, Queue: 4})

	before := scrape(t, ms)
	if n := counter(before, "sabline_runs_total", "outcome", "ok", "level", "full",
		"tenant", "acme"); n != 0 {
		t.Fatalf("before any run: %v runs of acme, want 0", n)
	}

	run := func(token, source string) int {
		resp, _ := do(t, ts, "POST", "/v1/run", "Bearer "+token,
			`{"source":`+strings.Trim(mustJSON(t, source), "\n")+`}`)
		return resp.StatusCode
	}
	for _, r := range []struct {
		token, source string
		want          int
	}{
		{tokenAcme, "print(1)", 200},
		{tokenAcme, "print(2)", 200},
		{tokenAcme, "fail()", 200},
		{tokenBeta, "print(3)", 200},
		{tokenBeta, "print(4)", 429}, // past beta's rate: refused, nothing ran
	} {
		if got := run(r.token, r.source); got != r.want {
			t.Fatalf("run %q: %d, want %d", r.source, got, r.want)
		}
	}
	if resp, _ := do(t, ts, "POST", "/v1/run", "Bearer not-a-token-of-this-server",
		`{"source":"print(5)"}`); resp.StatusCode != 401 {
		t.Fatalf("a foreign token: %d, want 401", resp.StatusCode)
	}

	after := scrape(t, ms)
	for _, c := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"outcome", "ok", "level", "full", "tenant", "acme"}, 2},
		{[]string{"outcome", "failed", "level", "full", "tenant", "acme"}, 1},
		{[]string{"outcome", "ok", "level", "full", "tenant", "beta"}, 1},
		{[]string{"outcome", "failed", "level", "full", "tenant", "beta"}, 0},
	} {
		if got := counter(after, "sabline_runs_total", c.labels...); got != c.want {
			t.Errorf("sabline_runs_total%v = %v, want %v", c.labels, got, c.want)
		}
	}
	var total float64
	for _, m := range after["sabline_runs_total"].GetMetric() {
		total += m.GetCounter().GetValue()
	}
	if total != float64(fake.ran.Load()) || total != 4 {
		t.Errorf("sabline_runs_total sums to %v; the runner ran %d, want 4", total, fake.ran.Load())
	}
	for tenant, want := range map[string]uint64{"acme": 3, "beta": 1} {
		h := series(after, "sabline_run_duration_seconds", "tenant", tenant).GetHistogram()
		if h.GetSampleCount() != want {
			t.Errorf("sabline_run_duration_seconds{tenant=%q} counts %d, want %d", tenant,
				h.GetSampleCount(), want)
		}
	}
	if got := counter(after, "sabline_refusals_total", "reason", CodeRateLimit,
		"tenant", "beta"); got != 1 {
		t.Errorf("refusals of beta for its rate: %v, want 1", got)
	}
	if got := counter(after, "sabline_refusals_total", "reason", CodeUnauthorized,
		"tenant", ""); got != 1 {
		t.Errorf("refusals for a foreign token: %v, want 1", got)
	}
	if got := counter(after, "sabline_refusals_total", "reason", CodeRateLimit,
		"tenant", "acme"); got != 0 {
		t.Errorf("refusals of acme for its rate: %v, want 0: acme has no rate", got)
	}
	// Every tenant label is one of the operator's, whatever clients sent.
	for _, name := range []string{"sabline_runs_total", "sabline_refusals_total"} {
		for _, m := range after[name].GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "tenant" && !map[string]bool{"acme": true, "beta": true,
					"": true}[lp.GetValue()] {
					t.Errorf("%s has a tenant %q the operator never named", name, lp.GetValue())
				}
			}
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestMetricsRefusedRun: a run the runner refuses (a budget past the
// ceiling, E328) is a refusal by its code and no run.
func TestMetricsRefusedRun(t *testing.T) {
	fake := &fakeRunner{refuse: codes.Errorf(codes.E328, "the budget asks for net")}
	_, ts, ms := metricsServer(t, fake, Config{})
	resp, _ := do(t, ts, "POST", "/v1/run", "Bearer "+tokenAcme, `{"source":"print(1)"}`)
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a refused budget: %d, want 403", resp.StatusCode)
	}
	fams := scrape(t, ms)
	if got := counter(fams, "sabline_refusals_total", "reason", "E328", "tenant", "acme"); got != 1 {
		t.Errorf("refusals E328 of acme: %v, want 1", got)
	}
	if n := len(fams["sabline_runs_total"].GetMetric()); n != 0 {
		t.Errorf("%d series of runs, want none: nothing ran", n)
	}
}

// TestMetricsGauges: with one run running and one waiting, the gauges of
// workers and queue say so, and a request past the bound is a refusal
// busy; the shipping's lag and failure are the shipping's.
func TestMetricsGauges(t *testing.T) {
	fake := &fakeRunner{block: make(chan struct{}), start: make(chan struct{}, 4)}
	sh := &fakeShipping{lag: 42 * time.Second, err: errors.New("the bucket is gone")}
	// acme's concurrency is its own, past its share of a door of two
	// tenants: it may fill the door.
	s, ts, ms := metricsServer(t, fake, Config{Workers: 1, Queue: 1, Shipping: sh,
		Tenants: []tenant.Tenant{
			{Name: "acme", TokenSHA256: digest(tokenAcme), Concurrency: 3},
			{Name: "beta", TokenSHA256: digest(tokenBeta), Rate: 0.001, Burst: 1},
		}})
	idle := scrape(t, ms)
	if b, q := gaugeValue(idle, "sabline_workers_busy"),
		gaugeValue(idle, "sabline_queue_depth"); b != 0 || q != 0 {
		t.Fatalf("idle: %v busy, %v queued, want 0 and 0", b, q)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { do(t, ts, "POST", "/v1/run", "Bearer "+tokenAcme, `{"source":"print(1)"}`) })
	}
	<-fake.start
	waitFor(t, func() bool { r, q := s.gate.load(); return r == 1 && q == 1 })
	resp, _ := do(t, ts, "POST", "/v1/run", "Bearer "+tokenAcme, `{"source":"print(1)"}`)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("past the bound: %d, want 429", resp.StatusCode)
	}
	busy := scrape(t, ms)
	close(fake.block)
	wg.Wait()
	for name, want := range map[string]float64{
		"sabline_workers_busy": 1, "sabline_workers_idle": 0, "sabline_queue_depth": 1,
		"sabline_workers": 1, "sabline_queue_capacity": 1,
		"sabline_shipping_lag_seconds": 42, "sabline_shipping_failing": 1,
	} {
		if got := gaugeValue(busy, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := counter(busy, "sabline_refusals_total", "reason", CodeBusy, "tenant", "acme"); got != 1 {
		t.Errorf("refusals busy: %v, want 1", got)
	}
	if got := series(busy, "sabline_shipped_objects_total").GetCounter().GetValue(); got != 7 {
		t.Errorf("sabline_shipped_objects_total = %v, want 7", got)
	}
}

type fakeShipping struct {
	lag time.Duration
	err error
}

func (f *fakeShipping) Lag() time.Duration { return f.lag }
func (f *fakeShipping) Err() error         { return f.err }
func (f *fakeShipping) Objects() int       { return 7 }

// TestMetricsNoShipping: a door that ships nothing has no shipping
// metrics, rather than a lag of zero that says all is well.
func TestMetricsNoShipping(t *testing.T) {
	_, _, ms := metricsServer(t, &fakeRunner{}, Config{})
	fams := scrape(t, ms)
	if fams["sabline_shipping_lag_seconds"] != nil {
		t.Error("sabline_shipping_lag_seconds without shipping")
	}
	if fams["sabline_workers_busy"] == nil {
		t.Error("no sabline_workers_busy")
	}
}

// TestMetricsHandlerOrigin: the metrics are refused, like the door, to a
// request whose Host is not this server's (a page reaching a loopback
// listener by a name of its own), and served nothing but /metrics.
func TestMetricsHandlerOrigin(t *testing.T) {
	_, _, ms := metricsServer(t, &fakeRunner{}, Config{})
	req, err := http.NewRequest("GET", ms.URL+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "attacker.example"
	resp, err := ms.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET /metrics with Host attacker.example: %d, want 403", resp.StatusCode)
	}
	resp, err = ms.Client().Get(ms.URL + "/v1/run")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /v1/run on the metrics listener: %d, want 404", resp.StatusCode)
	}
}

// syncBuffer is a buffer a log writes and a test reads, one at a time.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestStructuredLog: with a Logger, each run is one JSON record carrying
// the run's id and tenant, and a refusal one carrying its reason.
func TestStructuredLog(t *testing.T) {
	var buf syncBuffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	_, ts, _ := metricsServer(t, &fakeRunner{}, Config{Logger: logger,
		Logf: func(string, ...any) { t.Error("Logf called beside a Logger") }})
	_, v := do(t, ts, "POST", "/v1/run", "Bearer "+tokenAcme, `{"source":"print(1)"}`)
	id, _ := v["run_id"].(string)
	if id == "" {
		t.Fatalf("no run_id in %v", v)
	}
	do(t, ts, "POST", "/v1/run", "Bearer "+tokenAcme, `{"source":"print(1)","confine":"none"}`)
	var runRec, refusal map[string]any
	sc := bufio.NewScanner(strings.NewReader(buf.String()))
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("a log line is not JSON: %v: %q", err, sc.Text())
		}
		if rec["run_id"] == id {
			runRec = rec
		}
		if rec["reason"] != nil {
			refusal = rec
		}
	}
	if runRec == nil {
		t.Fatalf("no log record with run_id %s in %q", id, buf.String())
	}
	if runRec["tenant"] != "acme" || runRec["status"] != "ok" || runRec["door"] != "http" ||
		runRec["confinement"] != "full" || runRec["level"] != "INFO" {
		t.Errorf("the run's record %v: want tenant acme, status ok, door http, confinement full, "+
			"level INFO", runRec)
	}
	if msg, _ := runRec["msg"].(string); !strings.Contains(msg, "run "+id) {
		t.Errorf("the run's message %q does not name it", msg)
	}
	if refusal == nil || refusal["reason"] != "E301" || refusal["tenant"] != "acme" {
		t.Errorf("the refusal's record %v: want reason E301, tenant acme", refusal)
	}
}

// TestMCPBatchRefused: a JSON-RPC batch on /mcp is answered -32600, as on
// standard input, and nothing in it runs; the same call alone runs.
func TestMCPBatchRefused(t *testing.T) {
	fake := &fakeRunner{}
	_, ts, ms := metricsServer(t, fake, Config{})
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call",` +
		`"params":{"name":"run","arguments":{"source":"print(1)"}}}`
	post := func(body string) (*http.Response, []byte) { return postMCP(t, ts.URL, "Bearer "+tokenAcme, body) }
	resp, body := post(" [" + call + "]")
	var rpc struct {
		Error struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &rpc); err != nil {
		t.Fatalf("a batch's answer is not a JSON-RPC error: %v: %q", err, body)
	}
	if resp.StatusCode != http.StatusBadRequest || rpc.Error.Code != -32600 ||
		!strings.HasPrefix(rpc.Error.Message, "a batch") {
		t.Errorf("a batch: %d %s, want 400 with -32600 a batch", resp.StatusCode, body)
	}
	if n := fake.ran.Load(); n != 0 {
		t.Errorf("a batch ran %d programs, want none", n)
	}
	if got := counter(scrape(t, ms), "sabline_refusals_total", "reason", codeBatch,
		"tenant", "acme"); got != 1 {
		t.Errorf("refusals batch: %v, want 1", got)
	}
	resp, body = post(call)
	if resp.StatusCode != http.StatusOK || fake.ran.Load() != 1 {
		t.Errorf("the call alone: %d %s, %d runs; want 200 and one run", resp.StatusCode, body,
			fake.ran.Load())
	}
}

// TestStructuredLogTestimony: with a Logger, a run whose outcome is
// testimony (RunReply.Testimony) is logged with testimony true, and its
// message says so; the control, a run whose outcome the supervisor saw,
// with testimony false.
func TestStructuredLogTestimony(t *testing.T) {
	var buf syncBuffer
	s, err := New(Config{Runner: &fakeRunner{}, Logger: slog.New(slog.NewJSONHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	s.ran(context.Background(), "http", nil, RunReply{RunID: "forged", Status: "ok",
		Testimony: "ffi:ctypes is granted"}, time.Millisecond)
	s.ran(context.Background(), "http", nil, RunReply{RunID: "seen", Status: "ok"}, time.Millisecond)
	recs := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(buf.String()))
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("a log line is not JSON: %v: %q", err, sc.Text())
		}
		id, _ := rec["run_id"].(string)
		recs[id] = rec
	}
	for id, want := range map[string]bool{"forged": true, "seen": false} {
		rec := recs[id]
		msg, _ := rec["msg"].(string)
		if rec["testimony"] != want || strings.Contains(msg, "testimony") != want {
			t.Errorf("the record of run %s: %v; want testimony %v, and its message saying so", id,
				rec, want)
		}
	}
}
