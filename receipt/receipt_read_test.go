package receipt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestLoadReceiptRefuses checks that only a regular file of this schema,
// with a run id and within MaxBytes, loads, and that each refusal
// says what the file is instead.
func TestLoadReceiptRefuses(t *testing.T) {
	big := `{"schema":"` + Schema + `","run_id":"a","args":["` + strings.Repeat("x", MaxBytes) + `"]}`
	tests := []struct {
		name    string
		content string // "" for no file at all
		wantMsg string
	}{
		{name: "missing", content: "", wantMsg: "read receipt"},
		{name: "not JSON", content: "receipt\n", wantMsg: "is not a receipt: invalid character"},
		{name: "empty object", content: "{}", wantMsg: `is not a receipt: it has schema "", want "` + Schema + `"`},
		{name: "another schema", content: `{"schema": "sabline.receipt/0"}`, wantMsg: `it has schema "sabline.receipt/0"`},
		{name: "no run id", content: `{"schema": "` + Schema + `"}`, wantMsg: "it has no run_id"},
		{name: "a durability of no Sabline's", content: `{"schema": "` + Schema +
			`", "run_id": "a", "run_parameters": {"durability": "eventually"}}`,
			wantMsg: `its durability "eventually" is none of Sabline's`},
		{name: "a window below zero", content: `{"schema": "` + Schema + `", "run_id": "a", ` +
			`"run_parameters": {"durability": "background", "durability_window_ms": -1}}`,
			wantMsg: `a durability window of -1 ms with durability "background"`},
		{name: "a window of a flushed receipt", content: `{"schema": "` + Schema + `", "run_id": "a", ` +
			`"run_parameters": {"durability": "flush", "durability_window_ms": 10}}`,
			wantMsg: `a durability window of 10 ms with durability "flush"`},
		{name: "too large", content: big, wantMsg: "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(testkit.Scratch(t), "r.json")
			if tt.content != "" {
				testkit.WriteFile(t, p, tt.content)
			}
			r, err := Load(p)
			testkit.WantError(t, err, codes.E317, "", tt.wantMsg)
			if r != nil {
				t.Errorf("Load returned %+v", r)
			}
		})
	}
	// The positive controls: a background receipt's window loads, and a
	// receipt one byte under the bound.
	p := filepath.Join(testkit.Scratch(t), "r.json")
	testkit.WriteFile(t, p, `{"schema":"`+Schema+`","run_id":"a","run_parameters":`+
		`{"durability":"background","durability_window_ms":10}}`)
	if r, err := Load(p); err != nil || r.RunParameters.DurabilityWindowMS != 10 {
		t.Errorf("a background receipt with its window: %v, %v", r, err)
	}
	pad := MaxBytes - len(`{"schema":"`+Schema+`","run_id":"a","args":[""]}`)
	testkit.WriteFile(t, p, `{"schema":"`+Schema+`","run_id":"a","args":["`+strings.Repeat("x", pad)+`"]}`)
	if _, err := Load(p); err != nil {
		t.Errorf("a receipt of exactly MaxBytes: %v", err)
	}
}

