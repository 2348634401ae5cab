package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit/fill"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/receipt"
)

// emptyVariant names the variant whose lists and maps are empty.
const emptyVariant = "empty lists and maps"

// requestVariants are requests that set every field in turn: filled
// ones, the zero request, and one whose lists and maps are empty.
func requestVariants(t testing.TB) map[string]Request {
	vs := map[string]Request{"zero": {}}
	for bit := range uint(6) {
		vs[fmt.Sprintf("filled, bools by bit %d", bit)] = fill.Filled[Request](t, bit)
	}
	e := fill.Filled[Request](t, 0)
	fill.Emptied(reflect.ValueOf(&e).Elem())
	vs[emptyVariant] = e
	return vs
}

// TestDecodeRequestEveryField: every field of a Request, nested ones
// too, read back as encoding/json wrote it, and as encoding/json reads
// the same bytes. A field the decoder does not know fails here, since
// the filler sets it and the decoder refuses a name it does not know.
func TestDecodeRequestEveryField(t *testing.T) {
	for name, want := range requestVariants(t) {
		t.Run(name, func(t *testing.T) {
			readBack(t, want, DecodeRequest, name == emptyVariant)
		})
	}
}

// TestAppendRequestEveryField: every field of a Request, nested ones
// too, written as encoding/json writes it: filled, emptied, and with
// every byte class in its strings and in a key of Admitted.
func TestAppendRequestEveryField(t *testing.T) {
	vs := requestVariants(t)
	r := fill.Filled[Request](t, 1)
	r.Args[0], r.Guard.Locations[0].Path, r.Budget.Items[0].Path = fill.TrickyText,
		fill.TrickyText, fill.TrickyText
	r.Admitted[fill.TrickyText] = fill.TrickyText
	r.Relayed[0].Ino = math.MaxUint64
	vs["tricky"] = r
	for name, r := range vs {
		t.Run(name, func(t *testing.T) {
			wantWritten(t, &r)
		})
	}
}

// TestRequestSizeCoversWhatIsWritten: the room AppendRequest makes at
// once (requestSize) holds every request written whose text needs no
// escaping, filled or empty, so its buffer is made once; a request
// whose text does need it is written whole all the same (the tricky
// variant of TestAppendRequestEveryField).
func TestRequestSizeCoversWhatIsWritten(t *testing.T) {
	vs := requestVariants(t)
	r := fill.Filled[Request](t, 0)
	for i := range 300 { // a guard of a machine with many Sablines on it
		r.Guard.Locations = append(r.Guard.Locations, guard.Location{
			Path: fmt.Sprintf("/var/tmp/sabline-guarded/u0/%032x", i), Kind: guard.Sabline,
			Holds: "another Sabline's receipts"})
		r.Guard.CarveOuts = append(r.Guard.CarveOuts,
			guard.CarveOut{Path: fmt.Sprintf("/tmp/rc.%d", i), Named: i%2 == 0})
	}
	vs["a guard of 300 locations"] = r
	for name, r := range vs {
		t.Run(name, func(t *testing.T) {
			if n, size := len(AppendRequest(nil, &r)), requestSize(&r); n > size {
				t.Errorf("the request written is %d bytes, requestSize %d", n, size)
			}
		})
	}
}

// wantWritten fails unless AppendRequest writes r as encoding/json does,
// after what b held.
func wantWritten(t *testing.T, r *Request) {
	t.Helper()
	want, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := AppendRequest([]byte("x"), r); string(got) != "x"+string(want)+"\n" {
		t.Fatalf("AppendRequest writes\n%s\nencoding/json\n%s", got, want)
	}
}

