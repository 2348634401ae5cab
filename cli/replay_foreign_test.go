package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/run"
	"github.com/sabline/sabline/receipt"
)

// foreignFixture is a receipt file its author wrote: their program,
// which writes a file of the operator's and prints a credential of the
// operator's (a file in a home of the test's own, standing for
// ~/.ssh), and a receipt that grants both, lends the credential and
// turns confinement off.
type foreignFixture struct {
	replayFixture
	canary, key, keys, forged string
}

const canaryText = "the operator's data\n"

func newForeignFixture(t *testing.T) foreignFixture {
	t.Helper()
	fx := foreignFixture{replayFixture: newReplayFixture(t)}
	home := t.TempDir()
	t.Setenv("HOME", home)        // the credential locations beneath it are guarded
	t.Setenv("USERPROFILE", home) // Windows' home
	fx.keys = filepath.Join(home, ".ssh")
	fx.key = filepath.Join(fx.keys, "id_test")
	ops := t.TempDir() // a directory of the operator's
	fx.canary = filepath.Join(ops, "canary.txt")
	author := t.TempDir()
	prog := filepath.Join(author, "evil.vel")
	text := []byte("fs.write(ARGS[0], \"written by the receipt's author\\n\")\n" +
		"print(fs.read(ARGS[1]))\n")
	for p, data := range map[string][]byte{fx.key: []byte("SECRET-KEY\n"),
		fx.canary: []byte(canaryText), prog: text} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rec := receipt.NewForSource(prog, text, budget.MustParse(author, "io,fs:write:"+ops+
		",fs:read:"+fx.keys), []string{fx.canary, fx.key})
	rec.RunParameters.CredentialsLent = []string{fx.keys}
	rec.RunParameters.Confine = core.ModeOff
	fx.forged = receiptFile(t, rec)
	return fx
}

// canaryIs fails t unless the operator's file, read from outside the
// run, holds want.
func (fx foreignFixture) canaryIs(t *testing.T, want string) {
	t.Helper()
	if got, err := os.ReadFile(fx.canary); err != nil || string(got) != want {
		t.Errorf("the operator's file holds %q (%v), want %q", got, err, want)
	}
}

// TestReplayOfAForeignFileGrantsWhatTheOperatorNames: a receipt file
// from outside the operator's receipts directory (mailed, downloaded,
// left in a shared directory) grants nothing of its own: with no
// --allow its replay is refused, E328 naming what it asks for, before
// anything runs (the operator's file unchanged, the credential unread,
// no receipt); a --allow that names the grants lends no credential
// (E329, nothing read) and turns no confinement off; the positive
// control, the same grants and the credential lent on the command line,
// runs the program. Before, the file's budget, lent credential and
// confine mode off were taken as the operator's: the file was written
// and the key printed, unconfined, with no flag.
func TestReplayOfAForeignFileGrantsWhatTheOperatorNames(t *testing.T) {
	fx := newForeignFixture(t)
	allow := "io,fs:write:" + filepath.Dir(fx.canary) + ",fs:read:" + fx.keys

	status, stdout, stderr := fx.main(t, "replay", fx.forged)
	if status != codes.ExitUsage || !strings.Contains(stderr, "E328: replay: the receipt is a "+
		"file named by its path") || !strings.Contains(stderr, fx.keys) ||
		!strings.Contains(stderr, "--allow with the items you grant") || stdout != "" {
		t.Errorf("no flags: status %d, stdout %q, stderr %s; want E328, nothing run", status,
			stdout, stderr)
	}
	fx.canaryIs(t, canaryText)
	if n := len(fx.runs(t)); n != 0 {
		t.Errorf("%d receipts after a refused replay, want none", n)
	}

	status, stdout, stderr = fx.main(t, "replay", fx.forged, "--allow", allow)
	if status != codes.ExitUsage || !strings.Contains(stderr, "E329") ||
		strings.Contains(stdout, "SECRET") {
		t.Errorf("--allow, nothing lent: status %d, stdout %q, stderr %s; want E329, the key "+
			"unread", status, stdout, stderr)
	}
	fx.canaryIs(t, canaryText)

	status, stdout, stderr = fx.main(t, "replay", fx.forged, "--allow", allow,
		"--lend-credential", fx.keys)
	if status != 0 || !strings.Contains(stdout, "SECRET-KEY") ||
		!strings.Contains(stderr, "credentials lent "+fx.keys) {
		t.Errorf("--allow and --lend-credential: status %d, stdout %q, stderr %s; want the "+
			"program run, the lending said", status, stdout, stderr)
	}
	fx.canaryIs(t, "written by the receipt's author\n")
	runs := fx.runs(t)
	if len(runs) == 0 {
		t.Fatal("no receipt of the replay that ran")
	}
	if c := runs[len(runs)-1].RunParameters.Confine; c != core.ModeDefault {
		t.Errorf("the replay ran with confine %q, want %s: the file's off is not the operator's",
			c, core.ModeDefault)
	}
}

