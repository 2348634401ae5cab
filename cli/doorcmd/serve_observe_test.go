package doorcmd

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sabline/sabline/internal/testkit"
)

// TestServeMetricsAndJSONLog: sabline serve --metrics-listen serves
// /metrics that count the run just made and the refusal just answered,
// and --log-format json logs the run as a JSON record with its run id.
func TestServeMetricsAndJSONLog(t *testing.T) {
	s := startServe(t, "--metrics-listen", "127.0.0.1:0", "--log-format", "json")
	var metricsURL string
	for _, line := range s.lines() {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a line of the server's log is not JSON: %v: %q", err, line)
		}
		msg, _ := rec["msg"].(string)
		if _, rest, ok := strings.Cut(msg, "metrics on "); ok {
			metricsURL = rest
		}
	}
	if metricsURL == "" {
		t.Fatalf("the server did not say where its metrics are: %q", s.lines())
	}
	st, v := s.do(t, "POST", "/v1/run", s.token, `{"path":"hello.vel"}`)
	id, _ := v["run_id"].(string)
	if st != 200 || id == "" {
		t.Fatalf("run hello.vel: %d %v", st, v)
	}
	wider := `{"path":"hello.vel","allow":["fs:read"]}`
	if st, _ := s.do(t, "POST", "/v1/run", s.token, wider); st != 403 {
		t.Fatalf("a wider budget: %d, want 403", st)
	}

	fams := scrape(t, metricsURL)
	var runs, e328 float64
	for _, m := range fams["sabline_runs_total"].GetMetric() {
		runs += m.GetCounter().GetValue()
	}
	for _, m := range fams["sabline_refusals_total"].GetMetric() {
		for _, lp := range m.GetLabel() {
			if lp.GetName() == "reason" && lp.GetValue() == "E328" {
				e328 += m.GetCounter().GetValue()
			}
		}
	}
	if runs != 1 || e328 != 1 {
		t.Errorf("sabline_runs_total %v, E328 refusals %v: want 1 and 1", runs, e328)
	}
	if got := fams["sabline_workers_busy"].GetMetric(); len(got) != 1 ||
		got[0].GetGauge().GetValue() != 0 {
		t.Errorf("sabline_workers_busy %v: want 0 once the runs are over", got)
	}
	// The metrics name every tenant: the clients' listener never serves
	// them, even to a request with the token (docs/serve.md, "Metrics");
	// the metrics listener above served them (the control).
	if st, v := s.do(t, "GET", "/metrics", s.token, ""); st != http.StatusNotFound ||
		strings.Contains(fmt.Sprint(v), "sabline_") {
		t.Errorf("GET /metrics on --listen with the token: %d %v, want 404 and no metric", st, v)
	}

	// The run's record is logged before its reply is written, and read
	// from the pipe as it comes.
	deadline := time.Now().Add(testkit.Bound(10 * time.Second))
	for {
		found := false
		for _, line := range s.lines() {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) == nil && rec["run_id"] == id &&
				rec["status"] == "ok" {
				found = true
			}
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no JSON record with run_id %s in %q", id, s.lines())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// scrape reads the metrics served at url with the exposition format's
// own parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	return fams
}
