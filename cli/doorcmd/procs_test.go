package doorcmd

import (
	"flag"
	"os"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestServeRunsOnItsProcs: sabline serve's own Ps, as its metrics say
// them (go_sched_gomaxprocs_threads), are the count Go chooses for the
// machine, and the operator's where the environment sets GOMAXPROCS
// (through sabline, which starts sabline-door in its place): a door on
// one P took a fifth less processor time a run, and let one client's
// large replies hold up another's runs (bench/README.md, "The door on
// fewer Ps"), so the count is the operator's choice.
func TestServeRunsOnItsProcs(t *testing.T) {
	if flag.Lookup("test.cpu").Value.String() != "" || os.Getenv("GOMAXPROCS") != "" {
		t.Skip("this test's own count of Ps was set (-cpu, GOMAXPROCS): it is not the one " +
			"Go chooses for the machine, which the server's is read against")
	}
	machine := goruntime.GOMAXPROCS(0)
	operators := machine + 1 // a count Go would not choose here
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "GOMAXPROCS=")
	})
	for _, tc := range []struct {
		name string
		env  []string
		want int
	}{
		{"Go's", nil, machine},
		{"the operator's", []string{"GOMAXPROCS=" + strconv.Itoa(operators)}, operators},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := servedProcs(t, append(slices.Clone(env), tc.env...), "--workers", "2")
			if got != tc.want {
				t.Errorf("sabline serve, env %q: on %d Ps, want %d", tc.env, got, tc.want)
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
	fams := scrape(t, url)
	m := fams["go_sched_gomaxprocs_threads"].GetMetric()
	if len(m) != 1 {
		t.Fatalf("go_sched_gomaxprocs_threads: %v, want one", m)
	}
	return int(m[0].GetGauge().GetValue())
}
