package sabline_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
)

// TestLibraryAdviceNamesItsOptions: what to do about a library run's
// error (codes.Error.Hint, which an embedding program prints) names the
// Options field a caller sets, not only the command line's flag or its
// --help, which a library caller has none of: options refused (E301, its
// message naming the fields), an effect the budget does not grant
// (E302), a receipts directory that cannot be written (E317). Each
// leaves its receipt saying its code, where one can be kept. The
// control: the same run, its options mended, runs and leaves an ok
// receipt.
func TestLibraryAdviceNamesItsOptions(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.txt")
	file := filepath.Join(dir, "a-file")
	for _, f := range []string{data, file} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	prog := sabline.Source(filepath.Join(dir, "p.vel"), []byte("print(fs.read(\"data.txt\"))\n"))
	tests := []struct {
		name     string
		opts     sabline.Options
		wantCode codes.Code // "" for the control, which runs
		wantDo   string     // what its advice names
	}{
		{name: "a timeout below zero", opts: sabline.Options{Timeout: -time.Second,
			Budget: budget.MustParse(dir, "io,fs:read:data.txt")},
			wantCode: codes.E301, wantDo: "field of Options"},
		{name: "an effect not granted", opts: sabline.Options{Timeout: time.Minute,
			Budget: budget.MustParse(dir, "io")}, wantCode: codes.E302, wantDo: "Options.Budget"},
		{name: "receipts beneath a file", opts: sabline.Options{Timeout: time.Minute,
			Budget: budget.MustParse(dir, "io,fs:read:data.txt"), Receipts: filepath.Join(file, "r")},
			wantCode: codes.E317, wantDo: "Options.Receipts"},
		{name: "the control", opts: sabline.Options{Timeout: time.Minute,
			Budget: budget.MustParse(dir, "io,fs:read:data.txt")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := t.TempDir()
			tt.opts.Cwd = dir
			if tt.opts.Receipts == "" {
				tt.opts.Receipts = rc
			}
			res, err := sabline.Run(context.Background(), prog, tt.opts)
			if err == nil && res != nil {
				err = res.Err()
			}
			if tt.wantCode == "" {
				if err != nil || string(res.Stdout) != "x\n" {
					t.Fatalf("the control: %v, output %q: want it run", err, res.Stdout)
				}
			} else {
				var e *codes.Error
				if !errors.As(err, &e) || e.Code != tt.wantCode {
					t.Fatalf("%v: want %s", err, tt.wantCode)
				}
				if do := e.Hint(); !strings.Contains(do, tt.wantDo) ||
					strings.Contains(do, "sabline --help") {
					t.Errorf("what to do %q: want it to name %q, not the command line's --help",
						do, tt.wantDo)
				}
				if tt.wantCode == codes.E301 && strings.Contains(e.Msg, "--") {
					t.Errorf("message %q names a flag", e.Msg)
				}
			}
			if tt.wantCode == codes.E317 {
				return // nowhere to keep a receipt
			}
			kept, err := receipt.Find(rc, res.Receipt.RunID)
			if err != nil || kept.Outcome.Code != tt.wantCode {
				t.Errorf("its receipt (%v): outcome %+v, want code %q", err, kept.Outcome,
					tt.wantCode)
			}
		})
	}
}
