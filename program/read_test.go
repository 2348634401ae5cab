package program

import (
	"errors"
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

// scripted is a reader of text that gives at most per bytes a read (all
// asked for when per is 0) and fail once failAt bytes are read, counting
// its reads.
type scripted struct {
	r      *strings.Reader
	per    int
	failAt int
	fail   error
	reads  int
}

func (s *scripted) Read(p []byte) (int, error) {
	s.reads++
	if s.fail != nil && int(s.r.Size())-s.r.Len() >= s.failAt {
		return 0, s.fail
	}
	if s.per > 0 && len(p) > s.per {
		p = p[:s.per]
	}
	return s.r.Read(p)
}

// TestRead: a program is read to its end, whatever size it was said to
// have; the read for the end is left out only where the size was known
// and the reads came to it with room left (the controls: the same text
// of unknown size, and reads that came short, make it); a read's error
// is returned, not the bytes before it; past MaxBytes is refused however
// it was sized.
func TestRead(t *testing.T) {
	const text = "print(1)\n"
	tests := []struct {
		name      string
		text      string
		size      int64
		per       int
		fail      error
		failAt    int
		want      string
		wantErr   error
		wantReads int // 0: not counted
	}{
		{name: "sized", text: text, size: 9, want: text, wantReads: 1},
		{name: "of unknown size", text: text, size: -1, want: text, wantReads: 2},
		{name: "of unknown size, a first read's length", text: strings.Repeat("#", firstRead),
			size: -1, want: strings.Repeat("#", firstRead), wantReads: 2},
		{name: "empty", text: "", size: 0, want: "", wantReads: 1},
		{name: "reads that came short", text: text, size: 9, per: 4, want: text, wantReads: 3},
		{name: "grew after it was looked at", text: text, size: 4, want: text},
		{name: "shrank after it was looked at", text: text, size: 20, want: text, wantReads: 2},
		{name: "a read's error", text: text, size: 9, per: 4, fail: errors.New("EIO"),
			failAt: 4, wantErr: errors.New("EIO")},
		{name: "at the bound", text: strings.Repeat("#", MaxBytes), size: MaxBytes,
			want: strings.Repeat("#", MaxBytes)},
		{name: "past the bound", text: strings.Repeat("#", MaxBytes+1), size: MaxBytes + 1,
			wantErr: ErrTooLarge},
		{name: "past the bound, said to be small", text: strings.Repeat("#", MaxBytes+1),
			size: 10, wantErr: ErrTooLarge},
		{name: "past the bound, of unknown size", text: strings.Repeat("#", MaxBytes+1),
			size: -1, wantErr: ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &scripted{r: strings.NewReader(tc.text), per: tc.per, fail: tc.fail,
				failAt: tc.failAt}
			got, err := Read(r, tc.size)
			switch {
			case tc.wantErr != nil && (err == nil || err.Error() != tc.wantErr.Error()):
				t.Fatalf("Read: %d bytes, %v; want %v", len(got), err, tc.wantErr)
			case tc.wantErr != nil && got != nil:
				t.Fatalf("Read: %d bytes with its error, want none", len(got))
			case tc.wantErr == nil && (err != nil || string(got) != tc.want):
				t.Fatalf("Read: %d bytes, %v; want %d bytes", len(got), err, len(tc.want))
			}
			if tc.wantReads != 0 && r.reads != tc.wantReads {
				t.Errorf("Read made %d reads, want %d", r.reads, tc.wantReads)
			}
		})
	}
}

// endless gives '#' without end, counting what it gave.
type endless struct{ given int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '#'
	}
	e.given += len(p)
	return len(p), nil
}

// TestReadTakesNoMoreThanTheBound: from a reader without end, Read
// takes MaxBytes and one byte, and no more, before it refuses, whether
// the size was unknown, said to be small or said to be past the bound;
// its buffer was never larger.
func TestReadTakesNoMoreThanTheBound(t *testing.T) {
	for _, size := range []int64{-1, 10, MaxBytes + 5} {
		r := &endless{}
		if b, err := Read(r, size); err != ErrTooLarge || b != nil {
			t.Fatalf("Read with size %d: %d bytes, %v; want %v", size, len(b), err, ErrTooLarge)
		}
		if r.given != MaxBytes+1 {
			t.Errorf("Read with size %d took %d bytes, want %d", size, r.given, MaxBytes+1)
		}
	}
}
