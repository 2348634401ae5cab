package run

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/receipt"
)

// TestPooledFilesAreReported: the digests of the files a pooled run's
// program loaded come in its worker's result, sent once the program had
// run, so its receipt names program.files among the fields the worker
// reported. The controls: a program that does not compile loads no file
// and its receipt names none; a command-line run of the same program has
// its files from the record its worker sent before the program's first
// statement, and does not name them.
func TestPooledFilesAreReported(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{
		"main.vel":   "load('lib.vel', 'x')\nprint(x)\n",
		"lib.vel":    "x = 1\n",
		"broken.vel": "print(\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	b := budget.MustParse(dir, "io")
	p, err := StartPool(PoolConfig{Budget: b, Workers: 1, Confine: core.ModeOff, ImportRoot: dir, OnDemand: true})
	if err != nil {
		t.Fatalf("StartPool: %v", err)
	}
	defer p.Close()
	tests := []struct {
		name         string
		pooled       bool
		program      string
		wantStatus   string
		wantFiles    []string // the files' names, in the receipt
		wantReported bool     // program.files is among the reported fields
	}{
		{name: "a pooled run that loads a file", pooled: true, program: "main.vel", wantStatus: receipt.StatusOK,
			wantFiles: []string{"main.vel", "lib.vel"}, wantReported: true},
		{name: "a pooled run that does not compile", pooled: true, program: "broken.vel", wantStatus: receipt.StatusFailed},
		{name: "the command line's run", program: "main.vel", wantStatus: receipt.StatusOK, wantFiles: []string{"main.vel", "lib.vel"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec *receipt.Receipt
			if tt.pooled {
				res, _ := p.Run(context.Background(), PoolRun{Program: tt.program})
				rec = res.Receipt
			} else {
				rec = Supervise(Run{Program: filepath.Join(dir, tt.program), Budget: b, Cwd: dir, Confine: core.ModeOff})
			}
			var files []string
			for _, f := range rec.Program.Files {
				files = append(files, filepath.Base(f.Path))
			}
			t.Logf("outcome %s %q; files %q; reported %q", rec.Outcome.Status, rec.Outcome.Message, files, rec.Reported.Fields)
			if rec.Outcome.Status != tt.wantStatus || !slices.Equal(files, tt.wantFiles) {
				t.Fatalf("outcome %s (%s), files %q; want %s, %q", rec.Outcome.Status, rec.Outcome.Message, files, tt.wantStatus, tt.wantFiles)
			}
			if got := slices.Contains(rec.Reported.Fields, receipt.FieldFiles); got != tt.wantReported {
				t.Errorf("reported fields %q: %s among them %v, want %v", rec.Reported.Fields, receipt.FieldFiles, got, tt.wantReported)
			}
		})
	}
}
