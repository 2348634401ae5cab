package escape

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/internal/testkit"
)

// TestWitnessSeesEachChange makes each kind of change a run could make
// outside the worker, from outside it, and checks that the witness names
// it: the entry, and the field that changed. A read changes nothing.
func TestWitnessSeesEachChange(t *testing.T) {
	secret := func(s *Scratch) string { return filepath.Join(s.Outside, "secret.txt") }
	tests := []struct {
		name      string
		change    func(s *Scratch) error
		wantEntry string // the witness entry that changes
		wantField string // a field of it that must be named ("made", "removed" for the entry itself)
	}{
		{name: "nothing: a read", change: func(s *Scratch) error { _, err := os.ReadFile(secret(s)); return err }},
		{name: "an overwrite of the same size", wantEntry: "files:outside/secret.txt", wantField: "content",
			change: func(s *Scratch) error {
				data, err := os.ReadFile(secret(s))
				if err != nil {
					return err
				}
				return os.WriteFile(secret(s), []byte(strings.ToUpper(string(data))), 0o644)
			}},
		{name: "the content only, times put back", wantEntry: "files:outside/secret.txt", wantField: "content",
			change: func(s *Scratch) error {
				fi, err := os.Stat(secret(s))
				if err != nil {
					return err
				}
				if err := os.WriteFile(secret(s), []byte("A file no budget grants\n"), 0o644); err != nil {
					return err
				}
				return os.Chtimes(secret(s), fi.ModTime(), fi.ModTime())
			}},
		{name: "the mode", wantEntry: "files:outside/secret.txt", wantField: "mode",
			change: func(s *Scratch) error { return os.Chmod(secret(s), 0o640) }},
		{name: "the same mode again: ctime alone", wantEntry: "files:outside/secret.txt", wantField: "ctime",
			change: func(s *Scratch) error { time.Sleep(10 * time.Millisecond); return os.Chmod(secret(s), 0o644) }},
		{name: "the owner", wantEntry: "files:outside/secret.txt", wantField: "uid",
			change: func(s *Scratch) error { return os.Chown(secret(s), 65534, 65534) }},
		{name: "the group", wantEntry: "files:outside/secret.txt", wantField: "gid",
			change: func(s *Scratch) error { return os.Chown(secret(s), -1, 65534) }},
		{name: "the modification time", wantEntry: "files:outside/secret.txt", wantField: "mtime",
			change: func(s *Scratch) error {
				past := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
				return os.Chtimes(secret(s), past, past)
			}},
		{name: "the link count", wantEntry: "files:outside/secret.txt", wantField: "nlink",
			change: func(s *Scratch) error { return os.Link(secret(s), filepath.Join(s.Home, "hard")) }},
		{name: "the inode, under the same name, content and mode", wantEntry: "files:outside/secret.txt", wantField: "ino",
			change: func(s *Scratch) error {
				data, err := os.ReadFile(secret(s))
				if err != nil {
					return err
				}
				tmp := filepath.Join(s.Work, "copy")
				if err := os.WriteFile(tmp, data, 0o644); err != nil {
					return err
				}
				if err := unix.Lsetxattr(tmp, KeptXattr, []byte("kept"), 0); err != nil {
					return err
				}
				return os.Rename(tmp, secret(s))
			}},
		{name: "an attribute flag", wantEntry: "files:outside/secret.txt", wantField: "flags",
			change: func(s *Scratch) error {
				f, err := os.Open(secret(s))
				if err != nil {
					return err
				}
				defer f.Close()
				flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
				if err != nil {
					return err
				}
				flags |= 0x40 // FS_NODUMP_FL
				return unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags))
			}},
		{name: "an extended attribute added", wantEntry: "files:outside/secret.txt", wantField: "xattr.user.added",
			change: func(s *Scratch) error { return unix.Setxattr(secret(s), "user.added", nil, 0) }},
		{name: "an extended attribute's value, of the same length", wantEntry: "files:outside/secret.txt", wantField: "xattr." + KeptXattr,
			change: func(s *Scratch) error { return unix.Setxattr(secret(s), KeptXattr, []byte("KEPT"), 0) }},
		{name: "an extended attribute removed", wantEntry: "files:outside/secret.txt", wantField: "xattr." + KeptXattr,
			change: func(s *Scratch) error { return unix.Removexattr(secret(s), KeptXattr) }},
		{name: "a link's target, of the same length", wantEntry: "files:grant/link", wantField: "content",
			change: func(s *Scratch) error {
				link := filepath.Join(s.Grant, "link")
				target, err := os.Readlink(link)
				if err != nil {
					return err
				}
				if err := os.Remove(link); err != nil {
					return err
				}
				return os.Symlink(strings.TrimSuffix(target, "t")+"T", link)
			}},
		{name: "a file made", wantEntry: "files:outside/planted.txt", wantField: "made",
			change: func(s *Scratch) error { return os.WriteFile(filepath.Join(s.Outside, "planted.txt"), nil, 0o644) }},
		{name: "a file removed", wantEntry: "files:outside/secret.txt", wantField: "removed",
			change: func(s *Scratch) error { return os.Remove(secret(s)) }},
		{name: "a message queue made", wantEntry: "mqueue:$MQNEW", wantField: "made",
			change: func(s *Scratch) error {
				fd, err := mqOpen(s.queues["$MQNEW"], unix.O_CREAT|unix.O_RDONLY)
				if err == nil {
					unix.Close(fd)
				}
				return err
			}},
		{name: "a message queue removed", wantEntry: "mqueue:$MQ", wantField: "removed",
			change: func(s *Scratch) error {
				p, err := unix.BytePtrFromString(s.queues["$MQ"])
				if err != nil {
					return err
				}
				if _, _, errno := unix.Syscall(unix.SYS_MQ_UNLINK, uintptr(unsafe.Pointer(p)), 0, 0); errno != 0 {
					return errno
				}
				return nil
			}},
		{name: "System V shared memory made", wantEntry: "sysvipc:shm:$IPCKEY", wantField: "made",
			change: func(s *Scratch) error {
				_, err := unix.SysvShmGet(int(s.ipcKey), 4096, unix.IPC_CREAT|0o600)
				return err
			}},
		{name: "a System V message queue made", wantEntry: "sysvipc:msg:$IPCKEY", wantField: "made",
			change: func(s *Scratch) error {
				_, _, errno := unix.Syscall(unix.SYS_MSGGET, uintptr(s.ipcKey), unix.IPC_CREAT|0o600, 0)
				if errno != 0 {
					return errno
				}
				return nil
			}},
		{name: "a key added to the user's keyring", wantEntry: "keys:$KEYDESC", wantField: "made",
			change: func(s *Scratch) error {
				_, err := unix.AddKey("user", s.keyDesc, []byte("x"), unix.KEY_SPEC_USER_KEYRING)
				return err
			}},
		{name: "the victim's nice value", wantEntry: "victim", wantField: "nice",
			change: func(s *Scratch) error { return unix.Setpriority(unix.PRIO_PROCESS, s.victim.Process.Pid, 5) }},
		{name: "the victim's limits", wantEntry: "victim", wantField: "limits",
			change: func(s *Scratch) error {
				lim := unix.Rlimit{Cur: 0, Max: 0}
				return unix.Prlimit(s.victim.Process.Pid, unix.RLIMIT_CORE, &lim, nil)
			}},
		{name: "a UDP bind beside $SHARED's receiver, with SO_REUSEADDR", wantEntry: WitnessShared, wantField: "missed",
			change: func(s *Scratch) error { return shareBind(s, unix.SO_REUSEADDR) }},
		{name: "a UDP bind beside $SHARED's receiver, with SO_REUSEPORT", wantEntry: WitnessShared, wantField: "missed",
			change: func(s *Scratch) error { return shareBind(s, unix.SO_REUSEPORT) }},
		{name: "nothing: a UDP bind onto $SHARED without either option is refused", change: func(s *Scratch) error {
			err := shareBind(s, 0)
			if errors.Is(err, unix.EADDRINUSE) {
				return nil
			}
			return fmt.Errorf("bind: %v, want EADDRINUSE", err)
		}},
		// A run's own receipt is what every run writes, confined or not:
		// the receipts witness counts what else the directory gets.
		{name: "nothing: a receipt a run wrote", change: func(s *Scratch) error {
			return os.WriteFile(filepath.Join(s.Receipts(),
				"20260101T000000.000000000Z-0123456789abcdef.json"), []byte("{}\n"), 0o600)
		}},
		{name: "a file planted among the receipts", wantEntry: "receipts:planted.json", wantField: "made",
			change: func(s *Scratch) error {
				return os.WriteFile(filepath.Join(s.Receipts(), "planted.json"), []byte("{}\n"), 0o600)
			}},
		{name: "the victim killed", wantEntry: "victim", wantField: "alive",
			change: func(s *Scratch) error {
				if err := s.victim.Process.Kill(); err != nil {
					return err
				}
				<-s.exited
				return nil
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewScratch(t.TempDir(), "witness")
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Expand("$MQ $MQNEW $IPCKEY $KEYDESC $VICTIM $SHARED $RECEIPTS"); err != nil {
				t.Fatal(err)
			}
			before, err := s.Witness()
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.change(s); err != nil {
				t.Fatalf("the change: %v", err)
			}
			after, err := s.Witness()
			if err != nil {
				t.Fatal(err)
			}
			diff := Diff(before, after)
			if tt.wantEntry == "" {
				if len(diff) != 0 {
					t.Errorf("the witness saw a change where there was none: %q", diff)
				}
				return
			}
			var line string
			for _, l := range diff {
				if entry, _, _ := strings.Cut(l, ": "); entry == tt.wantEntry {
					line = l
				}
			}
			_, fields, _ := strings.Cut(line, ": ")
			if !slices.Contains(strings.Fields(fields), tt.wantField) {
				t.Errorf("the witness did not name %s of %s; it saw %q", tt.wantField, tt.wantEntry, diff)
			}
		})
	}
}

