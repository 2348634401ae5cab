package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// TestRecordBounds: a worker's record whose outcome is past the bounds
// the worker holds every outcome to (codes.Error.Bounded) is not one it
// could have sent; the outcome the worker makes of the same error, 45,000
// frames deep with a message of two megabytes, is the control.
func TestRecordBounds(t *testing.T) {
	deep := &codes.Error{Code: codes.E302, Msg: strings.Repeat("m", 2<<20), Pos: "/p.vel:3:1"}
	for range 45000 {
		deep.Stack = append(deep.Stack, "/p.vel:3:1 in f")
	}
	bounded := receipt.OutcomeOf(deep)
	tests := []struct {
		name    string
		edit    func(o *receipt.Outcome)
		wantErr string // "" for a record check takes
	}{
		{name: "the outcome the worker makes", edit: func(*receipt.Outcome) {}},
		{name: "a message past the bound", edit: func(o *receipt.Outcome) { o.Message = deep.Msg }, wantErr: "a message of"},
		{name: "every frame", edit: func(o *receipt.Outcome) { o.Stack = deep.Stack }, wantErr: "45000 frames"},
		{name: "a frame past the bound", edit: func(o *receipt.Outcome) { o.Stack = []string{strings.Repeat("f", 2<<10)} },
			wantErr: "a frame of 2048 bytes"},
		{name: "a position past the bound", edit: func(o *receipt.Outcome) { o.Position = strings.Repeat("p", 2<<10) },
			wantErr: "a position of 2048"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := bounded
			tt.edit(&o)
			err := (&Record{Outcome: o}).Check()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("check: %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestParseJobResult: a result line is taken whole or not at all.
func TestParseJobResult(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		wantErr string // "" when it is taken
	}{
		{name: "ok", line: `{"outcome":{"status":"ok","exit_status":0},"stdout":"aGVsbG8K"}`},
		{name: "no status", line: `{"outcome":{}}`, wantErr: "without a status"},
		{name: "unknown code", line: `{"outcome":{"status":"failed","code":"E999","exit_status":1}}`, wantErr: "E999"},
		{name: "exit status out of range", line: `{"outcome":{"status":"ok","exit_status":300}}`, wantErr: "300"},
		{name: "two records", line: `{"outcome":{"status":"ok"}} {"outcome":{"status":"ok"}}`, wantErr: "something after the result"},
		{name: "a brace after it", line: `{"outcome":{"status":"ok"}}}`, wantErr: "something after the result"},
		{name: "white space after it", line: "{\"outcome\":{\"status\":\"ok\"}} \t\n"},
		{name: "not JSON", line: `hello`, wantErr: "want '{'"},
		{name: "cut in a \\u escape", line: `{"outcome":{"status":"\u123`, wantErr: `want \u and four`},
		{name: "cut after a backslash", line: `{"outcome":{"status":"\`,
			wantErr: "a string without its end"},
		{name: "cut in the low half of a pair", line: `{"outcome":{"status":"\ud83d\ude0`,
			wantErr: `want \u and four`},
		{name: "an escape of its own (the control)", line: `{"outcome":{"status":"\u006fk"}}`},
		{name: "a field no result has", line: `{"outcome":{"status":"ok"},"level":"full"}`,
			wantErr: `no field "level"`},
		{name: "an unknown status", line: `{"outcome":{"status":"great"}}`, wantErr: "unknown status"},
		{name: "a time", line: `{"outcome":{"status":"ok"},"timings":{"run_ms":-1.5E-3,"compile_ms":0}}`},
		{name: "a time past float64", line: `{"outcome":{"status":"ok"},"timings":{"run_ms":1e400}}`,
			wantErr: "does not fit"},
		{name: "a time without its fraction", line: `{"outcome":{"status":"ok"},"timings":{"run_ms":1.}}`,
			wantErr: "want the digits of a fraction"},
		{name: "a time without its exponent", line: `{"outcome":{"status":"ok"},"timings":{"run_ms":1e+}}`,
			wantErr: "want the digits of an exponent"},
		{name: "a time without its whole part", line: `{"outcome":{"status":"ok"},"timings":{"run_ms":.5}}`,
			wantErr: "want the digits of a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := []byte(tt.line)
			// No byte past the line may be read: a read past it panics.
			_, err := ParseJobResult(line[:len(line):len(line)])
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("parseJobResult: %v, want it taken", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("parseJobResult: %v, want an error naming %q", err, tt.wantErr)
			}
		})
	}
}

// TestReadLineBound: a line longer than the bound is refused, one at the
// bound is read.
func TestReadLineBound(t *testing.T) {
	for _, tt := range []struct {
		name    string
		n       int
		wantErr bool
	}{{name: "at the bound", n: 100}, {name: "past it", n: 101, wantErr: true}} {
		t.Run(tt.name, func(t *testing.T) {
			line := strings.Repeat("x", tt.n-1) + "\n"
			got, err := ReadLine(bufio.NewReaderSize(strings.NewReader(line), 16), 100)
			if (err != nil) != tt.wantErr || (err == nil && string(got) != line) {
				t.Errorf("readLine: %q, %v; want error %v", got, err, tt.wantErr)
			}
		})
	}
}

// FuzzJobResult: whatever a worker writes on its result pipe, the
// supervisor reads at most the bound of a line and takes only a result
// that passes its check, a line that is one JSON value.
func FuzzJobResult(f *testing.F) {
	for _, seed := range []string{
		`{"outcome":{"status":"ok","exit_status":0},"files":[{"path":"/p.vel","sha256":"aa"}],"stdout":"aGVsbG8K"}` + "\n",
		`{"outcome":{"status":"failed","code":"E302","message":"m","exit_status":1},"effects":[]}` + "\n",
		`{"outcome":{"status":"ok"},"stdout":"!!!"}` + "\n",
		`{"outcome":{"status":"timeout","code":"E307","exit_status":124},"clipped":true}` + "\n",
		"\n", "{", `{"outcome":{"status":"ok"}}{"x":1}` + "\n", `{"outcome":{"status":"ok"}}}` + "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		line, err := ReadLine(bufio.NewReader(bytes.NewReader(raw)), 4096)
		if err != nil {
			return
		}
		if len(line) > 4096 {
			t.Fatalf("readLine returned %d bytes past its bound", len(line))
		}
		r, err := ParseJobResult(line)
		if err != nil {
			return
		}
		if err := r.Check(); err != nil {
			t.Fatalf("parseJobResult took a result that fails its check: %v", err)
		}
		var ref JobResult
		if err := json.Unmarshal(line, &ref); err != nil || !reflect.DeepEqual(r, ref) {
			t.Fatalf("parseJobResult took %q as\n%#v\nencoding/json reads\n%#v (%v)", line, r, ref, err)
		}
	})
}

// TestReadResults: what a program that can write on the result pipe (raw
// system calls under ffi:ctypes) can and cannot make a receipt say.
func TestReadResults(t *testing.T) {
	full := core.Result{Level: core.Full, Reason: "held", Layers: []string{"seccomp"}}
	none := core.Result{Level: core.None, Reason: "forged", Layers: []string{}}
	pre := Record{Confinement: full, Files: []program.FileDigest{{Path: "/p.vel", SHA256: "aa"}}}
	ok := receipt.Outcome{Status: receipt.StatusOK, ExitStatus: 0}
	failed := receipt.Outcome{Status: receipt.StatusFailed, Code: codes.E302, ExitStatus: 1}
	tests := []struct {
		name            string
		records         []Record
		wantFinal       bool
		wantAfter       bool // the final record taken is not the first: the program could have written it
		wantLevel       core.Level
		wantStatus      string
		wantFile        string
		wantFaultsCount int
	}{
		{name: "confined, then the worker's own final record",
			records:   []Record{pre, {Confinement: full, Outcome: failed}},
			wantFinal: true, wantAfter: true, wantLevel: core.Full, wantStatus: receipt.StatusFailed, wantFile: "/p.vel"},
		{name: "a run that ended before it was confined: one final record",
			records:   []Record{{Confinement: none, Outcome: failed}},
			wantFinal: true, wantLevel: core.None, wantStatus: receipt.StatusFailed},
		{name: "a forged record after the first cannot change the confinement, files or faults",
			records: []Record{pre,
				{Confinement: none, Files: []program.FileDigest{{Path: "/other.vel"}}, Faults: []receipt.FaultAttempt{{Result: receipt.FaultWent}}, Outcome: ok},
				{Confinement: full, Outcome: failed}},
			wantFinal: true, wantAfter: true, wantLevel: core.Full, wantStatus: receipt.StatusFailed, wantFile: "/p.vel"},
		{name: "the last final record is the worker's own",
			records:   []Record{pre, {Outcome: ok}, {Outcome: failed}},
			wantFinal: true, wantAfter: true, wantLevel: core.Full, wantStatus: receipt.StatusFailed, wantFile: "/p.vel"},
		{name: "killed after it was confined: the level stays, no outcome",
			records:   []Record{pre},
			wantFinal: false, wantLevel: core.Full, wantFile: "/p.vel"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, final, after, bad := ReadResults(record(t, tc.records...))
			if bad != nil {
				t.Errorf("bad = %v, want none", bad)
			}
			if final != tc.wantFinal || after != tc.wantAfter {
				t.Errorf("final, after = %v, %v; want %v, %v", final, after, tc.wantFinal, tc.wantAfter)
			}
			if res.Confinement.Level != tc.wantLevel {
				t.Errorf("level = %q, want %q", res.Confinement.Level, tc.wantLevel)
			}
			if res.Outcome.Status != tc.wantStatus {
				t.Errorf("status = %q, want %q", res.Outcome.Status, tc.wantStatus)
			}
			if got := ""; len(res.Files) > 0 {
				got = res.Files[0].Path
				if got != tc.wantFile {
					t.Errorf("file = %q, want %q", got, tc.wantFile)
				}
			} else if tc.wantFile != "" {
				t.Errorf("no files, want %q", tc.wantFile)
			}
			if len(res.Faults) != tc.wantFaultsCount {
				t.Errorf("%d fault attempts, want %d", len(res.Faults), tc.wantFaultsCount)
			}
		})
	}
}

// FuzzReadResults: whatever bytes a worker writes on its result pipe, the
// supervisor's reading of them ends, and what it takes passes check.
func FuzzReadResults(f *testing.F) {
	for _, seed := range []string{
		`{"outcome":{"status":"ok","exit_status":0},"confinement":{"level":"full","reason":"held","layers":["seccomp"]}}` + "\n",
		`{"outcome":{"status":""},"confinement":{"level":"full"},"files":[{"path":"/p.vel","sha256":"aa"}]}` + "\n" + `{"outcome":{"status":"failed","code":"E302","exit_status":1}}` + "\n",
		`{"outcome":{"status":"ok","exit_status":-1}}`,
		`{"outcome":{"status":"ok","code":"E999"}}`,
		`{"confinement":{"level":"maximal"}}`,
		`{"outcome":`,
		`[]`,
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) > MaxResultBytes {
			raw = raw[:MaxResultBytes]
		}
		res, final, after, bad := ReadResults(raw)
		if err := res.Check(); err != nil {
			t.Fatalf("readResults took a record that fails check: %v", err)
		}
		if final && res.Outcome.Status == "" {
			t.Fatal("final with no status")
		}
		if after && !final {
			t.Fatal("a record taken after the first that is not final")
		}
		if bad == nil && len(bytes.TrimSpace(raw)) > 0 && json.Valid(raw) == false && !final && res.Confinement.Level == "" && len(res.Files) == 0 {
			// nothing was taken from bytes that are not JSON: fine
			return
		}
	})
}
func record(t *testing.T, rs ...Record) []byte {
	t.Helper()
	var out []byte
	for _, r := range rs {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, b...), '\n')
	}
	return out
}

