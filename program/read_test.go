package program

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// way is one of the ways this system reads beneath a root (ways, one
// list for each system): use, when set, puts it in place for a test and
// returns whether the read took it.
type way struct {
	name string
	use  func(t *testing.T) (took func() bool)
}

// TestReadBeneath reads programs beneath a root and refuses, each with its
// error, what leads out of it or is not a program file, every way this
// system reads; the positive controls read the same bytes by a relative
// and an absolute name, through a directory and through a link that
// stays beneath the root.
func TestReadBeneath(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(root, "hello.vel"), "print(1)\n")
	write(filepath.Join(root, "lib", "hello.vel"), "print(1)\n")
	write(filepath.Join(outside, "secret.vel"), "print(2)\n")
	write(filepath.Join(root, "big.vel"), strings.Repeat("#", MaxBytes+1))
	write(filepath.Join(root, "edge.vel"), strings.Repeat("#", MaxBytes))
	links := map[string]string{
		"out.vel":           filepath.Join(outside, "secret.vel"),
		"up.vel":            filepath.Join("..", filepath.Base(outside), "secret.vel"),
		"absolute-in.vel":   filepath.Join(root, "hello.vel"),
		"lib/beside.vel":    filepath.Join("..", "hello.vel"),
		"lib/round-the.vel": filepath.Join("..", "..", filepath.Base(root), "hello.vel"),
	}
	linked := true
	for name, to := range links {
		linked = linked && os.Symlink(to, filepath.Join(root, name)) == nil
	}
	tests := []struct {
		name     string
		path     string
		wantErr  error // nil for a read of "print(1)\n"
		needLink bool
	}{
		{name: "relative", path: "hello.vel"},
		{name: "absolute beneath", path: filepath.Join(root, "hello.vel")},
		{name: "in a directory", path: filepath.Join("lib", "hello.vel")},
		{name: "a link beneath", path: filepath.Join("lib", "beside.vel"), needLink: true},
		{name: "absolute elsewhere", path: filepath.Join(outside, "secret.vel"), wantErr: ErrNotBeneath},
		{name: "dot dot", path: filepath.Join("..", filepath.Base(outside), "secret.vel"),
			wantErr: ErrNotBeneath},
		{name: "missing", path: "nothing.vel", wantErr: fs.ErrNotExist},
		{name: "a directory", path: "lib", wantErr: ErrNotRegular},
		{name: "too large", path: "big.vel", wantErr: ErrTooLarge},
		{name: "a link out", path: "out.vel", wantErr: errAny, needLink: true},
		{name: "a link up and out", path: "up.vel", wantErr: errAny, needLink: true},
		{name: "an absolute link beneath", path: "absolute-in.vel", wantErr: errAny, needLink: true},
		{name: "a link above the root and back", path: filepath.Join("lib", "round-the.vel"),
			wantErr: errAny, needLink: true},
	}
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			took := func() bool { return true }
			if w.use != nil {
				took = w.use(t)
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
					case tt.wantErr != nil && tt.wantErr != errAny &&
						(!errors.Is(err, tt.wantErr) || src != nil):
						t.Fatalf("ReadBeneath(%q) = %q, %v; want %v", tt.path, src, err, tt.wantErr)
					}
				})
			}
			if src, err := ReadBeneath(root, "edge.vel"); err != nil || len(src) != MaxBytes {
				t.Errorf("ReadBeneath(edge.vel) = %d bytes, %v; want all %d", len(src), err, MaxBytes)
			}
			if !took() {
				t.Errorf("the reads did not go %s", w.name)
			}
		})
	}
}

// errAny stands for any error in TestReadBeneath.
var errAny = errors.New("any error")

// failing gives its text, then fails.
type failing struct{ text *strings.Reader }

func (f *failing) Read(p []byte) (int, error) {
	if f.text.Len() == 0 {
		return 0, errors.New("EIO")
	}
	return f.text.Read(p)
}

// endless gives '#' without end.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '#'
	}
	return len(p), nil
}

// TestRead: a program is read whole; a read's error is returned, not the
// bytes before it (bounded.Read would have taken it for the end); past
// MaxBytes is refused, whatever size it was said to have.
// internal/bounded's TestReadSized holds the reading itself.
func TestRead(t *testing.T) {
	const text = "print(1)\n"
	tests := []struct {
		name    string
		r       io.Reader
		size    int64
		want    string
		wantErr string
	}{
		{name: "a program", r: strings.NewReader(text), size: 9, want: text},
		{name: "of unknown size", r: strings.NewReader(text), size: -1, want: text},
		{name: "a read's error", r: &failing{strings.NewReader(text)}, size: 20, wantErr: "EIO"},
		{name: "past the bound", r: endless{}, size: -1, wantErr: ErrTooLarge.Error()},
		{name: "past the bound, said to be small", r: endless{}, size: 10,
			wantErr: ErrTooLarge.Error()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Read(tc.r, tc.size)
			switch {
			case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr || got != nil):
				t.Fatalf("Read: %d bytes, %v; want none and %s", len(got), err, tc.wantErr)
			case tc.wantErr == "" && (err != nil || string(got) != tc.want):
				t.Fatalf("Read: %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
