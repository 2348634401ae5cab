package tenant

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tokenOf is a valid token digest, a different one for each n.
func tokenOf(n int) string { return fmt.Sprintf("%064x", n+1) }

// fileOf is a tenants file of ts, as JSON.
func fileOf(t *testing.T, ts []map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"tenants": ts})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// one is a file with one tenant: a valid entry with what more sets.
func one(t *testing.T, more map[string]any) string {
	e := map[string]any{"name": "acme", "token_sha256": tokenOf(0)}
	for k, v := range more {
		e[k] = v
	}
	return fileOf(t, []map[string]any{e})
}

// many is a file of n valid tenants.
func many(t *testing.T, n int) string {
	ts := make([]map[string]any, n)
	for i := range ts {
		ts[i] = map[string]any{"name": fmt.Sprintf("t%d", i), "token_sha256": tokenOf(i)}
	}
	return fileOf(t, ts)
}

// TestParseBounds holds every bound of a tenants file at its edge: the
// value at the bound is read, the one just past it refused with a message
// that names what is wrong, and an error says on which line or entry it
// lies.
func TestParseBounds(t *testing.T) {
	allow := func(n, size int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "fs:read:/" + strings.Repeat("a", size-len("fs:read:/"))
		}
		return out
	}
	pad := func(s string, size int) string { return s + strings.Repeat(" ", size-len(s)) }
	tests := []struct {
		name    string
		data    string
		wantErr string // "" for read
	}{
		{name: "a file of the bound", data: pad(one(t, nil), MaxFileBytes)},
		{name: "a file past it", data: pad(one(t, nil), MaxFileBytes+1), wantErr: "larger than 262144 bytes"},
		{name: "tenants at the bound", data: many(t, MaxTenants)},
		{name: "tenants past it", data: many(t, MaxTenants+1), wantErr: "1001 tenants, at most 1000"},
		{name: "a name at the bound", data: one(t, map[string]any{"name": strings.Repeat("a", MaxNameBytes)})},
		{name: "a name past it", data: one(t, map[string]any{"name": strings.Repeat("a", MaxNameBytes+1)}),
			wantErr: `name "` + strings.Repeat("a", 45) + `... (20 bytes more)"`},
		{name: "a name of every allowed kind", data: one(t, map[string]any{"name": "az09-_."})},
		{name: "a name with an upper-case letter", data: one(t, map[string]any{"name": "Acme"}), wantErr: `name "Acme"`},
		{name: "a name with ':' (after '9')", data: one(t, map[string]any{"name": "a:b"}), wantErr: `name "a:b"`},
		{name: "a name with '/' (before '0')", data: one(t, map[string]any{"name": "a/b"}), wantErr: `name "a/b"`},
		{name: "a name with '`' (before 'a')", data: one(t, map[string]any{"name": "a`b"}), wantErr: "name"},
		{name: "a name with '{' (after 'z')", data: one(t, map[string]any{"name": "a{b"}), wantErr: "name"},
		{name: "no name", data: one(t, map[string]any{"name": ""}), wantErr: `name ""`},
		{name: "a digest one short", data: one(t, map[string]any{"token_sha256": tokenOf(0)[1:]}), wantErr: "token_sha256"},
		{name: "a digest in upper case", data: one(t, map[string]any{"token_sha256": strings.ToUpper(fmt.Sprintf("%064x", 0xabc))}),
			wantErr: "token_sha256"},
		{name: "allow items at the bound", data: one(t, map[string]any{"allow": allow(MaxAllowItems, 20)})},
		{name: "allow items past it", data: one(t, map[string]any{"allow": allow(MaxAllowItems+1, 20)}),
			wantErr: "65 items, at most 64"},
		{name: "an allow item of 4096 bytes", data: one(t, map[string]any{"allow": allow(1, 4096)})},
		{name: "an allow item of 4097 bytes", data: one(t, map[string]any{"allow": allow(1, 4097)}),
			wantErr: "an item of 4097 bytes"},
		{name: "an empty allow item", data: one(t, map[string]any{"allow": []string{""}}), wantErr: "an item of 0 bytes"},
		{name: "no rate", data: one(t, map[string]any{"rate": 0})},
		{name: "a rate at the bound", data: one(t, map[string]any{"rate": MaxRate})},
		{name: "a rate past it", data: one(t, map[string]any{"rate": MaxRate * 1.000001}), wantErr: "rate"},
		{name: "a rate below 0", data: one(t, map[string]any{"rate": -0.001}), wantErr: "rate -0.001"},
		{name: "a burst at the bound", data: one(t, map[string]any{"rate": 1, "burst": MaxBurst})},
		{name: "a burst past it", data: one(t, map[string]any{"rate": 1, "burst": MaxBurst + 1}), wantErr: "burst 1000001"},
		{name: "a burst below 0", data: one(t, map[string]any{"rate": 1, "burst": -1}), wantErr: "burst -1"},
		{name: "a burst of 1 with a rate", data: one(t, map[string]any{"rate": 1, "burst": 1})},
		{name: "a burst without a rate", data: one(t, map[string]any{"burst": 1}), wantErr: "burst 1: want 0 to 1000000, with a rate"},
		{name: "concurrency at the bound", data: one(t, map[string]any{"concurrency": MaxConcurrency})},
		{name: "concurrency past it", data: one(t, map[string]any{"concurrency": MaxConcurrency + 1}),
			wantErr: "concurrency 10001"},
		{name: "concurrency below 0", data: one(t, map[string]any{"concurrency": -1}), wantErr: "concurrency -1"},
		{name: "requests at the bound", data: one(t, map[string]any{"requests": MaxRate,
			"request_burst": MaxBurst})},
		{name: "requests past it", data: one(t, map[string]any{"requests": MaxRate * 2}),
			wantErr: "requests 2e+06"},
		{name: "request burst without requests", data: one(t, map[string]any{"request_burst": 5}),
			wantErr: "request_burst 5: want 0 to 1000000, with requests"},
		{name: "connections at the bound", data: one(t, map[string]any{"connections": MaxConnections})},
		{name: "connections past it", data: one(t, map[string]any{"connections": MaxConnections + 1}),
			wantErr: "connections 100001"},
		{name: "connections below 0", data: one(t, map[string]any{"connections": -1}),
			wantErr: "connections -1"},
		{name: "the operator", data: one(t, map[string]any{"operator": true})},
		{name: "not the operator, said", data: one(t, map[string]any{"operator": false})},
		{name: "the operator as a string", data: one(t, map[string]any{"operator": "true"}),
			wantErr: "line 1: tenants.operator: want true or false, not a JSON string"},
		{name: "the operator as a number", data: one(t, map[string]any{"operator": 1}),
			wantErr: "line 1: tenants.operator: want true or false, not a JSON number"},
		{name: "a rate as a string", data: one(t, map[string]any{"rate": "fast"}),
			wantErr: "line 1: tenants.rate: want a number, not a JSON string"},
		{name: "a burst not whole", data: one(t, map[string]any{"rate": 1, "burst": 1.5}),
			wantErr: "tenants.burst: want a whole number, not a JSON number 1.5"},
		{name: "a burst not whole, long, clipped",
			data: strings.Replace(one(t, map[string]any{"rate": 1, "burst": 2}), `"burst":2`,
				`"burst":1.`+strings.Repeat("5", 1000), 1),
			wantErr: "not a JSON number 1." + strings.Repeat("5", 34) + "... (966 bytes more)"},
		{name: "the operator misspelt", data: one(t, map[string]any{"operators": true}),
			wantErr: `unknown field "operators"`},
		{name: "a number for the file", data: "1" + strings.Repeat("0", 1000),
			wantErr: "line 1: the file: want an object, not a JSON number"},
		{name: "a long unknown field, clipped",
			data:    one(t, map[string]any{strings.Repeat("x", 1000): 1}),
			wantErr: `unknown field "` + strings.Repeat("x", 470) + "... (531 bytes more)"},
		{name: "the second entry's name given twice", data: fileOf(t, []map[string]any{
			{"name": "a", "token_sha256": tokenOf(0)}, {"name": "a", "token_sha256": tokenOf(1)}}),
			wantErr: `entry 2: the name "a" is given twice`},
		{name: "the third entry's token given twice", data: fileOf(t, []map[string]any{
			{"name": "a", "token_sha256": tokenOf(0)}, {"name": "b", "token_sha256": tokenOf(1)},
			{"name": "c", "token_sha256": tokenOf(1)}}),
			wantErr: "entry 3 (c): the same token as b"},
		{name: "the first entry out of bounds", data: one(t, map[string]any{"concurrency": -1}), wantErr: "entry 1: acme"},
		{name: "a syntax error on line 3", data: "{\n\"tenants\": [\n}", wantErr: "line 3:"},
		{name: "an error at the last byte", data: "{\n\"tenants\": [}", wantErr: "line 2:"},
		{name: "an invalid name of the bound, not clipped", data: one(t, map[string]any{"name": strings.Repeat("A", MaxNameBytes)}),
			wantErr: `name "` + strings.Repeat("A", MaxNameBytes) + `": want`},
		{name: "a wrong type on line 2", data: "{\n\"tenants\": 7}", wantErr: "line 2:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.data))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.wantErr == "" && len(got) == 0:
				t.Fatal("read no tenant")
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Parse = %d tenants, %v; want an error with %q", len(got), err, tt.wantErr)
			}
		})
	}
}