// shareBind binds a UDP socket to $SHARED's port with the socket option
// opt set (none when 0), and waits up to five seconds for one datagram:
// what the escape targets that name $SHARED do, unconfined.
func shareBind(s *Scratch, opt int) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if opt != 0 {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, opt, 1); err != nil {
			return err
		}
	}
	port, err := strconv.Atoi(s.shared.port())
	if err != nil {
		return err
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return err
	}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 5}); err != nil {
		return err
	}
	_, _, err = unix.Recvfrom(fd, make([]byte, 64), 0)
	return err
}

// TestCloseRemovesKernelObjects checks that a scratch world leaves no
// kernel object behind: what a run made under its names is removed.
func TestCloseRemovesKernelObjects(t *testing.T) {
	s, err := NewScratch(t.TempDir(), "objects")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Expand("$MQ $MQNEW $IPCKEY $KEYDESC"); err != nil {
		t.Fatal(err)
	}
	if fd, err := mqOpen(s.queues["$MQNEW"], unix.O_CREAT|unix.O_RDONLY); err != nil {
		t.Fatal(err)
	} else {
		unix.Close(fd)
	}
	if _, err := unix.SysvShmGet(int(s.ipcKey), 4096, unix.IPC_CREAT|0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := unix.AddKey("user", s.keyDesc, []byte("x"), unix.KEY_SPEC_USER_KEYRING); err != nil {
		t.Fatal(err)
	}
	st, err := s.Witness()
	if err != nil {
		t.Fatal(err)
	}
	for _, entry := range []string{"mqueue:$MQ", "mqueue:$MQNEW", "sysvipc:shm:$IPCKEY", "keys:$KEYDESC"} {
		if _, ok := st[entry]; !ok {
			t.Errorf("the witness does not see %s", entry)
		}
	}
	s.Close()
	for _, q := range s.queues {
		if _, err := mqOpen(q, unix.O_RDONLY); err != unix.ENOENT {
			t.Errorf("queue %s after Close: %v, want ENOENT", q, err)
		}
	}
	if ids, _ := sysvIDs("shm", s.ipcKey); len(ids) != 0 {
		t.Errorf("shared memory of key %d after Close: %v", s.ipcKey, ids)
	}
	// An invalidated key is garbage-collected a moment later.
	deadline := time.Now().Add(testkit.Bound(5 * time.Second))
	for ids, _ := keyIDs(s.keyDesc); len(ids) != 0; ids, _ = keyIDs(s.keyDesc) {
		if time.Now().After(deadline) {
			t.Errorf("key %s after Close: %v", s.keyDesc, ids)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestInvokeKillsStrays runs, in place of sabline, a script that leaves
// two children: one in a session of its own holding its output, as a
// worker's stray child would, and one in its process group holding
// nothing of it. Invoke must return soon after the script exits, with
// what it printed, and both children must be dead.
func TestInvokeKillsStrays(t *testing.T) {
	s, err := NewScratch(t.TempDir(), "stray")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	script := filepath.Join(s.Work, "fake-sabline")
	err = os.WriteFile(script, []byte(`#!/bin/sh
setsid sh -c 'echo "STRAY $$"; exec sleep 300' &
sh -c 'echo "STRAY $$"; exec sleep 300 >/dev/null 2>&1' &
sleep 0.2
echo "RESULT ok"
exit 0
`), 0o755)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, err := s.Invoke(script, "io", nil, "")
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	// The stray sleeps 300 s; Invoke waits for it at most its grace,
	// scaled to the load (which may have grown since), and then kills it.
	if bound := 2 * testkit.Bound(strayGrace+5*time.Second); took > bound {
		t.Errorf("Invoke took %s, more than %s: it waited on the stray", took, bound)
	}
	if !r.Went {
		t.Errorf("the script's RESULT line was lost: %q", r.Stdout)
	}
	var pids []int
	for _, line := range strings.Split(r.Stdout, "\n") {
		if p, ok := strings.CutPrefix(line, "STRAY "); ok {
			if pid, err := strconv.Atoi(p); err == nil && pid > 1 {
				pids = append(pids, pid)
			}
		}
	}
	if len(pids) != 2 {
		t.Fatalf("the strays did not say their pids: %q", r.Stdout)
	}
	deadline := time.Now().Add(testkit.Bound(5 * time.Second))
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				_ = unix.Kill(pid, unix.SIGKILL)
				t.Fatalf("the stray %d is alive after Invoke returned", pid)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// alive reports whether pid is a process that has not exited (a zombie
// has).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i >= 0 && !strings.HasPrefix(string(stat[i+1:]), " Z")
}