// TestDecodeJobEveryField: every field of a Job, and of a JobResult,
// read back as encoding/json wrote it (TestDecodeRequestEveryField).
func TestDecodeJobEveryField(t *testing.T) {
	result := func(line []byte) (JobResult, error) {
		return decodeLine(line, MaxJobResultBytes, "result", (*decoder).jobResult)
	}
	for bit := range uint(6) {
		t.Run(fmt.Sprintf("filled, bools by bit %d", bit), func(t *testing.T) {
			readBack(t, fill.Filled[Job](t, bit), DecodeJob, false)
			readBack(t, fill.Filled[JobResult](t, bit), result, false)
		})
	}
	for _, name := range []string{"zero", emptyVariant} {
		t.Run(name, func(t *testing.T) {
			j, r := fill.Filled[Job](t, 0), fill.Filled[JobResult](t, 0)
			switch name {
			case "zero":
				j, r = Job{}, JobResult{}
			default:
				fill.Emptied(reflect.ValueOf(&j).Elem())
				fill.Emptied(reflect.ValueOf(&r).Elem())
			}
			readBack(t, j, DecodeJob, name == emptyVariant)
			readBack(t, r, result, name == emptyVariant)
		})
	}
}

// readBack writes want with encoding/json, reads it with decode, and
// wants what encoding/json reads, and want itself unless omitempty has
// left an empty list out (then read as nil, by encoding/json as well).
func readBack[T any](t *testing.T, want T, decode func([]byte) (T, error), empties bool) {
	t.Helper()
	line, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decode(append(line, '\n'))
	if err != nil {
		t.Fatalf("decode(%s): %v", line, err)
	}
	var ref T
	if err := json.Unmarshal(line, &ref); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, ref) {
		t.Errorf("decoded\n%#v\nencoding/json reads\n%#v", got, ref)
	}
	if !empties && !reflect.DeepEqual(got, want) {
		t.Errorf("decoded\n%#v\nwant\n%#v", got, want)
	}
}

// TestDecodeRequest: what the decoder takes (the controls: escapes, white
// space, nulls) and what it refuses, which encoding/json may take.
func TestDecodeRequest(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Request
		wantErr string // "" for a request taken
	}{
		{name: "escapes", in: `{"program":"/a\"b\\c\/d\n\u00e9\ud83d\ude00é\u0000"}`,
			want: Request{Program: "/a\"b\\c/d\né\U0001F600é\x00"}},
		{name: "white space and nulls",
			in:   " {\n\t\"cwd\" : \"/w\" ,\"args\":null,\"guard\":null,\"budget\":null,\"pool\":null} \r\n",
			want: Request{Cwd: "/w"}},
		{name: "empty lists and maps", in: `{"args":[],"admitted":{},"source":""}`,
			want: Request{Args: []string{}, Admitted: map[string]string{}, Source: []byte{}}},
		{name: "numbers", in: `{"procs":-0,"deadline_ns":9223372036854775807,` +
			`"relayed":[{"dev":18446744073709551615,"ino":0}]}`,
			want: Request{Deadline: math.MaxInt64, Relayed: []lang.FileID{{Dev: math.MaxUint64}}}},
		{name: "empty object", in: `{}`},
		{name: "a field unknown", in: `{"programme":"/p"}`, wantErr: `no field "programme"`},
		{name: "a field in other case", in: `{"Program":"/p"}`, wantErr: `no field "Program"`},
		{name: "a nested field unknown", in: `{"policy":{"read":{"all":true}}}`,
			wantErr: `no field "all"`},
		{name: "a field twice", in: `{"cwd":"/a","cwd":"/b"}`, wantErr: `field "cwd" twice`},
		{name: "a map key twice", in: `{"admitted":{"a":"1","a":"2"}}`, wantErr: `field "a" twice`},
		{name: "something after it", in: `{} {}`, wantErr: "something after the request"},
		{name: "null", in: `null`, wantErr: "a request that is null"},
		{name: "nothing", in: ``, wantErr: `want '{'`},
		{name: "a number for a string", in: `{"cwd":1}`, wantErr: `want '"'`},
		{name: "a string for a number", in: `{"procs":"1"}`, wantErr: "want the digits of a number"},
		{name: "a fraction", in: `{"procs":1.0}`, wantErr: "want a whole number"},
		{name: "an exponent", in: `{"procs":1e3}`, wantErr: "want a whole number"},
		{name: "a leading zero", in: `{"procs":01}`, wantErr: "leading zero"},
		{name: "too large", in: `{"procs":9223372036854775808}`, wantErr: "does not fit"},
		{name: "negative natural", in: `{"relayed":[{"dev":-1}]}`, wantErr: "not a natural"},
		{name: "a name not a string", in: `{cwd:"/a"}`, wantErr: "want a field's name"},
		{name: "a trailing comma", in: `{"cwd":"/a",}`, wantErr: "want a field's name"},
		{name: "a lone surrogate", in: `{"cwd":"\ud800"}`, wantErr: `want \u`},
		{name: "a low surrogate first", in: `{"cwd":"\udc00\ud800"}`, wantErr: "not one of a pair"},
		{name: "not UTF-8", in: "{\"cwd\":\"\xff\"}", wantErr: "not UTF-8"},
		{name: "a control byte", in: "{\"cwd\":\"a\tb\"}", wantErr: "control byte"},
		{name: "an unknown escape", in: `{"cwd":"\x41"}`, wantErr: `want \u`},
		{name: "bad hex", in: `{"cwd":"\u00g0"}`, wantErr: "hexadecimal"},
		{name: "an unended string", in: `{"cwd":"/a`, wantErr: "without its end"},
		{name: "an unended object", in: `{"cwd":"/a"`, wantErr: `want '}'`},
		{name: "not base64", in: `{"source":"***"}`, wantErr: "not base64"},
		{name: "a bool as a word", in: `{"pool":yes}`, wantErr: "want a boolean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeRequest([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("DecodeRequest(%s) = %v, want an error with %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeRequest(%s): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DecodeRequest(%s)\n= %#v\nwant %#v", tt.in, got, tt.want)
			}
			var ref Request
			if err := json.Unmarshal([]byte(tt.in), &ref); err != nil || !reflect.DeepEqual(got, ref) {
				t.Errorf("encoding/json reads %#v (%v)", ref, err)
			}
		})
	}
}

