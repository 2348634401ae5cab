package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// TestEvalExpectedOutputsNoGrantReaches: under a budget that grants
// reading and writing the suite's directory (where a grader keeps the
// programs' input files), no program reaches an expected output: one
// that prints its own PROGRAM.out is refused (E318), not passed, and one
// that writes another's is refused, that file left as it was on disk and
// its program graded against it. A program read its answer and passed,
// and another rewrote a later program's expected output, failing it,
// before. The control, under the same budget: a program that reads an
// input file beside it and writes beneath a directory of the suite
// passes, and so does the honest program whose expected output was aimed
// at. The receipts directory is there before, or made by the first run
// (a_cheat's, whose guard is built again once its receipt's directory is
// made, the expected outputs with it).
func TestEvalExpectedOutputsNoGrantReaches(t *testing.T) {
	for _, made := range []bool{false, true} {
		name := map[bool]string{false: "receipts there", true: "receipts made"}[made]
		t.Run(name, func(t *testing.T) { evalExpectedOutputsNoGrantReaches(t, made) })
	}
}

// evalExpectedOutputsNoGrantReaches is TestEvalExpectedOutputsNoGrantReaches
// with a receipts directory that the first run makes, where made.
func evalExpectedOutputsNoGrantReaches(t *testing.T, made bool) {
	bin := sablineBin(t)
	suite, rc := t.TempDir(), t.TempDir()
	if made {
		rc = filepath.Join(rc, "receipts")
	}
	files := map[string]string{
		"a_cheat.vel":     "io.print(fs.read(\"a_cheat.out\").rstrip(\"\\n\"))\n",
		"a_cheat.out":     "the answer 9731\n",
		"b_saboteur.vel":  "fs.write(\"c_victim.out\", \"sabotaged\\n\")\nprint(\"1\")\n",
		"b_saboteur.out":  "1\n",
		"c_victim.vel":    "print(\"42\")\n",
		"c_victim.out":    "42\n",
		"d_honest.vel":    "fs.write(\"work/x\", \"x\")\nio.print(fs.read(\"d.in\").rstrip(\"\\n\"))\n",
		"d_honest.out":    "7\n",
		"d.in":            "7\n",
		"work/.gitignore": "",
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(suite, name)), 0o700); err != nil {
			t.Fatal(err)
		}
		testkit.WriteFile(t, filepath.Join(suite, name), text)
	}
	allow := "io,fs:read:" + suite + ",fs:write:" + suite
	got, code, runs := evalGrades(t, exec.Command(bin, "eval", suite, "--json", "--allow", allow,
		"--receipts", rc), rc)
	want := map[string]string{
		"a_cheat.vel": "error E318", "b_saboteur.vel": "error E318",
		"c_victim.vel": "pass", "d_honest.vel": "pass",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s graded %q, want %q", name, got[name], w)
		}
	}
	if code != 1 || len(runs) != 4 {
		t.Errorf("exit %d, %d receipts; want 1 and 4", code, len(runs))
	}
	if data, err := os.ReadFile(filepath.Join(suite, "c_victim.out")); err != nil ||
		string(data) != "42\n" {
		t.Errorf("c_victim.out holds %q (%v), want it as the grader wrote it", data, err)
	}
	data, err := os.ReadFile(filepath.Join(suite, "work", "x"))
	if err != nil || string(data) != "x" {
		t.Errorf("the honest program's write: %q, %v", data, err)
	}
}

// evalGrades runs cmd, a sabline eval --json the test made, keeping its
// receipts in rc, and returns each program's grade and code ("pass",
// "error E318"), its exit status and the receipts.
func evalGrades(t *testing.T, cmd *exec.Cmd, rc string) (map[string]string, int,
	[]receipt.StoredReceipt) {
	t.Helper()
	var out, errs strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_, code, runs := evalEnded(t, cmd, &errs, rc)
	var results []struct {
		Program, Grade string
		Outcome        struct{ Code string }
	}
	if err := json.Unmarshal([]byte(out.String()), &results); err != nil {
		t.Fatalf("eval's JSON: %v; it printed %q, %q", err, out.String(), errs.String())
	}
	got := map[string]string{}
	for _, r := range results {
		got[r.Program] = strings.TrimSpace(r.Grade + " " + r.Outcome.Code)
	}
	return got, code, runs
}

