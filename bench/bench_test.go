// Package bench measures whole runs of the sabline command against
// baselines, each pair interleaved in one benchmark so that the ratio is
// taken under the same machine load. `bench/run` runs them all.
package bench

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	lib "github.com/sabline/sabline"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/buildbin"
)

func TestMain(m *testing.M) {
	// The library benchmarks start pools whose workers are this binary.
	lib.HandOver()
	code := testkit.RunApart(m) // its stores and runs join a register of its own
	buildbin.Cleanup()
	os.Exit(code)
}

// variant is one command of a side-by-side pair.
type variant struct {
	name string
	argv []string
	// stdout, when set, is the file the command's standard output is,
	// made anew for each run (as `> file` does); the run must fill it.
	stdout string
}

// run runs v once, its standard error (and its standard output, where it
// has no file) written to out, nil for none.
func (v variant) run(out io.Writer) error {
	cmd := exec.Command(v.argv[0], v.argv[1:]...)
	cmd.Stdout, cmd.Stderr = out, out
	if v.stdout != "" {
		f, err := os.Create(v.stdout)
		if err != nil {
			return err
		}
		defer f.Close()
		cmd.Stdout = f
	}
	if err := cmd.Run(); err != nil {
		return err
	}
	if v.stdout != "" {
		if fi, err := os.Stat(v.stdout); err != nil || fi.Size() == 0 {
			return fmt.Errorf("no output in %s (%v)", v.stdout, err)
		}
	}
	return nil
}

// beforeEnv names another build of the sabline command (an earlier
// commit's, say) that the benchmarks of whole runs time beside this one.
const beforeEnv = "SABLINE_BENCH_BEFORE"

// sideBySide runs each variant once per iteration, in turn, and reports
// each one's mean wall time and the ratio of every later one to the first.
// With SABLINE_BENCH_BEFORE set, every variant that runs this build of
// sabline has a twin, NAME-before, that runs the same arguments with that
// build, timed in the same turn beside it (the two take turns at going
// first: see turn): the twins' ratios are to the first twin, and
// NAME-after/before is each variant's time over its twin's.
func sideBySide(b *testing.B, vs ...variant) {
	b.Helper()
	twinOf := map[int]int{} // a twin's index in vs: its variant's
	twin := map[int]int{}   // a variant's index: its twin's
	if before := os.Getenv(beforeEnv); before != "" {
		sab := sabline(b)
		for i, v := range vs { // the range is of the variants given: the twins are not twinned
			if v.argv[0] == sab {
				twinOf[len(vs)], twin[i] = i, len(vs)
				vs = append(vs, variant{name: v.name + "-before", argv: append([]string{before}, v.argv[1:]...), stdout: v.stdout})
			}
		}
	}
	for _, v := range vs { // warm the page cache and fail early
		var out bytes.Buffer
		if err := v.run(&out); err != nil {
			b.Fatalf("%s: %v\n%s", v.name, err, out.Bytes())
		}
	}
	total := make([]time.Duration, len(vs))
	rng := rand.New(rand.NewPCG(1, 2)) // the same orders in every count
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, j := range turn(len(vs), twin, i, rng) {
			t0 := time.Now()
			if err := vs[j].run(nil); err != nil {
				b.Fatalf("%s: %v", vs[j].name, err)
			}
			total[j] += time.Since(t0)
		}
	}
	b.StopTimer()
	for j, v := range vs {
		b.ReportMetric(float64(total[j].Microseconds())/float64(b.N), v.name+"-µs/run")
		first := 0 // the variant this one's ratio is to: the first of its build
		if of, ok := twinOf[j]; ok {
			b.ReportMetric(float64(total[of])/float64(total[j]), vs[of].name+"-after/before")
			if t, ok := twin[0]; ok {
				first = t
			}
		}
		if j != first && j != 0 {
			b.ReportMetric(float64(total[j])/float64(total[first]), v.name+"/"+vs[first].name)
		}
	}
}

