package doorcmd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
)

// fileID is a file's device and inode.
type fileID struct{ dev, ino uint64 }

// idOf is the fileID of the file path names, links followed.
func idOf(t *testing.T, path string) fileID {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return fileID{dev: st.Dev, ino: st.Ino}
}

// TestServeBinaryReplaced: an upgrade renames new binaries over the ones a
// door was started from, and the door goes on. The workers it starts
// after are still its own build: the test reads each new worker's
// /proc/PID/exe and finds the file the server runs (by device and
// inode), not the script now at the path, which exits 3 when started
// (the control: the test starts it); and the runs they take end ok and
// full.
func TestServeBinaryReplaced(t *testing.T) {
	needLandlock(t)
	dir := t.TempDir()
	built := sablineBin(t)
	for _, name := range []string{"sabline", "sabline-door"} {
		data, err := os.ReadFile(filepath.Join(filepath.Dir(built), name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := startServeAs(t, &served{bin: filepath.Join(dir, "sabline")}, "--workers", "2")
	door := filepath.Join(dir, "sabline-door")
	server := idOf(t, "/proc/"+strconv.Itoa(s.cmd.Process.Pid)+"/exe")
	if server != idOf(t, door) {
		t.Fatalf("the server runs %v, want the test's %s (%v)", server, door, idOf(t, door))
	}
	// Before the upgrade: the control.
	if st, v := s.do(t, "POST", "/v1/run", s.token, `{"path":"hello.vel"}`); st != 200 || v["stdout"] != "hello, world\n" {
		t.Fatalf("run hello.vel before the upgrade: %d %v", st, v)
	}
	first := s.waitWorkers(t, 2)

	// The upgrade: a script renamed over each binary.
	for _, name := range []string{"sabline", "sabline-door"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p+".new", []byte("#!/bin/sh\nexit 3\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p+".new", p); err != nil {
			t.Fatal(err)
		}
	}
	if idOf(t, door) == server {
		t.Fatalf("%s is still the server's file after the rename", door)
	}
	var exit *exec.ExitError
	if err := exec.Command(door, "__sabline_worker").Run(); !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("the script at %s, started: %v, want exit status 3", door, err)
	}

	for _, pid := range first {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	replaced := false
	for i := 0; i < 6 && !replaced; i++ {
		st, v := s.do(t, "POST", "/v1/run", s.token, `{"path":"hello.vel"}`)
		if st != 200 {
			t.Fatalf("hello.vel after the upgrade: %d %v", st, v)
		}
		if v["status"] != "ok" {
			t.Errorf("run %d after the kill: %v %v, want ok on a replacement", i, v["status"], v["code"])
			continue
		}
		if v["stdout"] != "hello, world\n" {
			t.Errorf("hello.vel after the upgrade: %v", v)
		}
		wantFull(t, "a worker started after the upgrade", v["level"])
		for _, pid := range s.workers(t) {
			if slices.Contains(first, pid) {
				continue
			}
			replaced = true
			if got := idOf(t, "/proc/"+strconv.Itoa(pid)+"/exe"); got != server {
				t.Errorf("worker %d runs %v, want the server's own file %v", pid, got, server)
			}
		}
	}
	if !replaced {
		t.Fatalf("no run went to a worker started after the upgrade: workers %v, the first %v",
			s.workers(t), first)
	}
}
