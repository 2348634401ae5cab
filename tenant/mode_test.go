package tenant

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLoadRefusesAFileOthersCanChange: Load refuses a tenants file that
// its group or others may write, whatever else its mode says, and reads
// one that only its owner may write, however widely it may be read (the
// file holds digests, no token). The rows that read are the control:
// the same file, the same bytes, only the mode differs.
func TestLoadRefusesAFileOthersCanChange(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no mode bits for Load to read")
	}
	tests := []struct {
		name      string
		mode      os.FileMode
		wantError string // "" for a file that reads
	}{
		{name: "owner only", mode: 0o600},
		{name: "read-only", mode: 0o400},
		{name: "group may read", mode: 0o640},
		{name: "everyone may read", mode: 0o644},
		{name: "others may read, the group nothing", mode: 0o604},
		{name: "group may read and write", mode: 0o660, wantError: "others can change"},
		{name: "group may write only", mode: 0o620, wantError: "others can change"},
		{name: "group may write, others read", mode: 0o664, wantError: "others can change"},
		{name: "others may write only", mode: 0o602, wantError: "others can change"},
		{name: "everyone may write", mode: 0o666, wantError: "others can change"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "tenants.json")
			if err := os.WriteFile(p, []byte(`{"tenants": [{"name": "a", "token_sha256": "`+digestA+`"}]}`), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, tt.mode); err != nil { // the umask is not in the way
				t.Fatal(err)
			}
			ts, err := Load(p, Scope{})
			if tt.wantError == "" {
				if err != nil || len(ts) != 1 || ts[0].Name != "a" {
					t.Errorf("Load of a file of mode %#o = %v, %v; want tenant a", tt.mode, ts, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantError) || !strings.Contains(err.Error(), tt.mode.String()) {
				t.Errorf("Load of a file of mode %#o = %v, %v; want an error naming the mode, with %q", tt.mode, ts, err, tt.wantError)
			}
		})
	}
}

// TestLoadRefusesAFileAnotherUserOwns: a tenants file of mode 0644 that
// another user owns is refused, naming its owner: its owner can change
// who may use the server, whatever the mode says (chmod is the owner's).
// The control: the same file owned by this user reads.
func TestLoadRefusesAFileAnotherUserOwns(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows: the owners of files are not compared")
	}
	if os.Geteuid() != 0 {
		t.Skip("making a file another user owns needs root")
	}
	p := filepath.Join(t.TempDir(), "tenants.json")
	if err := os.WriteFile(p, []byte(`{"tenants": [{"name": "a", "token_sha256": "`+digestA+`"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if ts, err := Load(p, Scope{}); err != nil || len(ts) != 1 {
		t.Fatalf("the control, a file of this user's: %v, %v", ts, err)
	}
	if err := os.Chown(p, 54321, 54321); err != nil {
		t.Fatal(err)
	}
	if ts, err := Load(p, Scope{}); err == nil || !strings.Contains(err.Error(), "owned by uid 54321") {
		t.Errorf("Load of a file uid 54321 owns = %v, %v; want an error naming its owner", ts, err)
	}
}