// TestDecodeRequestBound: a request past MaxRequestBytes is refused
// before it is read; one just at it is read.
func TestDecodeRequestBound(t *testing.T) {
	pad := func(n int) []byte {
		b := []byte(`{"cwd":"/w"}`)
		return append(b, bytes.Repeat([]byte{' '}, n-len(b))...)
	}
	if _, err := DecodeRequest(pad(MaxRequestBytes)); err != nil {
		t.Fatalf("a request of MaxRequestBytes: %v", err)
	}
	if _, err := DecodeRequest(pad(MaxRequestBytes + 1)); err == nil ||
		!strings.Contains(err.Error(), "more than") {
		t.Fatalf("a request past MaxRequestBytes: %v, want refused", err)
	}
}

// FuzzDecodeRequest: whatever DecodeRequest or DecodeJob takes,
// encoding/json takes and reads to the same value, and the value written
// again is read back the same.
func FuzzDecodeRequest(f *testing.F) {
	for _, r := range requestVariants(f) {
		line, err := json.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(line)
	}
	for bit := range uint(2) {
		line, err := json.Marshal(fill.Filled[Job](f, bit))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(line)
	}
	f.Add([]byte(`{"program":"\ud83d\ude00\u2028<&>","admitted":{"a":null}}`))
	f.Add([]byte(`{"admitted":{},"faults":[],"source":"","stdin":""}`)) // left out when written again
	f.Fuzz(func(t *testing.T, in []byte) {
		differential(t, in, DecodeRequest)
		differential(t, in, DecodeJob)
		// What the supervisor would write of a request read, written as
		// encoding/json writes it.
		if r, err := DecodeRequest(in); err == nil {
			wantWritten(t, &r)
		}
	})
}

