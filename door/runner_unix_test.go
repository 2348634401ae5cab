//go:build unix

package door

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/sabline/sabline/codes"
)

// TestUnderRootNamedPipe: a request's path naming a named pipe beneath the
// import root, with no writer, is refused (E316) at once rather than
// holding the request until a writer comes; the control, a regular file
// beside it, is read.
func TestUnderRootNamedPipe(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.vel"), 0o644); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		path     string
		wantCode codes.Code
		wantSrc  string
	}{
		{name: "a named pipe", path: "pipe.vel", wantCode: codes.E316},
		{name: "a regular file", path: "hello.vel", wantSrc: "print(1)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, src, err := underRoot(root, tt.path)
			if codes.CodeOf(err) != tt.wantCode || string(src) != tt.wantSrc {
				t.Errorf("underRoot(%q) = %q, %v; want %q, code %q", tt.path, src, err, tt.wantSrc,
					tt.wantCode)
			}
		})
	}
}
