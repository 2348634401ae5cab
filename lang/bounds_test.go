package lang

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
)

// TestBoundedConversions: tool.call checks its grant before it converts
// its arguments, and a conversion or a json.decode past its limits is a
// clean E305, not a crash.
func TestBoundedConversions(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	objects := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	tests := []struct {
		name     string
		grant    string
		src      string
		wantCode codes.Code // "" for allowed
		wantMsg  string
	}{
		{name: "a self-containing list without the tool grant", grant: "io",
			src: "l = []\nl.append(l)\ntool.call(\"t\", l)\n", wantCode: codes.E302, wantMsg: "add tool"},
		{name: "a self-containing list with the tool grant", grant: "tool",
			src: "l = []\nl.append(l)\ntool.call(\"t\", l)\n", wantCode: codes.E305, wantMsg: "deeper than 64"},
		{name: "a self-containing dict", grant: "tool",
			src: "d = {}\nd[\"d\"] = d\ntool.call(\"t\", d)\n", wantCode: codes.E305, wantMsg: "deeper than 64"},
		{name: "too many values", grant: "tool",
			src: "tool.call(\"t\", list(range(1100000)))\n", wantCode: codes.E305, wantMsg: "more than 1048576 values"},
		{name: "arguments within the limits", grant: "tool",
			src: "v = tool.call(\"t\", [[1, 2], {\"a\": \"b\"}])\nif v != {\"ok\": True}: fail(v)\n"},
		{name: "json.decode too deep", grant: "ffi:json",
			src: "json = ffi.module(\"json\")\njson.decode(\"" + deep(65) + "\")\n", wantCode: codes.E305, wantMsg: "deeper than 64"},
		{name: "json.decode at the limit", grant: "ffi:json",
			src: "json = ffi.module(\"json\")\nv = json.decode(\"" + deep(64) + "\")\n"},
		{name: "json.decode of objects too deep", grant: "ffi:json",
			src: "json = ffi.module(\"json\")\njson.decode('" + objects(65) + "')\n", wantCode: codes.E305, wantMsg: "deeper than 64"},
		{name: "json.decode of objects at the limit", grant: "ffi:json",
			src: "json = ffi.module(\"json\")\nv = json.decode('" + objects(64) + "')\n"},
		{name: "strings past 64 MiB in all", grant: "tool",
			src: "s = \"x\" * 1048576\ntool.call(\"t\", [s] * 65)\n", wantCode: codes.E305, wantMsg: "more than 67108864 bytes of strings"},
		{name: "strings of a dict's values past 64 MiB in all", grant: "tool",
			src: "s = \"x\" * 1048576\ntool.call(\"t\", {str(i): s for i in range(65)})\n", wantCode: codes.E305, wantMsg: "bytes of strings"},
		{name: "strings of a dict's keys past 64 MiB in all", grant: "tool",
			src:      "s = \"x\" * 1048576\ntool.call(\"t\", {s + str(i): 0 for i in range(65)})\n",
			wantCode: codes.E305, wantMsg: "bytes of strings"},
		{name: "strings of a dict's keys within 64 MiB", grant: "tool",
			src: "s = \"x\" * 1048576\nv = tool.call(\"t\", {s + str(i): 0 for i in range(8)})\n" +
				"if v != {\"ok\": True}: fail(v)\n"},
		{name: "strings within 64 MiB", grant: "tool",
			src: "s = \"x\" * 1048576\nv = tool.call(\"t\", [s] * 8)\nif v != {\"ok\": True}: fail(v)\n"},
		{name: "brackets in a string do not nest", grant: "ffi:json",
			src: "json = ffi.module(\"json\")\nv = json.decode('\"" + strings.Repeat("[", 100) + "\\\\\"\"')\nif not v.startswith(\"[\"): fail(v)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runSrc(t, Config{Budget: budget.MustParse("/", tt.grant), Cwd: "/", Stdin: strings.NewReader("{\"ok\": true}\n")}, tt.src)
			if tt.wantCode == "" {
				if r.err != nil {
					t.Fatal(r.err)
				}
				return
			}
			var e *codes.Error
			if !errors.As(r.err, &e) || e.Code != tt.wantCode || !strings.Contains(e.Msg, tt.wantMsg) {
				t.Fatalf("error %v, want %s naming %q", r.err, tt.wantCode, tt.wantMsg)
			}
		})
	}
}

// TestRandBytesBounded: rand.bytes makes at most 1 MiB, the bound its
// refusal names; one byte past it is refused before anything is made
// (unbounded, a program's rand.bytes(1 << 40) asks the process for a
// terabyte, and the process ends, out of memory), and the bound itself
// is made whole (the control).
func TestRandBytesBounded(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want bool // refused
	}{
		{name: "at the bound", src: "v = rand.bytes(1048576)\nif len(v) != 1048576: fail(len(v))\n"},
		{name: "a byte past it", src: "rand.bytes(1048577)\n", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runSrc(t, Config{Budget: budget.MustParse("/", "rand"), Cwd: "/"}, tt.src)
			if !tt.want {
				if r.err != nil {
					t.Fatal(r.err)
				}
				return
			}
			var e *codes.Error
			if !errors.As(r.err, &e) || e.Code != codes.E305 ||
				!strings.Contains(e.Msg, "from 0 to 1048576") {
				t.Fatalf("error %v, want E305 naming the bound, from 0 to 1048576", r.err)
			}
		})
	}
}

