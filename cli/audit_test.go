package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/audit"
)

// TestAuditSafeCommand checks that the safe command audit prints names
// the directory to run it in, absolute, whatever directory audit ran in,
// and that the budget's relative paths are read there.
func TestAuditSafeCommand(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "job", "report.vel")
	if err := os.MkdirAll(filepath.Join(dir, "job", "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prog, []byte("# allow: io,fs:read:data\nprint(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	if status := Main([]string{"audit", filepath.Join("job", "report.vel")}, nil, &stdout, &stderr); status != 0 {
		t.Fatalf("exit %d: %s", status, stderr.String())
	}
	abs, err := filepath.Abs("job")
	if err != nil {
		t.Fatal(err)
	}
	want := "safe command:  cd " + audit.ShellQuote(abs) + " && sabline report.vel --allow io,fs:read:data\n"
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("audit printed\n%s\nwant the line %q", stdout.String(), want)
	}
	stdout.Reset()
	if status := Main([]string{"audit", "--json", filepath.Join("job", "report.vel")}, nil, &stdout, &stderr); status != 0 {
		t.Fatalf("exit %d: %s", status, stderr.String())
	}
	for _, want := range []string{`"run_in": "job"`, `"safe_command": "sabline report.vel --allow io,fs:read:data"`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("audit --json does not hold %s (it stays relative, the same on every machine):\n%s", want, stdout.String())
		}
	}
}
