//go:build !darwin && !windows

package receipt

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
)

// TestDefaultDirPassesOverRelative: a relative XDG_STATE_HOME is passed
// over for HOME's state directory, and a relative HOME is E317 saying so,
// where each named a receipts directory beneath whatever the working
// directory was (a run from another directory kept its receipt, and found
// the last, elsewhere). The controls: an absolute XDG_STATE_HOME, and an
// absolute HOME, are where the receipts go.
func TestDefaultDirPassesOverRelative(t *testing.T) {
	home := t.TempDir()
	state := filepath.Join(home, "state")
	for _, tc := range []struct {
		name, state, home string
		want              string // "" for E317
	}{
		{name: "relative XDG_STATE_HOME", state: "state", home: home,
			want: filepath.Join(home, ".local", "state", "sabline", "receipts")},
		{name: "relative HOME", home: "relh"},
		{name: "relative HOME and XDG_STATE_HOME", state: "state", home: "relh"},
		{name: "control: absolute XDG_STATE_HOME", state: state, home: "relh",
			want: filepath.Join(state, "sabline", "receipts")},
		{name: "control: absolute HOME", home: home,
			want: filepath.Join(home, ".local", "state", "sabline", "receipts")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(DirEnv, "")
			t.Setenv("XDG_STATE_HOME", tc.state)
			t.Setenv("HOME", tc.home)
			got, err := DefaultDir()
			if tc.want == "" {
				if codes.CodeOf(err) != codes.E317 || !strings.Contains(err.Error(), "not an absolute") {
					t.Errorf("DefaultDir() = %q, %v; want E317, HOME not an absolute path", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("DefaultDir() = %q, %v; want %s", got, err, tc.want)
			}
		})
	}
}