// TestEvalProgramsDoNotReachEachOther: a program eval grades reaches no
// other program it grades, by a load (under no file grant at all) or a
// read (under a grant of the suite): each is refused (E318), where it
// ran another's solution, or printed its source, and passed. A name
// guard would read as a pattern (a[1].vel) is held as that name alone.
// The control: a library (a .vel with no .out) is loaded, by a program
// the budget allows, as before, and the programs loaded from are graded
// as they were.
func TestEvalProgramsDoNotReachEachOther(t *testing.T) {
	bin := sablineBin(t)
	solution := "def solve():\n    return 42\nprint(solve())\n"
	for _, tt := range []struct {
		name, allow string
		files       map[string]string
		want        map[string]string
	}{
		{name: "a load", allow: "io", files: map[string]string{
			"a.vel": solution, "a.out": "42\n",
			"a[1].vel": solution, "a[1].out": "42\n",
			"b_copies.vel": "load(\"a.vel\", \"solve\")\n", "b_copies.out": "42\n",
			"c_copies.vel": "load(\"a[1].vel\", \"solve\")\n", "c_copies.out": "42\n",
			"a1.vel":    "def f():\n    return 7\n",
			"d_lib.vel": "load(\"a1.vel\", \"f\")\nprint(f())\n", "d_lib.out": "7\n",
		}, want: map[string]string{"a.vel": "pass", "a[1].vel": "pass",
			"b_copies.vel": "error E318", "c_copies.vel": "error E318", "d_lib.vel": "pass"}},
		{name: "a read", allow: "io,fs:read:.", files: map[string]string{
			"a.vel": solution, "a.out": "42\n",
			"b_reads.vel": "io.print(fs.read(\"a.vel\").rstrip(\"\\n\"))\n", "b_reads.out": solution,
			"c_lib.vel": "io.print(fs.read(\"lib.vel\").rstrip(\"\\n\"))\n", "c_lib.out": "x = 1\n",
			"lib.vel": "x = 1\n",
		}, want: map[string]string{"a.vel": "pass", "b_reads.vel": "error E318", "c_lib.vel": "pass"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			suite, rc := t.TempDir(), t.TempDir()
			for name, text := range tt.files {
				testkit.WriteFile(t, filepath.Join(suite, name), text)
			}
			cmd := exec.Command(bin, "eval", ".", "--json", "--allow", tt.allow, "--receipts", rc)
			cmd.Dir = suite
			got, _, runs := evalGrades(t, cmd, rc)
			for name, w := range tt.want {
				if got[name] != w {
					t.Errorf("%s graded %q, want %q", name, got[name], w)
				}
			}
			if len(runs) != len(tt.want) {
				t.Errorf("%d receipts, want %d", len(runs), len(tt.want))
			}
		})
	}
}

// TestEvalJSONKeepsBytesNotUTF8: a failed program whose output is not
// UTF-8 (a string cut inside a character) has its output's bytes in the
// JSON (actual_raw), so that the document tells it from an expected
// output holding U+FFFD: both read "4\ufffd2\n" as JSON strings, and the
// document said a failed program printed what was expected. The control:
// a failed program whose output is UTF-8 has no raw fields, and one that
// prints its expected é passes.
func TestEvalJSONKeepsBytesNotUTF8(t *testing.T) {
	bin := sablineBin(t)
	suite, rc := t.TempDir(), t.TempDir()
	for name, text := range map[string]string{
		"a_cut.vel": "print(\"4\" + \"\\u00e9\"[0:1] + \"2\")\n", "a_cut.out": "4\ufffd2\n",
		"b_whole.vel": "print(\"4\\u00e9\")\n", "b_whole.out": "4\u00e9\n",
		"c_other.vel": "print(\"x\")\n", "c_other.out": "y\n",
	} {
		testkit.WriteFile(t, filepath.Join(suite, name), text)
	}
	cmd := exec.Command(bin, "eval", suite, "--json", "--allow", "io", "--receipts", rc)
	var out, errs strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	evalEnded(t, cmd, &errs, rc)
	var results []struct {
		Program, Grade, Expected, Actual string
		ExpectedRaw                      []byte `json:"expected_raw"`
		ActualRaw                        []byte `json:"actual_raw"`
	}
	if err := json.Unmarshal([]byte(out.String()), &results); err != nil || len(results) != 3 {
		t.Fatalf("eval's JSON: %d results, %v; it printed %q, %q", len(results), err, out.String(),
			errs.String())
	}
	cut, whole, other := results[0], results[1], results[2]
	if cut.Grade != "fail" || string(cut.ActualRaw) != "4\xc32\n" || cut.ExpectedRaw != nil {
		t.Errorf("the cut output: %s, actual_raw %q, expected_raw %q; want fail, %q and none",
			cut.Grade, cut.ActualRaw, cut.ExpectedRaw, "4\xc32\n")
	}
	if whole.Grade != "pass" {
		t.Errorf("the whole é: %s, want pass", whole.Grade)
	}
	if other.Grade != "fail" || other.Actual != "x\n" || other.ActualRaw != nil ||
		other.ExpectedRaw != nil {
		t.Errorf("the UTF-8 fail: %s, actual %q, raw %q %q; want fail, \"x\\n\", no raw fields",
			other.Grade, other.Actual, other.ActualRaw, other.ExpectedRaw)
	}
}
