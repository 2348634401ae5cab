package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/cli/internal/cmdline"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/run"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// replayFixture is a program that loads a library, writes a marker file
// and prints its argument, in a directory of its own, with a receipts
// directory of its own.
type replayFixture struct {
	dir, prog, lib, marker, receipts string
}

func newReplayFixture(t *testing.T) replayFixture {
	t.Helper()
	dir := t.TempDir()
	fx := replayFixture{dir: dir, prog: filepath.Join(dir, "main.vel"),
		lib: filepath.Join(dir, "greet.vel"), marker: filepath.Join(dir, "out", "ran.txt"),
		receipts: filepath.Join(dir, "receipts")}
	files := map[string]string{
		fx.prog: "load(\"greet.vel\", \"greet\")\nfs.write(\"out/ran.txt\", \"ran\")\n" +
			"print(greet(ARGS[0]))\n",
		fx.lib: "def greet(name):\n    return \"hello, \" + name\n",
	}
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, text := range files {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	return fx
}

// main runs the command line args with the fixture's receipts directory.
func (fx replayFixture) main(t *testing.T, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	at := 0 // a run's flags come first, a replay's after the word replay
	if len(args) > 0 && args[0] == "replay" {
		at = 1
	}
	args = append(append(append([]string(nil), args[:at]...), "--receipts", fx.receipts),
		args[at:]...)
	status = Main(args, strings.NewReader(""), &out, &errb)
	return status, out.String(), errb.String()
}

// runs are the fixture's receipts, oldest first.
func (fx replayFixture) runs(t *testing.T) []receipt.StoredReceipt {
	t.Helper()
	runs, err := receipt.List(fx.receipts)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// original runs the fixture's program once, with the flags given, and
// returns its receipt.
func (fx replayFixture) original(t *testing.T, flags ...string) receipt.StoredReceipt {
	t.Helper()
	args := append(append([]string(nil), flags...), fx.prog, "--", "world")
	if status, _, stderr := fx.main(t, args...); status != 0 {
		t.Fatalf("the original run: status %d, %s", status, stderr)
	}
	runs := fx.runs(t)
	if len(runs) != 1 {
		t.Fatalf("%d receipts after the original run, want 1", len(runs))
	}
	return runs[0]
}

// TestReplayMatches: a replay named by its receipt's run id runs the
// program again, with the receipt's arguments, budget and timeout, leaves
// a second receipt of the same program, and prints the diff of the two.
func TestReplayMatches(t *testing.T) {
	fx := newReplayFixture(t)
	orig := fx.original(t, "--allow", "io,fs:write:out", "--timeout", "30s")
	if err := os.Remove(fx.marker); err != nil {
		t.Fatal(err)
	}
	status, stdout, stderr := fx.main(t, "replay", orig.RunID)
	if status != 0 {
		t.Fatalf("replay: status %d, stderr %s", status, stderr)
	}
	if !strings.Contains(stderr, `main.vel ["world"] under "io,fs:write:`) {
		t.Errorf("the replay's first line does not name its arguments before it runs: %s", stderr)
	}
	for _, want := range []string{"hello, world\n", "replay of run " + orig.RunID + ": run ",
		"2 runs: every run had a level", "outcome: ok (was ok)\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "budget:") || strings.Contains(stdout, "timeout:") {
		t.Errorf("a replay as the original was ran prints a budget or timeout change:\n%s", stdout)
	}
	if _, err := os.Stat(fx.marker); err != nil {
		t.Errorf("the replay did not run the program: %v", err)
	}
	runs := fx.runs(t)
	if len(runs) != 2 {
		t.Fatalf("%d receipts, want the original and the replay's", len(runs))
	}
	now := runs[1]
	if now.RunID == orig.RunID || now.Budget != orig.Budget ||
		strings.Join(now.Args, " ") != "world" ||
		now.RunParameters.TimeoutMS != orig.RunParameters.TimeoutMS ||
		now.Program.Path != orig.Program.Path || now.Program.SHA256 != orig.Program.SHA256 {
		t.Errorf("replay receipt %+v, want the original's program, budget, args and timeout (%+v)",
			now.Receipt, orig.Receipt)
	}
}

// TestReplayRefusesAChangedProgram: a program, or a file it loads, whose
// bytes are not those the receipt recorded is refused with E334 naming
// it, before anything runs: no marker file, no new receipt. The control
// is the same replay with the files restored, which runs.
func TestReplayRefusesAChangedProgram(t *testing.T) {
	for _, which := range []string{"program", "load"} {
		t.Run(which, func(t *testing.T) {
			fx := newReplayFixture(t)
			fx.original(t, "--allow", "io,fs:write:out")
			if err := os.Remove(fx.marker); err != nil {
				t.Fatal(err)
			}
			changed := fx.prog
			if which == "load" {
				changed = fx.lib
			}
			was, err := os.ReadFile(changed)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(changed, append(was, "# changed\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			status, stdout, stderr := fx.main(t, "replay", "last")
			if status != codes.ExitUsage || !strings.Contains(stderr, "E334: "+changed+" changed") ||
				stdout != "" {
				t.Errorf("status %d, stdout %q, stderr %s: want E334 naming %s", status, stdout, stderr,
					changed)
			}
			if _, err := os.Stat(fx.marker); err == nil {
				t.Errorf("the refused replay ran the program")
			}
			if n := len(fx.runs(t)); n != 1 {
				t.Errorf("%d receipts after a refused replay, want the original's alone", n)
			}
			if err := os.WriteFile(changed, was, 0o644); err != nil {
				t.Fatal(err)
			}
			if status, _, stderr := fx.main(t, "replay", "last"); status != 0 {
				t.Errorf("restored: status %d, %s", status, stderr)
			}
		})
	}
}

// TestReplayRunsTheBytesItChecked: the replay runs the program's bytes
// as its check read them, whatever the file holds by the time the run
// starts. Before, the supervisor read the file again: a file swapped
// between the check and the run (60 replays beside a loop that renamed
// one of two files into place gave 4 runs of the other one) ran, under
// the receipt's budget, as a replay of the original. The control: the
// check of the file as it is now refuses it (E334).
func TestReplayRunsTheBytesItChecked(t *testing.T) {
	fx := newReplayFixture(t)
	orig := fx.original(t, "--allow", "io,fs:write:out")
	fs, f := replayFlagSet()
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	r, err := replayOf(orig, f, fx.dir, true)
	if err != nil {
		t.Fatalf("replayOf: %v", err)
	}
	// The file changes after the check, before the run starts.
	if err := os.WriteFile(fx.prog, []byte("print(\"swapped in\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	r.Stdin, r.Stdout, r.Stderr, r.Receipts = strings.NewReader(""), &stdout, &stderr, fx.receipts
	rec := run.Supervise(r)
	if rec.Outcome.Status != receipt.StatusOK || stdout.String() != "hello, world\n" {
		t.Fatalf("the replay printed %q (%s %s, stderr %s); want the checked program's line",
			stdout.String(), rec.Outcome.Status, rec.Outcome.Message, stderr.String())
	}
	if rec.Program.SHA256 != orig.Program.SHA256 {
		t.Errorf("the replay's receipt records sha256 %s, want the original's %s",
			rec.Program.SHA256, orig.Program.SHA256)
	}
	if _, err := replayOf(orig, f, fx.dir, true); codes.CodeOf(err) != codes.E334 {
		t.Errorf("replayOf the changed file: %v, want E334", err)
	}
}

// TestReplayRefusesWidening: each flag that would give the replay more
// than the receipt's run had is E328 naming it, and nothing runs.
func TestReplayRefusesWidening(t *testing.T) {
	fx := newReplayFixture(t)
	orig := fx.original(t, "--allow", "io,fs:write:out@5", "--timeout", "30s",
		"--max-memory-mb", "512", "--require-confinement", "partial")
	if orig.RunParameters.MaxMemoryMB == 0 {
		t.Logf("the memory bound was not held here: --max-memory-mb widens nothing")
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a grant", []string{"--allow", "io,fs:write:out@5,env"}, "env is not within"},
		{"a count dropped", []string{"--allow", "io,fs:write:out"}, "has no count"},
		{"a count raised", []string{"--allow", "io,fs:write:out@6"}, "past the ceiling's 5"},
		{"a wider path", []string{"--allow", "io,fs:write"}, "fs:write is not within"},
		{"a longer timeout", []string{"--timeout", "31s"}, "--timeout 31s is longer than the " +
			"receipt's 30s"},
		{"no confinement", []string{"--no-confine"}, "confine mode off is below"},
		{"a credential", []string{"--lend-credential", "key.pem"}, "was lent no such credential"},
	}
	if orig.RunParameters.MaxMemoryMB > 0 {
		tests = append(tests,
			struct {
				name string
				args []string
				want string
			}{"more memory", []string{"--max-memory-mb", "513"}, "--max-memory-mb 513 is more"},
			struct {
				name string
				args []string
				want string
			}{"no memory bound", []string{"--no-memory-limit"}, "--no-memory-limit lifts"})
	}
	if err := os.Remove(fx.marker); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, stdout, stderr := fx.main(t, append([]string{"replay", orig.RunID}, tt.args...)...)
			if status != codes.ExitUsage || !strings.Contains(stderr, "E328: replay: ") ||
				!strings.Contains(stderr, tt.want) || stdout != "" {
				t.Errorf("status %d, stdout %q, stderr %s: want E328 naming %q", status, stdout, stderr,
					tt.want)
			}
			if _, err := os.Stat(fx.marker); err == nil {
				t.Errorf("the refused replay ran the program")
			}
			if n := len(fx.runs(t)); n != 1 {
				t.Errorf("%d receipts after a refused replay, want the original's alone", n)
			}
		})
	}
}

// TestReplayAllowThroughALink: --allow naming, beneath the receipt's
// grant (fs:write:out), a link that leads out of it (out/lnk, to
// ../elsewhere) widens the receipt's budget where it leads, and is
// refused (E328, nothing run): a grant is held where its path leads, so
// the replay wrote elsewhere/x.txt, which the recorded run was refused
// (a link inside its grant that leads outside, E302). Judged on the disk.
// The control: a directory within the grant (out/in) is a narrowing, and
// the replay runs, its write through the link refused as the original's.
func TestReplayAllowThroughALink(t *testing.T) {
	fx := newReplayFixture(t)
	elsewhere := filepath.Join(fx.dir, "elsewhere")
	for _, d := range []string{elsewhere, filepath.Join(fx.dir, "out", "in")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../elsewhere", filepath.Join(fx.dir, "out", "lnk")); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(fx.dir, "through.vel")
	if err := os.WriteFile(prog, []byte("fs.write(\"out/lnk/x.txt\", \"through\")\n"),
		0o644); err != nil {
		t.Fatal(err)
	}
	escaped := filepath.Join(elsewhere, "x.txt")
	if status, _, stderr := fx.main(t, "--allow", "io,fs:write:out", prog); status !=
		codes.ExitFailed || !strings.Contains(stderr, "E302: ") {
		t.Fatalf("the original run: status %d, %s; want E302, its write through the link refused",
			status, stderr)
	}
	tests := []struct {
		allow, want string
		status      int
	}{
		{"io,fs:write:out/lnk", "E328: replay: ", codes.ExitUsage},
		{"io,fs:write:out/in", "E302: ", codes.ExitFailed},
	}
	original, receipts := fx.runs(t)[0].RunID, 1 // the original's
	for _, tt := range tests {
		status, _, stderr := fx.main(t, "replay", original, "--allow", tt.allow)
		if status != tt.status || !strings.Contains(stderr, tt.want) {
			t.Errorf("replay --allow %s: status %d, %s; want %d, %q", tt.allow, status, stderr,
				tt.status, tt.want)
		}
		if data, err := os.ReadFile(escaped); err == nil {
			t.Errorf("replay --allow %s wrote %s (%q), outside the receipt's grant", tt.allow,
				escaped, data)
			_ = os.Remove(escaped)
		}
		if tt.status != codes.ExitUsage {
			receipts++ // a replay that ran
		}
		if n := len(fx.runs(t)); n != receipts {
			t.Errorf("replay --allow %s: %d receipts, want %d", tt.allow, n, receipts)
		}
	}
}

// TestReplayNarrows: flags that narrow apply, and the new receipt says
// so: a shorter timeout, a smaller memory bound, strict confinement, a
// higher required level; and a dropped grant refuses the effect it
// granted (E302, exit 1), the diff saying both outcomes.
func TestReplayNarrows(t *testing.T) {
	fx := newReplayFixture(t)
	orig := fx.original(t, "--allow", "io,fs:write:out", "--timeout", "30s")
	status, _, stderr := fx.main(t, "replay", "last", "--timeout", "20s", "--max-memory-mb", "256",
		"--confine", "strict")
	if status != 0 {
		t.Fatalf("replay: status %d, %s", status, stderr)
	}
	now := fx.runs(t)[1]
	p := now.RunParameters
	if p.TimeoutMS != 20000 || p.Confine != core.ModeStrict {
		t.Errorf("run parameters %+v: want timeout 20000 ms, confine strict", p)
	}
	if orig.RunParameters.MaxMemoryMB > 0 && p.MaxMemoryMB != 256 {
		t.Errorf("max_memory_mb %d, want 256 (the original's was %d)", p.MaxMemoryMB,
			orig.RunParameters.MaxMemoryMB)
	}
	status, stdout, stderr := fx.main(t, "replay", orig.RunID, "--allow", "io")
	if status != codes.ExitFailed || !strings.Contains(stderr, "E302: ") ||
		!strings.Contains(stdout, "outcome: failed E302 (was ok)") ||
		!strings.Contains(stdout, "budget: io (was io,fs:write:") {
		t.Errorf("without fs:write: status %d, stdout %s, stderr %s: want E302, exit 1, the diff",
			status, stdout, stderr)
	}
	if now := fx.runs(t)[2]; now.Budget != "io" || now.Outcome.Code != codes.E302 {
		t.Errorf("replay receipt: budget %q, outcome %+v, want io and E302", now.Budget, now.Outcome)
	}
}

// TestReplayRun: what a replay asks for, without running it: the
// receipt's parameters, or narrower ones; a run with no timeout or
// memory bound takes any, and with no flag a run's default memory bound.
func TestReplayRun(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "p.vel")
	rec := receipt.NewForSource(prog, []byte("print(1)\n"), budget.MustParse(dir, "io,env"),
		[]string{"a", "b"})
	rec.RunParameters.RequireConfinement = core.Partial
	rec.RunParameters.CredentialsLent = []string{filepath.Join(dir, "key.pem")}
	var f runFlags
	r, err := replayRun(rec, &f, dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if r.Budget.String() != "io,env" || r.Timeout != 0 || r.MaxMemoryMB != defaultRunMemoryMB ||
		r.Confine != core.ModeDefault || r.Require != core.Partial ||
		strings.Join(r.Args, " ") != "a b" || len(r.Lend) != 1 || r.Program != prog {
		t.Errorf("no flags: %+v, want the receipt's", r)
	}
	f = runFlags{timeout: time.Hour, maxMemoryMB: 64, require: "full", allow: cmdline.List{"env"},
		lend: cmdline.List{"key.pem"}}
	if r, err = replayRun(rec, &f, dir, true); err != nil {
		t.Fatal(err)
	}
	if r.Budget.String() != "env" || r.Timeout != time.Hour || r.MaxMemoryMB != 64 ||
		r.Require != core.Full || len(r.Lend) != 1 {
		t.Errorf("narrowing flags: %+v, want each applied", r)
	}
	f = runFlags{require: "partial"}
	rec.RunParameters.RequireConfinement = core.Full
	if _, err := replayRun(rec, &f, dir, true); codes.CodeOf(err) != codes.E328 ||
		!strings.Contains(err.Error(), "--require-confinement partial is below the receipt's full") {
		t.Errorf("a lower required level: %v, want E328", err)
	}
	// A run that asked for no level asked for its machine's: a level
	// below it is refused, the machine's own asked for as it is.
	rec.RunParameters.RequireConfinement = ""
	held, _, _ := run.Required("", core.ModeDefault,
		core.OSPolicy(budget.MustParse(dir, "io,env"), core.Options{}))
	for _, l := range []core.Level{core.None, core.Partial, core.Full} {
		f = runFlags{require: string(l)}
		r, err := replayRun(rec, &f, dir, true)
		if l.Rank() < held.Rank() {
			if codes.CodeOf(err) != codes.E328 || !strings.Contains(err.Error(),
				"--require-confinement "+string(l)+" is below the receipt's") {
				t.Errorf("%s where no level was asked, this machine's %q: %v, want E328", l, held,
					err)
			}
		} else if err != nil || r.Require != l {
			t.Errorf("%s where no level was asked, this machine's %q: %v, %v; want it asked", l,
				held, err, r.Require)
		}
	}
	f = runFlags{noMemory: true, maxMemoryMB: 64}
	if _, err := replayRun(rec, &f, dir, true); codes.CodeOf(err) != codes.E301 {
		t.Errorf("--max-memory-mb with --no-memory-limit: %v, want E301", err)
	}
}

// TestReplayRefusesWhatIsNoReceipt: a reference that names no run, a
// file that is no receipt, a receipt without its program's digest, and
// arguments after -- are refused, and leave no receipt.
func TestReplayRefusesWhatIsNoReceipt(t *testing.T) {
	fx := newReplayFixture(t)
	fx.original(t, "--allow", "io,fs:write:out")
	noDigest := receipt.NewForSource("main.vel", nil, budget.MustParse(fx.dir, "io"), nil)
	path, err := noDigest.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"ffff"}, "E317: no run id is or begins with \"ffff\""},
		{[]string{fx.prog}, "E317: " + fx.prog + " is not a receipt"},
		{[]string{path}, "E334: receipt of run " + noDigest.RunID + " records no digest"},
		{[]string{"last", "--", "x"}, "E301: replay: the program's arguments are the receipt's"},
		{[]string{}, "E301: replay: want one RECEIPT"},
	}
	for _, tt := range tests {
		status, _, stderr := fx.main(t, append([]string{"replay"}, tt.args...)...)
		if status != codes.ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("replay %q: status %d, %s: want %s", tt.args, status, stderr, tt.want)
		}
	}
	if n := len(fx.runs(t)); n != 1 {
		t.Errorf("%d receipts, want the original's alone", n)
	}
}

