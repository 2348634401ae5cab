package kernelreport

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
)

// committedGlob finds the committed kernel reports.
const committedGlob = "../tests/confine/kernel-*.json"

// schema2Path is the report of schema /2 the tree once committed.
const schema2Path = "testdata/kernel-linux-schema2.json"

// committed reads every committed report, and fails without one.
func committed(t testing.TB) []Named {
	t.Helper()
	paths, err := filepath.Glob(committedGlob)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no committed kernel report (%s): %v", committedGlob, err)
	}
	var out []Named
	for _, p := range paths {
		r, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Named{Report: r, Source: p})
	}
	return out
}

// TestCommittedReports: each committed report is of Schema, reads and is
// written again byte for byte, and names for each target a row of the
// ENFORCES table.
func TestCommittedReports(t *testing.T) {
	for _, n := range committed(t) {
		t.Run(filepath.Base(n.Source), func(t *testing.T) {
			if n.Schema != Schema {
				t.Errorf("schema %q, want %q", n.Schema, Schema)
			}
			data, err := os.ReadFile(n.Source)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(n.JSON(), data) {
				t.Errorf("the report read and written again differs from the file")
			}
			for _, tg := range n.Targets {
				if _, ok := confine.EnforcesRow(tg.Row); tg.Row != "" && !ok {
					t.Errorf("target %s names the row %q, which ENFORCES has not", tg.ID, tg.Row)
				}
			}
		})
	}
}