// TestReplayByPathOrByRunID: a receipt is the operator's own only when
// found by its run id; a file named by its path is its author's word
// even in the receipts directory (where it lies, judged after the read,
// could have been a directory swapped for a link meanwhile): refused
// E328 with no --allow, nothing run. The control: a run of the
// operator's own, replayed by its run id with no flag, runs under its
// grants (its fs:write makes the marker again).
func TestReplayByPathOrByRunID(t *testing.T) {
	fx := newForeignFixture(t)
	if err := os.MkdirAll(fx.receipts, 0o700); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(fx.receipts, "kept.json")
	data, err := os.ReadFile(fx.forged)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kept, data, 0o600); err != nil {
		t.Fatal(err)
	}
	status, stdout, stderr := fx.main(t, "replay", kept)
	if status != codes.ExitUsage || !strings.Contains(stderr, "E328: replay: the receipt is a "+
		"file named by its path") || stdout != "" {
		t.Errorf("a file in the receipts directory: status %d, stdout %q, stderr %s; want E328, "+
			"nothing run", status, stdout, stderr)
	}
	fx.canaryIs(t, canaryText)

	own := newReplayFixture(t)
	orig := own.original(t, "--allow", "io,fs:write:out")
	if err := os.Remove(own.marker); err != nil {
		t.Fatal(err)
	}
	status, _, stderr = own.main(t, "replay", orig.RunID)
	if status != 0 {
		t.Errorf("the operator's own run by its id: status %d, %s; want it run", status, stderr)
	}
	if _, err := os.Stat(own.marker); err != nil {
		t.Errorf("the replay by run id did not write its marker: %v", err)
	}
}

// TestReplayRefusesValuesNoSablineWrites: run parameters no Sabline
// writes (a timeout below zero or past a duration, a memory bound below
// zero or past a run's, an unknown confine mode or required level, a
// level required of no confinement) are E317, naming the value, before
// anything runs: no marker file, no receipt. Before, a negative timeout
// or memory bound ran with none, an unknown mode or level ran as if
// absent, and a bound past a run's was refused by the run, which left a
// receipt. The control: the same receipt with its values as written
// replays.
func TestReplayRefusesValuesNoSablineWrites(t *testing.T) {
	fx := newReplayFixture(t)
	orig := fx.original(t, "--allow", "io,fs:write:out")
	for _, tt := range []struct {
		name string
		set  func(*receipt.RunParameters)
		want string
	}{
		{"timeout below zero", func(p *receipt.RunParameters) { p.TimeoutMS = -5 }, "timeout_ms -5"},
		{"timeout past a duration", func(p *receipt.RunParameters) { p.TimeoutMS = 1 << 62 },
			"timeout_ms 4611686018427387904"},
		{"memory below zero", func(p *receipt.RunParameters) { p.MaxMemoryMB = -7 }, "max_memory_mb -7"},
		{"memory past a run's", func(p *receipt.RunParameters) { p.MaxMemoryMB = run.MaxMemoryMB + 1 },
			"max_memory_mb 1073741825"},
		{"unknown mode", func(p *receipt.RunParameters) { p.Confine = "\x1b[2Jbogus" },
			`confine "\x1b[2Jbogus"`},
		{"unknown level", func(p *receipt.RunParameters) { p.RequireConfinement = "most" },
			`required level "most"`},
		{"a level of no confinement", func(p *receipt.RunParameters) {
			p.Confine, p.RequireConfinement = core.ModeOff, core.Full
		}, "confine off asks for no confinement"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(fx.marker)
			rec := *orig.Receipt // a copy: each case forges its own
			tt.set(&rec.RunParameters)
			status, stdout, stderr := fx.main(t, "replay", receiptFile(t, &rec), "--allow",
				"io,fs:write:out")
			if status != codes.ExitUsage || !strings.Contains(stderr, "E317: replay: the "+
				"receipt's run parameters hold a value no Sabline writes") ||
				!strings.Contains(stderr, tt.want) || !strings.Contains(stderr, replayValuesDo) ||
				stdout != "" {
				t.Errorf("status %d, stdout %q, stderr %s; want E317 naming %s", status, stdout,
					stderr, tt.want)
			}
			if _, err := os.Stat(fx.marker); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the program ran: %v", err)
			}
			if n := len(fx.runs(t)); n != 1 {
				t.Errorf("%d receipts, want the original's alone", n)
			}
		})
	}
	t.Run("the control", func(t *testing.T) {
		status, stdout, stderr := fx.main(t, "replay", receiptFile(t, orig.Receipt), "--allow",
			"io,fs:write:out")
		if status != 0 || !strings.Contains(stdout, "hello, world\n") {
			t.Errorf("status %d, stdout %q, stderr %s; want the program run", status, stdout, stderr)
		}
	})
}