// receiptFile is rec written to a file of its own, as a receipt is
// stored.
func receiptFile(t *testing.T, rec *receipt.Receipt) string {
	t.Helper()
	data, err := rec.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "forged.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReplayReadsNoTestimonyFiles: a receipt whose loaded files are
// testimony (reported by a worker that ran host code, which could have
// named any file) is refused with E334 before any of them is read: a
// file the forged list names, outside the program's directory, had its
// digest printed ("changed since ... its sha256 is"), read as the
// operator. The control: the same list, not testimony, is checked, and
// the file outside is read and named changed.
func TestReplayReadsNoTestimonyFiles(t *testing.T) {
	fx := newReplayFixture(t)
	orig := fx.original(t, "--allow", "io,fs:write:out")
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("not the program's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		testimony string
		wantMsg   string
	}{
		{name: "testimony", testimony: "ffi:ctypes is granted: host code ran beside the program",
			wantMsg: "replay reads none of them"},
		{name: "not testimony", wantMsg: secret + " changed since run"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := *orig.Receipt // a copy: each case forges its own
			rec.Program.Files = append(slices.Clone(rec.Program.Files),
				program.FileDigest{Path: secret, SHA256: strings.Repeat("0", 64)})
			rec.Reported = &receipt.Reported{Fields: []string{receipt.FieldOutcome,
				receipt.FieldFiles}, Testimony: tt.testimony}
			forged := receiptFile(t, &rec)
			status, stdout, stderr := fx.main(t, "replay", forged)
			if status != codes.ExitUsage || !strings.Contains(stderr, "E334: ") ||
				!strings.Contains(stderr, tt.wantMsg) || stdout != "" {
				t.Errorf("status %d, stdout %q, stderr %s: want E334 saying %q", status, stdout,
					stderr, tt.wantMsg)
			}
			if n := len(fx.runs(t)); n != 1 {
				t.Errorf("%d receipts after a refused replay, want the original's alone", n)
			}
		})
	}
	// The control: a testimony receipt that names no file but the
	// program, which the supervisor read itself, replays, under the
	// grants the command line names: the program is read, as it is for
	// every receipt.
	t.Run("testimony, the program alone", func(t *testing.T) {
		rec := *orig.Receipt // a copy: each case forges its own
		rec.Program.Files = nil
		rec.Reported = &receipt.Reported{Fields: []string{receipt.FieldOutcome, receipt.FieldFiles},
			Testimony: "ffi:ctypes is granted: host code ran beside the program"}
		forged := receiptFile(t, &rec) // a file of no store: it grants what --allow names
		if status, stdout, stderr := fx.main(t, "replay", forged, "--allow",
			"io,fs:write:out"); status != 0 ||
			!strings.Contains(stdout, "hello, world\n") {
			t.Errorf("status %d, stdout %q, stderr %s: want the program run again", status, stdout,
				stderr)
		}
	})
}

