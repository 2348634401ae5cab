package testkit

import (
	"io"
	"os"
	"testing"
)

// CopyExecutable copies the file from to a new file to, executable by
// anyone: a test binary run again from a place the test chose (a
// directory it then swaps, one another user may enter).
func CopyExecutable(t testing.TB, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
