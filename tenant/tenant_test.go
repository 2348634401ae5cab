package tenant

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
)

const digestA = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae" // sha256("foo")
const digestB = "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9" // sha256("bar")

// TestParse: a file of good entries reads back as written, the operator
// the tenant marked so and no other; every value out of its bounds is
// refused with a message that names it.
func TestParse(t *testing.T) {
	good := `{"tenants": [
  {"name": "acme", "token_sha256": "` + digestA + `", "allow": ["io"], "rate": 2.5, "burst": 5, "concurrency": 4},
  {"name": "beta", "token_sha256": "` + digestB + `", "operator": true}
]}`
	ts, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 || ts[0].Name != "acme" || ts[0].Rate != 2.5 || ts[0].Burst != 5 || ts[0].Concurrency != 4 ||
		len(ts[0].Allow) != 1 || ts[0].Operator || ts[1].Rate != 0 || ts[1].Allow != nil ||
		!ts[1].Operator {
		t.Errorf("Parse = %+v", ts)
	}
	if DigestOf("foo") != digestA {
		t.Errorf("DigestOf(foo) = %s", DigestOf("foo"))
	}
	if d := ts[0].Digest(); d[0] != 0x2c || d[31] != 0xae {
		t.Errorf("Digest = %x", d)
	}
	entry := func(fields string) string {
		return `{"tenants": [{"name": "acme", "token_sha256": "` + digestA + `"` + fields + `}]}`
	}
	for _, tt := range []struct {
		name, file, want string
	}{
		{"not JSON", `tenants: []`, "line 1"},
		{"syntax error on line 3", "{\"tenants\": [\n{\"name\": \"a\",\n\"token_sha256\" \"x\"}]}", "line 3"},
		{"no list", `{}`, `no "tenants"`},
		{"unknown field", entry(`, "rates": 1`), `unknown field "rates"`},
		// encoding/json takes a name in any case, and the last of a field
		// given twice: the file would say one thing to its reader and
		// another to the server (the control: "operator": true in good).
		{"a field in another case", entry(`, "operator": false, "OPERATOR": true`),
			`line 1: unknown field "OPERATOR"`},
		{"the list in another case", `{"tenants": [], "Tenants": [{"name": "a", "token_sha256": "` +
			digestA + `"}]}`, `unknown field "Tenants"`},
		{"a field given twice", entry(`, "operator": false,` + "\n" + `"operator": true`),
			`line 2: the field "operator" is given twice`},
		{"the list given twice", `{"tenants": [{"name": "a", "token_sha256": "` + digestA +
			`"}], "tenants": []}`, `the field "tenants" is given twice`},
		{"two values", entry(``) + `{}`, "more than one"},
		{"upper-case name", `{"tenants": [{"name": "Acme", "token_sha256": "` + digestA + `"}]}`, `name "Acme"`},
		{"empty name", `{"tenants": [{"name": "", "token_sha256": "` + digestA + `"}]}`, `name ""`},
		{"a token, not its digest", `{"tenants": [{"name": "a", "token_sha256": "hunter2"}]}`, "64 lower-case hexadecimal"},
		{"upper-case digest", `{"tenants": [{"name": "a", "token_sha256": "` + strings.ToUpper(digestA) + `"}]}`, "64 lower-case"},
		{"negative rate", entry(`, "rate": -1`), "rate -1"},
		{"rate too high", entry(`, "rate": 1e300`), "rate 1e+300"},
		{"burst without rate", entry(`, "burst": 3`), "burst 3"},
		{"negative concurrency", entry(`, "concurrency": -2`), "concurrency -2"},
		{"string for a number", entry(`, "rate": "fast"`), "line 1"},
		{"same name twice", `{"tenants": [{"name": "a", "token_sha256": "` + digestA + `"}, {"name": "a", "token_sha256": "` + digestB + `"}]}`, "given twice"},
		{"same token twice", `{"tenants": [{"name": "a", "token_sha256": "` + digestA + `"}, {"name": "b", "token_sha256": "` + digestA + `"}]}`, "same token as a"},
		{"empty allow item", entry(`, "allow": [""]`), "allow"},
		{"too large", `{"tenants": [` + strings.Repeat(" ", MaxFileBytes) + `]}`, "larger than"},
	} {
		_, err := Parse([]byte(tt.file))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Parse: %v; want an error with %q", tt.name, err, tt.want)
		}
	}
}

// TestLoad: a file others may change is refused, the same file made
// private is read.
func TestLoad(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tenants.json")
	if err := os.WriteFile(p, []byte(`{"tenants": [{"name": "a", "token_sha256": "`+digestA+`"}]}`), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o666); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if _, err := Load(p, Scope{}); err == nil || !strings.Contains(err.Error(), "others can change") {
			t.Errorf("a world-writable file: %v", err)
		}
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	if ts, err := Load(p, Scope{}); err != nil || len(ts) != 1 {
		t.Errorf("Load = %v, %v", ts, err)
	}
	if _, err := Load(filepath.Dir(p), Scope{}); err == nil {
		t.Error("a directory loaded as a tenants file")
	}
}

// maxErrorBytes bounds a refusal of Parse's, whatever the file: what it
// quotes of the file is clipped.
const maxErrorBytes = maxDescribeBytes + 256

