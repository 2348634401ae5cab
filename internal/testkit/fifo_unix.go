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

// FIFONotWaitedOn makes a named pipe at path and returns what open
// (which opens the file at path, to read or to write) returned, which it
// must do with no process at the pipe's other end: past Bound(5 s) it
// fails t, and opens the pipe both ways so that open ends, and the test
// with it.
func FIFONotWaitedOn(t *testing.T, path string, open func() error) error {
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
		// Opened to read and write, a pipe is its own other end.
		if f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
			defer f.Close()
		}
		<-done
		t.Fatalf("%s, a named pipe with no other end: still waited on after %v", path,
			Bound(5*time.Second))
		return nil
	}
}
