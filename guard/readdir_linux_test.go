package guard

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestReadDirLikeOS: on the machine's own directories, kernel file
// systems among them, ReadDir lists what os.ReadDir lists, each entry
// with the same type (read again, up to three times, when the two differ:
// the machine's directories may change between the reads); a named pipe
// is refused at once, not waited on.
func TestReadDirLikeOS(t *testing.T) {
	for _, dir := range []string{"/", "/etc", "/dev", "/proc/self", "/sys/kernel"} {
		var got, want []string
		var err error
		for range 3 {
			w, werr := os.ReadDir(dir)
			if werr != nil {
				t.Logf("%s: %v: not compared", dir, werr)
				break
			}
			g, gerr := ReadDir(dir)
			got, want, err = namesAndTypes(g), namesAndTypes(w), gerr
			if err == nil && slices.Equal(got, want) {
				break
			}
		}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ReadDir(%s) = %q, %v; want %q", dir, got, err, want)
		}
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadDir(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("ReadDir of a named pipe: no error")
		}
	case <-time.After(time.Minute): // only if it waits on the pipe's other end
		t.Fatal("ReadDir of a named pipe waits for a writer")
	}
}

// dirent64 is a linux_dirent64 record of name and type, padded as the
// kernel pads it.
func dirent64(name string, typ byte) []byte {
	reclen := (direntHeader + len(name) + 1 + 7) &^ 7
	b := make([]byte, reclen)
	binary.NativeEndian.PutUint16(b[16:18], uint16(reclen))
	b[18] = typ
	copy(b[direntHeader:], name)
	return b
}

// TestAppendDirents: records as the kernel writes them, "." and ".." left
// out; a type the record does not say (DT_UNKNOWN) read with lstat, and
// such an entry gone since left out; a record cut short ends the read.
func TestAppendDirents(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	recs := bytes.Join([][]byte{
		dirent64(".", unix.DT_DIR), dirent64("..", unix.DT_DIR),
		dirent64("f", unix.DT_REG), dirent64("l", unix.DT_LNK),
		dirent64("d", unix.DT_UNKNOWN), dirent64("gone", unix.DT_UNKNOWN),
		dirent64("fifo", unix.DT_FIFO), dirent64("c", unix.DT_CHR),
	}, nil)
	tests := []struct {
		name string
		in   []byte
		want []string
	}{
		{name: "whole", in: recs, want: []string{"c Dc---------", "d d---------",
			"f ----------", "fifo p---------", "l L---------"}},
		{name: "the last record cut short", in: recs[:len(recs)-3],
			want: []string{"d d---------", "f ----------", "fifo p---------", "l L---------"}},
		{name: "less than a header", in: recs[:direntHeader-1]},
		{name: "a record longer than what was read",
			in: append(dirent64("x", unix.DT_REG)[:16], 0xff, 0x00, unix.DT_REG, 'x', 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := namesAndTypes(appendDirents(nil, dir, tt.in))
			if !slices.Equal(got, tt.want) {
				t.Errorf("appendDirents = %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzAppendDirents: whatever the bytes, appendDirents returns, each
// entry named, without a NUL, and neither "." nor "..".
func FuzzAppendDirents(f *testing.F) {
	f.Add(bytes.Join([][]byte{dirent64(".", unix.DT_DIR), dirent64("a", unix.DT_REG)}, nil))
	f.Add(dirent64("name", unix.DT_UNKNOWN))
	f.Add([]byte{})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 {
			return
		}
		for _, e := range appendDirents(nil, dir, b) {
			if n := e.Name(); n == "" || n == "." || n == ".." || bytes.IndexByte([]byte(n), 0) >= 0 {
				t.Fatalf("entry %q", n)
			}
			_ = fs.FormatDirEntry(e)
		}
	})
}

// TestBuildHomeLinkToPipe: a home whose .config is a link to a named
// pipe (as its user, or a program of theirs, could leave it) is built
// like any other: the build lists what .config leads to, to guard
// .config/gh beneath it, and os.Open there waited for a writer on the
// pipe, with it every command-line run, for good (SIGTERM did not end
// it). The build returns now, and the home's .ssh and .config/gh are
// refused, as with the control, .config a directory.
func TestBuildHomeLinkToPipe(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, at string)
	}{
		{name: "a link to a named pipe", make: func(t *testing.T, at string) {
			fifo := filepath.Join(t.TempDir(), "fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(fifo, at); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a directory", make: func(t *testing.T, at string) {
			if err := os.MkdirAll(filepath.Join(at, "gh"), 0o700); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.Mkdir(filepath.Join(home, ".ssh"), 0o700); err != nil {
				t.Fatal(err)
			}
			config := filepath.Join(home, ".config")
			tc.make(t, config)
			built := make(chan *Set, 1)
			go func() { built <- Build(Inputs{Home: home}, OS()) }()
			select {
			case s := <-built:
				for _, p := range []string{filepath.Join(home, ".ssh"), filepath.Join(config, "gh")} {
					if _, ok := s.Refuses(p, home); !ok {
						t.Errorf("%s not refused under a grant of the home", p)
					}
				}
			case <-time.After(time.Minute): // only if it waits on the pipe
				t.Fatal("Build waits on the named pipe .config links to")
			}
		})
	}
}