// TestScanReceipts checks Scan' order, that a file that is not a
// receipt is named and passed over while the others are read, and what it
// passes over without naming.
func TestScanReceipts(t *testing.T) {
	dir := testkit.Scratch(t)
	paths := writeRuns(t, dir)
	testkit.WriteFile(t, filepath.Join(dir, "notes.txt"), "not a receipt")
	testkit.WriteFile(t, filepath.Join(dir, ".receipt-123"), "a temporary file")
	testkit.WriteFile(t, filepath.Join(dir, ".hidden.json"), "{}")
	testkit.WriteFile(t, filepath.Join(dir, "stray.json"), "{}")
	testkit.WriteFile(t, filepath.Join(dir, "broken.json"), "{")
	if err := os.Mkdir(filepath.Join(dir, "sub.json"), 0o700); err != nil {
		t.Fatal(err)
	}

	runs, skipped, err := Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.RunID)
		if r.Path != paths[r.RunID] {
			t.Errorf("%s: path %s, want %s", r.RunID, r.Path, paths[r.RunID])
		}
	}
	if want := []string{"2abc000000000000", "def0000000000000", "2abd000000000000"}; !slices.Equal(ids, want) {
		t.Errorf("Scan order %q, want oldest first %q", ids, want)
	}
	var names []string
	for _, s := range skipped {
		names = append(names, filepath.Base(s.Path)+": "+s.Why)
	}
	if want := []string{"broken.json: unexpected end of JSON input", `stray.json: it has schema "", want "` + Schema + `"`}; !slices.Equal(names, want) {
		t.Errorf("skipped %q, want %q", names, want)
	}
	if listed, err := List(dir); err != nil || len(listed) != len(runs) {
		t.Errorf("List: %d runs, %v; want the %d Scan reads", len(listed), err, len(runs))
	}
	if got, skipped, err := Scan(filepath.Join(dir, "none")); err != nil || got != nil || skipped != nil {
		t.Errorf("a missing directory scans to %+v, %+v, %v; want nothing and no error", got, skipped, err)
	}
	notDir := filepath.Join(dir, "notes.txt")
	_, _, err = Scan(notDir)
	testkit.WantError(t, err, codes.E317, "", "list receipts")
	if e, _ := err.(*codes.Error); e == nil || !strings.Contains(e.Hint(), "directory you can read") {
		t.Errorf("the hint of an unreadable directory: %v", err)
	}
}

// writeRuns writes three receipts whose file names are not in the order
// of their starts and whose ids share prefixes, and returns their paths by
// run id.
func writeRuns(t *testing.T, dir string) map[string]string {
	t.Helper()
	paths := map[string]string{}
	for _, r := range []*Receipt{
		receipt("/p/a.vel", "2abd000000000000", 20, core.Full, StatusOK),
		receipt("/p/a.vel", "2abc000000000000", 0, core.Full, StatusOK),
		receipt("/p/b.vel", "def0000000000000", 10, core.Partial, StatusFailed),
	} {
		written, err := r.Write(dir)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "run-"+r.RunID+".json")
		if err := os.Rename(written, p); err != nil {
			t.Fatal(err)
		}
		paths[r.RunID] = p
	}
	return paths
}

// TestPickReceipt checks that a run is named by its id, a unique prefix of
// it, or last, never by its file name, and what each refusal says to do.
func TestPickReceipt(t *testing.T) {
	dir := testkit.Scratch(t)
	writeRuns(t, dir)
	runs, _, err := Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		id       string
		wantID   string // "" for an error
		wantCode codes.Code
		wantMsg  string
		wantDo   string
	}{
		{name: "whole run id", id: "def0000000000000", wantID: "def0000000000000"},
		{name: "unique prefix", id: "2abd", wantID: "2abd000000000000"},
		{name: "last is the newest start", id: LastRun, wantID: "2abd000000000000"},
		{name: "ambiguous prefix", id: "2ab", wantCode: codes.E317, wantMsg: `2 run ids begin with "2ab": 2abc000000000000, 2abd000000000000`, wantDo: "Give more of the run id"},
		{name: "the date of a file name", id: "20", wantCode: codes.E317, wantMsg: `no run id is or begins with "20"`, wantDo: "receipts list` shows the run ids"},
		{name: "a file name", id: "run-def", wantCode: codes.E317, wantMsg: `no run id is or begins with "run-def"`},
		{name: "empty", id: "", wantCode: codes.E301, wantMsg: "the run id is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Pick(runs, tt.id)
			if tt.wantID != "" {
				if err != nil || got.RunID != tt.wantID {
					t.Fatalf("Pick(%q) = %s, %v; want %s", tt.id, got.RunID, err, tt.wantID)
				}
				return
			}
			testkit.WantError(t, err, tt.wantCode, "", tt.wantMsg)
			if e, _ := err.(*codes.Error); e != nil && !strings.Contains(e.Hint(), tt.wantDo) {
				t.Errorf("hint %q, want it to say %q", e.Hint(), tt.wantDo)
			}
		})
	}
	_, err = Pick(nil, LastRun)
	testkit.WantError(t, err, codes.E317, "", `no receipts to find "last" in: the directory holds none`)
	if got, err := Find(dir, "def"); err != nil || got.RunID != "def0000000000000" {
		t.Errorf("Find(def) = %s, %v", got.RunID, err)
	}
}

