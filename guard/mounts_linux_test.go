//go:build linux

package guard

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestDataMagicNumbers checks the table's numbers against the kernel's
// headers as golang.org/x/sys/unix has them, and that the kernel's own
// file systems are not among them.
func TestDataMagicNumbers(t *testing.T) {
	data := map[string]int64{
		"EXT4": unix.EXT4_SUPER_MAGIC, "XFS": unix.XFS_SUPER_MAGIC, "BTRFS": unix.BTRFS_SUPER_MAGIC,
		"F2FS": unix.F2FS_SUPER_MAGIC, "TMPFS": unix.TMPFS_MAGIC, "RAMFS": unix.RAMFS_MAGIC,
		"OVERLAYFS": unix.OVERLAYFS_SUPER_MAGIC, "ECRYPTFS": unix.ECRYPTFS_SUPER_MAGIC, "MSDOS": unix.MSDOS_SUPER_MAGIC,
		"EXFAT": unix.EXFAT_SUPER_MAGIC,
		"UDF":   unix.UDF_SUPER_MAGIC, "ISOFS": unix.ISOFS_SUPER_MAGIC, "SQUASHFS": unix.SQUASHFS_MAGIC,
		"EROFS": unix.EROFS_SUPER_MAGIC_V1, "CRAMFS": unix.CRAMFS_MAGIC, "NFS": unix.NFS_SUPER_MAGIC,
		"CIFS": unix.CIFS_SUPER_MAGIC, "SMB2": unix.SMB2_SUPER_MAGIC, "SMB": unix.SMB_SUPER_MAGIC,
		"V9FS": unix.V9FS_MAGIC, "FUSE": unix.FUSE_SUPER_MAGIC, "CEPH": unix.CEPH_SUPER_MAGIC,
		"OCFS2": unix.OCFS2_SUPER_MAGIC, "AFS": unix.AFS_SUPER_MAGIC, "AFS_FS": unix.AFS_FS_MAGIC,
		"REISERFS": unix.REISERFS_SUPER_MAGIC, "NILFS": unix.NILFS_SUPER_MAGIC, "AUTOFS": unix.AUTOFS_SUPER_MAGIC,
	}
	for name, magic := range data {
		if _, ok := DataMagic(uint64(magic)); !ok {
			t.Errorf("%s_MAGIC %#x is not among the data file systems", name, magic)
		}
	}
	kernel := map[string]int64{
		"PROC": unix.PROC_SUPER_MAGIC, "SYSFS": unix.SYSFS_MAGIC, "DEBUGFS": unix.DEBUGFS_MAGIC,
		"TRACEFS": unix.TRACEFS_MAGIC, "SECURITYFS": unix.SECURITYFS_MAGIC, "CGROUP": unix.CGROUP_SUPER_MAGIC,
		"CGROUP2": unix.CGROUP2_SUPER_MAGIC, "BPF_FS": unix.BPF_FS_MAGIC, "DEVPTS": unix.DEVPTS_SUPER_MAGIC,
		"PSTOREFS": unix.PSTOREFS_MAGIC, "EFIVARFS": unix.EFIVARFS_MAGIC, "NSFS": unix.NSFS_MAGIC,
		"HUGETLBFS": unix.HUGETLBFS_MAGIC, "SELINUX": unix.SELINUX_MAGIC, "SMACK": unix.SMACK_MAGIC,
		"BINFMTFS": unix.BINFMTFS_MAGIC, "ANON_INODE_FS": unix.ANON_INODE_FS_MAGIC, "SOCKFS": unix.SOCKFS_MAGIC,
		"PIPEFS": unix.PIPEFS_MAGIC,
	}
	for name, magic := range kernel {
		if fs, ok := DataMagic(uint64(magic)); ok {
			t.Errorf("%s_MAGIC %#x is taken for the data file system %s", name, magic, fs)
		}
	}
}

// TestReadMounts reads this machine's table: it has a root, and the
// procfs at /proc is a kernel surface.
func TestReadMounts(t *testing.T) {
	mounts, err := ReadMounts()
	if err != nil {
		t.Fatal(err)
	}
	var root, proc bool
	for _, m := range mounts {
		root = root || m.Point == "/"
		proc = proc || m.Point == "/proc" && m.FSType == "proc" && m.KernelSurface()
	}
	if !root || !proc {
		t.Errorf("the table has a root: %v, a procfs at /proc: %v (%d mounts)", root, proc, len(mounts))
	}
}
