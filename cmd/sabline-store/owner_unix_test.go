//go:build unix

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDirectoryOwnedByAnother: a file:// store, or a path, whose
// directory another user owns is refused at open, naming its owner (it
// was opened, and its owner could plant the receipts a fleet lists); the
// control: the same directory owned by this user opens.
func TestDirectoryOwnedByAnother(t *testing.T) {
	const anotherUID = 54321
	if os.Geteuid() != 0 {
		t.Skip("making a directory another user owns needs root")
	}
	dir := filepath.Join(t.TempDir(), "store")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"file://" + dir, dir} {
		if err := os.Chown(dir, anotherUID, anotherUID); err != nil {
			t.Fatal(err)
		}
		b, err := open(context.Background(), u)
		if err == nil {
			b.b.Close()
			t.Fatalf("open of %s, owned by uid %d: nil, want it refused", u, anotherUID)
		}
		if !strings.Contains(err.Error(), "owned by uid 54321") {
			t.Errorf("open of %s: %v; want its owner named", u, err)
		}
		if err := os.Chown(dir, os.Geteuid(), os.Getegid()); err != nil {
			t.Fatal(err)
		}
		b, err = open(context.Background(), u)
		if err != nil {
			t.Fatalf("open of %s, owned by this user: %v", u, err)
		}
		b.b.Close()
	}
}
