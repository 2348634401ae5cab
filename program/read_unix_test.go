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

// TestReadFileNamedPipe: ReadFile, which replay reads a recorded program
// with, judges the file it opened: a named pipe with no writer (one put
// where a program was, after any check of the path) is refused at once,
// not waited on; the controls, a regular file and a link to it, are
// read.
func TestReadFileNamedPipe(t *testing.T) {
	dir := t.TempDir()
	pipe, hello, link := filepath.Join(dir, "pipe.vel"), filepath.Join(dir, "hello.vel"),
		filepath.Join(dir, "link.vel")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	if err := os.WriteFile(hello, []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(hello, link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		path    string
		wantSrc string
		wantErr error
	}{
		{name: "a named pipe", path: pipe, wantErr: ErrNotRegular},
		{name: "a regular file", path: hello, wantSrc: "print(1)\n"},
		{name: "a link to it", path: link, wantSrc: "print(1)\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src, err := ReadFile(tt.path)
			if string(src) != tt.wantSrc || !errors.Is(err, tt.wantErr) {
				t.Errorf("ReadFile(%s) = %q, %v; want %q, %v", tt.path, src, err, tt.wantSrc,
					tt.wantErr)
			}
		})
	}
}
