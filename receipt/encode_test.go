package receipt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit/fill"
)

// TestAppendJSONEveryField: Receipt.AppendJSON writes json.Marshal's
// bytes, and a receipt file's form json.MarshalIndent's, for receipts
// that set every field in turn (fill.Filled: a field the writer leaves
// out is set in one of them), the zero receipt, one with every list
// empty, strings of every class of byte, times of other zones and
// precisions, and a receipt a store reserves and finishes.
func TestAppendJSONEveryField(t *testing.T) {
	vs := map[string]Receipt{"zero": {}}
	for bit := range uint(6) {
		vs[fmt.Sprintf("filled, bools by bit %d", bit)] = fill.Filled[Receipt](t, bit)
	}
	empty := fill.Filled[Receipt](t, 0)
	fill.Emptied(reflect.ValueOf(&empty).Elem())
	vs["empty lists"] = empty
	tricky := fill.Filled[Receipt](t, 1)
	tricky.Program.Path, tricky.Args[1], tricky.Outcome.Stack[0] = fill.TrickyText,
		fill.TrickyText, fill.TrickyText
	tricky.Observed.Connections[0].Refused = fill.TrickyText
	tricky.Timings = Timings{Started: time.Date(2026, 12, 5, 17, 4, 5, 123456789,
		time.FixedZone("", -(9*3600+30*60))), WallMS: 1e-7,
		Worker: WorkerTimings{CompileMS: 1e21, ConfineMS: -0.000123, RunMS: 12.5}}
	vs["tricky"] = tricky
	for name, started := range map[string]time.Time{
		"a time of the local zone, to the nanosecond": time.Now(),
		"a time to the second, in UTC":                time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		"a time to the millisecond":                   time.Date(1, 1, 1, 0, 0, 0, 5e6, time.UTC),
	} {
		r := fill.Filled[Receipt](t, 2)
		r.Timings.Started = started
		vs[name] = r
	}
	real := New("/srv/programs/hello.vel", budget.MustParse("/srv", "io"), []string{"a", "b"})
	real.Timings.Started = time.Now()
	real.RunParameters.Asked(core.ModeDefault, core.Full, time.Minute, "ab12")
	reserved := *real
	reserved.Outcome = unfinished(real, "the supervisor")
	vs["reserved"] = reserved
	real.Outcome = Outcome{Status: StatusOK}
	vs["finished"] = *real
	for name, r := range vs {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(&r)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.AppendJSON([]byte("before"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, append([]byte("before"), want...)) {
				t.Errorf("AppendJSON writes\n%s\njson.Marshal\n%s", got, want)
			}
			want, err = json.MarshalIndent(&r, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if got, err := r.indented(); err != nil || !bytes.Equal(got, want) {
				t.Errorf("a receipt file holds\n%s (%v)\njson.MarshalIndent\n%s", got, err, want)
			}
		})
	}
}

// TestAppendJSONNil: each AppendJSON of a nil value appends what
// json.Marshal writes for one, null; a value is the control.
func TestAppendJSONNil(t *testing.T) {
	for _, tt := range []struct {
		name   string
		v      any
		append func([]byte) ([]byte, error)
	}{
		{name: "a receipt", v: (*Receipt)(nil), append: (*Receipt)(nil).AppendJSON},
		{name: "an outcome", v: (*Outcome)(nil), append: func(b []byte) ([]byte, error) {
			return (*Outcome)(nil).AppendJSON(b), nil
		}},
		{name: "a worker's timings", v: (*WorkerTimings)(nil),
			append: (*WorkerTimings)(nil).AppendJSON},
		{name: "a fault attempt", v: (*FaultAttempt)(nil), append: func(b []byte) ([]byte, error) {
			return (*FaultAttempt)(nil).AppendJSON(b), nil
		}},
		{name: "an outcome, the control", v: &Outcome{Status: StatusOK},
			append: func(b []byte) ([]byte, error) {
				return (&Outcome{Status: StatusOK}).AppendJSON(b), nil
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := tt.append([]byte("x")); err != nil || string(got) != "x"+string(want) {
				t.Errorf("AppendJSON writes %q (%v), json.Marshal %q", got, err, want)
			}
		})
	}
}

