package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
)

// TestRefusedValuesLeaveAReceipt: every value a run's flag refuses is
// refused alike: E301, exit 2, nothing run, and one receipt of the
// refusal naming the program, whichever flag it is (the values the flag
// package reads and those read after it were treated differently). The
// control is the same command line with the values written right, which
// runs; and a refused value with no program named leaves no receipt, as
// there is no run to account for.
func TestRefusedValuesLeaveAReceipt(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "hello.vel")
	if err := os.WriteFile(prog, []byte("print(\"hello\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// An open descriptor of this process, for the control's --tool-fd.
	channel, err := os.CreateTemp(dir, "channel")
	if err != nil {
		t.Fatal(err)
	}
	defer channel.Close()
	toolFD := fmt.Sprint(channel.Fd())
	tests := []struct {
		name    string
		args    []string
		wantMsg string // "" for a run that runs
	}{
		{name: "timeout not a duration", args: []string{"--timeout", "abc"}, wantMsg: `--timeout "abc": not a duration`},
		{name: "timeout zero", args: []string{"--timeout=0s"}, wantMsg: `--timeout "0s": want a duration above zero`},
		{name: "memory too small", args: []string{"--max-memory-mb", "1"}, wantMsg: `--max-memory-mb "1": want at least 16`},
		{name: "memory not a number", args: []string{"--max-memory-mb", "lots"}, wantMsg: `--max-memory-mb "lots"`},
		{name: "confine unknown", args: []string{"--confine", "loose"}, wantMsg: `--confine "loose"`},
		{name: "required level unknown", args: []string{"--require-confinement", "maybe"}, wantMsg: `--require-confinement "maybe"`},
		{name: "item malformed", args: []string{"--allow", "io,fs:frob:x:y"}, wantMsg: `--allow`},
		{name: "module unregistered", args: []string{"--allow", "io,ffi:jsno"}, wantMsg: `no host module "jsno"`},
		{name: "tool channel on stdout", args: []string{"--tool-fd", "1"}, wantMsg: `--tool-fd 1`},
		{name: "tool channel on stdin", args: []string{"--tool-fd", "0"}, wantMsg: `--tool-fd 0`},
		{name: "tool channel on stderr", args: []string{"--tool-fd", "2"}, wantMsg: `--tool-fd 2`},
		{name: "tool channel below zero", args: []string{"--tool-fd", "-5"}, wantMsg: `--tool-fd "-5": not a descriptor`},
		{name: "tool channel minus one", args: []string{"--tool-fd", "-1"}, wantMsg: `--tool-fd "-1": not a descriptor`},
		{name: "tool channel not a number", args: []string{"--tool-fd", "three"}, wantMsg: `--tool-fd "three"`},
		{name: "two refused: the first is said", args: []string{"--timeout", "abc", "--max-memory-mb", "1"}, wantMsg: `--timeout "abc"`},
		{name: "the values written right", args: []string{"--timeout", "10s", "--max-memory-mb", "64",
			"--confine", "strict", "--tool-fd", toolFD}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := t.TempDir()
			args := append(append([]string{"--allow", "io", "--receipts", rc}, tt.args...), prog)
			var stdout, stderr bytes.Buffer
			status := Main(args, strings.NewReader(""), &stdout, &stderr)
			runs, err := receipt.List(rc)
			if err != nil || len(runs) != 1 {
				t.Fatalf("%d receipts (%v), want 1; stderr %s", len(runs), err, stderr.String())
			}
			o := runs[0].Outcome
			if tt.wantMsg == "" {
				if status != 0 || o.Status != receipt.StatusOK || stdout.String() != "hello\n" {
					t.Errorf("status %d, outcome %+v, stdout %q: want it run", status, o, stdout.String())
				}
				return
			}
			if status != codes.ExitUsage || o.Code != codes.E301 || o.Status != receipt.StatusUsage || !strings.Contains(o.Message, tt.wantMsg) ||
				runs[0].Program.Path != prog || stdout.Len() != 0 || !strings.Contains(stderr.String(), "receipt: ") {
				t.Errorf("status %d, outcome %+v, program %s, stdout %q, stderr %s: want E301 %q, usage, the program named, its receipt printed",
					status, o, runs[0].Program.Path, stdout.String(), stderr.String(), tt.wantMsg)
			}
		})
	}
	rc := t.TempDir()
	var stderr bytes.Buffer
	if status := Main([]string{"--receipts", rc, "--timeout", "abc"}, strings.NewReader(""), &bytes.Buffer{}, &stderr); status != codes.ExitUsage {
		t.Errorf("no program, a refused value: status %d, %s", status, stderr.String())
	}
	if runs, _ := receipt.List(rc); len(runs) != 0 {
		t.Errorf("no program, a refused value: %d receipts, want none", len(runs))
	}
}