// FuzzParse: on any input Parse returns tenants that pass its own checks,
// or an error of at most maxErrorBytes; never a panic, never more than
// MaxTenants.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"tenants": [{"name": "acme", "token_sha256": "` + digestA + `", "allow": ["io"], "rate": 2.5, "burst": 5, "concurrency": 4}]}`))
	f.Add([]byte(`{"tenants": [{"name": "acme", "token_sha256": "` + digestA + `", "requests": 30, "request_burst": 60, "connections": 16}]}`))
	f.Add([]byte(`{"tenants": [{"name": "ops", "token_sha256": "` + digestA + `", "operator": true}]}`))
	f.Add([]byte(`{"tenants": [{"name": "ops", "token_sha256": "` + digestA + `", "operator": "yes"}]}`))
	f.Add([]byte(`{"tenants": []}`))
	f.Add([]byte(`{"tenants": [{"name": "a", "token_sha256": "` + digestA + `"}, {"name": "a", "token_sha256": "` + digestB + `"}]}`))
	f.Add([]byte(`{"tenants": [{"name": "a", "token_sha256": "` + digestA + `", "rate": 1e400}]}`))
	f.Add([]byte("{\"tenants\": [{\"name\": \"\u00e9\"}]}"))
	f.Add([]byte(`{"tenants": [{"name": "a", "` + strings.Repeat("x", 2000) + `": 1}]}`))
	f.Add([]byte(`{"tenants": [{"name": "a", "burst": 1.` + strings.Repeat("5", 2000) + `}]}`))
	f.Add([]byte("1" + strings.Repeat("0", 2000)))
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := Parse(data)
		if err != nil {
			if n := len(err.Error()); n > maxErrorBytes {
				t.Fatalf("an error of %d bytes, past %d: %.200s...", n, maxErrorBytes, err)
			}
			return
		}
		if len(ts) > MaxTenants {
			t.Fatalf("%d tenants", len(ts))
		}
		for _, tn := range ts {
			if err := tn.Check(); err != nil {
				t.Fatalf("Parse let through %+v: %v", tn, err)
			}
		}
	})
}

// TestScopeHold makes each tenant's ceiling from its allow list within
// the server's, relative paths from the scope's directory, and refuses a
// list with one tenant wider than the server, malformed, or failing the
// scope's own check; a tenant with no allow list keeps the server's.
func TestScopeHold(t *testing.T) {
	dir := t.TempDir()
	server := budget.MustParse(dir, "io,fs:read:data")
	noFFI := func(b budget.Budget) error {
		if b.Has(budget.FFI) {
			return errors.New("no host module here")
		}
		return nil
	}
	tests := []struct {
		name        string
		allow       []string
		wantCeiling string // "" for none (the server's)
		wantEmpty   bool   // a ceiling of no items: the tenant may run with nothing granted
		wantErr     string
	}{
		{name: "no allow list", allow: nil},
		{name: "an empty allow list: nothing, not the server's", allow: []string{}, wantEmpty: true},
		{name: "narrower", allow: []string{"io"}, wantCeiling: "io"},
		{name: "a relative path from the scope", allow: []string{"fs:read:data"},
			wantCeiling: "fs:read:" + filepath.Join(dir, "data")},
		{name: "wider", allow: []string{"env"}, wantErr: "wider than the server's"},
		{name: "malformed", allow: []string{"fs:frob:x:y"}, wantErr: "tenant acme: allow"},
		{name: "refused by the scope's check", allow: []string{"ffi:json"},
			wantErr: "no host module here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := []Tenant{{Name: "acme", TokenSHA256: DigestOf("x"), Allow: tt.allow}}
			err := Scope{Cwd: dir, Ceiling: server, Check: noFFI}.Hold(ts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Hold = %v, want an error saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Hold: %v", err)
			}
			switch c := ts[0].Ceiling; {
			case tt.wantEmpty && (c == nil || len(c.Items) != 0):
				t.Errorf("ceiling %v, want one of no items (the operator's --allow is wider)", c)
			case tt.wantEmpty:
			case tt.wantCeiling == "" && c != nil:
				t.Errorf("ceiling %s, want none", c)
			case tt.wantCeiling != "" && (c == nil || c.String() != tt.wantCeiling):
				t.Errorf("ceiling %v, want %s", c, tt.wantCeiling)
			}
		})
	}
}

func TestRequestLimit(t *testing.T) {
	tests := []struct {
		name          string
		t             Tenant
		wantPerSecond float64
		wantBurst     int
	}{
		{name: "no limits: no bound", t: Tenant{}, wantPerSecond: 0, wantBurst: 0},
		{name: "a slow rate: at least MinRequests", t: Tenant{Rate: 0.5},
			wantPerSecond: MinRequests, wantBurst: MinRequests},
		{name: "a rate: ten requests a run", t: Tenant{Rate: 20, Burst: 40},
			wantPerSecond: 200, wantBurst: 400},
		{name: "the file's own", t: Tenant{Rate: 20, Requests: 3, RequestBurst: 7},
			wantPerSecond: 3, wantBurst: 7},
		{name: "requests without a burst", t: Tenant{Requests: 2.5}, wantPerSecond: 2.5,
			wantBurst: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, b := tt.t.RequestLimit()
			if p != tt.wantPerSecond || b != tt.wantBurst {
				t.Errorf("RequestLimit %v, %d; want %v, %d", p, b, tt.wantPerSecond, tt.wantBurst)
			}
		})
	}
}