// TestReplayLiftsNoMemoryBoundByItself: a receipt that records no
// memory bound (a run under --no-memory-limit, or one whose bound only
// the worker's watch held, which the receipt does not record) replays
// under a run's default bound; --no-memory-limit lifts it, as in a run.
// Before, such a replay had no memory bound at all.
func TestReplayLiftsNoMemoryBoundByItself(t *testing.T) {
	fx := newReplayFixture(t)
	orig := fx.original(t, "--allow", "io,fs:write:out", "--no-memory-limit")
	for _, tt := range []struct {
		flags []string
		want  string
	}{
		{nil, ", memory 1024 MB,"},
		{[]string{"--no-memory-limit"}, ", memory none,"},
		{[]string{"--max-memory-mb", "64"}, ", memory 64 MB,"},
	} {
		status, _, stderr := fx.main(t, append([]string{"replay", orig.RunID}, tt.flags...)...)
		if status != 0 || !strings.Contains(stderr, tt.want) {
			t.Errorf("replay %q: status %d, stderr %s; want %q", tt.flags, status, stderr, tt.want)
		}
	}
}

// TestReplaySaysWhatIsNoReceipt: a RECEIPT file that is no receipt is
// E317 saying what RECEIPT may be, not what a receipts directory needs;
// a receipt that names its program by a relative path, or records no
// digest of it, is E334 saying which, and to run the program by its
// path, not to restore a file. The control: the receipt with the
// program's absolute path replays.
func TestReplaySaysWhatIsNoReceipt(t *testing.T) {
	fx := newReplayFixture(t)
	status, _, stderr := fx.main(t, "replay", fx.prog)
	if status != codes.ExitUsage || !strings.Contains(stderr, "E317: "+fx.prog+" is not a receipt") ||
		!strings.Contains(stderr, replayNotReceiptDo) || strings.Contains(stderr, "--receipts") {
		t.Errorf("status %d, stderr %s; want E317 saying what RECEIPT may be", status, stderr)
	}
	orig := fx.original(t, "--allow", "io,fs:write:out")
	for _, tt := range []struct {
		name, path, sha256, want string
	}{
		{"relative", "main.vel", orig.Program.SHA256, "names its program by the relative path " +
			"main.vel, which no Sabline writes"},
		{"no digest", fx.prog, "", "records no digest of its program " + fx.prog},
		{"the control", fx.prog, orig.Program.SHA256, ""},
	} {
		rec := *orig.Receipt
		rec.Program.Path, rec.Program.SHA256, rec.Program.Files = tt.path, tt.sha256, nil
		status, stdout, stderr := fx.main(t, "replay", receiptFile(t, &rec), "--allow",
			"io,fs:write:out")
		switch {
		case tt.want == "" && (status != 0 || !strings.Contains(stdout, "hello, world\n")):
			t.Errorf("%s: status %d, stdout %q, stderr %s; want the program run", tt.name, status,
				stdout, stderr)
		case tt.want != "" && (status != codes.ExitUsage || !strings.Contains(stderr, "E334: ") ||
			!strings.Contains(stderr, tt.want) || !strings.Contains(stderr, replayTestimonyDo)):
			t.Errorf("%s: status %d, stderr %s; want E334 saying %q", tt.name, status, stderr,
				tt.want)
		}
	}
}

// FuzzReplayRun feeds replayRun any receipt Parse accepts, as the
// operator's own and as a file from elsewhere: what it asks for is an
// error with its code, or a run of values a run may have; one from
// elsewhere lends nothing and turns no confinement off.
func FuzzReplayRun(f *testing.F) {
	dir := f.TempDir()
	rec := receipt.NewForSource(filepath.Join(dir, "p.vel"), []byte("print(1)\n"),
		budget.MustParse(dir, "io,fs:read:"+dir), []string{"a"})
	rec.RunParameters.CredentialsLent = []string{filepath.Join(dir, "key")}
	rec.RunParameters.Confine = core.ModeOff
	good, err := json.Marshal(rec)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	for _, params := range []string{`{"timeout_ms":-1}`, `{"max_memory_mb":-1}`,
		`{"timeout_ms":9223372036854775807}`, `{"confine":"strict","require_confinement":"full"}`,
		`{"confine":"x"}`, `{"credentials_lent":["/k"]}`} {
		f.Add(bytes.Replace(good, []byte(`"run_parameters":{`), []byte(`"run_parameters":`+
			params[:len(params)-1]+`,`), 1))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := receipt.Parse("r.json", data)
		if err != nil {
			return
		}
		for _, own := range []bool{true, false} {
			r, err := replayRun(rec, &runFlags{}, dir, own)
			if err != nil {
				if codes.CodeOf(err) == "" {
					t.Fatalf("an error with no code: %v", err)
				}
				continue
			}
			if r.Timeout < 0 || r.MaxMemoryMB <= 0 || r.MaxMemoryMB > run.MaxMemoryMB {
				t.Fatalf("timeout %s, memory %d MB: not a run's", r.Timeout, r.MaxMemoryMB)
			}
			if err := run.CheckConfine(r.Confine, r.Require); err != nil {
				t.Fatalf("confine %q, level %q: %v", r.Confine, r.Require, err)
			}
			if !own && (len(r.Lend) > 0 || r.Confine == core.ModeOff ||
				r.Budget.String() != "") {
				t.Fatalf("a file from elsewhere granted %q, lent %q, confine %s", r.Budget.String(),
					r.Lend, r.Confine)
			}
		}
	})
}
