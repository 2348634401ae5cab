//go:build unix

package cli

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// floodLines is how many lines floodProgram prints: 1.3 MB, more than a
// worker's pipe to the relay holds and the relay reads before it finds
// its reader gone, so that the program's writes meet the broken pipe,
// whatever the two processes' timing.
const floodLines = 20000

// floodProgram writes, in dir, a program that prints floodLines lines,
// and returns its path.
func floodProgram(t *testing.T, dir string) string {
	t.Helper()
	prog := filepath.Join(dir, "flood.vel")
	src := fmt.Sprintf("for i in range(%d):\n    print('line', i, %q * 50)\n", floodLines, "x")
	if err := os.WriteFile(prog, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return prog
}

// TestCommandOutputReaderGone: a run whose standard output is a pipe
// nobody reads any more (sabline ... | head, head gone) ends on its own,
// not by SIGPIPE, and its receipt is stored: the run command ignores the
// signal (internal/brokenpipe), where the run package, which hosts embed,
// leaves the process's signals alone. Its program's print fails, as a
// write to a broken pipe does; the worker, a Go program that takes the
// signal back as it starts and then asks for it, is not ended by it. The
// control is the same run with a reader, which prints it all.
func TestCommandOutputReaderGone(t *testing.T) {
	bin := sablineBin(t)
	prog := floodProgram(t, t.TempDir())
	tests := []struct {
		name        string
		readerGone  bool
		wantOutcome string // the receipt's status and code
	}{
		// The program's print fails: the worker's standard output is the
		// relay's pipe, which the relay closes once its reader is gone.
		{name: "reader gone", readerGone: true, wantOutcome: "failed E305"},
		{name: "reader there", wantOutcome: "ok "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := filepath.Join(t.TempDir(), "receipts")
			cmd := exec.Command(bin, "--allow", "io", "--receipts", rc, prog)
			var out []byte
			var runErr error
			if tt.readerGone {
				cmd.Stdout = testkit.ReaderGone(t)
				runErr = cmd.Run()
			} else {
				stdout, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				out, _ = io.ReadAll(stdout)
				runErr = cmd.Wait()
			}
			if sig, ended := testkit.EndedBy(cmd.ProcessState); ended {
				t.Fatalf("sabline was ended by %v: its output's reader went away", sig)
			}
			runs, _, err := receipt.Scan(rc)
			if err != nil || len(runs) != 1 {
				t.Fatalf("receipts in %s: %d (%v), want the run's", rc, len(runs), err)
			}
			o := runs[0].Outcome
			t.Logf("%v: receipt %s, outcome %s %s %q", runErr, runs[0].RunID, o.Status, o.Code, o.Message)
			if got := string(o.Status) + " " + string(o.Code); got != tt.wantOutcome {
				t.Errorf("outcome %s (%s), want %s", got, o.Message, tt.wantOutcome)
			}
			if n := strings.Count(string(out), "\n"); !tt.readerGone && (runErr != nil || n != floodLines) {
				t.Errorf("with a reader: %v, %d lines printed, want %d", runErr, n, floodLines)
			}
		})
	}
}