// differential checks what decode reads of in, if it takes it, against
// encoding/json, and against the same written again.
func differential[T any](t *testing.T, in []byte, decode func([]byte) (T, error)) {
	got, err := decode(in)
	if err != nil {
		return
	}
	var ref T
	if err := json.Unmarshal(in, &ref); err != nil {
		t.Fatalf("took %q, encoding/json: %v", in, err)
	}
	if !reflect.DeepEqual(got, ref) {
		t.Fatalf("%q: read as\n%#v\nencoding/json reads\n%#v", in, got, ref)
	}
	// Written again, an empty list with omitempty is left out: what
	// encoding/json reads of those bytes is the want.
	again, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var want T
	if err := json.Unmarshal(again, &want); err != nil {
		t.Fatal(err)
	}
	if back, err := decode(again); err != nil || !reflect.DeepEqual(back, want) {
		t.Fatalf("%s written again reads %#v (%v)", again, back, err)
	}
}

// encoded is what encoding/json's Encoder, as the worker used it, writes
// for r.
func encoded(r *Record) ([]byte, error) {
	var b bytes.Buffer
	err := json.NewEncoder(&b).Encode(r)
	return b.Bytes(), err
}

// TestAppendRecordEveryField: AppendRecord writes the bytes encoding/json
// writes, for records that set every field in turn (the filler would
// set a field the encoder does not write), the zero record, one with
// empty lists and nil ones, and strings of every class of byte.
func TestAppendRecordEveryField(t *testing.T) {
	vs := map[string]Record{"zero": {}}
	for bit := range uint(6) {
		vs[fmt.Sprintf("filled, bools by bit %d", bit)] = fill.Filled[Record](t, bit)
	}
	e := fill.Filled[Record](t, 0)
	fill.Emptied(reflect.ValueOf(&e).Elem())
	vs["empty lists"] = e
	tricky := fill.Filled[Record](t, 1)
	tricky.Outcome.Message, tricky.Confinement.Layers[0] = fill.TrickyText, fill.TrickyText
	tricky.Faults[1].Errno = fill.TrickyText
	tricky.Timings = receipt.WorkerTimings{CompileMS: 1e-7, ConfineMS: 1e21, RunMS: -0.000123}
	vs["tricky"] = tricky
	vs["a real one"] = Record{
		Outcome:     receipt.Outcome{Status: "ok"},
		Confinement: core.Result{Level: core.Full, Reason: "held", Layers: []string{"seccomp"}},
		Timings:     receipt.WorkerTimings{CompileMS: 0.531, ConfineMS: 1.69},
	}
	for name, r := range vs {
		t.Run(name, func(t *testing.T) {
			want, err := encoded(&r)
			if err != nil {
				t.Fatal(err)
			}
			got, err := AppendRecord([]byte("before"), &r)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, append([]byte("before"), want...)) {
				t.Errorf("AppendRecord writes\n%s\nencoding/json\n%s", got, want)
			}
		})
	}
}

