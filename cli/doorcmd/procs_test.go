package doorcmd

import (
	"flag"
	"net/http"
	"os"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sabline/sabline/receipt"
)

// TestDoorProcs: half the workers, rounded up, one more for a door that
// flushes, within one and the machine's count.
func TestDoorProcs(t *testing.T) {
	for _, tc := range []struct {
		name           string
		workers, procs int
		d              receipt.Durability
		want           int
	}{
		{"two workers in the background", 2, 2, receipt.Background, 1},
		{"two workers keeping none", 2, 2, receipt.None, 1},
		{"two workers flushing", 2, 2, receipt.Flush, 2},
		{"one worker", 1, 8, receipt.Background, 1},
		{"one worker flushing", 1, 8, receipt.Flush, 2},
		{"half, rounded up", 5, 16, receipt.Background, 3},
		{"a machine's default of workers", 16, 16, receipt.Flush, 9},
		{"never more than the machine's", 64, 4, receipt.Flush, 4},
		{"one processor", 1, 1, receipt.Flush, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := doorProcs(tc.workers, tc.procs, tc.d); got != tc.want {
				t.Errorf("doorProcs(%d, %d, %s) = %d, want %d", tc.workers, tc.procs, tc.d, got,
					tc.want)
			}
		})
	}
}

// TestServeRunsOnItsProcs: sabline serve's own Ps, as its metrics say
// them (go_sched_gomaxprocs_threads), are doorProcs's for its flags and
// this machine's count, and the operator's GOMAXPROCS where the
// environment sets one (the control: the count the flags alone would give
// is not what it runs on).
func TestServeRunsOnItsProcs(t *testing.T) {
	if flag.Lookup("test.cpu").Value.String() != "" || os.Getenv("GOMAXPROCS") != "" {
		t.Skip("this test's own count of Ps was set (-cpu, GOMAXPROCS): it is not the one " +
			"Go chooses for the machine, which the server's is read against")
	}
	machine := goruntime.GOMAXPROCS(0)
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "GOMAXPROCS=")
	})
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want int
	}{
		{"background", nil, []string{"--workers", "2", "--durability", "background"},
			doorProcs(2, machine, receipt.Background)},
		{"flush", nil, []string{"--workers", "2"}, doorProcs(2, machine, receipt.Flush)},
		{"the operator's", []string{"GOMAXPROCS=3"}, []string{"--workers", "2"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := servedProcs(t, append(slices.Clone(env), tc.env...), tc.args...)
			if got != tc.want {
				t.Errorf("sabline serve %q, env %q: on %d Ps, want %d (the machine's: %d)",
					tc.args, tc.env, got, tc.want, machine)
			}
		})
	}
}

// servedProcs starts sabline serve in env with the metrics on, and the
// extra flags, and returns its go_sched_gomaxprocs_threads.
func servedProcs(t *testing.T, env []string, extra ...string) int {
	t.Helper()
	s := &served{}
	startServeEnvAs(t, s, env, append([]string{"--metrics-listen", "127.0.0.1:0"}, extra...)...)
	var url string
	for _, line := range s.lines() {
		if _, rest, ok := strings.Cut(line, "metrics on "); ok {
			url = strings.TrimSpace(rest)
		}
	}
	if url == "" {
		t.Fatalf("the server did not say where its metrics are: %q", s.lines())
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	m := fams["go_sched_gomaxprocs_threads"].GetMetric()
	if len(m) != 1 {
		t.Fatalf("go_sched_gomaxprocs_threads: %v, want one", m)
	}
	return int(m[0].GetGauge().GetValue())
}
