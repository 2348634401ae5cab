package tenant

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const digestA = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae" // sha256("foo")
const digestB = "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9" // sha256("bar")

// TestParse: a file of good entries reads back as written; every value
// out of its bounds is refused with a message that names it.
func TestParse(t *testing.T) {
	good := `{"tenants": [
  {"name": "acme", "token_sha256": "` + digestA + `", "allow": ["io"], "rate": 2.5, "burst": 5, "concurrency": 4},
  {"name": "beta", "token_sha256": "` + digestB + `"}
]}`
	ts, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 || ts[0].Name != "acme" || ts[0].Rate != 2.5 || ts[0].Burst != 5 || ts[0].Concurrency != 4 ||
		len(ts[0].Allow) != 1 || ts[1].Rate != 0 || ts[1].Allow != nil {
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
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "others can change") {
			t.Errorf("a world-writable file: %v", err)
		}
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	if ts, err := Load(p); err != nil || len(ts) != 1 {
		t.Errorf("Load = %v, %v", ts, err)
	}
	if _, err := Load(filepath.Dir(p)); err == nil {
		t.Error("a directory loaded as a tenants file")
	}
}

// FuzzParse: on any input Parse returns tenants that pass its own checks,
// or an error; never a panic, never more than MaxTenants.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"tenants": [{"name": "acme", "token_sha256": "` + digestA + `", "allow": ["io"], "rate": 2.5, "burst": 5, "concurrency": 4}]}`))
	f.Add([]byte(`{"tenants": []}`))
	f.Add([]byte(`{"tenants": [{"name": "a", "token_sha256": "` + digestA + `"}, {"name": "a", "token_sha256": "` + digestB + `"}]}`))
	f.Add([]byte(`{"tenants": [{"name": "a", "token_sha256": "` + digestA + `", "rate": 1e400}]}`))
	f.Add([]byte("{\"tenants\": [{\"name\": \"\u00e9\"}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := Parse(data)
		if err != nil {
			return
		}
		if len(ts) > MaxTenants {
			t.Fatalf("%d tenants", len(ts))
		}
		for _, tn := range ts {
			if err := check(tn); err != nil {
				t.Fatalf("Parse let through %+v: %v", tn, err)
			}
		}
	})
}