// TestCommandErrorReaderGone: a run whose standard error's reader is gone
// and which writes a warning there before its worker starts (a register
// of more entries than one read takes, guard.MaxRegisterEntries) ends on
// its own with its receipt: the warning's writer took standard error
// while Go initialised the process, before the command ignored the
// signal, and its write fails all the same. The control is the same run
// with its standard error read: the warning is there.
func TestCommandErrorReaderGone(t *testing.T) {
	bin := sablineBin(t)
	dir := t.TempDir()
	reg := filepath.Join(dir, "register")
	if err := os.Mkdir(reg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(reg, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	for i := range guard.MaxRegisterEntries + 1 {
		entry := filepath.Join(reg, fmt.Sprintf("e%05d", i))
		names := filepath.Join(dir, "nothing", entry) + "\n"
		if err := os.WriteFile(entry, []byte(names), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog := filepath.Join(dir, "prog.vel")
	if err := os.WriteFile(prog, []byte("print('hi')\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, readerGone := range []bool{true, false} {
		t.Run(fmt.Sprintf("reader gone %v", readerGone), func(t *testing.T) {
			rc := filepath.Join(t.TempDir(), "receipts")
			cmd := exec.Command(bin, "--allow", "io", "--receipts", rc, prog)
			cmd.Env = append(os.Environ(), guard.RegisterEnv+"="+reg)
			var said strings.Builder
			cmd.Stderr = &said
			if readerGone {
				cmd.Stderr = testkit.ReaderGone(t)
			}
			err := cmd.Run()
			if sig, ended := testkit.EndedBy(cmd.ProcessState); ended {
				t.Fatalf("sabline was ended by %v: its standard error's reader went away", sig)
			}
			runs, _, serr := receipt.Scan(rc)
			if err != nil || serr != nil || len(runs) != 1 || runs[0].Outcome.Status != receipt.StatusOK {
				t.Fatalf("%v; receipts in %s: %d (%v), want the run's, ok; standard error %q",
					err, rc, len(runs), serr, said.String())
			}
			if !readerGone && !strings.Contains(said.String(), "register") {
				t.Errorf("standard error %q, want the register's warning", said.String())
			}
		})
	}
}

// TestReplayAndEvalReaderGone: sabline replay and sabline eval, whose
// standard output's reader is gone, end on their own, not by SIGPIPE,
// each with its run's receipt and none unfinished: replay ignores the
// signal, as a run does, and eval catches it. The replay relays a
// program's 1.3 MB of output (its print fails); eval prints its table.
// The control, taken first, is the run the replay replays, with its
// output read.
func TestReplayAndEvalReaderGone(t *testing.T) {
	bin := sablineBin(t)
	dir := t.TempDir()
	prog := floodProgram(t, dir)
	graded := filepath.Join(dir, "graded")
	if err := os.Mkdir(graded, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"a.vel": "print(1)\n", "a.out": "1\n"} {
		if err := os.WriteFile(filepath.Join(graded, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rc := filepath.Join(dir, "receipts")
	var out strings.Builder
	control := exec.Command(bin, "--allow", "io", "--receipts", rc, prog)
	control.Stdout = &out
	if err := control.Run(); err != nil || strings.Count(out.String(), "\n") != floodLines {
		t.Fatalf("the run to replay: %v, %d lines", err, strings.Count(out.String(), "\n"))
	}
	tests := []struct {
		name string
		args []string
	}{
		{name: "replay", args: []string{"replay", "last", "--receipts", rc}},
		{name: "eval", args: []string{"eval", graded, "--allow", "io", "--receipts", rc}},
	}
	kept := 1 // the control's receipt
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			cmd.Stdout = testkit.ReaderGone(t)
			err := cmd.Run()
			if sig, ended := testkit.EndedBy(cmd.ProcessState); ended {
				t.Fatalf("sabline %s was ended by %v: its output's reader went away", tt.name, sig)
			}
			runs, _, serr := receipt.Scan(rc)
			if serr != nil {
				t.Fatal(serr)
			}
			if kept++; len(runs) != kept {
				t.Errorf("%v; %d receipts, want %d: one more, the run's", err, len(runs), kept)
			}
			for _, r := range runs {
				if r.Outcome.Status == receipt.StatusUnfinished {
					t.Errorf("receipt %s unfinished: %s", r.RunID, r.Outcome.Message)
				}
			}
		})
	}
}

// TestWorkerShellFindsSIGPIPE: a shell a run's host module starts finds
// SIGPIPE at its default, though the run's supervisor ignores the signal:
// the worker, a Go program, takes it back as it starts (its handler,
// which an exec resets) and neither ignores nor asks for it
// (brokenpipe.Reopen). The shell sends itself
// SIGPIPE and is ended by it: os.system says -1, and "lived" is never
// printed (with the signal ignored in the worker, it is, and system says
// 0). The control is a shell that sends itself nothing: it prints and
// says 0, so -1 is the signal's and not a shell that never started.
func TestWorkerShellFindsSIGPIPE(t *testing.T) {
	bin := shellBin(t)
	tests := []struct {
		name    string
		command string
		want    string // what the program printed
	}{
		{name: "SIGPIPE sent", command: "kill -PIPE $$; echo lived", want: "-1\n"},
		{name: "none sent", command: "echo lived", want: "lived\n0\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runOSModule(t, bin, fmt.Sprintf("print(ffi.module('os').system(%q))\n",
				tt.command))
			if err != nil || string(out) != tt.want {
				t.Fatalf("%v: the program printed %q, want %q", err, out, tt.want)
			}
		})
	}
}

// TestWorkerShellHoldsNoPipe: a shell a run's host module starts holds
// none of the worker's descriptors (its request, result and stop pipes,
// each closed on exec), only its standard streams: ls lists the shell's
// descriptors from /proc. The shell runs ls alone, outside a pipeline
// (whose pipe the shell holds for a moment as it starts it), and a
// command after it, so that the shell does not exec ls in its own place.
// The control is a shell that opens one more itself, which the listing
// shows, so an empty one is not a listing that sees nothing.
func TestWorkerShellHoldsNoPipe(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skipf("no /proc/self/fd to list: %v", err)
	}
	bin := shellBin(t)
	tests := []struct {
		name    string
		command string
		want    string // the shell's descriptors, as ls lists them
	}{
		{name: "as started", command: "ls /proc/$$/fd; :", want: "0\n1\n2\n"},
		{name: "the control: one opened by the shell",
			command: "exec 7</dev/null; ls /proc/$$/fd; :", want: "0\n1\n2\n7\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runOSModule(t, bin, fmt.Sprintf("ffi.module('os').system(%q)\n", tt.command))
			if err != nil || string(out) != tt.want {
				t.Fatalf("%v: the shell's descriptors %q, want %q", err, out, tt.want)
			}
		})
	}
}

// shellBin is sablineBin for a test whose program starts /bin/sh; it
// skips the test where there is none.
func shellBin(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skipf("no /bin/sh to start: %v", err)
	}
	return sablineBin(t)
}

// runOSModule runs the program src with the os module granted (io,ffi:os)
// through bin, its receipt in a temporary directory, and returns what it
// printed.
func runOSModule(t *testing.T, bin, src string) ([]byte, error) {
	t.Helper()
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog.vel")
	testkit.WriteFile(t, prog, src)
	rc := filepath.Join(dir, "receipts")
	return exec.Command(bin, "--allow", "io,ffi:os", "--receipts", rc, prog).Output()
}
