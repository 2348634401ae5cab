package guard

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkRegisteredBuild builds a run's guard set as internal/run's
// Guard does, from a register of its own (RegisterEnv) holding N entries:
// the register read (RegisteredLocations), then the set built with what
// it named as Sabline's own (Build), which resolves each location and
// lists the directory it is in, once however many locations it holds.
// Each entry names a directory, in a directory of its own beside the
// others' (apart: a store's receipts, each server's own), or all in one
// directory (shared: N stores side by side). read-µs and build-µs split
// each op; carve-outs is the set's.
func BenchmarkRegisteredBuild(b *testing.B) {
	layouts := []struct {
		name string
		path func(dir string, i int) string
	}{
		{"apart", func(dir string, i int) string { return filepath.Join(dir, "s", fmt.Sprint(i), "rc") }},
		{"shared", func(dir string, i int) string { return filepath.Join(dir, "s", fmt.Sprint("rc", i)) }},
	}
	for _, layout := range layouts {
		for _, n := range []int{0, 10, 50, 200, 1000, MaxRegisterEntries} {
			if layout.name == "shared" && n == 0 {
				continue // apart's
			}
			b.Run(fmt.Sprintf("%s/entries=%d", layout.name, n), func(b *testing.B) {
				benchmarkRegisteredBuild(b, n, layout.path)
			})
		}
	}
}

// benchmarkRegisteredBuild is BenchmarkRegisteredBuild of a register of n
// entries, the ith naming path(dir, i) in a temporary directory dir.
func benchmarkRegisteredBuild(b *testing.B, n int, path func(dir string, i int) string) {
	dir := b.TempDir()
	reg := filepath.Join(dir, "guarded")
	b.Setenv(RegisterEnv, reg)
	if err := os.Mkdir(reg, 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.Chmod(reg, 0o777|fs.ModeSticky); err != nil {
		b.Fatal(err)
	}
	paths := make([]string, n)
	for i := range paths {
		paths[i] = path(dir, i)
		if err := os.MkdirAll(paths[i], 0o700); err != nil {
			b.Fatal(err)
		}
	}
	if err := Join(paths...); err != nil {
		b.Fatal(err)
	}
	if got, r, err := RegisteredLocations(); err != nil || len(r.Paths) != n || r.Unread > 0 {
		b.Fatalf("the register read %d paths of %d (%v), %d unread: %q", len(r.Paths), n, err,
			r.Unread, got)
	}
	var read, build time.Duration
	carveOuts := 0
	for b.Loop() {
		began := time.Now()
		sabline, r, _ := RegisteredLocations()
		mid := time.Now()
		s := Build(Inputs{Home: dir, Sabline: sabline, Owned: r.Owners}, OS())
		read, build = read+mid.Sub(began), build+time.Since(mid)
		carveOuts = len(s.concrete)
	}
	b.ReportMetric(float64(read.Microseconds())/float64(b.N), "read-µs/op")
	b.ReportMetric(float64(build.Microseconds())/float64(b.N), "build-µs/op")
	b.ReportMetric(float64(carveOuts), "carve-outs")
}