// TestReplayRefusesABudgetThatReadsBackOtherwise: a receipt's budget is
// taken only as written. A receipt an earlier Sabline kept for a run in
// a working directory with a comma in its path (fs:read:. in /srv/q,fs)
// holds "fs:read:/srv/q,fs", which reads back as fs:read:/srv/q and fs:
// replayed, the program read a file outside its directory that the run
// itself was refused. It is refused, E301, before anything runs, and
// leaves no receipt. The control: the same receipt with a budget that
// reads back as written is replayed, and reads the file it grants.
func TestReplayRefusesABudgetThatReadsBackOtherwise(t *testing.T) {
	fx := newReplayFixture(t)
	src := []byte("print(fs.read(ARGS[0]))\n")
	prog := filepath.Join(fx.dir, "peek.vel")
	outside := filepath.Join(fx.dir, "outside.txt")
	inside := filepath.Join(fx.dir, "q,fs", "inside.txt")
	if err := os.Mkdir(filepath.Dir(inside), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, text := range map[string]string{prog: string(src), outside: "OUTSIDE",
		inside: "INSIDE"} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	kept := func(budgetText, arg string) string {
		rec := receipt.NewForSource(prog, src, budget.Budget{}, []string{arg})
		rec.Budget = budgetText
		if _, err := rec.Write(fx.receipts); err != nil {
			t.Fatal(err)
		}
		return rec.RunID
	}
	split := kept("io,fs:read:"+filepath.Dir(inside), outside)
	status, stdout, stderr := fx.main(t, "replay", split)
	if status != codes.ExitUsage || !strings.Contains(stderr, "E301: replay: the receipt's budget") ||
		!strings.Contains(stderr, "reads back as") || strings.Contains(stdout, "OUTSIDE") {
		t.Errorf("a budget that reads back as another: status %d, stdout %q, stderr %s: want "+
			"E301, nothing run", status, stdout, stderr)
	}
	if n := len(fx.runs(t)); n != 1 {
		t.Errorf("%d receipts after the refused replay, want the one kept", n)
	}
	whole := kept("io,fs:read:"+fx.dir, inside)
	status, stdout, stderr = fx.main(t, "replay", whole)
	if status != 0 || !strings.Contains(stdout, "INSIDE\n") {
		t.Errorf("the control, a budget that reads back as written: status %d, stdout %q, "+
			"stderr %s: want the file it grants read", status, stdout, stderr)
	}
}

// TestReplayRefusesAReceiptsDirectoryUnknownToTheRegister: a replay whose
// receipts directory cannot be made known to the register of this
// machine (a name that holds a newline, which the register cannot hold)
// is refused, E331, as a run in that directory is, and runs nothing, its
// refusal kept beside the receipt it replays: it ran the program before,
// its directory unknown to every other Sabline on the machine. The
// control: the same replay in a directory whose name holds a blank runs.
func TestReplayRefusesAReceiptsDirectoryUnknownToTheRegister(t *testing.T) {
	for _, name := range []string{"receipts\nx", "receipts x"} {
		t.Run(strconv.Quote(name), func(t *testing.T) {
			fx := newReplayFixture(t)
			fx.receipts = filepath.Join(fx.dir, name)
			src, err := os.ReadFile(fx.prog)
			if err != nil {
				t.Fatal(err)
			}
			rec := receipt.NewForSource(fx.prog, src, budget.MustParse(fx.dir, "io,fs:write:out"),
				[]string{"world"})
			if _, err := rec.Write(fx.receipts); err != nil {
				t.Fatal(err)
			}
			status, stdout, stderr := fx.main(t, "replay", rec.RunID)
			_, ran := os.Stat(fx.marker)
			if !strings.Contains(name, "\n") {
				if status != 0 || ran != nil || !strings.Contains(stdout, "hello, world\n") {
					t.Fatalf("the control: status %d, the marker %v, stdout %q, stderr %s", status,
						ran, stdout, stderr)
				}
				return
			}
			if status != codes.ExitUsage || !strings.Contains(stderr, "E331: the receipts directory") ||
				strings.Contains(stderr, "\n"+"x") || ran == nil || strings.Contains(stdout, "hello") {
				t.Errorf("status %d, the marker %v, stdout %q, stderr %s: want E331, the name "+
					"escaped, nothing run", status, ran, stdout, stderr)
			}
			if n := len(fx.runs(t)); n != 2 {
				t.Errorf("%d receipts, want the one kept and the refusal's", n)
			}
		})
	}
}

// TestReplayDiffNamesWhatWasNotRecorded: a receipt refused at its command
// line recorded no confinement; its replay's line says so ("was not
// recorded"), not an empty "(was )"; a value recorded is named (the
// control).
func TestReplayDiffNamesWhatWasNotRecorded(t *testing.T) {
	for _, tt := range []struct {
		name, was, want string
	}{
		{name: "not recorded", was: "", want: "confine: default (was not recorded)\n"},
		{name: "recorded", was: "strict", want: "confine: default (was strict)\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			orig := receipt.StoredReceipt{Receipt: &receipt.Receipt{}}
			now := receipt.StoredReceipt{Receipt: &receipt.Receipt{}}
			orig.RunParameters.Confine, now.RunParameters.Confine = core.Mode(tt.was), "default"
			var out strings.Builder
			printReplayDiff(&out, orig, now)
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("the replay's diff:\n%s\nwant a line %q", out.String(), tt.want)
			}
		})
	}
}
