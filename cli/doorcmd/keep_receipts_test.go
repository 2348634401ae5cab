package doorcmd

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/cli/internal/cmdline"

	"github.com/sabline/sabline/receipt"
)

// TestKeepReceiptsFlag: --keep-receipts reads each retention; left out,
// a server keeps every receipt, or with --receipts-url each until it is
// shipped; a value that is no retention is refused at the command line.
func TestKeepReceiptsFlag(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		shipping bool
		want     receipt.Retention
		wantErr  bool
	}{
		{name: "left out", want: receipt.Retention{All: true}},
		{name: "left out, shipping", shipping: true, want: receipt.Retention{}},
		{name: "all, shipping", args: []string{"--keep-receipts", "all"}, shipping: true,
			want: receipt.Retention{All: true}},
		{name: "size", args: []string{"--keep-receipts=512MiB"}, want: receipt.Retention{MaxBytes: 512 << 20}},
		{name: "not a retention", args: []string{"--keep-receipts", "lots"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, sf := serveFlagSet()
			_, _, err := cmdline.ParseInterspersed(fs, tt.args)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("parsed %q, want it refused", tt.args)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := sf.door.keep.Of(tt.shipping); got != tt.want {
				t.Fatalf("retention %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestMCPKeepReceipts: sabline mcp takes --keep-receipts as serve does;
// keeping receipts until shipped, with no store to ship them to, is
// refused at start (E301, exit 2), and an age is taken: the server serves
// until its input ends, exit 0.
func TestMCPKeepReceipts(t *testing.T) {
	bin := sablineBin(t)
	root := t.TempDir()
	tests := []struct {
		name     string
		keep     string
		wantExit int
		wantSaid string
	}{
		{name: "until shipped, no store", keep: "shipped", wantExit: 2,
			wantSaid: "E301: --keep-receipts: keeping the receipts until they are shipped"},
		{name: "an age", keep: "7d", wantExit: 0, wantSaid: "serving on standard input and output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, "mcp", "--import-root", root, "--receipts",
				filepath.Join(t.TempDir(), "rc"), "--keep-receipts", tt.keep)
			cmd.Stdin = strings.NewReader("")
			out, err := cmd.CombinedOutput()
			exit := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				exit = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if exit != tt.wantExit || !strings.Contains(string(out), tt.wantSaid) {
				t.Errorf("exit %d, said %q; want exit %d, saying %q", exit, out, tt.wantExit, tt.wantSaid)
			}
		})
	}
}
