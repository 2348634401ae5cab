package sabline_test

import (
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/guard"
)

// TestPoolRefusesAnUntrustedRegister: a pool whose receipts directory
// cannot be made known to the register (a register that is a link, or
// another user's) does not start: E331 naming the register; its control,
// a register to rely on, starts and registers the receipts directory.
func TestPoolRefusesAnUntrustedRegister(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("on Windows the register is neither sticky nor its owner compared")
	}
	sticky := func(t *testing.T) string {
		reg := filepath.Join(t.TempDir(), "guarded")
		if err := os.Mkdir(reg, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(reg, 0o777|fs.ModeSticky); err != nil {
			t.Fatal(err)
		}
		return reg
	}
	tests := []struct {
		name     string
		make     func(t *testing.T) string
		wantWhy  string
		rootOnly bool
	}{
		{name: "a link", wantWhy: "is a link", make: func(t *testing.T) string {
			reg := filepath.Join(t.TempDir(), "link")
			if err := os.Symlink(sticky(t), reg); err != nil {
				t.Fatal(err)
			}
			return reg
		}},
		{name: "another user's", wantWhy: "owned by uid 12345", rootOnly: true, make: func(t *testing.T) string {
			reg := sticky(t)
			if err := os.Chown(reg, 12345, 12345); err != nil {
				t.Fatal(err)
			}
			return reg
		}},
		{name: "control: ours", make: sticky},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rootOnly && os.Geteuid() != 0 {
				t.Skip("giving a directory to another user takes root")
			}
			reg := tt.make(t)
			t.Setenv(guard.RegisterEnv, reg)
			root, rc := t.TempDir(), filepath.Join(t.TempDir(), "receipts")
			p, err := sabline.NewPool(sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 1, ImportRoot: root,
				Timeout: time.Minute, Receipts: rc})
			if tt.wantWhy == "" {
				if err != nil {
					t.Fatalf("control: %v", err)
				}
				p.Close()
				got, err := guard.ReadRegister(reg)
				if err != nil || !strings.Contains(strings.Join(got.Paths, " "), rc) {
					t.Errorf("control: the register holds %q (%v), want %s", got.Paths, err, rc)
				}
				return
			}
			if p != nil {
				p.Close()
			}
			if codes.CodeOf(err) != codes.E331 || !strings.Contains(err.Error(), reg) || !strings.Contains(err.Error(), tt.wantWhy) {
				t.Errorf("NewPool: %v; want E331 naming %s and %q", err, reg, tt.wantWhy)
			}
		})
	}
}