// TestRefusalReceiptKeepsABoundedBudget: a command line refused for its
// --allow items leaves a receipt that keeps the items as given within a
// budget's bound (budget.MaxBytes), and past it their beginning and a
// note of how many bytes were left out, as a message is cut: before, it
// kept them whole, and 2 MiB of control characters made a receipt of
// 11 MB, past what a receipt file may be (receipt.MaxBytes), which
// sabline receipts then passed over as no receipt. The control: items
// within the bound are kept whole, saying nothing of a cut.
func TestRefusalReceiptKeepsABoundedBudget(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "hello.vel")
	if err := os.WriteFile(prog, []byte("print(\"hello\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// As many as a command line takes: an argument is at most 128 KiB
	// on Linux, 2 MiB of them in all.
	long := strings.Repeat("\x01", 128<<10-1)
	for _, tc := range []struct {
		name  string
		items []string
	}{
		{name: "past the bound", items: slices.Repeat([]string{long}, 16)},
		{name: "within it", items: []string{"io,\x01fs:frob"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := t.TempDir()
			args := []string{"--receipts", rc}
			for _, it := range tc.items {
				args = append(args, "--allow", it)
			}
			var stderr bytes.Buffer
			if status := Main(append(args, prog), strings.NewReader(""), &bytes.Buffer{},
				&stderr); status != codes.ExitUsage {
				t.Fatalf("status %d; want %d (E301)", status, codes.ExitUsage)
			}
			runs, err := receipt.List(rc) // what sabline receipts reads
			if err != nil || len(runs) != 1 {
				t.Fatalf("%d receipts (%v); want the refusal's", len(runs), err)
			}
			given := strings.Join(tc.items, ",")
			got := runs[0].Budget
			if len(given) <= budget.MaxBytes {
				if got != given {
					t.Errorf("budget %q; want the items whole, %q", got, given)
				}
				return
			}
			kept, more, ok := strings.Cut(got, "... (")
			if len(got) > budget.MaxBytes || !ok || !strings.HasPrefix(given, kept) ||
				more != fmt.Sprintf("%d bytes more)", len(given)-len(kept)) {
				t.Errorf("budget of %d bytes ending %q; want at most %d, the first of the %d given "+
					"and how many were left out", len(got), got[max(0, len(got)-40):],
					budget.MaxBytes, len(given))
			}
		})
	}
}

// TestLendCredentialsBounded: the credential locations a command line
// lends are held to a budget's bounds (budget.MaxItems of them,
// budget.MaxBytes in all), since the run's receipt keeps every one, for a
// replay to lend again: past them the run is refused (E301) with a
// receipt sabline receipts reads. Before, 2 MiB of them ran, ok, and
// left a receipt of 11 MB, past what a receipt file may be
// (receipt.MaxBytes), which sabline receipts passed over as no receipt.
// The control: one location lent, which runs, its receipt naming it.
func TestLendCredentialsBounded(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "hello.vel")
	if err := os.WriteFile(prog, []byte("print(\"hello\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(dir, strings.Repeat("\x01", 128<<10-len(dir)-8))
	for _, tc := range []struct {
		name string
		lend []string
		want int // the exit status
	}{
		{name: "past the bound", lend: slices.Repeat([]string{long}, 16), want: codes.ExitUsage},
		{name: "within it", lend: []string{filepath.Join(dir, "key\x01")}, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := t.TempDir()
			args := []string{"--receipts", rc, "--allow", "io"}
			for _, p := range tc.lend {
				args = append(args, "--lend-credential", p)
			}
			var stdout, stderr bytes.Buffer
			status := Main(append(args, prog), strings.NewReader(""), &stdout, &stderr)
			runs, err := receipt.List(rc) // what sabline receipts reads
			if status != tc.want || err != nil || len(runs) != 1 {
				t.Fatalf("status %d, %d receipts (%v); want %d and one receipt; stderr %.300s",
					status, len(runs), err, tc.want, stderr.String())
			}
			rp, o := runs[0].RunParameters, runs[0].Outcome
			if tc.want == 0 {
				if stdout.String() != "hello\n" || !slices.Equal(rp.CredentialsLent, tc.lend) {
					t.Errorf("stdout %q, lent %q; want it run, lending %q", stdout.String(),
						rp.CredentialsLent, tc.lend)
				}
				return
			}
			if o.Code != codes.E301 || !strings.Contains(o.Message, "--lend-credential") ||
				stdout.Len() != 0 {
				t.Errorf("outcome %+v, stdout %q: want E301 naming --lend-credential, nothing run",
					o, stdout.String())
			}
		})
	}
}

// TestRefusalPrintsTheMessageItsReceiptKeeps: a refused command line
// prints the message its receipt records, escaped, within the receipt's
// bound (codes.MaxMessageBytes) and saying how much it left out: an
// --allow item of 100 KB, quoted twice by its E301, was printed whole,
// 200 KB on one line, where the receipt kept 8 KiB. The control: a
// short item's message is printed whole, as its receipt keeps it.
func TestRefusalPrintsTheMessageItsReceiptKeeps(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "hello.vel")
	if err := os.WriteFile(prog, []byte("print(\"hello\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, item string
		cut        bool
	}{
		{name: "an item of 100 KB", item: "frob\x1b" + strings.Repeat("a", 100_000), cut: true},
		{name: "a short item (the control)", item: "frob\x1b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := t.TempDir()
			var stderr bytes.Buffer
			if status := Main([]string{"--receipts", rc, "--allow", "io," + tc.item, prog},
				strings.NewReader(""), &bytes.Buffer{}, &stderr); status != codes.ExitUsage {
				t.Fatalf("status %d; want %d (E301)", status, codes.ExitUsage)
			}
			runs, err := receipt.List(rc)
			if err != nil || len(runs) != 1 {
				t.Fatalf("%d receipts (%v); want the refusal's", len(runs), err)
			}
			kept := runs[0].Outcome.Message
			if cut := strings.HasSuffix(kept, " bytes more)"); cut != tc.cut {
				t.Fatalf("the receipt's message is cut: %v, want %v: %q", cut, tc.cut,
					kept[max(0, len(kept)-60):])
			}
			first, _, _ := strings.Cut(stderr.String(), "\n")
			if want := "sabline: E301: " + codes.TerminalSafe(kept); first != want {
				t.Errorf("printed a first line of %d bytes ending %q; want the receipt's "+
					"message, %d bytes ending %q", len(first), first[max(0, len(first)-60):],
					len(want), want[max(0, len(want)-60):])
			}
		})
	}
}
