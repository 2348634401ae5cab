package program

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadBeneath reads programs beneath a root and refuses, each with its
// error, what leads out of it or is not a program file; the positive
// controls read the same bytes by a relative and an absolute name.
func TestReadBeneath(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "hello.vel"), "print(1)\n")
	write(filepath.Join(outside, "secret.vel"), "print(2)\n")
	write(filepath.Join(root, "big.vel"), strings.Repeat("#", MaxBytes+1))
	if err := os.Mkdir(filepath.Join(root, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	linked := os.Symlink(filepath.Join(outside, "secret.vel"), filepath.Join(root, "out.vel")) == nil
	tests := []struct {
		name     string
		path     string
		wantErr  error // nil for a read of "print(1)\n"
		needLink bool
	}{
		{name: "relative", path: "hello.vel"},
		{name: "absolute beneath", path: filepath.Join(root, "hello.vel")},
		{name: "absolute elsewhere", path: filepath.Join(outside, "secret.vel"), wantErr: ErrNotBeneath},
		{name: "dot dot", path: filepath.Join("..", filepath.Base(outside), "secret.vel"),
			wantErr: ErrNotBeneath},
		{name: "missing", path: "nothing.vel", wantErr: fs.ErrNotExist},
		{name: "a directory", path: "lib", wantErr: ErrNotRegular},
		{name: "too large", path: "big.vel", wantErr: ErrTooLarge},
		{name: "a link out", path: "out.vel", wantErr: errAny, needLink: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needLink && !linked {
				t.Skip("this system made no symbolic link")
			}
			src, err := ReadBeneath(root, tt.path)
			switch {
			case tt.wantErr == nil && (err != nil || string(src) != "print(1)\n"):
				t.Fatalf("ReadBeneath(%q) = %q, %v; want print(1)", tt.path, src, err)
			case tt.wantErr == errAny && (err == nil || src != nil):
				t.Fatalf("ReadBeneath(%q) = %q, %v; want an error", tt.path, src, err)
			case tt.wantErr != nil && tt.wantErr != errAny && (!errors.Is(err, tt.wantErr) || src != nil):
				t.Fatalf("ReadBeneath(%q) = %q, %v; want %v", tt.path, src, err, tt.wantErr)
			}
		})
	}
}

// errAny stands for any error in TestReadBeneath.
var errAny = errors.New("any error")