// TestToolAnswerTooLong: an answer past the bound ends the call with E313,
// and the calls after it are refused too instead of reading the rest of
// that answer as theirs; a call whose answer fits (the control) gets it.
func TestToolAnswerTooLong(t *testing.T) {
	answers := "{\"ok\": true}\n" + "{\"x\": \"" + strings.Repeat("a", maxToolAnswerBytes) + "\"}\n" + "{\"ok\": true}\n"
	src := `v = tool.call("t", 1)
if v != {"ok": True}: fail(v)
print("first")
for i in range(2):
    print(i)
    tool.call("t", 1)
`
	r := runSrc(t, Config{Budget: budget.MustParse("/", "tool", "io"), Cwd: "/", Stdin: strings.NewReader(answers)}, src)
	var e *codes.Error
	if !errors.As(r.err, &e) || e.Code != codes.E313 || !strings.Contains(e.Msg, "longer than") {
		t.Fatalf("error %v, want E313 saying the answer is too long", r.err)
	}
	if !strings.Contains(r.stdout, "first\n") { // the requests are on standard output too, in this process
		t.Errorf("output %q: the call with a short answer did not get it", r.stdout)
	}
	// The program stops at the first error; the channel's state is read
	// through a second call on the same Interp's channel.
	if _, err := r.in.toolChannel().call(context.Background(), []byte("{}\n")); err == nil || !strings.Contains(err.Error(), "out of step") {
		t.Errorf("the call after the long answer: %v, want it refused, the channel out of step", err)
	}
}

// FuzzToolAnswer: whatever a host writes on its tool channel, a call
// takes at most its first line, within maxToolAnswerBytes, and that line
// is a value or an E313, never both, never neither, never a panic. The
// host is outside the worker: the tool channel is a trust boundary.
func FuzzToolAnswer(f *testing.F) {
	for _, seed := range []string{`{"sum": 5}` + "\n", `{"sum":`, "\n{}\n", " \r\n",
		`[1, 2.5, "x", null, true, {"a": [[]]}]` + "\r\n", `"\u202e"` + "\n" + `{"next": 1}` + "\n",
		strings.Repeat("[", 20000) + "\n", "1e400\n", "9223372036854775808\n", "-0\n", "\x00\xff\n",
		`{"a": 1, "a": 2}`, `{"__proto__": {}}` + "\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var requests bytes.Buffer
		ch := NewToolChannel(struct {
			io.Reader
			io.Writer
		}{bytes.NewReader(data), &requests})
		answer, err := ch.call(context.Background(), []byte("{}\n"))
		switch {
		case len(answer) > maxToolAnswerBytes:
			t.Fatalf("an answer of %d bytes, past the bound", len(answer))
		case strings.Contains(answer, "\n"):
			t.Fatalf("the answer %q holds more than its line", answer)
		case !bytes.HasPrefix(data, []byte(answer)):
			t.Fatalf("the answer %q is not what the host wrote first", answer)
		}
		v, verr := toolAnswer("t", answer, err)
		switch {
		case (v == nil) == (verr == nil):
			t.Fatalf("value %v and error %v: want exactly one", v, verr)
		case verr != nil && codes.CodeOf(verr) != codes.E313:
			t.Fatalf("error %v, want E313", verr)
		case verr == nil && !json.Valid([]byte(answer)):
			t.Fatalf("%q is no JSON, and was taken as %v", answer, v)
		}
	})
}

// FuzzJSONDepth: on valid JSON, jsonDepth refuses exactly the documents
// that nest deeper than the limit, as encoding/json's tokens count them.
func FuzzJSONDepth(f *testing.F) {
	for _, s := range []string{`[]`, `{"a":[1,{"b":"]["}]}`, `"[[["`, `[[[[[[[[[[]]]]]]]]]]`, `{"\"[":1}`, `[` + strings.Repeat(`[`, 9) + strings.Repeat(`]`, 10)} {
		f.Add(s)
	}
	const limit = 8
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<16 || !json.Valid([]byte(s)) {
			return
		}
		depth, deepest := 0, 0
		dec := json.NewDecoder(strings.NewReader(s))
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("valid JSON %q: %v", s, err)
			}
			switch tok {
			case json.Delim('['), json.Delim('{'):
				depth++
				deepest = max(deepest, depth)
			case json.Delim(']'), json.Delim('}'):
				depth--
			}
		}
		if err := jsonDepth(s, limit); (err != nil) != (deepest > limit) {
			t.Fatalf("jsonDepth(%q) = %v; the document nests %d deep, the limit is %d", s, err, deepest, limit)
		}
	})
}

// halfWriter takes half of each Write and says no error, against
// io.Writer's rule.
type halfWriter struct{}

func (halfWriter) Write(p []byte) (int, error) { return len(p) / 2, nil }

// TestToolCallWrittenInPart: a tool channel whose writer takes part of a
// request and says nothing fails the call (io.ErrShortWrite, E313 to the
// program), and takes no more calls, rather than wait for the answer to
// a request the host never had whole. The control: a writer that takes
// all, whose answer is read.
func TestToolCallWrittenInPart(t *testing.T) {
	for _, tt := range []struct {
		name    string
		w       io.Writer
		wantErr error
	}{
		{name: "a writer taking half", w: halfWriter{}, wantErr: io.ErrShortWrite},
		{name: "a writer taking all (the control)", w: io.Discard},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ch := NewToolChannel(struct {
				io.Reader
				io.Writer
			}{strings.NewReader("{\"sum\": 5}\n{\"sum\": 6}\n"), tt.w})
			answer, err := ch.call(context.Background(), []byte("{}\n"))
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (answer == `{"sum": 5}`) {
				t.Fatalf("call: %q, %v; want error %v", answer, err, tt.wantErr)
			}
			_, again := ch.call(context.Background(), []byte("{}\n"))
			if (again != nil) != (tt.wantErr != nil) {
				t.Fatalf("the next call: %v; want it refused: %v", again, tt.wantErr != nil)
			}
		})
	}
}
