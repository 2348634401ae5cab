package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sabline/sabline/receipt"
)

// callerAddressSpaceKB is the address-space limit (ulimit -v, in KiB) the
// caller of TestRunUnderTheCallersAddressSpaceLimit sets: 2 GiB, room
// enough for a Go program to start, and far below the limit a worker
// sets for a memory limit of 4096 MB (what it maps, plus twice that,
// plus 256 MiB).
const callerAddressSpaceKB = 2 << 20

// TestRunUnderTheCallersAddressSpaceLimit: a caller that set an
// address-space limit below the one a run's memory limit sets (a CI job's
// ulimit -v) holds the worker to it: a program that allocates past it,
// within its own memory limit of 4096 MB, ends E308, its receipt saying
// the memory limit held, and standard error names the caller's limit.
// Before, the worker's own setrlimit failed (raising a hard limit needs
// CAP_SYS_RESOURCE), it said "the address-space limit is not held", and
// the allocation the caller's limit refused ended the run E310, "a fault
// in Sabline", its receipt recording no memory limit. The control is a
// small allocation under the same caller's limit: it runs. The limit is
// set by the shell that starts sabline, never on this process.
func TestRunUnderTheCallersAddressSpaceLimit(t *testing.T) {
	bin := sablineBin(t)
	dir := t.TempDir()
	for _, tt := range []struct {
		name, src, wantOutcome string
	}{
		// 3.6 GB, past the caller's 2 GiB whatever the worker maps.
		{name: "past the caller's limit", src: "keep = []\nfor i in range(4):\n" +
			"    keep.append(\"x\" * 900000000)\nprint(len(keep))\n", wantOutcome: "memory E308"},
		{name: "within it", src: "print(len(\"x\" * 10000000))\n", wantOutcome: "ok "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			prog := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".vel")
			if err := os.WriteFile(prog, []byte(tt.src), 0o600); err != nil {
				t.Fatal(err)
			}
			rc := filepath.Join(t.TempDir(), "receipts")
			cmd := exec.Command("/bin/sh", "-c", `ulimit -v "$1" && exec "$2" "$3" --allow io `+
				`--max-memory-mb 4096 --timeout 2m --receipts "$4"`,
				"sh", strconv.Itoa(callerAddressSpaceKB), bin, prog, rc)
			out, _ := cmd.CombinedOutput()
			runs, err := receipt.List(rc)
			if err != nil || len(runs) != 1 {
				t.Fatalf("want one receipt in %s, got %d (%v); the command said:\n%s", rc, len(runs), err, out)
			}
			rec := runs[0].Receipt
			o := rec.Outcome
			if got := o.Status + " " + string(o.Code); got != tt.wantOutcome {
				t.Fatalf("outcome %q (%s), want %q; the command said:\n%s", got, o.Message, tt.wantOutcome, out)
			}
			if rec.RunParameters.MaxMemoryMB != 4096 {
				t.Errorf("the receipt records a memory limit of %d MB, want 4096 (held, by the caller's "+
					"lower limit)", rec.RunParameters.MaxMemoryMB)
			}
			if !strings.Contains(string(out), "the address-space limit the caller set is lower") {
				t.Errorf("standard error does not name the caller's limit:\n%s", out)
			}
		})
	}
}
