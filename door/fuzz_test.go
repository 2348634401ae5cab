package door

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzDecodeRunRequest feeds the request decoders (decodeRunRequest, and
// decodeAuditRequest, which shares its reading) arbitrary bodies. They
// must never panic; a body it accepts names exactly one program, holds no
// key naming a confinement setting, and reads back the same after being
// encoded again.
func FuzzDecodeRunRequest(f *testing.F) {
	for _, seed := range []string{
		`{"source":"print(1)"}`,
		`{"path":"hello.vel","args":["a","b"],"stdin":"x","allow":["io","fs:read:data"]}`,
		`{"source":"print(1)","no_confine":true}`,
		`{"source":"print(1)","\u0063onfine":1}`,
		`{"source":"print(1)","source":"x"}`,
		`{"source":"print(1)","args":null}`,
		`{"source":"print(1)"} []`,
		`{"Source":"x"}`,
		`[1,2]`,
		`{"source":"\ud800"}`,
		`{`,
		``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		if a, err := decodeAuditRequest(data); err == nil && (a.Source == "") == (a.Path == "") {
			t.Fatalf("audit: accepted %q with source %q and path %q: want exactly one", data, a.Source, a.Path)
		}
		req, err := decodeRunRequest(data)
		if err != nil {
			return
		}
		if (req.Source == "") == (req.Path == "") {
			t.Fatalf("accepted %q with source %q and path %q: want exactly one", data, req.Source, req.Path)
		}
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(data, &keys); err != nil {
			t.Fatalf("accepted %q, which is not a JSON object: %v", data, err)
		}
		for k := range keys {
			if strings.Contains(strings.ToLower(k), "confin") {
				t.Fatalf("accepted %q, which names %q", data, k)
			}
		}
		again, err := json.Marshal(map[string]any{"source": req.Source, "path": req.Path, "args": req.Args, "stdin": req.Stdin, "allow": req.Allow})
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		_ = json.Unmarshal(again, &m)
		for k, v := range m {
			if v == nil || v == "" {
				delete(m, k)
			}
		}
		again, _ = json.Marshal(m)
		back, err := decodeRunRequest(again)
		if err != nil {
			t.Fatalf("%q decoded, but its re-encoding %s does not: %v", data, again, err)
		}
		norm := func(r RunRequest) RunRequest {
			if len(r.Args) == 0 {
				r.Args = nil
			}
			if len(r.Allow) == 0 {
				r.Allow = nil
			}
			return r
		}
		if !reflect.DeepEqual(norm(back), norm(req)) {
			t.Fatalf("%q decoded to %+v, its re-encoding to %+v", data, req, back)
		}
	})
}
