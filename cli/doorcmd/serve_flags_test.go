package doorcmd

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
)

func TestLoopback(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:8080", true},
		{"127.0.0.2:0", true},
		{"[::1]:8080", true},
		{"localhost:8080", true},
		{":8080", false},
		{"0.0.0.0:8080", false},
		{"[::]:8080", false},
		{"192.168.1.4:8080", false},
		{"example.org:80", false},
		{"127.0.0.1", false},
	}
	for _, tt := range tests {
		if got := loopback(tt.addr); got != tt.want {
			t.Errorf("loopback(%q) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}

func TestLoadToken(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "token")
	tok, made, err := loadToken(path, false)
	if err != nil || !made || len(tok) != 64 {
		t.Fatalf("loadToken of no file: %q %v %v, want a new 64-digit token", tok, made, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if goruntime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %s, want 0600", fi.Mode().Perm())
	}
	again, made, err := loadToken(path, false)
	if err != nil || made || again != tok {
		t.Errorf("loadToken of its own file: %q %v %v, want the same token", again, made, err)
	}
	fresh, made, err := loadToken(path, true)
	if err != nil || !made || fresh == tok {
		t.Errorf("a fresh token: %q %v %v, want a new one", fresh, made, err)
	}
	short := filepath.Join(dir, "short")
	if err := os.WriteFile(short, []byte("abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadToken(short, false); codes.CodeOf(err) != codes.E301 {
		t.Errorf("a short token: %v, want E301", err)
	}
	if goruntime.GOOS != "windows" {
		open := filepath.Join(dir, "open")
		if err := os.WriteFile(open, []byte("0123456789abcdef0123456789abcdef\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := loadToken(open, false); codes.CodeOf(err) != codes.E301 {
			t.Errorf("a token others can read: %v, want E301", err)
		}
		if err := os.Chmod(open, 0o600); err != nil {
			t.Fatal(err)
		}
		if got, _, err := loadToken(open, false); err != nil || got != "0123456789abcdef0123456789abcdef" {
			t.Errorf("the same token, mode 0600: %q %v", got, err)
		}
	}
}

// TestLoadTokenOwnedByAnother: a token file of mode 0600 that another
// user owns is refused (E301, naming its owner): its owner chose the
// token, and root reads it whatever its mode. Before, root's serve took
// such a file's token, and a request bearing it ran. The control: the
// same file, the same bytes, owned by this user, is read.
func TestLoadTokenOwnedByAnother(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("Windows: the owners of files are not compared")
	}
	if os.Geteuid() != 0 {
		t.Skip("making a file another user owns needs root")
	}
	const token, other = "0123456789abcdef0123456789abcdef", 54321
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _, err := loadToken(path, false); err != nil || got != token {
		t.Fatalf("the control, a token file of this user's: %q %v", got, err)
	}
	if err := os.Chown(path, other, other); err != nil {
		t.Fatal(err)
	}
	got, _, err := loadToken(path, false)
	if codes.CodeOf(err) != codes.E301 || !strings.Contains(err.Error(), "owned by uid 54321") {
		t.Errorf("a token file uid %d owns: %q %v, want E301 naming its owner", other, got, err)
	}
}

// onlyRefusals checks that every receipt in dir past the first before
// says the run was refused before it started: nothing ran.
func onlyRefusals(t *testing.T, dir string, before int) {
	t.Helper()
	runs, err := receipt.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs[before:] {
		if o := r.Outcome; o.Status != receipt.StatusUsage && o.Status != receipt.StatusRefused {
			t.Errorf("receipt %s after a refusal says %s (%s): something ran", r.RunID, o.Status, o.Message)
		}
	}
}
