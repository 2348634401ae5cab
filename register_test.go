package sabline_test

import (
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
	"github.com/sabline/sabline/internal/testkit"
)

// TestPoolRefusesAnUntrustedRegister: a pool whose receipts directory
// cannot be made known to the register (a register that is a link, or
// another user's) does not start: E331 naming the register; its control,
// a register to rely on, starts and registers the receipts directory.
func TestPoolRefusesAnUntrustedRegister(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("on Windows the register is neither sticky nor its owner compared")
	}
	for _, tt := range testkit.UntrustedRegisters {
		t.Run(tt.Name, func(t *testing.T) {
			if tt.RootOnly && os.Geteuid() != 0 {
				t.Skip("giving a directory to another user takes root")
			}
			reg := tt.Make(t)
			t.Setenv(guard.RegisterEnv, reg)
			root, rc := t.TempDir(), filepath.Join(t.TempDir(), "receipts")
			p, err := sabline.NewPool(sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 1, ImportRoot: root,
				Timeout: time.Minute, Receipts: rc})
			if tt.WantWhy == "" {
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
			if codes.CodeOf(err) != codes.E331 || !strings.Contains(err.Error(), reg) || !strings.Contains(err.Error(), tt.WantWhy) {
				t.Errorf("NewPool: %v; want E331 naming %s and %q", err, reg, tt.WantWhy)
			}
		})
	}
}