// FuzzParseReceipt feeds parseReceipt, what Load does with a file's
// bytes, arbitrary input: it must not panic, and whatever it accepts has
// this schema and a run id, survives being encoded again, names only
// fields a worker reports as reported, and says what its parts are.
func FuzzParseReceipt(f *testing.F) {
	good, err := json.Marshal(receipt("/p/a.vel", "abc", 0, core.Full, StatusOK))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		string(good), "{}", "{", "", "null", "[]", `"x"`,
		`{"schema":"` + Schema + `","run_id":"a"}`,
		`{"schema":"` + Schema + `","run_id":"a","timings":{"started":"not a time"}}`,
		`{"schema":"` + Schema + `","run_id":"a","outcome":{"exit_status":1e400}}`,
		`{"schema":"` + Schema + `","run_id":"\u001b]52;c;aGk=\u0007","program":{"path":"\r sabline: ok"}}`,
		`{"schema":"` + Schema + `","run_id":"a","effects":[{"grant":"io","uses":-1}],"later_field":{"x":[1,2]}}`,
		`{"schema":"` + Schema + `","run_id":"a","run_parameters":{"durability":"background","durability_window_ms":10}}`,
		`{"schema":"` + Schema + `","run_id":"a","run_parameters":{"durability":"none","durability_window_ms":1e3}}`,
		// The two parts: an older receipt has neither; a field no worker
		// reports, or fields of another shape, is not a receipt.
		`{"schema":"` + Schema + `","run_id":"a","observed":{"exit_status":0,"signal":"killed","max_rss_kb":-1,"stdout_bytes":1e30},` +
			`"reported":{"fields":["outcome","effects","timings.worker"],"testimony":"ffi:ctypes is granted"}}`,
		`{"schema":"` + Schema + `","run_id":"a","reported":{"fields":["outcome","run_parameters"]}}`,
		`{"schema":"` + Schema + `","run_id":"a","reported":{"fields":[null,7]},"observed":[]}`,
		`{"schema":"` + Schema + `","run_id":"a","reported":null,"observed":null}`,
		// Arguments cut past the bound, and fields of another shape.
		`{"schema":"` + Schema + `","run_id":"a","args":["x"],"args_cut":{"sha256":"00","count":2,` +
			`"bytes":70000,"kept_count":1,"kept_bytes":1}}`,
		`{"schema":"` + Schema + `","run_id":"a","args_cut":{"sha256":"\u001b[2J","count":-1}}`,
		`{"schema":"` + Schema + `","run_id":"a","args_cut":[]}`,
		// Each durability, one of no Sabline's, and one of another shape.
		`{"schema":"` + Schema + `","run_id":"a","run_parameters":{"durability":"none"}}`,
		`{"schema":"` + Schema + `","run_id":"a","run_parameters":{"durability":"Flush"}}`,
		`{"schema":"` + Schema + `","run_id":"a","run_parameters":{"durability":1}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := parseReceipt("r.json", data)
		if err != nil {
			if codes.CodeOf(err) != codes.E317 {
				t.Fatalf("error %v is not E317", err)
			}
			return
		}
		if r.Schema != Schema || r.RunID == "" {
			t.Fatalf("accepted a receipt with schema %q and run id %q", r.Schema, r.RunID)
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("an accepted receipt does not encode: %v", err)
		}
		if err := r.Reported.check(); err != nil {
			t.Fatalf("accepted a receipt whose reported part fails its check: %v", err)
		}
		if r.Testimony() != "" && (r.Older() || len(r.Reported.Fields) == 0) {
			t.Fatalf("testimony %q of no reported field", r.Testimony())
		}
		if r.Parts() == "" {
			t.Fatal("a receipt that says nothing of its parts")
		}
		if (r.ArgsLine() == "") != r.ArgsWhole() {
			t.Fatalf("args line %q of a receipt whose args are whole: %v", r.ArgsLine(), r.ArgsWhole())
		}
	})
}

// TestParseBound: Parse holds bytes, and Load a file, to one bound: a
// receipt of exactly MaxBytes is read, one byte more is not a receipt.
func TestParseBound(t *testing.T) {
	head, tail := `{"schema":"`+Schema+`","run_id":"a"}`, "\n"
	tests := []struct {
		name    string
		size    int
		wantErr string
	}{
		{name: "exactly MaxBytes", size: MaxBytes},
		{name: "a byte over", size: MaxBytes + 1, wantErr: "is not a receipt: larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// JSON allows blanks after a value, as a reserved receipt has.
			data := head + strings.Repeat(" ", tt.size-len(head)-len(tail)) + tail
			file := filepath.Join(t.TempDir(), "r.json")
			if err := os.WriteFile(file, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			for what, read := range map[string]func() (*Receipt, error){
				"Parse": func() (*Receipt, error) { return Parse("r.json", []byte(data)) },
				"Load":  func() (*Receipt, error) { return Load(file) },
			} {
				r, err := read()
				if tt.wantErr != "" {
					testkit.WantError(t, err, codes.E317, "", tt.wantErr)
					continue
				}
				if err != nil || r.RunID != "a" {
					t.Fatalf("%s: %+v, %v; want the receipt of run a", what, r, err)
				}
			}
		})
	}
}

// TestFindSaysAReceiptItCannotRead: during an upgrade a newer Sabline
// beside this one keeps its receipts in the same directory, and names in
// them what this build does not know: a field its workers report (as
// stdout_cut was to the builds before it, which passed over every such
// receipt). Asked for that run, receipts show and replay (Find, PickIn)
// say its receipt is there and cannot be read, why, and to read it with
// the newer build: E317. Before, they said no run had that id, or that
// the directory held none and to give another. The receipt is a record
// of the store's journal, reserved and finished as a pool's, and a
// receipt file, as the command line writes; the control, a run beside
// each, is found.
func TestFindSaysAReceiptItCannotRead(t *testing.T) {
	dir := testkit.Scratch(t)
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	newer := func(id string) *Receipt {
		r := receipt("/p/a.vel", id, 1, core.Full, StatusOK)
		r.Reported = &Reported{Fields: []string{FieldOutcome, "stdout_tail"}}
		return r
	}
	const inJournal, inFile = "a000000000000000", "b000000000000000"
	const readJournal, readFile = "c000000000000000", "d000000000000000"
	for _, r := range []*Receipt{newer(inJournal), receipt("/p/a.vel", readJournal, 2, core.Full,
		StatusOK)} {
		if err := s.Reserve(r); err != nil {
			t.Fatal(err)
		}
		s.Finish(r)
		if _, err := r.Stored(); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []*Receipt{newer(inFile), receipt("/p/a.vel", readFile, 3, core.Full,
		StatusOK)} {
		if _, err := r.Write(dir); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{inJournal, inFile, inFile[:4]} {
		_, err := Find(dir, id)
		testkit.WantError(t, err, codes.E317, "", "cannot be read: its reported fields name "+
			`"stdout_tail", which no worker of this build reports`)
		if e, _ := err.(*codes.Error); e != nil && !strings.Contains(e.Hint(),
			"A Sabline newer than this one") {
			t.Errorf("Find(%s): what to do %q, want it to name a newer Sabline", id, e.Hint())
		}
		if err != nil && !strings.Contains(err.Error(), "receipt of run "+id[:4]) {
			t.Errorf("Find(%s) = %v, want it to name the run", id, err)
		}
	}
	for _, id := range []string{readJournal, readFile} {
		if got, err := Find(dir, id); err != nil || got.RunID != id {
			t.Errorf("control: Find(%s) = %s, %v; want it found", id, got.RunID, err)
		}
	}
	_, err = Find(dir, "e0")
	testkit.WantError(t, err, codes.E317, "", `no run id is or begins with "e0"`)

	// Once the journal had segments removed (Store.Prune), a receipt that
	// is there is still said to be there, not to be no longer kept; the
	// control: a run of no receipt is now said to be no longer kept.
	if err := noteRemoved(s.Journal().Dir(), time.Now(), "past the retention kept"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{inJournal, inFile} {
		_, err := Find(dir, id)
		testkit.WantError(t, err, codes.E317, "", "cannot be read: its reported fields name")
	}
	_, err = Find(dir, "e0")
	testkit.WantError(t, err, codes.E337, "", "no longer kept here")
}
