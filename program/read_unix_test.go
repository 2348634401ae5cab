//go:build unix

package program

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadBeneathNamedPipe: a named pipe beneath the root, with no writer,
// is refused as no regular file at once, not waited on, every way this
// system reads; the control, a regular file beside it, is read.
func TestReadBeneathNamedPipe(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.vel"), 0o644); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		file    string
		wantSrc string
		wantErr error
	}{
		{name: "a named pipe", file: "pipe.vel", wantErr: ErrNotRegular},
		{name: "a regular file", file: "hello.vel", wantSrc: "print(1)\n"},
	}
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			if w.use != nil {
				w.use(t)
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					src, err := ReadBeneath(root, tt.file)
					if string(src) != tt.wantSrc || !errors.Is(err, tt.wantErr) {
						t.Errorf("ReadBeneath(%s) = %q, %v; want %q, %v", tt.file, src, err,
							tt.wantSrc, tt.wantErr)
					}
				})
			}
		})
	}
}
