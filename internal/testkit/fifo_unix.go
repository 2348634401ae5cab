//go:build unix

package testkit

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// Mkfifo makes a named pipe at path, mode 0644.
func Mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

// OpenedWithoutWriter makes a named pipe at path and returns what open
// (which reads the file at path) returned, which it must do with no
// writer at the pipe: past Bound(5 s) it fails t, and opens the pipe for
// writing so that open ends and the test with it.
func OpenedWithoutWriter(t *testing.T, path string, open func() error) error {
	t.Helper()
	if err := Mkfifo(path); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- open() }()
	select {
	case err := <-done:
		return err
	case <-time.After(Bound(5 * time.Second)):
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		<-done
		t.Fatalf("%s, a named pipe with no writer: still waited on after %v", path,
			Bound(5*time.Second))
		return nil
	}
}