// TestJobResultCutChecked: a pool worker's result says how much its
// program printed (StdoutBytes) only when it kept less than that, and
// then it kept MaxPoolOutputBytes: one that says a cut of nothing, a
// count without a cut, a cut short of the bound or a negative count is
// not a result a worker could have sent, and the receipt would say a cut
// that did not happen. The controls: a result cut at the bound, with
// what was printed, and one kept whole, are taken.
func TestJobResultCutChecked(t *testing.T) {
	ok := receipt.Outcome{Status: receipt.StatusOK}
	full := bytes.Repeat([]byte("x"), MaxPoolOutputBytes)
	for _, tc := range []struct {
		name    string
		r       JobResult
		refused bool
	}{
		{name: "kept whole", r: JobResult{Outcome: ok, Stdout: []byte("hello\n")}},
		{name: "cut at the bound", r: JobResult{Outcome: ok, Stdout: full, Clipped: true,
			StdoutBytes: 3 * MaxPoolOutputBytes}},
		{name: "a cut of nothing", r: JobResult{Outcome: ok, Stdout: full, Clipped: true,
			StdoutBytes: MaxPoolOutputBytes}, refused: true},
		{name: "a count without a cut", r: JobResult{Outcome: ok, Stdout: []byte("hello\n"),
			StdoutBytes: 100}, refused: true},
		{name: "a cut short of the bound", r: JobResult{Outcome: ok, Stdout: full[:100], Clipped: true,
			StdoutBytes: 3 * MaxPoolOutputBytes}, refused: true},
		{name: "a negative count", r: JobResult{Outcome: ok, Stdout: []byte("hello\n"),
			StdoutBytes: -1}, refused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.r.Check()
			if (err != nil) != tc.refused || err != nil && !strings.Contains(err.Error(),
				"not what a worker keeps") {
				t.Errorf("Check: %v; want it refused as not what a worker keeps: %v", err, tc.refused)
			}
		})
	}
}

// TestAppendLineBound: AppendLine holds the line it reads, not what it
// is appended to, to the bound: after a line kept in the same buffer, a
// line at the bound is read, and one past it refused, as ReadLine does.
func TestAppendLineBound(t *testing.T) {
	kept := []byte("a line read before\n")
	for _, tt := range []struct {
		name    string
		n       int
		wantErr bool
	}{{name: "at the bound", n: 100}, {name: "past it", n: 101, wantErr: true}} {
		t.Run(tt.name, func(t *testing.T) {
			line := strings.Repeat("x", tt.n-1) + "\n"
			got, err := AppendLine(bytes.Clone(kept), bufio.NewReaderSize(strings.NewReader(line), 16), 100)
			if (err != nil) != tt.wantErr || (err == nil && string(got) != string(kept)+line) {
				t.Errorf("AppendLine: %q, %v; want error %v", got, err, tt.wantErr)
			}
		})
	}
}
