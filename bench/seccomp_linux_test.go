//go:build linux

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/sabline/sabline/confine/core"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/confine/seccomp"
)

// childEnv makes the test binary a child that times raw system calls,
// confined as a worker is or not: SABLINE_BENCH_CHILD=confined:NR:N or
// plain:NR:N.
const childEnv = "SABLINE_BENCH_CHILD"

// callsPerChild is how many calls one child times.
const callsPerChild = 2_000_000

func init() {
	spec := os.Getenv(childEnv)
	if spec == "" {
		return
	}
	os.Exit(timeCalls(spec))
}

// timeCalls runs in the child: it applies the worker's own confinement
// (confine.Apply of the policy of the budget io, its temporary directory
// made in TMPDIR, which the parent set to one it removes) when asked,
// then makes the call N times and prints the mean nanoseconds per call.
func timeCalls(spec string) int {
	parts := strings.Split(spec, ":")
	nr, _ := strconv.Atoi(parts[1])
	n, _ := strconv.Atoi(parts[2])
	if parts[0] == "confined" {
		tmp, err := os.MkdirTemp("", "sabline-bench-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		p := core.OSPolicy(budget.MustParse("/", "io"), core.Options{})
		r, err := confine.Apply(p, confine.ApplyOptions{TempDir: tmp})
		if err != nil || r.Level != core.Full {
			fmt.Fprintln(os.Stderr, "apply:", r, err)
			return 1
		}
	}
	var buf [1]byte
	arg := uintptr(unsafe.Pointer(&buf)) // getrandom's buffer; getpid ignores it
	t0 := time.Now()
	for i := 0; i < n; i++ {
		syscall.RawSyscall(uintptr(nr), arg, 0, 0)
	}
	fmt.Println(float64(time.Since(t0).Nanoseconds()) / float64(n))
	return 0
}

// BenchmarkSeccompCall: the cost the worker's seccomp filter adds to a
// system call it allows, for a low-numbered call (getpid) and a
// high-numbered one (getrandom of 0 bytes), in a child confined as a worker
// is beside an unconfined one. It reports the length of the filter the
// child installs, the allow-list of a closed network on this machine's
// architecture.
func BenchmarkSeccompCall(b *testing.B) {
	arch, ok := seccomp.NativeArch()
	if !ok {
		b.Skip("no seccomp table for this architecture")
	}
	prog, err := seccomp.Program(seccomp.Config{Sockets: seccomp.NoSockets, PID: os.Getpid()}, arch)
	if err != nil {
		b.Fatal(err)
	}
	for _, call := range []struct {
		name string
		nr   int
	}{{"getpid", unix.SYS_GETPID}, {"getrandom", unix.SYS_GETRANDOM}} {
		b.Run(call.name, func(b *testing.B) {
			var plain, confined float64
			for i := 0; i < b.N; i++ {
				plain += child(b, "plain", call.nr)
				confined += child(b, "confined", call.nr)
			}
			b.ReportMetric(plain/float64(b.N), "unconfined-ns/call")
			b.ReportMetric(confined/float64(b.N), "confined-ns/call")
			b.ReportMetric((confined-plain)/float64(b.N), "filter-ns/call")
			b.ReportMetric(float64(len(prog)), "filter-instructions")
		})
	}
}

func child(b *testing.B, mode string, nr int) float64 {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s:%d:%d", childEnv, mode, nr, callsPerChild),
		"TMPDIR="+b.TempDir()) // the confined child's temporary directory is made there
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("%s child: %v", mode, err)
	}
	ns, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		b.Fatalf("%s child printed %q", mode, out)
	}
	return ns
}
