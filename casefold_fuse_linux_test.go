package sabline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// foldNode is a directory or file of a FUSE file system that ignores case
// (mountFolding): a loopback over the entry at real, whose lookups take a
// name for the entry stored under any of its cases, as a casefold ext4 or
// f2fs, a vfat or a CIFS mount does.
type foldNode struct {
	fs.Inode
	real string
}

var (
	_ fs.NodeLookuper   = (*foldNode)(nil)
	_ fs.NodeGetattrer  = (*foldNode)(nil)
	_ fs.NodeSetattrer  = (*foldNode)(nil)
	_ fs.NodeOpener     = (*foldNode)(nil)
	_ fs.NodeReaddirer  = (*foldNode)(nil)
	_ fs.NodeCreater    = (*foldNode)(nil)
	_ fs.NodeMkdirer    = (*foldNode)(nil)
	_ fs.NodeUnlinker   = (*foldNode)(nil)
	_ fs.NodeRmdirer    = (*foldNode)(nil)
	_ fs.NodeRenamer    = (*foldNode)(nil)
	_ fs.NodeStatfser   = (*foldNode)(nil)
	_ fs.NodeReadlinker = (*foldNode)(nil)
	_ fs.NodeFsyncer    = (*foldNode)(nil)
)

// stored is the name of dir's entry that name is, case ignored: the
// entry named name itself where there is one.
func stored(dir, name string) (string, syscall.Errno) {
	var st syscall.Stat_t
	if syscall.Lstat(filepath.Join(dir, name), &st) == nil {
		return name, 0
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fs.ToErrno(err)
	}
	for _, e := range entries {
		if strings.EqualFold(e.Name(), name) {
			return e.Name(), 0
		}
	}
	return "", syscall.ENOENT
}

// child is the node of the entry at p, one per inode of the directory
// beneath: a name in any case reaches the same node, and so the same
// kernel inode.
func (n *foldNode) child(ctx context.Context, p string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return nil, fs.ToErrno(err)
	}
	out.Attr.FromStat(&st)
	return n.NewInode(ctx, &foldNode{real: p}, fs.StableAttr{Mode: st.Mode, Ino: st.Ino}), 0
}

func (n *foldNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	s, errno := stored(n.real, name)
	if errno != 0 {
		return nil, errno
	}
	return n.child(ctx, filepath.Join(n.real, s), out)
}

func (n *foldNode) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	var st syscall.Stat_t
	if err := syscall.Lstat(n.real, &st); err != nil {
		return fs.ToErrno(err)
	}
	out.FromStat(&st)
	return 0
}

func (n *foldNode) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn,
	out *fuse.AttrOut) syscall.Errno {
	if m, ok := in.GetMode(); ok {
		if err := syscall.Chmod(n.real, m); err != nil {
			return fs.ToErrno(err)
		}
	}
	if sz, ok := in.GetSize(); ok {
		if err := syscall.Truncate(n.real, int64(sz)); err != nil {
			return fs.ToErrno(err)
		}
	}
	return n.Getattr(ctx, f, out)
}

func (n *foldNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	fd, err := syscall.Open(n.real, int(flags)&^syscall.O_APPEND, 0)
	if err != nil {
		return nil, 0, fs.ToErrno(err)
	}
	return fs.NewLoopbackFile(fd), 0, 0
}

func (n *foldNode) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	return fs.NewLoopbackDirStream(n.real)
}

func (n *foldNode) Create(ctx context.Context, name string, flags, mode uint32,
	out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	if s, errno := stored(n.real, name); errno == 0 {
		name = s
	}
	p := filepath.Join(n.real, name)
	fd, err := syscall.Open(p, int(flags)|syscall.O_CREAT, mode)
	if err != nil {
		return nil, nil, 0, fs.ToErrno(err)
	}
	ch, errno := n.child(ctx, p, out)
	if errno != 0 {
		syscall.Close(fd)
		return nil, nil, 0, errno
	}
	return ch, fs.NewLoopbackFile(fd), 0, 0
}

func (n *foldNode) Mkdir(ctx context.Context, name string, mode uint32,
	out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if _, errno := stored(n.real, name); errno == 0 {
		return nil, syscall.EEXIST
	}
	p := filepath.Join(n.real, name)
	if err := syscall.Mkdir(p, mode); err != nil {
		return nil, fs.ToErrno(err)
	}
	return n.child(ctx, p, out)
}

