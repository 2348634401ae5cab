package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/receipt"
)

// snakeKey is the form of every key a command's JSON has.
var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// TestJSONOutput checks that each --json output that needs no worker is
// one JSON document, nothing before or after it, whose keys are all
// snake_case.
func TestJSONOutput(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "hello.vel")
	if err := os.WriteFile(prog, []byte("# allow: io,fs:read:data\nprint(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rc := filepath.Join(dir, "receipts")
	rec := receipt.New(prog, budget.MustParse(dir, "io"), nil)
	rec.Timings.Started = time.Now().UTC()
	if _, err := rec.Write(rc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		wantKey string // a key the document must have at its top, or in its first element
	}{
		{name: "os-policy", args: []string{"os-policy", "--json", "--allow", "io,fs:read:/srv,net:localhost:80"}, wantKey: "sha256"},
		{name: "os-policy --enforces", args: []string{"os-policy", "--enforces", "--json"}, wantKey: "systems"},
		{name: "audit", args: []string{"audit", "--json", prog}, wantKey: "safe_command"},
		{name: "receipts list", args: []string{"receipts", "list", "--json", "--receipts", rc}, wantKey: "path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if status := Main(tt.args, nil, &stdout, &stderr); status != 0 {
				t.Fatalf("exit %d: %s", status, stderr.String())
			}
			dec := json.NewDecoder(&stdout)
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("not JSON: %v", err)
			}
			if dec.More() {
				t.Fatalf("more after the JSON document")
			}
			top := v
			if list, ok := v.([]any); ok && len(list) > 0 {
				top = list[0]
			}
			if m, ok := top.(map[string]any); !ok || m[tt.wantKey] == nil {
				t.Errorf("no key %q at the top of %v", tt.wantKey, top)
			}
			walkKeys(v, func(k string) {
				if !snakeKey.MatchString(k) {
					t.Errorf("key %q is not snake_case", k)
				}
			})
		})
	}
}

// walkKeys calls f with every object key in v.
func walkKeys(v any, f func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			f(k)
			walkKeys(e, f)
		}
	case []any:
		for _, e := range x {
			walkKeys(e, f)
		}
	}
}