// TestOldSchemas: a report of schema /2 or /3 reads, its targets name no
// row (whatever the file says), and its cells' evidence is not recorded.
func TestOldSchemas(t *testing.T) {
	r2, err := Read(schema2Path)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Schema != Schema2 || r2.I386Entry != nil || len(r2.Targets) == 0 || r2.recordsRows() {
		t.Errorf("schema /2: read %q, i386 entry %v, %d targets, rows %v", r2.Schema, r2.I386Entry,
			len(r2.Targets), r2.recordsRows())
	}
	now := committed(t)[0]
	old := strings.Replace(string(now.JSON()), `"schema": "`+Schema+`"`, `"schema": "`+Schema3+`"`, 1)
	r3, err := Parse([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range r3.Targets {
		if tg.Row != "" {
			t.Fatalf("schema /3: target %s has the row %q", tg.ID, tg.Row)
		}
	}
	for _, r := range []Report{r2, r3} {
		if e := cellEvidence("no-fs", &r); e.State != NotRecorded || e.String() != textNotRecorded {
			t.Errorf("%s: the evidence of a cell is %q (%s), want not recorded", r.Schema, e, e.State)
		}
	}
}

// TestParseRefuses: what is not a kernel report, or is one out of
// bounds, is refused with a message that says why; Read's error is E333.
func TestParseRefuses(t *testing.T) {
	target := func(id string) string {
		return fmt.Sprintf(`{"id":%q,"group":"files","threat":"x","expected":null,`+
			`"observed":{"stopped_by":"seccomp","errno":"EPERM"},"witness":{"kind":"none"},`+
			`"layers_alone":null}`, id)
	}
	report := func(schema, goos, targets string) string {
		return fmt.Sprintf(`{"schema":%q,"os":%q,"kernel":"6.1","landlock_abi":7,"build":{"knockout":true},"targets":%s}`,
			schema, goos, targets)
	}
	// stopped is a target a layer stopped, with a files witness: what the
	// confined run and the control changed of it.
	stopped := func(by, confined, unconfined string) string {
		return fmt.Sprintf(`{"id":"w","group":"files","threat":"x","expected":null,`+
			`"observed":{"stopped_by":%q,"errno":"EACCES"},"witness":{"kind":"files","confined":%s,"unconfined":%s},`+
			`"layers_alone":null}`, by, confined, unconfined)
	}
	made := `["files:outside/planted.txt: made"]`
	i386 := strings.Replace(target("i"), `"group"`, `"entry":"i386","group"`, 1)
	victim := `{"id":"v","group":"processes","threat":"x","expected":null,` +
		`"observed":{"stopped_by":"landlock","errno":""},"witness":{"kind":"victim","confined":[],` +
		`"unconfined":["victim: alive"]},"layers_alone":null}`
	many := make([]string, MaxTargets+1)
	for i := range many {
		many[i] = fmt.Sprintf(`{"id":"t%d"}`, i)
	}
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "not a kernel report"},
		{"not JSON", "schema: 4", "not a kernel report"},
		{"an array", "[]", "not a kernel report"},
		{"JSON after the report", report(Schema, "linux", "[]") + "{}", "not a kernel report"},
		{"an unknown schema", report("sabline.kernel-report/9", "linux", "[]"),
			`schema "sabline.kernel-report/9"`},
		{"no schema", `{"os":"linux","targets":[]}`, `schema ""`},
		{"an unknown system", report(Schema, "plan9", "[]"),
			`os "plan9": want one of linux, darwin, windows`},
		{"no targets", report(Schema, "linux", "null"), "no targets"},
		{"targets not an array", report(Schema, "linux", `{"id":"a"}`), "targets: want an array"},
		{"a target of the wrong type", report(Schema, "linux", `[{"id":1}]`),
			"target 1: json: cannot unmarshal"},
		{"a target with no id", report(Schema, "linux", "["+target("")+"]"), "target 1 has no id"},
		{"a target twice", report(Schema, "linux", "["+target("a")+","+target("a")+"]"),
			`target "a" is in the report twice`},
		{"too many targets", report(Schema, "linux", "["+strings.Join(many, ",")+"]"),
			fmt.Sprintf("more than %d targets", MaxTargets)},
		{"too large", report(Schema, "linux", "[]") + strings.Repeat(" ", MaxBytes), "larger than 16 MiB"},
		{"a build that is not a knock-out build", strings.Replace(report(Schema, "linux", "["+target("a")+"]"),
			`"knockout":true`, `"knockout":false`, 1), "not a knock-out build"},
		{"a stop credited to no layer", report(Schema, "linux", "["+stopped("skipped", "[]", made)+"]"),
			`stopped by "skipped", which is no layer of linux`},
		{"a stop credited to another system's layer", report(Schema, "linux", "["+stopped("sandbox-profile", "[]", made)+"]"),
			`stopped by "sandbox-profile", which is no layer of linux`},
		{"a stop whose witness changed", report(Schema, "linux", "["+stopped("landlock", made, made)+"]"),
			"yet the confined run changed its files witness"},
		{"a stop whose control changed nothing", report(Schema, "linux", "["+stopped("landlock", "[]", "[]")+"]"),
			"yet the control changed no files witness"},
		{"a stop whose control is missing", report(Schema, "linux", "["+stopped("landlock", "[]", "null")+"]"),
			"yet the control changed no files witness"},
		{"a stop with no errno", report(Schema, "linux", "["+strings.Replace(target("a"), `"EPERM"`,
			`""`, 1)+"]"), `stopped by seccomp, which on linux answers no call with ""`},
		{"a stop with an errno its layer does not answer", report(Schema, "linux",
			"["+strings.Replace(target("a"), `"EPERM"`, `"ENOENT"`, 1)+"]"),
			`stopped by seccomp, which on linux answers no call with "ENOENT"`},
		{"another layer's errno", report(Schema, "linux", "["+stopped("seccomp", "[]", made)+"]"),
			`stopped by seccomp, which on linux answers no call with "EACCES"`},
		{"EPROTONOSUPPORT in a report of schema /4", report(Schema, "linux",
			"["+strings.Replace(target("a"), `"EPERM"`, `"EPROTONOSUPPORT"`, 1)+"]"),
			`answers no call with "EPROTONOSUPPORT"`},
		{"a scope's stop with no victim", report(Schema, "linux", "["+strings.Replace(
			stopped("landlock", "[]", made), `"EACCES"`, `""`, 1)+"]"),
			`stopped by landlock, which on linux answers no call with ""`},
		{"an i386 target refused where the kernel offers no i386 entry",
			strings.Replace(report(Schema, "linux", "["+i386+"]"), `"targets"`, `"i386_entry":false,"targets"`, 1),
			"the report says this kernel does not offer, yet seccomp EPERM, not unavailable"},
		{"a stop credited to a layer that alone did not stop it", report(Schema, "linux",
			"["+strings.Replace(target("a"), `"layers_alone":null`,
				`"layers_alone":{"capabilities":true,"landlock":false,"seccomp":false}`, 1)+"]"),
			"yet seccomp alone did not stop it"},
		{"a row that is no row", report(Schema, "linux", "["+strings.Replace(target("a"), `"group"`,
			`"row":"fs-write-dirx","group"`, 1)+"]"), `row "fs-write-dirx" is no row of the enforcement table`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse: %v; want an error with %q", err, tt.want)
			}
		})
	}
	for _, control := range []string{report(Schema, "linux", "["+target("a")+"]"),
		report(Schema, "linux", "["+stopped("landlock", "[]", made)+"]"),
		strings.Replace(report(Schema, "darwin", "["+target("a")+"]"), "seccomp", "sandbox-profile", 1),
		report(Schema, "linux", "["+strings.Replace(target("a"), `"EPERM"`, `"ENOSYS"`, 1)+"]"),
		report(Schema, "linux", "["+victim+"]"),
		report(Schema, "linux", "["+strings.Replace(target("a"), `"layers_alone":null`,
			`"layers_alone":{"capabilities":true,"landlock":false,"seccomp":true}`, 1)+"]"),
		report(Schema, "linux", "["+strings.Replace(target("a"), `"layers_alone":null`,
			`"layers_alone":{"seccomp":true}`, 1)+"]"),
		report(Schema2, "linux", "["+strings.Replace(target("a"), `"EPERM"`, `"EPROTONOSUPPORT"`, 1)+"]"),
		strings.Replace(report(Schema, "linux", "["+i386+"]"), `"targets"`, `"i386_entry":true,"targets"`, 1),
		strings.Replace(report(Schema, "linux", "["+strings.Replace(i386, `"seccomp","errno":"EPERM"`,
			`"unavailable","errno":""`, 1)+"]"), `"targets"`, `"i386_entry":false,"targets"`, 1)} {
		if _, err := Parse([]byte(control)); err != nil {
			t.Errorf("the control, a report of one target, is refused: %v\n%s", err, control)
		}
	}
}

// TestReadBounds: Read reads no more than MaxBytes and one more, and
// every error it returns is E333; a missing file wraps fs.ErrNotExist.
func TestReadBounds(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, bytes.Repeat([]byte(" "), MaxBytes+10), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read(big)
	if codes.CodeOf(err) != codes.E333 || !strings.Contains(err.Error(), "larger than 16 MiB") ||
		!strings.Contains(err.Error(), big) {
		t.Errorf("Read of a file past the bound: %v; want E333 naming it and the bound", err)
	}
	_, err = Read(filepath.Join(dir, "missing.json"))
	if codes.CodeOf(err) != codes.E333 || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read of a missing file: %v; want E333 wrapping fs.ErrNotExist", err)
	}
}