func (n *foldNode) Unlink(ctx context.Context, name string) syscall.Errno {
	s, errno := stored(n.real, name)
	if errno != 0 {
		return errno
	}
	return fs.ToErrno(syscall.Unlink(filepath.Join(n.real, s)))
}

func (n *foldNode) Rmdir(ctx context.Context, name string) syscall.Errno {
	s, errno := stored(n.real, name)
	if errno != 0 {
		return errno
	}
	return fs.ToErrno(syscall.Rmdir(filepath.Join(n.real, s)))
}

func (n *foldNode) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string,
	flags uint32) syscall.Errno {
	s, errno := stored(n.real, name)
	if errno != 0 {
		return errno
	}
	to := newParent.(*foldNode)
	if t, errno := stored(to.real, newName); errno == 0 {
		newName = t
	}
	return fs.ToErrno(syscall.Rename(filepath.Join(n.real, s), filepath.Join(to.real, newName)))
}

func (n *foldNode) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	var st syscall.Statfs_t
	if err := syscall.Statfs(n.real, &st); err != nil {
		return fs.ToErrno(err)
	}
	out.FromStatfsT(&st)
	return 0
}

func (n *foldNode) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	s, err := os.Readlink(n.real)
	if err != nil {
		return nil, fs.ToErrno(err)
	}
	return []byte(s), 0
}

func (n *foldNode) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	if s, ok := f.(fs.FileFsyncer); ok {
		return s.Fsync(ctx, flags)
	}
	return 0
}

// foldMounts serialises the mounts, which a test's parallel subtests
// would otherwise race to make.
var foldMounts sync.Mutex

// mountFolding mounts, at a directory of the test's own, a FUSE file
// system over a new temporary directory whose lookups ignore case
// (foldNode), unmounted when the test ends, and returns the mount point
// and the directory beneath (where the test makes what it reads through
// the mount). It skips, saying why, where /dev/fuse or the mount is
// refused.
func mountFolding(t *testing.T) (mnt, backing string) {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("no FUSE here: %v", err)
	}
	backing, mnt = t.TempDir(), t.TempDir()
	zero := time.Duration(0)
	foldMounts.Lock()
	server, err := fs.Mount(mnt, &foldNode{real: backing}, &fs.Options{
		EntryTimeout: &zero, AttrTimeout: &zero, NegativeTimeout: &zero,
		MountOptions: fuse.MountOptions{DirectMount: true, DirectMountStrict: true, AllowOther: true,
			FsName: "sabline-fold", Name: "fold"},
	})
	foldMounts.Unlock()
	if err != nil {
		t.Skipf("a FUSE mount is refused here: %v", err)
	}
	t.Cleanup(func() {
		if err := server.Unmount(); err != nil {
			// Still in use: detached, so that no later lookup waits on a
			// server this process ends with.
			t.Errorf("unmount %s: %v (detached: %v)", mnt, err, syscall.Unmount(mnt, syscall.MNT_DETACH))
		}
	})
	return mnt, backing
}

// TestFoldingMount: the mount takes a name for the entry stored under
// another case, one inode by either name, and lists it as stored.
func TestFoldingMount(t *testing.T) {
	mnt, backing := mountFolding(t)
	writeFile(t, filepath.Join(backing, ".ssh", "id_ed25519"), "FAKE-KEY")
	b, err := os.ReadFile(filepath.Join(mnt, ".SSH", "id_ed25519"))
	if err != nil || string(b) != "FAKE-KEY" {
		t.Fatalf("read through .SSH: %q, %v", b, err)
	}
	var a, c syscall.Stat_t
	if err := syscall.Stat(filepath.Join(mnt, ".ssh"), &a); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Stat(filepath.Join(mnt, ".SsH"), &c); err != nil {
		t.Fatal(err)
	}
	if a.Dev != c.Dev || a.Ino != c.Ino {
		t.Errorf(".ssh is %d:%d, .SsH %d:%d: want one inode", a.Dev, a.Ino, c.Dev, c.Ino)
	}
	names, err := os.ReadDir(mnt)
	if err != nil || len(names) != 1 || names[0].Name() != ".ssh" {
		t.Errorf("listing %v, %v: want .ssh alone", names, err)
	}
}