// TestParseErrorWithoutOffset: an error the decoder gives no offset for
// (a field the file may not have) is said as it is, with no line.
func TestParseErrorWithoutOffset(t *testing.T) {
	_, err := Parse([]byte(`{"tenants": [], "extra": 1}`))
	if err == nil || !strings.Contains(err.Error(), `unknown field "extra"`) || strings.Contains(err.Error(), "line") {
		t.Errorf("Parse = %v; want the unknown field named, and no line", err)
	}
	if _, err := Parse([]byte(`{"tenants": []}`)); err != nil {
		t.Errorf("control: an empty list: %v", err)
	}
}

// TestLoadAtTheBound: a tenants file of exactly MaxFileBytes is read
// whole, one byte more is refused.
func TestLoadAtTheBound(t *testing.T) {
	for _, tt := range []struct {
		name    string
		size    int
		wantErr bool
	}{
		{name: "at the bound", size: MaxFileBytes},
		{name: "past it", size: MaxFileBytes + 1, wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := one(t, nil)
			p := filepath.Join(t.TempDir(), "tenants.json")
			if err := os.WriteFile(p, []byte(data+strings.Repeat(" ", tt.size-len(data))), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := Load(p, Scope{})
			if (err != nil) != tt.wantErr || !tt.wantErr && len(got) != 1 {
				t.Errorf("Load = %d tenants, %v; want an error %v", len(got), err, tt.wantErr)
			}
		})
	}
}

// TestDigest: a tenant's digest is the bytes its hex names.
func TestDigest(t *testing.T) {
	d := Tenant{TokenSHA256: tokenOf(0xfe)}.Digest()
	if d[31] != 0xff || d[30] != 0 {
		t.Errorf("Digest of %s = %x", tokenOf(0xfe), d)
	}
}
