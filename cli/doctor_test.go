package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
)

// TestDoctorRegister: what sabline doctor says of the register, read
// from a register the test made: a location guarded, an entry naming a
// removed path and a file that is not an entry each counted as what they
// are, and no advice; no register yet, nothing and no advice; a register
// not to rely on (a link), why, in the report and as advice.
func TestDoctorRegister(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the register's owners and its stickiness are not read on Windows")
	}
	tests := []struct {
		name                     string
		make                     func(t *testing.T) string
		wantGuarded, wantMissing int
		wantRefused              int
		wantError                string
		wantUnlisted             bool // the register held more names than a read lists
	}{
		{name: "one of each", make: func(t *testing.T) string {
			reg := testkit.NewRegister(t)
			t.Setenv(guard.RegisterEnv, reg)
			kept, gone := t.TempDir(), filepath.Join(t.TempDir(), "gone")
			if err := os.Mkdir(gone, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := guard.Join(kept, gone); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(gone); err != nil {
				t.Fatal(err)
			}
			notOne := filepath.Join(reg, "0123456789abcdef0123456789abcdef")
			if err := os.WriteFile(notOne, []byte("no newline"), 0o644); err != nil {
				t.Fatal(err)
			}
			return reg
		}, wantGuarded: 1, wantMissing: 1, wantRefused: 1},
		// More names than one read lists (16 × MaxRegisterEntries):
		// those past them are not even counted, so the count of unread
		// entries is a least one, and the line says so.
		{name: "flooded past the listing", make: func(t *testing.T) string {
			reg := testkit.NewRegister(t)
			for i := range 16*guard.MaxRegisterEntries + 1 {
				p := filepath.Join(reg, fmt.Sprintf("%032x", i))
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			return reg
		}, wantUnlisted: true},
		{name: "none yet", make: func(t *testing.T) string {
			return filepath.Join(t.TempDir(), "guarded")
		}},
		{name: "a link", make: testkit.UntrustedRegisters[0].Make,
			wantError: testkit.UntrustedRegisters[0].WantWhy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := tt.make(t)
			t.Setenv(guard.RegisterEnv, reg)
			got, advice := readRegister()
			if tt.wantUnlisted {
				if !got.Unlisted || got.Unread < 1 || got.Error != "" || len(advice) != 1 ||
					!strings.Contains(got.String(), fmt.Sprintf("at least %d not read", got.Unread)) ||
					!strings.Contains(advice[0], "at least") {
					t.Errorf("readRegister = %+v, line %q, advice %q: want unlisted, at least "+
						"one entry unread, said as a least count", got, got.String(), advice)
				}
				return
			}
			if got.Dir != reg || got.Guarded != tt.wantGuarded || got.Missing != tt.wantMissing ||
				len(got.Refused) != tt.wantRefused || got.Unread != 0 || got.Unlisted {
				t.Errorf("readRegister = %+v: want %s, %d guarded, %d missing, %d refused, none unread",
					got, reg, tt.wantGuarded, tt.wantMissing, tt.wantRefused)
			}
			if tt.wantError == "" {
				if got.Error != "" || len(advice) != 0 {
					t.Errorf("error %q, advice %q: want none", got.Error, advice)
				}
				return
			}
			if !strings.Contains(got.Error, tt.wantError) || len(advice) != 1 ||
				!strings.Contains(advice[0], tt.wantError) ||
				!strings.Contains(got.String(), "not read: ") {
				t.Errorf("error %q, advice %q, line %q: want each to say %q", got.Error, advice,
					got.String(), tt.wantError)
			}
		})
	}
}
