package receipt

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// t0 is the start time the receipts of these tests are given, give or take.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// receipt makes a receipt of program started at t0 plus minutes, with the
// given run id, confinement level and outcome status.
func receipt(program, id string, minutes int, level core.Level, status string) *Receipt {
	r := New(program, budget.MustParse("/", "io"), nil)
	r.RunID = id
	r.Timings.Started = t0.Add(time.Duration(minutes) * time.Minute)
	if status != StatusUsage { // a usage run never reached the policy
		r.SetConfinement(core.Result{Level: level, Reason: "as applied"})
	}
	r.Outcome = Outcome{Status: status}
	return r
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestNewReceipt checks what a receipt records before its run starts.
func TestNewReceipt(t *testing.T) {
	dir := testkit.Scratch(t)
	prog := filepath.Join(dir, "main.vel")
	testkit.WriteFile(t, prog, "print(1)\n")
	sum := sha256.Sum256([]byte("print(1)\n"))
	tests := []struct {
		name       string
		program    string
		args       []string
		wantSHA256 string
		wantArgs   []string
	}{
		{name: "a program that exists", program: prog, args: []string{"a"}, wantSHA256: hex.EncodeToString(sum[:]), wantArgs: []string{"a"}},
		{name: "a missing program, no args", program: filepath.Join(dir, "none.vel"), wantSHA256: "", wantArgs: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(tt.program, budget.MustParse(dir, "rand@2,io"), tt.args)
			if r.Schema != Schema || r.Program.Path != tt.program || r.Program.SHA256 != tt.wantSHA256 {
				t.Errorf("receipt %+v, want schema %s, program %s with digest %q", r, Schema, tt.program, tt.wantSHA256)
			}
			if !reflect.DeepEqual(r.Args, tt.wantArgs) {
				t.Errorf("args %#v, want %#v", r.Args, tt.wantArgs)
			}
			if r.Budget != "io,rand@2" {
				t.Errorf("budget %q, want the canonical io,rand@2", r.Budget)
			}
			if r.RunParameters.Confinement != core.None || len(r.RunID) != RunIDLen {
				t.Errorf("confinement %q, run id %q: want none and %d hex digits", r.RunParameters.Confinement, r.RunID, RunIDLen)
			}
		})
	}
	if a, b := New(prog, budget.Budget{}, nil), New(prog, budget.Budget{}, nil); a.RunID == b.RunID {
		t.Errorf("two receipts share the run id %s", a.RunID)
	}
}

// TestReceiptWrite checks that Write leaves exactly the receipt, complete,
// and that Load reads back what was written.
func TestReceiptWrite(t *testing.T) {
	dir := filepath.Join(testkit.Scratch(t), "made", "by", "write")
	r := receipt("/p/main.vel", "0123456789abcdef", 0, core.Full, StatusOK)
	r.Effects = []budget.Usage{{Grant: "io", Uses: 2}}
	r.Faults = []FaultAttempt{{FaultOp: FaultOp{"read", "/x"}, Result: FaultRefused, Errno: "EACCES", Layers: []string{"seccomp"}}}
	p, err := r.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(p) != dir || !strings.HasSuffix(p, ".json") || !strings.Contains(filepath.Base(p), r.RunID) {
		t.Errorf("path %s, want a .json file in %s naming the run id", p, dir)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{filepath.Base(p)}) {
		t.Errorf("the directory holds %q, want only the receipt", names)
	}
	got, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, r) {
		t.Errorf("read back %+v\nwant %+v", got, r)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the directory Write made: %v, %v; want mode 0700", fi.Mode(), err)
	}
}

// TestReceiptWriteFails checks that a receipt that cannot be written is
// E317 and leaves no temporary file behind.
func TestReceiptWriteFails(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string, r *Receipt) string // returns the directory to write to
	}{
		{name: "the directory is a file", setup: func(t *testing.T, dir string, r *Receipt) string {
			testkit.WriteFile(t, filepath.Join(dir, "file"), "x")
			return filepath.Join(dir, "file")
		}},
		{name: "the receipt's name is taken by a directory", setup: func(t *testing.T, dir string, r *Receipt) string {
			p, err := r.Write(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
			testkit.WriteFile(t, filepath.Join(p, "keep"), "x") // a directory that is not empty cannot be renamed over
			return dir
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testkit.Scratch(t)
			r := receipt("/p/main.vel", "feedfacefeedface", 0, core.Full, StatusOK)
			target := tt.setup(t, dir, r)
			before := dirNames(t, dir)
			_, err := r.Write(target)
			testkit.WantError(t, err, codes.E317, "", "receipt")
			if after := dirNames(t, dir); !slices.Equal(after, before) {
				t.Errorf("a failed Write left %q, was %q", after, before)
			}
		})
	}
}

