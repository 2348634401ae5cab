// Package promtext keeps a process's metrics and writes them in the
// Prometheus text exposition format, version 0.0.4: labelled counters,
// histograms with fixed bounds, and gauges read when scraped.
//
// # Why not the Prometheus client library
//
// Every worker is a new start of the binary that serves the doors, and Go
// initialises every package a binary links in every process it starts.
// The Prometheus client library's packages (and the protocol-buffer
// packages they bring) cost about 3 ms of initialisation on each start
// (GODEBUG=inittrace=1), on every worker and every command-line run.
// This package writes the same format with nothing to initialise; its
// tests read what it writes with the format's own parser
// (github.com/prometheus/common/expfmt), which only tests link.
//
// # Labels
//
// Label values are bounded by the caller (a name from the operator's
// files, a status, a code), never taken from a client as they come: a
// series is kept for every combination ever seen.
//
// # Example
//
//	r := promtext.New()
//	runs := r.Counter("app_runs_total", "Runs.", "outcome")
//	runs.With("ok").Inc()
//	r.WriteTo(os.Stdout)
//	// # HELP app_runs_total Runs.
//	// # TYPE app_runs_total counter
//	// app_runs_total{outcome="ok"} 1
package promtext

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// ContentType is the media type of what WriteTo writes.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Registry is a set of metric families, written in the order they were
// made. Its zero value is not usable: make one with New.
type Registry struct {
	mu       sync.Mutex
	families []*family
	names    map[string]bool
}

// New is an empty registry.
func New() *Registry { return &Registry{names: map[string]bool{}} }

// family is one metric: its name, help, type and series.
type family struct {
	name, help, kind string
	labels           []string
	bounds           []float64        // a histogram's upper bounds, ascending
	read             func() float64   // a gauge's or counter's value when scraped
	series           map[string]*cell // by the label values joined with "\xff"
}

// cell is one series: a value, or a histogram's counts and sum.
type cell struct {
	values []string
	value  float64
	counts []uint64 // per bound, not cumulative; the last is +Inf
	sum    float64
}

// add registers f, panicking on a name used twice or not a metric name:
// both are mistakes in the program, found by its first test.
func (r *Registry) add(f *family) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !validName(f.name) || r.names[f.name] {
		panic("promtext: bad or repeated metric name " + strconv.Quote(f.name))
	}
	for _, l := range f.labels {
		if !validName(l) || strings.HasPrefix(l, "__") || l == "le" {
			panic("promtext: bad label name " + strconv.Quote(l))
		}
	}
	r.names[f.name] = true
	f.series = map[string]*cell{}
	r.families = append(r.families, f)
}

// Counter is a counter family with the given labels.
func (r *Registry) Counter(name, help string, labels ...string) *Counter {
	f := &family{name: name, help: help, kind: "counter", labels: labels}
	r.add(f)
	return &Counter{r: r, f: f}
}

// Histogram is a histogram family with the given upper bounds (ascending;
// +Inf is added) and labels.
func (r *Registry) Histogram(name, help string, bounds []float64,
	labels ...string) *Histogram {
	if !slices.IsSorted(bounds) || len(bounds) == 0 || math.IsInf(bounds[len(bounds)-1], 1) {
		panic("promtext: histogram bounds must ascend, without +Inf: " + name)
	}
	f := &family{name: name, help: help, kind: "histogram", labels: labels, bounds: bounds}
	r.add(f)
	return &Histogram{r: r, f: f}
}

// GaugeFunc is a gauge without labels whose value read gives when
// scraped.
func (r *Registry) GaugeFunc(name, help string, read func() float64) {
	r.add(&family{name: name, help: help, kind: "gauge", read: read})
}

// CounterFunc is a counter without labels whose value read gives when
// scraped.
func (r *Registry) CounterFunc(name, help string, read func() float64) {
	r.add(&family{name: name, help: help, kind: "counter", read: read})
}

// Counter is a family of counters, one per combination of label values.
type Counter struct {
	r *Registry
	f *family
}

// CounterSeries is one counter of a family.
type CounterSeries struct {
	r *Registry
	c *cell
}

// With is the counter of these label values, one per label.
func (c *Counter) With(values ...string) CounterSeries {
	return CounterSeries{r: c.r, c: c.r.cell(c.f, values)}
}

// Inc adds 1.
func (s CounterSeries) Inc() { s.Add(1) }