// TestAppendJSONRefuses: a receipt json.Marshal refuses (a time that is
// not a finite number, a start outside the years JSON's form has) is
// refused, and nothing is appended; a finite time in those years is the
// control.
func TestAppendJSONRefuses(t *testing.T) {
	for _, tt := range []struct {
		name    string
		timings Timings
		wantErr bool
	}{
		{name: "not a number", timings: Timings{WallMS: math.NaN()}, wantErr: true},
		{name: "infinite", timings: Timings{Worker: WorkerTimings{RunMS: math.Inf(-1)}},
			wantErr: true},
		{name: "the year 10000", timings: Timings{Started: time.Date(10000, 1, 1, 0, 0, 0, 0,
			time.UTC)}, wantErr: true},
		{name: "finite, in the years", timings: Timings{WallMS: 2.5,
			Started: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Receipt{Timings: tt.timings}
			_, wantErr := json.Marshal(&r)
			if (wantErr != nil) != tt.wantErr {
				t.Fatalf("json.Marshal's error %v: the case is wrong", wantErr)
			}
			got, err := r.AppendJSON([]byte("x"))
			if (err != nil) != tt.wantErr {
				t.Errorf("AppendJSON error %v, want one: %v", err, tt.wantErr)
			}
			if err != nil && string(got) != "x" {
				t.Errorf("AppendJSON appended %q with its error", got)
			}
		})
	}
}

// FuzzAppendJSON: Receipt.AppendJSON writes json.Marshal's bytes for
// any text in a receipt's strings, any time in its floats, any count in
// its numbers and any instant and zone it started at, and fails where
// json.Marshal fails.
func FuzzAppendJSON(f *testing.F) {
	f.Add(fill.TrickyText, 0.531, int64(3), int64(1764954245), 123456789, 0)
	f.Add("", 1e-7, int64(-1), int64(0), 0, -34200)
	f.Add("\xed\xa0\x80", 1e21, int64(0), int64(253402300800), 1, 50400)
	f.Fuzz(func(t *testing.T, s string, ms float64, n, sec int64, nsec, zone int) {
		code := int(n)
		r := Receipt{
			Schema: s, RunID: s, Budget: s, Args: []string{s, s},
			Program:  ProgramInfo{Path: s, Files: nil},
			Observed: Observed{ExitStatus: &code, UserMS: ms, MaxRSSKB: n, Made: []string{s}},
			Outcome:  Outcome{Status: s, Message: s, ExitStatus: code, Stack: []string{s}},
			Effects:  []budget.Usage{{Grant: s, Uses: code}},
			Timings: Timings{Started: time.Unix(sec, int64(nsec)).In(time.FixedZone(s, zone)),
				WallMS: ms, Worker: WorkerTimings{RunMS: -ms}},
			Tenant: s,
		}
		r.RunParameters.ConfinementGaps = []core.Gap{{Layer: s, Kind: core.GapKind(s), Text: s}}
		if n%2 == 0 {
			r.Faults = []FaultAttempt{{FaultOp: FaultOp{Op: s}, Layers: []string{s}}}
			r.Reported = &Reported{Fields: []string{s}}
		}
		want, wantErr := json.Marshal(&r)
		got, err := r.AppendJSON(nil)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("AppendJSON error %v, json.Marshal's %v", err, wantErr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("AppendJSON writes\n%q\njson.Marshal\n%q", got, want)
		}
	})
}

// BenchmarkEncode: a pooled hello's finished receipt written by
// json.Marshal and by AppendJSON (into a buffer kept between writes, as
// a store's are), by turns in each iteration. It reports each one's time
// (marshal-ns/op, appendjson-ns/op) and appendjson/marshal.
func BenchmarkEncode(b *testing.B) {
	r := *New("/srv/programs/hello.vel", budget.MustParse("/srv", "io"), nil)
	r.Timings.Started = time.Now()
	r.RunParameters.Asked(core.ModeDefault, core.Full, time.Minute, "ab12")
	r.RunParameters.Confinement, r.RunParameters.ConfinementLayers = core.Full,
		[]string{"landlock", "seccomp", "rlimits"}
	r.RunParameters.ConfinementReason = "held by the kernel: Landlock ABI 7, seccomp"
	r.Outcome = Outcome{Status: StatusOK}
	r.Effects = []budget.Usage{{Grant: "io@1", Uses: 1}}
	r.Timings.WallMS, r.Timings.Worker = 0.231, WorkerTimings{CompileMS: 0.011, RunMS: 0.008}
	buf := make([]byte, 0, encodedRoom)
	var marshal, appended time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := json.Marshal(&r); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		out, err := r.AppendJSON(buf[:0])
		if err != nil {
			b.Fatal(err)
		}
		buf = out
		marshal, appended = marshal+t1.Sub(t0), appended+time.Since(t1)
	}
	b.ReportMetric(float64(marshal.Nanoseconds())/float64(b.N), "marshal-ns/op")
	b.ReportMetric(float64(appended.Nanoseconds())/float64(b.N), "appendjson-ns/op")
	b.ReportMetric(float64(appended)/float64(marshal), "appendjson/marshal")
}