// TestDiffLevels walks runs oldest first; each run is program:level, with
// level "usage" for a run refused for its command line (at level none).
// WEAKER is a change to a level below every earlier one.
func TestDiffLevels(t *testing.T) {
	type change struct {
		Run     string // the run's index in runs
		Earlier []core.Level
		Weaker  bool
	}
	tests := []struct {
		name string
		runs []string
		want []change
	}{
		{name: "full, full, partial: one weaker change", runs: []string{"a:full", "a:full", "a:partial"},
			want: []change{{Run: "2", Earlier: []core.Level{core.Full}, Weaker: true}}},
		{name: "none then full: a change, not weaker", runs: []string{"a:none", "a:full"},
			want: []change{{Run: "1", Earlier: []core.Level{core.None}, Weaker: false}}},
		{name: "the same level throughout", runs: []string{"a:partial", "a:partial", "a:partial"}},
		{name: "a single run", runs: []string{"a:none"}},
		{name: "no runs"},
		{name: "usage runs ignored", runs: []string{"a:full", "a:usage", "a:full"}},
		{name: "a usage run is no earlier level", runs: []string{"a:usage", "a:partial"}},
		{name: "programs tracked apart", runs: []string{"a:full", "b:none", "b:none", "a:full"}},
		{name: "programs tracked apart, each changing", runs: []string{"a:full", "b:none", "a:none", "b:full"},
			want: []change{
				{Run: "2", Earlier: []core.Level{core.Full}, Weaker: true},
				{Run: "3", Earlier: []core.Level{core.None}, Weaker: false},
			}},
		{name: "a level seen before is no change", runs: []string{"a:full", "a:partial", "a:full", "a:partial"},
			want: []change{{Run: "1", Earlier: []core.Level{core.Full}, Weaker: true}}},
		{name: "falling twice", runs: []string{"a:full", "a:partial", "a:none"},
			want: []change{
				{Run: "1", Earlier: []core.Level{core.Full}, Weaker: true},
				{Run: "2", Earlier: []core.Level{core.Full, core.Partial}, Weaker: true},
			}},
		{name: "between two earlier levels is not weaker", runs: []string{"a:full", "a:none", "a:partial"},
			want: []change{
				{Run: "1", Earlier: []core.Level{core.Full}, Weaker: true},
				{Run: "2", Earlier: []core.Level{core.Full, core.None}, Weaker: false},
			}},
		// Levels this Sabline does not know (a later one's, say) rank
		// alike: neither is below the other.
		{name: "between two unknown levels is not weaker", runs: []string{"a:sealed", "a:jailed"},
			want: []change{{Run: "1", Earlier: []core.Level{"sealed"}, Weaker: false}}},
		// A program's text, after @, is its digest. A file's runs are
		// compared as it is edited; text sent to a door or piped in is
		// one program only where the text is the same.
		{name: "a file edited between its runs", runs: []string{"a@1:full", "a@2:partial"},
			want: []change{{Run: "1", Earlier: []core.Level{core.Full}, Weaker: true}}},
		{name: "two texts sent to a door", runs: []string{"<source>@1:full", "<source>@2:partial"}},
		{name: "one text sent to a door twice", runs: []string{"<source>@1:full", "<source>@1:partial"},
			want: []change{{Run: "1", Earlier: []core.Level{core.Full}, Weaker: true}}},
		{name: "two programs piped in", runs: []string{"/dev/stdin@1:full", "/dev/stdin@2:partial"}},
		{name: "one program piped in twice", runs: []string{"/dev/stdin@1:full", "/dev/stdin@1:none"},
			want: []change{{Run: "1", Earlier: []core.Level{core.Full}, Weaker: true}}},
		// A door on Windows names its text with the system's separator (a
		// share here: the cases name a level after a colon).
		{name: "two texts sent to a door on Windows", runs: []string{`\\srv\root\<source>@1:full`,
			`\\srv\root\<source>@2:partial`}},
		{name: "one text sent to a door on Windows twice", runs: []string{`\\srv\root\<source>@1:full`,
			`\\srv\root\<source>@1:partial`},
			want: []change{{Run: "1", Earlier: []core.Level{core.Full}, Weaker: true}}},
		{name: "a file on Windows edited", runs: []string{`\\srv\root\a.vel@1:full`,
			`\\srv\root\a.vel@2:partial`},
			want: []change{{Run: "1", Earlier: []core.Level{core.Full}, Weaker: true}}},
		// sabline run /proc/self/fd/0, as the receipt names it
		{name: "two programs piped in through /proc", runs: []string{"/proc/self/fd/0@1:full",
			"/proc/self/fd/0@2:partial"}},
		{name: "one program piped in twice through /proc", runs: []string{"/proc/self/fd/0@1:full",
			"/proc/self/fd/0@1:partial"},
			want: []change{{Run: "1", Earlier: []core.Level{core.Full}, Weaker: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs []StoredReceipt
			for i, s := range tt.runs {
				prog, level, _ := strings.Cut(s, ":")
				status := StatusOK
				if level == "usage" {
					level, status = string(core.None), StatusUsage
				}
				id := string(rune('0' + i))
				prog, text, _ := strings.Cut(prog, "@")
				path := "/p/" + prog + ".vel"
				if prog == SourceName {
					path = "/p/" + prog
				} else if strings.HasPrefix(prog, "/") || strings.Contains(prog, `\`) {
					path = prog
				}
				r := receipt(path, id, i, core.Level(level), status)
				r.Program.SHA256 = text
				runs = append(runs, StoredReceipt{Path: id + ".json", Receipt: r})
			}
			var got []change
			for _, c := range DiffLevels(runs) {
				got = append(got, change{Run: c.Run.RunID, Earlier: c.Earlier, Weaker: c.Weaker})
				if s := c.String(); !strings.Contains(s, c.Run.RunID+" "+c.Run.Program.Path) || strings.Contains(s, "WEAKER") != c.Weaker {
					t.Errorf("String() = %q does not name the run or says WEAKER wrongly", s)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DiffLevels = %+v, want %+v", got, tt.want)
			}
		})
	}
}
