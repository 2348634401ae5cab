//go:build unix

package journal

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRegularFilesOnly: a mark's name planted as a link to a file
// outside, or as a named pipe, is refused by openRegular and
// WriteRegular, and the file outside is unchanged, read afterwards; the
// controls, a regular file and a missing one, are read and written. (A
// pipe with no reader is not waited on: receipt's TestLoadSwappedForAPipe.)
func TestRegularFilesOnly(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside")
	const was = "not the journal's\n"
	if err := os.WriteFile(outside, []byte(was), 0o600); err != nil {
		t.Fatal(err)
	}
	link, pipe := filepath.Join(dir, "link"), filepath.Join(dir, "pipe")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatal(err)
	}
	// A reader held open, so that an open that would wait for one does
	// not: what is refused here is refused for what it is.
	r, err := os.OpenFile(pipe, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tests := []struct {
		name    string
		path    string
		wantErr bool
	}{
		{name: "a link", path: link, wantErr: true},
		{name: "a named pipe", path: pipe, wantErr: true},
		{name: "a regular file", path: filepath.Join(dir, "regular"), wantErr: false},
		{name: "a missing file", path: filepath.Join(dir, "missing"), wantErr: false},
	}
	if err := os.WriteFile(tests[2].path, []byte("a longer text than the mark\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := WriteRegular(tc.path, []byte("7\n"))
			if (err != nil) != tc.wantErr {
				t.Fatalf("WriteRegular(%s) = %v, want an error %v", tc.path, err, tc.wantErr)
			}
			f, err := openRegular(tc.path)
			if (err != nil) != tc.wantErr {
				t.Fatalf("openRegular(%s) = %v, want an error %v", tc.path, err, tc.wantErr)
			}
			if f != nil {
				f.Close()
			}
			if !tc.wantErr {
				got, err := os.ReadFile(tc.path)
				if err != nil || string(got) != "7\n" {
					t.Errorf("the file holds %q (%v), want the mark alone", got, err)
				}
			}
			if got, err := os.ReadFile(outside); err != nil || string(got) != was {
				t.Errorf("the file outside holds %q (%v), want it unchanged", got, err)
			}
		})
	}
}

// TestReadRegularBound: ReadRegular reads a file of its bound whole, and
// refuses one a byte past it (ErrFileTooLarge), as a mark or a receipt a
// program could have grown is refused.
func TestReadRegularBound(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		size    int
		wantErr error
	}{
		{name: "at the bound", size: 32},
		{name: "a byte past it", size: 33, wantErr: ErrFileTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, make([]byte, tc.size), 0o600); err != nil {
				t.Fatal(err)
			}
			data, err := ReadRegular(p, 32)
			if !errors.Is(err, tc.wantErr) || tc.wantErr == nil && len(data) != tc.size {
				t.Errorf("ReadRegular of %d bytes, bound 32: %d bytes, %v; want %v", tc.size, len(data),
					err, tc.wantErr)
			}
		})
	}
}
