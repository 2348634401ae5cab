package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/audit"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/program"
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

// TestAuditReadsABoundedProgram: audit reads the program it audits as a
// run reads it, at most program.MaxBytes: a file one byte past the bound
// (sparse: it costs no disk), as /dev/zero would be, is E316, exit 2,
// and nothing audited; a directory is E316 too. The control: the same
// program at the bound is audited. Before, audit read any file whole
// (os.ReadFile), and `sabline audit /dev/zero` took the machine's memory.
func TestAuditReadsABoundedProgram(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "big.vel")
	header := "# allow: io\n"
	if err := os.WriteFile(prog, []byte(header), 0o644); err != nil {
		t.Fatal(err)
	}
	audit := func(path string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		status := Main([]string{"audit", path}, nil, &stdout, &stderr)
		return status, stdout.String(), stderr.String()
	}
	if err := os.Truncate(prog, program.MaxBytes); err != nil {
		t.Fatal(err)
	}
	if status, out, errOut := audit(prog); status != 0 || !strings.Contains(out, "declares:      io\n") {
		t.Fatalf("the control, a program of %d bytes: exit %d, %q, %q; want it audited", program.MaxBytes, status, out, errOut)
	}
	if err := os.Truncate(prog, program.MaxBytes+1); err != nil {
		t.Fatal(err)
	}
	status, out, errOut := audit(prog)
	if status != codes.ExitUsage || out != "" || !strings.Contains(errOut, "E316: program "+prog+" is larger than") {
		t.Errorf("a program past the bound: exit %d, stdout %q, stderr %q; want exit 2, E316 and nothing audited", status, out, errOut)
	}
	status, out, errOut = audit(dir)
	if status != codes.ExitUsage || out != "" || !strings.Contains(errOut, "E316: program "+dir+" is a directory") {
		t.Errorf("a directory: exit %d, stdout %q, stderr %q; want exit 2 and E316", status, out, errOut)
	}
}
