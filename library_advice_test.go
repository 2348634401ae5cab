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
// message naming the fields; a module no one registered keeps its own
// advice, naming lang.RegisterModule), an effect the budget does not grant
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
		{name: "a module no one registered", opts: sabline.Options{Timeout: time.Minute,
			Budget: budget.MustParse(dir, "io,fs:read:data.txt,ffi:nosuchmodule")},
			wantCode: codes.E301, wantDo: "lang.RegisterModule"},
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

// TestPoolAdviceNamesItsOptions: what to do about PoolOptions that
// NewPool refuses (E301) names the field of PoolOptions, not the command
// line's --help, which a library caller has none of: a timeout, a memory
// limit or an idle timeout below zero, no worker, credentials to lend
// past their bound. A module no one registered keeps its own advice. The
// control: the same options mended start a pool.
func TestPoolAdviceNamesItsOptions(t *testing.T) {
	root := t.TempDir()
	io := budget.MustParse(root, "io")
	for _, tt := range []struct {
		name   string
		opts   sabline.PoolOptions
		wantDo string // "" for the control, which starts
	}{
		{name: "a timeout below zero", opts: sabline.PoolOptions{Timeout: -time.Second},
			wantDo: "PoolOptions"},
		{name: "a memory limit below zero", opts: sabline.PoolOptions{MaxMemoryMB: -1},
			wantDo: "PoolOptions"},
		{name: "an idle timeout below zero", opts: sabline.PoolOptions{IdleTimeout: -time.Second},
			wantDo: "PoolOptions"},
		{name: "no worker", opts: sabline.PoolOptions{Workers: -1}, wantDo: "PoolOptions"},
		{name: "credentials past their bound", opts: sabline.PoolOptions{
			LendCredentials: make([]string, budget.MaxItems+1)}, wantDo: "PoolOptions"},
		{name: "a module no one registered", opts: sabline.PoolOptions{
			Budget: budget.MustParse(root, "io,ffi:nosuchmodule")}, wantDo: "lang.RegisterModule"},
		{name: "the control", opts: sabline.PoolOptions{Timeout: time.Minute}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.ImportRoot, tt.opts.Receipts, tt.opts.OnDemand = root, t.TempDir(), true
			if tt.opts.Budget.Items == nil {
				tt.opts.Budget = io
			}
			p, err := sabline.NewPool(tt.opts)
			if tt.wantDo == "" {
				if err != nil {
					t.Fatalf("the control: %v, want a pool", err)
				}
				p.Close()
				return
			}
			var e *codes.Error
			if !errors.As(err, &e) || e.Code != codes.E301 {
				t.Fatalf("%v: want E301", err)
			}
			if do := e.Hint(); !strings.Contains(do, tt.wantDo) || strings.Contains(do, "--help") {
				t.Errorf("what to do %q: want it to name %q, not the command line's --help", do,
					tt.wantDo)
			}
		})
	}
}