// TestAppendJobEveryField: AppendJob and AppendJobResult write the bytes
// encoding/json writes, as TestAppendRecordEveryField has it.
func TestAppendJobEveryField(t *testing.T) {
	jobs, results := map[string]Job{"zero": {}}, map[string]JobResult{"zero": {}}
	for bit := range uint(6) {
		name := fmt.Sprintf("filled, bools by bit %d", bit)
		jobs[name], results[name] = fill.Filled[Job](t, bit), fill.Filled[JobResult](t, bit)
	}
	j, r := fill.Filled[Job](t, 0), fill.Filled[JobResult](t, 0)
	fill.Emptied(reflect.ValueOf(&j).Elem())
	fill.Emptied(reflect.ValueOf(&r).Elem())
	jobs["empty lists"], results["empty lists"] = j, r
	j, r = fill.Filled[Job](t, 1), fill.Filled[JobResult](t, 1)
	j.Args[0], j.Budget.Items[0].Path, r.Outcome.Stack[1] = fill.TrickyText, fill.TrickyText, fill.TrickyText
	j.Stdin, r.Stdout = []byte(fill.TrickyText), []byte(fill.TrickyText)
	jobs["tricky"], results["tricky"] = j, r
	for name, j := range jobs {
		t.Run("job, "+name, func(t *testing.T) {
			want, err := json.Marshal(&j)
			if err != nil {
				t.Fatal(err)
			}
			if got := AppendJob([]byte("x"), &j); string(got) != "x"+string(want)+"\n" {
				t.Errorf("AppendJob writes\n%s\nencoding/json\n%s", got, want)
			}
		})
	}
	for name, r := range results {
		t.Run("result, "+name, func(t *testing.T) {
			want, err := json.Marshal(&r)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := AppendJobResult([]byte("x"), &r); err != nil ||
				string(got) != "x"+string(want)+"\n" {
				t.Errorf("AppendJobResult writes\n%s (%v)\nencoding/json\n%s", got, err, want)
			}
		})
	}
}

// TestAppendRecordNotANumber: a time that is not a finite number fails as
// encoding/json fails, and nothing is appended; a finite one is the
// control.
func TestAppendRecordNotANumber(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 2.5} {
		r := Record{Timings: receipt.WorkerTimings{RunMS: v}}
		_, wantErr := encoded(&r)
		got, err := AppendRecord([]byte("x"), &r)
		if (err != nil) != (wantErr != nil) {
			t.Errorf("%v: AppendRecord error %v, encoding/json's %v", v, err, wantErr)
		}
		if err != nil && string(got) != "x" {
			t.Errorf("%v: AppendRecord appended %q with its error", v, got)
		}
		jr := JobResult{Timings: r.Timings}
		if got, err := AppendJobResult([]byte("x"), &jr); (err != nil) != (wantErr != nil) ||
			err != nil && string(got) != "x" {
			t.Errorf("%v: AppendJobResult %q, %v; encoding/json's error %v", v, got, err, wantErr)
		}
	}
}

// FuzzAppendRecord: AppendRecord, AppendJobResult, AppendJob and
// appendPolicy write the bytes encoding/json writes, for any text in
// their strings and bytes and any time.
func FuzzAppendRecord(f *testing.F) {
	f.Add(fill.TrickyText, 0.531, 3)
	f.Add("", 1e-7, -1)
	f.Add("\xed\xa0\x80", 1e21, 0)
	f.Fuzz(func(t *testing.T, s string, ms float64, n int) {
		r := Record{
			Outcome:     receipt.Outcome{Status: s, Message: s, ExitStatus: n, Stack: []string{s}},
			Effects:     nil,
			Confinement: core.Result{Level: core.Level(s), Layers: []string{s, s}},
			Timings:     receipt.WorkerTimings{CompileMS: ms, ConfineMS: -ms, RunMS: ms * 3},
		}
		if n%2 == 0 {
			r.Faults = []receipt.FaultAttempt{{FaultOp: receipt.FaultOp{Op: s}, Layers: []string{s}}}
		}
		want, wantErr := encoded(&r)
		got, err := AppendRecord(nil, &r)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("AppendRecord error %v, encoding/json's %v", err, wantErr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("AppendRecord writes\n%q\nencoding/json\n%q", got, want)
		}
		jr := JobResult{Outcome: r.Outcome, Stdout: []byte(s), Timings: r.Timings}
		want, wantErr = json.Marshal(&jr)
		got, err = AppendJobResult(nil, &jr)
		if (err != nil) != (wantErr != nil) || err == nil && string(got) != string(want)+"\n" {
			t.Fatalf("AppendJobResult writes\n%q (%v)\nencoding/json\n%q (%v)", got, err, want, wantErr)
		}
		p := core.Policy{Schema: s, Read: core.Direction{Paths: []string{s}},
			Network:   core.Network{Mode: s, UDP: []core.Endpoint{{Host: s, Port: n}}},
			WidenedBy: []core.Widening{{Module: s, To: core.Widen(s)}}}
		if got := appendPolicy(nil, &p); string(got) != string(p.JSON()) {
			t.Fatalf("appendPolicy writes\n%q\ncore.Policy.JSON\n%q", got, p.JSON())
		}
		j := Job{Program: s, Args: []string{s}, Stdin: []byte(s)}
		if want, _ := json.Marshal(&j); string(AppendJob(nil, &j)) != string(want)+"\n" {
			t.Fatalf("AppendJob writes\n%q\nencoding/json\n%q", AppendJob(nil, &j), want)
		}
	})
}

