package promtext

import (
	"bytes"
	"math"
	"net/http/httptest"
	goruntime "runtime"
	"runtime/metrics"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// parse reads what r writes with the exposition format's own parser.
func parse(t *testing.T, r *Registry) map[string]*dto.MetricFamily {
	t.Helper()
	var b bytes.Buffer
	n, err := r.WriteTo(&b)
	if err != nil || n != int64(b.Len()) {
		t.Fatalf("WriteTo: %d bytes, %v; wrote %d", n, err, b.Len())
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(&b)
	if err != nil {
		t.Fatalf("the format's parser refuses what was written: %v\n%s", err, b.String())
	}
	return fams
}

// labelsOf is m's labels as a map.
func labelsOf(m *dto.Metric) map[string]string {
	got := map[string]string{}
	for _, l := range m.GetLabel() {
		got[l.GetName()] = l.GetValue()
	}
	return got
}

func TestCountersKeepEachSeries(t *testing.T) {
	tests := []struct {
		name      string
		value     string // a label value, written escaped and read back whole
		adds      []float64
		wantValue float64
	}{
		{name: "plain", value: "ok", adds: []float64{1, 1, 1}, wantValue: 3},
		{name: "quote and backslash", value: `a"b\c`, adds: []float64{2.5}, wantValue: 2.5},
		{name: "line feed", value: "two\nlines", adds: []float64{1}, wantValue: 1},
		{name: "empty", value: "", adds: []float64{0, 4}, wantValue: 4},
		{name: "not UTF-8", value: "a\xffb", adds: []float64{1}, wantValue: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New()
			c := r.Counter("x_total", "Help with a \\ and a\nline feed.", "v", "other")
			for _, a := range tt.adds {
				c.With(tt.value, "fixed").Add(a)
			}
			c.With("control", "fixed").Inc() // a second series, kept apart
			f := parse(t, r)["x_total"]
			if f.GetType() != dto.MetricType_COUNTER || f.GetHelp() != "Help with a \\ and a\nline feed." {
				t.Fatalf("family %v", f)
			}
			want := strings.ToValidUTF8(tt.value, "\uFFFD")
			found := map[string]float64{}
			for _, m := range f.GetMetric() {
				found[labelsOf(m)["v"]] = m.GetCounter().GetValue()
			}
			if len(found) != 2 || found[want] != tt.wantValue || found["control"] != 1 {
				t.Errorf("series %v: want %q at %v and control at 1", found, want, tt.wantValue)
			}
		})
	}
}

func TestHistogramBucketsAreCumulative(t *testing.T) {
	r := New()
	h := r.Histogram("lat_seconds", "Latency.", []float64{0.1, 1, 10}, "who")
	for _, v := range []float64{0.05, 0.1, 0.5, 5, 50, 50} {
		h.With("a").Observe(v)
	}
	m := parse(t, r)["lat_seconds"].GetMetric()
	if len(m) != 1 {
		t.Fatalf("%d series, want 1", len(m))
	}
	hist := m[0].GetHistogram()
	// 0.1 falls in le="0.1": a bound holds values up to and including it.
	want := map[float64]uint64{0.1: 2, 1: 3, 10: 4, math.Inf(1): 6}
	if len(hist.GetBucket()) != len(want) {
		t.Errorf("%d buckets, want %d", len(hist.GetBucket()), len(want))
	}
	for _, b := range hist.GetBucket() {
		if want[b.GetUpperBound()] != b.GetCumulativeCount() {
			t.Errorf("le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(),
				want[b.GetUpperBound()])
		}
	}
	if hist.GetSampleCount() != 6 || hist.GetSampleSum() != 105.65 {
		t.Errorf("count %d sum %v, want 6 and 105.65", hist.GetSampleCount(), hist.GetSampleSum())
	}
}

func TestFuncsAreReadWhenScraped(t *testing.T) {
	r := New()
	v := 1.0
	r.GaugeFunc("g", "A gauge.", func() float64 { return v })
	r.CounterFunc("c_total", "A counter.", func() float64 { return 2 * v })
	first := parse(t, r)
	v = 7
	second := parse(t, r)
	if first["g"].GetMetric()[0].GetGauge().GetValue() != 1 ||
		second["g"].GetMetric()[0].GetGauge().GetValue() != 7 ||
		second["c_total"].GetMetric()[0].GetCounter().GetValue() != 14 {
		t.Errorf("gauge %v then %v, counter %v: want 1, 7, 14", first["g"], second["g"], second["c_total"])
	}
}

func TestMistakesPanic(t *testing.T) {
	tests := []struct {
		name string
		do   func(r *Registry)
	}{
		{"repeated name", func(r *Registry) { r.Counter("a", "."); r.Counter("a", ".") }},
		{"bad name", func(r *Registry) { r.Counter("a-b", ".") }},
		{"reserved label", func(r *Registry) { r.Histogram("h", ".", []float64{1}, "le") }},
		{"bounds not ascending", func(r *Registry) { r.Histogram("h", ".", []float64{2, 1}) }},
		{"label count", func(r *Registry) { r.Counter("a", ".", "x").With() }},
		{"counter down", func(r *Registry) { r.Counter("a", ".").With().Add(-1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tt.do(New())
		})
	}
	// The control: the same calls done right.
	r := New()
	r.Counter("a", ".", "x").With("1").Add(1)
	r.Histogram("h", ".", []float64{1, 2}, "y").With("2").Observe(1)
	if len(parse(t, r)) != 2 {
		t.Error("the control's families are not written")
	}
}

func TestGoRuntime(t *testing.T) {
	known := map[string]bool{}
	for _, d := range metrics.All() {
		known[d.Name] = true
	}
	for _, g := range goSamples {
		if !known[g.from] {
			t.Errorf("%s reads %s, which this Go does not have", g.name, g.from)
		}
	}
	r := New()
	r.GoRuntime()
	fams := parse(t, r)
	if g := fams["go_goroutines"].GetMetric()[0].GetGauge().GetValue(); g < 1 {
		t.Errorf("go_goroutines %v, want at least this test's", g)
	}
	if p := fams["go_sched_gomaxprocs_threads"].GetMetric()[0].GetGauge().GetValue(); p !=
		float64(goruntime.GOMAXPROCS(0)) {
		t.Errorf("go_sched_gomaxprocs_threads %v, want GOMAXPROCS, %d", p, goruntime.GOMAXPROCS(0))
	}
	if s := fams["process_start_time_seconds"].GetMetric()[0].GetGauge().GetValue(); s < 1.7e9 {
		t.Errorf("process_start_time_seconds %v", s)
	}
}

func TestServeHTTP(t *testing.T) {
	r := New()
	r.Counter("a_total", ".").With().Inc()
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	if ct := w.Header().Get("Content-Type"); ct != ContentType {
		t.Errorf("Content-Type %q", ct)
	}
	if got := expfmt.ResponseFormat(w.Result().Header); got.FormatType() != expfmt.TypeTextPlain {
		t.Errorf("the format's own reading of the Content-Type: %v", got)
	}
	if !strings.Contains(w.Body.String(), "a_total 1\n") {
		t.Errorf("body %q", w.Body.String())
	}
}
