package promtext

import (
	"runtime/metrics"
	"time"
)

// goSamples are the Go runtime's figures GoRuntime writes: the metric's
// name, its help, its type, and the runtime/metrics name it is read from.
var goSamples = []struct{ name, help, kind, from string }{
	{"go_goroutines", "Goroutines that currently exist.", "gauge", "/sched/goroutines:goroutines"},
	{"go_memstats_heap_alloc_bytes", "Bytes of heap objects, live or not yet swept.", "gauge",
		"/memory/classes/heap/objects:bytes"},
	{"go_memstats_sys_bytes", "Bytes of memory the Go runtime holds from the system.", "gauge",
		"/memory/classes/total:bytes"},
	{"go_gc_cycles_total", "Garbage collections completed.", "counter", "/gc/cycles/total:gc-cycles"},
	{"go_sched_gomaxprocs_threads", "The Ps (GOMAXPROCS) the Go runtime runs goroutines on.",
		"gauge", "/sched/gomaxprocs:threads"},
}

// GoRuntime adds the process's start time and the Go runtime's
// goroutines, memory and collections, each read when scraped, and the
// processor time the process used (process_cpu_seconds_total), user and
// system, as the kernel counts it (processCPU), where the system says.
// That is not the Go runtime's /cpu/classes/total:cpu-seconds, which is
// GOMAXPROCS times the time the process has lived, busy or idle: read as
// the process's time, a server that ran nothing for a week read as two
// processors busy all week.
func (r *Registry) GoRuntime() {
	start := float64(time.Now().UnixNano()) / 1e9
	r.GaugeFunc("process_start_time_seconds",
		"When the process began keeping these metrics, in seconds since the Unix epoch.",
		func() float64 { return start })
	for _, g := range goSamples {
		read := func() float64 {
			s := []metrics.Sample{{Name: g.from}}
			metrics.Read(s)
			switch s[0].Value.Kind() {
			case metrics.KindUint64:
				return float64(s[0].Value.Uint64())
			case metrics.KindFloat64:
				return s[0].Value.Float64()
			}
			return 0 // a name this Go does not have: found by the package's test
		}
		if g.kind == "counter" {
			r.CounterFunc(g.name, g.help, read)
		} else {
			r.GaugeFunc(g.name, g.help, read)
		}
	}
	if _, ok := processCPU(); ok {
		r.CounterFunc("process_cpu_seconds_total", "CPU time the process used, user and system.",
			func() float64 {
				d, _ := processCPU()
				return d.Seconds()
			})
	}
}
