package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
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
			out, rc, _ := underUlimit(bin, "-v", strconv.Itoa(callerAddressSpaceKB), prog, t.TempDir(),
				"--max-memory-mb", "4096", "--timeout", "2m")
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

// TestRunUnderTooFewDescriptors: a caller whose descriptor limit leaves
// too few for a worker's start (ulimit -n of 8 to 24: the register's
// entry for the runs directory, the worker's pipes or its fork failed
// EMFILE, whichever came first, or the receipt's reservation, beside
// them: E317) gets its refusal with a receipt, saying to raise the limit,
// where E310's general advice called it a fault in Sabline and E331's
// said to make the register as root; a refusal E317 had no receipt,
// now and then, where what the worker's start read beside it held the
// descriptor it wanted (22 runs of 300 under ulimit -n 8, two at once),
// which is why that limit is tried 20 times. The control: the same
// program under a limit of 1024 runs. The limit is set by the shell that
// starts sabline.
func TestRunUnderTooFewDescriptors(t *testing.T) {
	bin, prog := sablineBin(t), helloProgram(t)
	for _, tt := range []struct {
		name, limit string
		tries       int
		wantOK      bool
	}{
		{name: "8", limit: "8", tries: 20},
		{name: "16", limit: "16", tries: 1},
		{name: "the control: 1024", limit: "1024", tries: 1, wantOK: true},
	} {
		for try := range tt.tries {
			t.Run(fmt.Sprintf("%s/%d", tt.name, try), func(t *testing.T) {
				underTooFewDescriptors(t, bin, prog, tt.limit, tt.wantOK)
			})
		}
	}
}

// underTooFewDescriptors runs prog under a descriptor limit of limit and
// checks its receipt and advice (TestRunUnderTooFewDescriptors).
func underTooFewDescriptors(t *testing.T, bin, prog, limit string, wantOK bool) {
	out, rc, _ := underUlimit(bin, "-n", limit, prog, t.TempDir())
	runs, err := receipt.List(rc)
	if err != nil || len(runs) != 1 {
		t.Fatalf("want one receipt in %s, got %d (%v); the command said:\n%s", rc,
			len(runs), err, out)
	}
	o := runs[0].Receipt.Outcome
	refused := o.Code == codes.E310 || o.Code == codes.E331 || o.Code == codes.E317
	if ok := o.Status == receipt.StatusOK; ok != wantOK || !ok && !refused {
		t.Fatalf("outcome %s %s (%s), want ok: %v, else E310, E331 or E317; the command "+
			"said:\n%s", o.Status, o.Code, o.Message, wantOK, out)
	}
	advised := strings.Contains(string(out), "ran out of file descriptors")
	if advised != !wantOK {
		t.Errorf("said to raise the descriptor limit: %v; the command said:\n%s", advised, out)
	}
}

// TestRunUnderAFileSizeLimit: a caller's file size limit below a
// receipt file's reservation (ulimit -f 32: 32 KiB, where a receipt file
// is reserved at 64 KiB) refuses the run E317, nothing run, saying to
// raise the limit, where its advice was to check that the receipts
// directory can be written, which it could. The control: the same run
// with no limit is ok.
func TestRunUnderAFileSizeLimit(t *testing.T) {
	bin, prog := sablineBin(t), helloProgram(t)
	for _, tt := range []struct {
		name, limit string
		wantOK      bool
	}{
		{name: "32 KiB", limit: "32"},
		{name: "the control: none", limit: "unlimited", wantOK: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := underUlimit(bin, "-f", tt.limit, prog, t.TempDir())
			if ok := err == nil && strings.Contains(string(out), "hello\n"); ok != tt.wantOK {
				t.Fatalf("ran ok: %v (%v), want %v; the command said:\n%s", ok, err, tt.wantOK, out)
			}
			if tt.wantOK {
				return
			}
			if !strings.Contains(string(out), "E317") || !strings.Contains(string(out), "ulimit -f") {
				t.Errorf("want E317 saying to raise the file size limit; the command said:\n%s", out)
			}
		})
	}
}

// underUlimit runs sabline bin on prog (--allow io, then args) from a
// shell that first sets ulimit flag to value, never this process's own,
// its receipts kept in rc beneath dir, and returns what it printed, rc
// and how it ended.
func underUlimit(bin, flag, value, prog, dir string, args ...string) ([]byte, string, error) {
	rc := filepath.Join(dir, "receipts")
	cmd := exec.Command("/bin/sh", append([]string{"-c",
		`ulimit "$1" "$2" && shift 2 && exec "$@"`, "sh", flag, value, bin, prog, "--allow", "io",
		"--receipts", rc}, args...)...)
	out, err := cmd.CombinedOutput()
	return out, rc, err
}