// Add adds v, which must not be negative.
func (s CounterSeries) Add(v float64) {
	if v < 0 {
		panic("promtext: a counter cannot go down")
	}
	s.r.mu.Lock()
	s.c.value += v
	s.r.mu.Unlock()
}

// Histogram is a family of histograms, one per combination of label
// values.
type Histogram struct {
	r *Registry
	f *family
}

// HistogramSeries is one histogram of a family.
type HistogramSeries struct {
	r      *Registry
	bounds []float64
	c      *cell
}

// With is the histogram of these label values, one per label.
func (h *Histogram) With(values ...string) HistogramSeries {
	return HistogramSeries{r: h.r, bounds: h.f.bounds, c: h.r.cell(h.f, values)}
}

// Observe counts v in the first bucket whose bound holds it.
func (s HistogramSeries) Observe(v float64) {
	i, _ := slices.BinarySearch(s.bounds, v) // the first bound >= v; len: +Inf
	s.r.mu.Lock()
	s.c.counts[i]++
	s.c.sum += v
	s.r.mu.Unlock()
}

// cell is f's series for values, made on first use.
func (r *Registry) cell(f *family, values []string) *cell {
	if len(values) != len(f.labels) {
		panic(fmt.Sprintf("promtext: %s takes %d label values, given %d", f.name,
			len(f.labels), len(values)))
	}
	key := strings.Join(values, "\xff")
	r.mu.Lock()
	defer r.mu.Unlock()
	c := f.series[key]
	if c == nil {
		c = &cell{values: slices.Clone(values)}
		if f.kind == "histogram" {
			c.counts = make([]uint64, len(f.bounds)+1)
		}
		f.series[key] = c
	}
	return c
}

// WriteTo writes every family in the text exposition format: the
// families in the order they were made, each one's series in the order
// of their label values.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	b := bufio.NewWriter(cw)
	r.mu.Lock()
	families := slices.Clone(r.families)
	r.mu.Unlock()
	for _, f := range families {
		fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s %s\n", f.name, escapeHelp(f.help), f.name, f.kind)
		if f.read != nil {
			fmt.Fprintf(b, "%s %s\n", f.name, number(f.read()))
			continue
		}
		r.mu.Lock()
		cells := make([]cell, 0, len(f.series))
		for _, c := range f.series {
			cells = append(cells, cell{values: c.values, value: c.value,
				counts: slices.Clone(c.counts), sum: c.sum})
		}
		r.mu.Unlock()
		slices.SortFunc(cells, func(a, b cell) int { return slices.Compare(a.values, b.values) })
		for _, c := range cells {
			labels := labelText(f.labels, c.values)
			if f.kind != "histogram" {
				fmt.Fprintf(b, "%s%s %s\n", f.name, braces(labels), number(c.value))
				continue
			}
			var total uint64
			for i, n := range c.counts {
				total += n
				le := "+Inf"
				if i < len(f.bounds) {
					le = number(f.bounds[i])
				}
				fmt.Fprintf(b, "%s_bucket%s %d\n", f.name,
					braces(join(labels, `le="`+le+`"`)), total)
			}
			fmt.Fprintf(b, "%s_sum%s %s\n%s_count%s %d\n", f.name, braces(labels),
				number(c.sum), f.name, braces(labels), total)
		}
	}
	err := b.Flush()
	return cw.n, err
}

// ServeHTTP writes the registry as a scrape's reply.
func (r *Registry) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", ContentType)
	r.WriteTo(w) // a scraper that went away is no one's error
}

// labelText is name="value" pairs joined by commas.
func labelText(names, values []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + `="` + escapeValue(values[i]) + `"`
	}
	return strings.Join(parts, ",")
}

// join joins two label texts, either possibly empty.
func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "," + b
}

// braces is {labels}, or nothing for no labels.
func braces(labels string) string {
	if labels == "" {
		return ""
	}
	return "{" + labels + "}"
}

// number is v as the format writes a sample value.
func number(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// escapeHelp escapes a help text: backslash and line feed.
func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(s)
}

// escapeValue escapes a label value: backslash, double quote and line
// feed; bytes that are not UTF-8 become U+FFFD.
func escapeValue(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(strings.ToValidUTF8(s, "\uFFFD"))
}

// validName reports whether s is a metric or label name of the classic
// form, [a-zA-Z_:][a-zA-Z0-9_:]* (labels take no colon; none is used).
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		ok := c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			(i > 0 && c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// countingWriter counts what passes to w.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
