//go:build unix

package eval

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// TestSuiteFile: eval reads a suite's files as a run's files are read. A
// link out of the suite (to /dev/zero, to a key), a pipe, a file past the
// bound, a link to nothing are refused, each saying why and nothing of
// what it holds, and without blocking; a regular file and a link that stays in the suite are
// the controls.
func TestSuiteFile(t *testing.T) {
	outside := testkit.Scratch(t)
	secret := filepath.Join(outside, "id_rsa")
	testkit.WriteFile(t, secret, "PRIVATE KEY\n")
	suite := testkit.Scratch(t)
	testkit.WriteFile(t, filepath.Join(suite, "a.out"), "42\n")
	for link, to := range map[string]string{"alias.out": "a.out", "zero.out": "/dev/zero", "key.out": secret, "up.out": "../" + filepath.Base(outside) + "/id_rsa", "dangling.out": "gone.out"} {
		if err := os.Symlink(to, filepath.Join(suite, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(suite, "fifo.out"), 0o600); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(suite, "big.out"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(MaxExpectedBytes + 1); err != nil {
		t.Fatal(err)
	}
	big.Close()
	root, err := os.OpenRoot(suite)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	tests := []struct {
		name    string
		file    string
		want    string // what is read
		wantErr string // what the refusal says
	}{
		{name: "a regular file", file: "a.out", want: "42\n"},
		{name: "a link that stays in the suite", file: "alias.out", want: "42\n"},
		{name: "a link to /dev/zero", file: "zero.out", wantErr: "zero.out leads out of the suite's directory, by a link"},
		{name: "a link to a key outside", file: "key.out", wantErr: "key.out leads out of the suite's directory"},
		{name: "a relative link out", file: "up.out", wantErr: "up.out leads out of the suite's directory"},
		{name: "a pipe", file: "fifo.out", wantErr: "fifo.out is not a regular file"},
		{name: "a link to nothing", file: "dangling.out", wantErr: "dangling.out is a link to nothing"},
		{name: "nothing (no expected output)", file: "gone.out", wantErr: "no such file or directory"},
		{name: "past the bound", file: "big.out", wantErr: "big.out is larger than 16777216 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type read struct {
				data []byte
				err  error
			}
			done := make(chan read, 1)
			go func() {
				data, err := suiteFile(root, tt.file, MaxExpectedBytes)
				done <- read{data, err}
			}()
			var got read
			select {
			case got = <-done:
			case <-time.After(testkit.Bound(10 * time.Second)):
				t.Fatal("the read blocked")
			}
			switch {
			case tt.wantErr == "" && (got.err != nil || string(got.data) != tt.want):
				t.Fatalf("read %q, %v; want %q", got.data, got.err, tt.want)
			case tt.wantErr != "" && (got.err == nil || !strings.Contains(got.err.Error(), tt.wantErr)):
				t.Fatalf("read %d bytes, %v; want an error saying %q", len(got.data), got.err, tt.wantErr)
			case got.err != nil && strings.Contains(got.err.Error(), "PRIVATE"):
				t.Fatalf("the refusal quotes the key: %v", got.err)
			}
		})
	}
}
