package bench

import (
	"os"
	"path/filepath"
	"testing"
)

// bigOutput prints 100 MiB in lines of 64 KiB: what it measures is the
// way to the caller's file, not the interpreter.
const bigOutput = `line = "x" * 65535
for i in range(1600):
    print(line)
`

// BenchmarkRelay: what relaying the worker's standard output costs. A
// program that prints 100 MiB (BenchmarkRelay/100MiB), and
// examples/hello.vel (BenchmarkRelay/hello), run confined with their
// standard output a file made for each run (as `> file` does); with
// SABLINE_BENCH_BEFORE set, the same runs of that build beside them in
// turn (sideBySide), and NAME-after/before is the ratio of this build's
// time to that one's.
func BenchmarkRelay(b *testing.B) {
	prog, rc := hello(b)
	big := filepath.Join(b.TempDir(), "big.vel")
	if err := os.WriteFile(big, []byte(bigOutput), 0o644); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "out")
	for _, p := range []struct{ name, path string }{{"100MiB", big}, {"hello", prog}} {
		b.Run(p.name, func(b *testing.B) {
			sideBySide(b, variant{name: p.name, argv: []string{sabline(b), "--receipts", rc, "--allow", "io", p.path}, stdout: out})
		})
	}
}
