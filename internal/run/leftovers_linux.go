package run

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// maxLeftoverRounds bounds endLeftovers' scans: each ends what it finds,
// and one that found a process may have missed a child it made meanwhile.
const maxLeftoverRounds = 16

// endLeftovers ends (SIGKILL) every process whose environment names one
// of dirs, the temporary directories of runs whose supervisor is gone, as
// its TMPDIR, however it spells it, and returns how many it ended. A
// worker hands its TMPDIR to every process it starts (a host module's
// os.system, subprocess.run), and those hand it on; when the supervisor is killed outright, the
// kernel's parent-death signal ends the worker alone, and what it started
// lived on, outside every run, its process group's leader gone: a
// sleep 3600 that os.system left in the background, a daemon in a session
// of its own. Each process is held by a pidfd before its environment is
// read, so that the signal reaches the process read and no other that
// took its pid since. A TMPDIR is the runs directory as the killed
// supervisor spelled it (through a link, a HOME that is one), which need
// not be as the sweeper spells it: a TMPDIR is taken for one of dirs when
// it has that directory's name (each is made with a random one) and
// leads to it (tmpDirs). What changed its environment, or is another
// user's, is not found.
func endLeftovers(dirs []string) int {
	want := tmpDirs{}
	for _, d := range dirs {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			want[filepath.Base(d)] = append(want[filepath.Base(d)], fi)
		}
	}
	if len(want) == 0 {
		return 0
	}
	ended := map[int]bool{}
	for range maxLeftoverRounds {
		found := leftovers(want, ended)
		if len(found) == 0 {
			break
		}
		for _, fd := range found {
			// Stopped first, so that it starts nothing more; a pidfd's
			// signal never reaches a process that took its pid since.
			_ = unix.PidfdSendSignal(fd, unix.SIGSTOP, nil, 0)
		}
		for pid, fd := range found {
			if unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) == nil {
				ended[pid] = true
			}
			unix.Close(fd)
		}
	}
	return len(ended)
}

// listed is called once a round of endLeftovers has listed the processes
// (a test's hook: a process a leftover starts at that moment is found by
// the next round).
var listed = func() {}

// tmpDirs are the directories whose processes endLeftovers ends, by name.
type tmpDirs map[string][]fs.FileInfo

// holds reports whether the environment entry kv is a TMPDIR that leads
// to one of t: one with its name (looked up first, so that a process's
// TMPDIR costs a lookup of the file system only when it has such a name),
// that is the same directory, however its path is spelled.
func (t tmpDirs) holds(kv []byte) bool {
	v, ok := bytes.CutPrefix(kv, []byte("TMPDIR="))
	if !ok || len(v) == 0 {
		return false
	}
	dirs := t[filepath.Base(string(v))]
	if len(dirs) == 0 {
		return false
	}
	fi, err := os.Stat(string(v))
	if err != nil {
		return false
	}
	for _, d := range dirs {
		if os.SameFile(d, fi) {
			return true
		}
	}
	return false
}

// leftovers returns, by pid, a pidfd of each living process but this one
// and those in ended whose environment holds a TMPDIR of want.
func leftovers(want tmpDirs, ended map[int]bool) map[int]int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	listed()
	self := os.Getpid()
	found := map[int]int{}
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self || ended[pid] {
			continue
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // gone since it was listed
		}
		if environHolds(pid, want) {
			found[pid] = fd
		} else {
			unix.Close(fd)
		}
	}
	return found
}

// environHolds reports whether the environment of pid holds a TMPDIR of
// want, read an entry at a time: an entry longer than the reader's buffer
// (a TMPDIR is one path) is passed over, so that a process's environment
// of megabytes costs no more memory than a short one.
func environHolds(pid int, want tmpDirs) bool {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false // another user's, or gone
	}
	defer f.Close()
	return environReadHolds(bufio.NewReaderSize(f, 2*unix.PathMax), want)
}

// environReadHolds is environHolds of the environment read from r, its
// entries each ended by a NUL (the last may not be): an entry that fills
// r's buffer without its end is passed over, whatever it holds.
func environReadHolds(r *bufio.Reader, want tmpDirs) bool {
	for {
		entry, err := r.ReadSlice(0)
		long := false
		for err == bufio.ErrBufferFull {
			long = true
			_, err = r.ReadSlice(0)
		}
		if !long && want.holds(bytes.TrimSuffix(entry, []byte{0})) {
			return true
		}
		if err != nil {
			return false
		}
	}
}