// TestPolicyRecorded: a request's policy is the recorded one when its
// canonical document hashes to the digest, however it was written on the
// wire; never with another digest, or none, or no policy.
func TestPolicyRecorded(t *testing.T) {
	p := fill.Filled[core.Policy](t, 0)
	digest := p.SHA256()
	decode := func(policy string, sum string) Request {
		t.Helper()
		r, err := DecodeRequest([]byte(`{"policy":` + policy + `,"policy_sha256":"` + sum + `"}`))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	reordered := map[string]any{}
	if err := json.Unmarshal(p.JSON(), &reordered); err != nil {
		t.Fatal(err)
	}
	otherwise, err := json.MarshalIndent(reordered, "", "  ") // keys sorted, spaced
	if err != nil {
		t.Fatal(err)
	}
	other := p
	other.Strict = !p.Strict
	tests := []struct {
		name string
		req  Request
		want bool
	}{
		{name: "as written", req: decode(string(p.JSON()), digest), want: true},
		{name: "written otherwise", req: decode(string(otherwise), digest), want: true},
		{name: "built, not read", req: Request{Policy: &p, PolicySHA256: digest}, want: true},
		{name: "another policy", req: decode(string(other.JSON()), digest)},
		{name: "another digest", req: decode(string(p.JSON()), strings.Repeat("0", 64))},
		{name: "no digest", req: decode(string(p.JSON()), "")},
		{name: "no policy", req: decode("null", digest)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.req.PolicyRecorded(); got != tt.want {
				t.Errorf("PolicyRecorded() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestAppendPolicy: appendPolicy writes core.Policy.JSON's bytes for
// policies that set every field in turn, the zero policy, one with empty
// lists, one with text of every class of byte, and the policies of real
// budgets.
func TestAppendPolicy(t *testing.T) {
	vs := map[string]core.Policy{"zero": {}}
	for bit := range uint(6) {
		vs[fmt.Sprintf("filled, bools by bit %d", bit)] = fill.Filled[core.Policy](t, bit)
	}
	e := fill.Filled[core.Policy](t, 0)
	fill.Emptied(reflect.ValueOf(&e).Elem())
	vs["empty lists"] = e
	tricky := fill.Filled[core.Policy](t, 1)
	tricky.Read.Paths[1], tricky.Network.Hosts[0].Host = fill.TrickyText, fill.TrickyText
	vs["tricky"] = tricky
	for _, b := range []string{"io", "io,fs:read:/srv,fs:write:/tmp/x",
		"net:example.org:443,net:udp:10.0.0.1:53", "ffi:ctypes", "net,fs"} {
		grants := budget.MustParse("/", b)
		vs["budget "+b] = core.OSPolicy(grants, core.Options{})
		vs["budget "+b+", strict"] = core.OSPolicy(grants, core.Options{Mode: core.ModeStrict})
	}
	for name, p := range vs {
		t.Run(name, func(t *testing.T) {
			if got, want := appendPolicy([]byte("x"), &p), p.JSON(); string(got) != "x"+string(want) {
				t.Errorf("appendPolicy writes\n%s\ncore.Policy.JSON\n%s", got, want)
			}
		})
	}
}