// turn is the order of the n variants in iteration i: shuffled by rng,
// each twin beside its variant (twin maps a variant's index to its
// twin's), the variant first in even iterations and the twin first in
// odd ones. A process started just after another pays for what that one
// left behind: in a fixed order, the same build of sabline timed as its
// own twin right after the store agent was 8 to 10% slower, and the bare
// start, when it came after the agent, made every ratio to it smaller.
func turn(n int, twin map[int]int, i int, rng *rand.Rand) []int {
	isTwin := make([]bool, n)
	for _, t := range twin {
		isTwin[t] = true
	}
	var units [][]int
	for j := range n {
		t, ok := twin[j]
		switch {
		case isTwin[j]:
		case !ok:
			units = append(units, []int{j})
		case i%2 == 0:
			units = append(units, []int{j, t})
		default:
			units = append(units, []int{t, j})
		}
	}
	rng.Shuffle(len(units), func(a, b int) { units[a], units[b] = units[b], units[a] })
	return slices.Concat(units...)
}

// sabline is the sabline command, with the sabline-door its serve
// starts beside it.
func sabline(b *testing.B) string {
	b.Helper()
	p, err := buildbin.SablineWithDoor()
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func hello(b *testing.B) (prog, receipts string) {
	b.Helper()
	prog, err := filepath.Abs("../examples/hello.vel")
	if err != nil {
		b.Fatal(err)
	}
	return prog, b.TempDir()
}

// BenchmarkHello: a whole run of examples/hello.vel (supervisor, worker,
// receipt) beside a bare Go binary that prints the same line.
func BenchmarkHello(b *testing.B) {
	bare, err := buildbin.Build("github.com/sabline/sabline/bench/internal/barehello", "barehello")
	if err != nil {
		b.Fatal(err)
	}
	prog, rc := hello(b)
	sideBySide(b,
		variant{name: "bare", argv: []string{bare}},
		variant{name: "sabline", argv: []string{sabline(b), "--receipts", rc, "--allow", "io", prog}},
	)
}

// BenchmarkStartup: where the floor of a command-line run comes from,
// each start beside the bare binary's: a process that starts a second
// one and waits for it (the floor of any design of two Go processes), a
// binary that links what a worker needs and runs none of it, one that
// links the doors' packages too, the sabline binary itself starting and
// exiting (sabline version), and the store agent (sabline-store over a
// file:// bucket, its input closed) starting and exiting: the cloud
// drivers it links, which a replica starts once, are what every process
// of sabline, every worker among them, would initialise if sabline linked
// them. A run is two starts of sabline.
func BenchmarkStartup(b *testing.B) {
	bin := func(pkg, name string) string {
		p, err := buildbin.Build("github.com/sabline/sabline/bench/internal/"+pkg, name)
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
	sideBySide(b,
		variant{name: "bare", argv: []string{bin("barehello", "barehello")}},
		variant{name: "two-bare", argv: []string{bin("twostarts", "twostarts")}},
		variant{name: "worker-deps", argv: []string{bin("workerdeps", "workerdeps")}},
		variant{name: "door-deps", argv: []string{bin("doordeps", "doordeps")}},
		variant{name: "version", argv: []string{sabline(b), "version"}},
		variant{name: "store-agent", argv: []string{storeAgent(b), "file://" + filepath.ToSlash(b.TempDir())}},
	)
}

func storeAgent(b *testing.B) string {
	b.Helper()
	p, err := buildbin.Build("github.com/sabline/sabline/cmd/sabline-store", "sabline-store")
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkConfine: a confined run of examples/hello.vel (Landlock and
// seccomp applied in the worker) beside the same run with --no-confine.
func BenchmarkConfine(b *testing.B) {
	prog, rc := hello(b)
	sab := sabline(b)
	sideBySide(b,
		variant{name: "no-confine", argv: []string{sab, "--receipts", rc, "--allow", "io", "--no-confine", prog}},
		variant{name: "confined", argv: []string{sab, "--receipts", rc, "--allow", "io", prog}},
	)
}

// BenchmarkBwrap: a confined run of examples/hello.vel beside bubblewrap
// wrapping an unconfined run of it in fresh namespaces with a read-only
// root: the confined run over the bwrap one is the figure. bench/run
// installs bubblewrap; without it the benchmark is skipped.
func BenchmarkBwrap(b *testing.B) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		b.Skip("bubblewrap is not installed (bench/run installs it): ", err)
	}
	prog, rc := hello(b)
	sab := sabline(b)
	sideBySide(b,
		variant{name: "bwrap", argv: []string{bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
			"--tmpfs", "/tmp", "--bind", rc, rc, "--ro-bind", filepath.Dir(sab), filepath.Dir(sab),
			"--ro-bind", filepath.Dir(prog), filepath.Dir(prog), "--unshare-all", "--die-with-parent",
			sab, "--receipts", rc, "--allow", "io", "--no-confine", prog}},
		variant{name: "confined", argv: []string{sab, "--receipts", rc, "--allow", "io", prog}},
	)
}

// A large home, as BenchmarkCarve makes it: its plain entries (a third
// directories) and its dot-entries.
const (
	homeEntries    = 2000
	homeDotEntries = 700
)

// BenchmarkCarve: what holding the guarded locations out of a broad grant
// costs a confined run of examples/hello.vel, beside the same run with
// --no-confine: under a grant of one directory (nothing to carve), of
// every path (/ carved around /proc, /sys, /dev, /etc's secrets, every
// home's dot-entries and the receipts), and of a home of homeEntries
// entries and homeDotEntries dot-entries (the home carved entry by
// entry). The home is made in /home, where homes are, and the receipts
// are kept where a user's are, in that home's state directory: a
// receipts directory elsewhere (in /tmp, say) would carve the directory
// above it too, entry by entry.
func BenchmarkCarve(b *testing.B) {
	prog, _ := hello(b)
	sab := sabline(b)
	home, err := os.MkdirTemp("/home", "sabline-bench-")
	if err != nil {
		b.Logf("no home in /home (%v): the home is made in the test's temporary directory, "+
			"whose parent is then carved too", err)
		home = b.TempDir()
	} else {
		b.Cleanup(func() { os.RemoveAll(home) })
	}
	for i := range homeEntries {
		name := filepath.Join(home, "entry-"+strconv.Itoa(i))
		if i%3 == 0 {
			if err := os.Mkdir(name, 0o755); err != nil {
				b.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(name, []byte("x"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for i := range homeDotEntries {
		if err := os.Mkdir(filepath.Join(home, ".dot-"+strconv.Itoa(i)), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	b.Setenv("HOME", home)
	for _, v := range []string{"SABLINE_RECEIPTS", "XDG_STATE_HOME", "XDG_CACHE_HOME"} {
		b.Setenv(v, "")
		os.Unsetenv(v)
	}
	run := func(allow string, more ...string) []string {
		return append([]string{sab, "--allow", allow}, append(more, prog)...)
	}
	sideBySide(b,
		variant{name: "no-confine", argv: run("io,fs:read", "--no-confine")},
		variant{name: "dir", argv: run("io,fs:read:" + filepath.Dir(prog))},
		variant{name: "everything", argv: run("io,fs:read")},
		variant{name: "home", argv: run("io,fs:read:" + home)},
	)
}

// TestTurn: every variant runs once an iteration, each twin next to its
// variant, the two taking turns at going first, and each variant is first
// in some iteration.
func TestTurn(t *testing.T) {
	twins := map[int]int{1: 4, 3: 5} // variants 1 and 3, twins 4 and 5
	for _, tc := range []struct {
		name      string
		twin      map[int]int
		wantPairs [][2]int // each pair in the order it must run in even iterations
	}{
		{name: "twins", twin: twins, wantPairs: [][2]int{{1, 4}, {3, 5}}},
		{name: "no twins"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			first := map[int]bool{}
			for i := range 200 {
				got := turn(6, tc.twin, i, rng)
				if sorted := slices.Sorted(slices.Values(got)); !slices.Equal(sorted, []int{0, 1, 2, 3, 4, 5}) {
					t.Fatalf("iteration %d: %v does not run each variant once", i, got)
				}
				first[got[0]] = true
				for _, p := range tc.wantPairs {
					a, b := p[0], p[1]
					if i%2 == 1 {
						a, b = b, a
					}
					if k := slices.Index(got, a); k+1 >= len(got) || got[k+1] != b {
						t.Fatalf("iteration %d: %v does not run %d just before %d", i, got, a, b)
					}
				}
			}
			for j := range 6 { // a twin goes first in its pair in odd iterations
				if !first[j] {
					t.Errorf("variant %d never ran first in 200 iterations", j)
				}
			}
		})
	}
}
