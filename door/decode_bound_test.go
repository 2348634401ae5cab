package door

import (
	"runtime"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
)

// allocated is the bytes f allocates, as the runtime counts them.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestDecodeHoldsWhatItReads: a body within the bound a door reads (17
// MiB) that is millions of fields, or an args list of millions of
// items, is refused E301 having allocated a few times the body, not
// tens of times: each field, and each item, was held before the first
// was refused (480 MB and 5 s of a real server's for one body of fields,
// 360 MB and 3 s for one of items; a tenant sending eighteen at once
// took 8 GiB). The control: a body with every field, and args and
// allow at their bounds, is read whole.
func TestDecodeHoldsWhatItReads(t *testing.T) {
	const size = MaxBodyBytes - 64
	n := size / len(`,"a":0`)
	fields := `{"source":"print(1)"` + strings.Repeat(`,"a":0`, n) + `}`
	items := `{"source":"print(1)","args":[""` + strings.Repeat(`,""`, size/3) + `]}`
	for _, tc := range []struct{ name, body, want string }{
		{"fields", fields, "more than"},
		{"args", items, "args: more than"},
	} {
		data := []byte(tc.body)
		var err error
		got := allocated(func() { _, err = decodeRunRequest(data) })
		if codes.CodeOf(err) != codes.E301 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want E301 naming %q", tc.name, err, tc.want)
		}
		if most := 6 * uint64(len(data)); got > most {
			t.Errorf("%s: a body of %d bytes refused having allocated %d MB, more than %d MB",
				tc.name, len(data), got>>20, most>>20)
		}
	}

	// A confinement named among the fields read is said first, as in a
	// body of few fields.
	named := `{"no_confine":true` + strings.Repeat(`,"a":0`, 2*maxFields) + `}`
	if _, err := decodeRunRequest([]byte(named)); err == nil ||
		!strings.Contains(err.Error(), "confinement is the operator's") {
		t.Errorf("a confinement named in a body of too many fields: %v, want it said", err)
	}

	args := make([]string, maxArgs)
	for i := range args {
		args[i] = `"a"`
	}
	allow := make([]string, maxAllow)
	for i := range allow {
		allow[i] = `"io"`
	}
	body := `{"source":"print(1)","args":[` + strings.Join(args, ",") + `],"stdin":"in",` +
		`"allow":[` + strings.Join(allow, ",") + `]}`
	req, err := decodeRunRequest([]byte(body))
	if err != nil {
		t.Fatalf("a request at its bounds: %v", err)
	}
	if req.Source != "print(1)" || len(req.Args) != maxArgs || req.Stdin != "in" ||
		len(req.Allow) != maxAllow {
		t.Errorf("a request at its bounds read as %q, %d args, %q, %d allow", req.Source,
			len(req.Args), req.Stdin, len(req.Allow))
	}
}

// TestRefusalSaysWhatItQuotesLeftOut: a refusal that quotes a client's
// text (a field the request has not) quotes its beginning and says how
// many bytes it left out, in the words a receipt's message uses
// (codes.Clip); before, it ended "..." and said nothing of how much.
// The control: a short name, quoted whole.
func TestRefusalSaysWhatItQuotesLeftOut(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  string
		want string
	}{
		{"a long name", strings.Repeat("z", 1000),
			`no field "` + strings.Repeat("z", 43) + `... (957 bytes more)":`},
		{"a short name", "zz", `no field "zz":`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeRunRequest([]byte(`{"source":"print(1)","` + tc.key + `":1}`))
			e, ok := err.(*codes.Error)
			if !ok || e.Code != codes.E301 || !strings.Contains(e.Msg, tc.want) {
				t.Errorf("%v; want E301 saying %q", err, tc.want)
			}
		})
	}
}
