package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// bigOutput prints 100 MiB in lines of 64 KiB: what it measures is the
// way to the caller's file, not the interpreter.
const bigOutput = `line = "x" * 65535
for i in range(1600):
    print(line)
`

// BenchmarkRelay: what relaying the worker's standard output costs. A
// program that prints 100 MiB, and examples/hello.vel, run confined with
// their standard output a file the benchmark opened (as `> file` does),
// in turn; with SABLINE_BENCH_BEFORE set, the same runs of that build
// beside them, and each figure after/before is the ratio of this build's
// time to that one's.
func BenchmarkRelay(b *testing.B) {
	prog, rc := hello(b)
	big := filepath.Join(b.TempDir(), "big.vel")
	if err := os.WriteFile(big, []byte(bigOutput), 0o644); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "out")
	builds := []string{sabline(b)}
	if before := os.Getenv(beforeEnv); before != "" {
		builds = append(builds, before)
	}
	names := []string{"after", "before"}
	programs := []struct{ name, path string }{{"100MiB", big}, {"hello", prog}}
	run := func(bin, prog string) time.Duration {
		f, err := os.Create(out)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		cmd := exec.Command(bin, "--receipts", rc, "--allow", "io", prog)
		cmd.Stdout = f
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s %s: %v", bin, prog, err)
		}
		d := time.Since(t0)
		if fi, err := f.Stat(); err != nil || fi.Size() == 0 {
			b.Fatalf("%s %s: no output (%v)", bin, prog, err)
		}
		return d
	}
	total := make([][]time.Duration, len(programs))
	for p := range programs {
		total[p] = make([]time.Duration, len(builds))
		for _, bin := range builds { // warm the page cache and fail early
			run(bin, programs[p].path)
		}
	}
	b.ResetTimer()
	for range b.N {
		for p := range programs {
			for i, bin := range builds {
				total[p][i] += run(bin, programs[p].path)
			}
		}
	}
	b.StopTimer()
	for p, pr := range programs {
		for i := range builds {
			b.ReportMetric(float64(total[p][i].Microseconds())/float64(b.N), pr.name+"-"+names[i]+"-µs/run")
		}
		if len(builds) > 1 {
			b.ReportMetric(float64(total[p][0])/float64(total[p][1]), pr.name+"-after/before")
		}
	}
}
