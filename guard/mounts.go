package guard

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
)

// The kernel's own file systems are known by what they are, not only by
// where the table above expects them (/proc, /sys, /dev): procfs mounted a
// second time (a container's /host/proc, a chroot's /proc), a sysfs, a
// debugfs or a devtmpfs anywhere is a kernel surface too. The mount table
// says where each file system is mounted and of what type; a type is data
// only when it is on the allow-list below, and every other type, a new one
// a later kernel brings included, is a kernel surface: the list allows,
// and never denies, where the world grows.

// Mount is one line of the mount table (/proc/self/mountinfo), its paths
// decoded.
type Mount struct {
	// ID and Parent are the mount's id and its parent's.
	ID, Parent int
	// Root is the directory of the file system mounted here; Point the
	// mount point, absolute and clean, as this process's root sees it.
	Root, Point string
	// Options are the mount's own options: rw or ro, nosuid, nodev,
	// noexec, noatime, nodiratime, relatime, nosymfollow.
	Options []string
	// FSType is the file system's type, with a FUSE subtype after a dot
	// (fuse.sshfs); Source is what was mounted (a device, a server's
	// share, or a name).
	FSType, Source string
}

// Option reports whether the mount has the per-mount option name (nodev).
func (m Mount) Option(name string) bool { return slices.Contains(m.Options, name) }

// KernelSurface reports whether the file system mounted at m is the
// kernel's own: any type not on the allow-list of data file systems
// (DataFS).
func (m Mount) KernelSurface() bool { return !DataFS(m.FSType) }

// The bounds of the mount table ParseMountInfo reads: a table past them
// is refused rather than read in part.
const (
	// maxMountInfoBytes bounds the whole table.
	maxMountInfoBytes = 16 << 20
	// maxMounts bounds its lines: a machine with thousands of containers
	// stays well beneath it.
	maxMounts = 1 << 16
	// maxMountLine bounds one line: two paths of PATH_MAX, each character
	// escaped, and the options. An overlay's options name each of its
	// layers, and can run past it (200 layers of long names do): such a
	// line is refused, and the mounts on it are not among those returned
	// (a worker then holds no grant's device nodes by the kernel:
	// confine/linux's holdDevices).
	maxMountLine = 64 << 10
)

// ParseMountInfo reads a mount table in the format of
// /proc/self/mountinfo (proc(5)): one mount a line, its mount point and
// root with the kernel's octal escapes (\040 for a space) decoded. It
// refuses a table past maxMountInfoBytes or maxMounts, or with a line
// longer than maxMountLine; a line it cannot read is named in the error,
// and the mounts it could read are returned beside it.
func ParseMountInfo(data []byte) ([]Mount, error) {
	if len(data) > maxMountInfoBytes {
		return nil, fmt.Errorf("parse mountinfo: %d bytes, over the bound of %d", len(data),
			maxMountInfoBytes)
	}
	var out []Mount
	var bad []error
	for n := 1; len(data) > 0; n++ {
		line, rest, _ := bytes.Cut(data, []byte{'\n'})
		data = rest
		if len(line) == 0 {
			continue
		}
		if n > maxMounts {
			return nil, fmt.Errorf("parse mountinfo: over the bound of %d lines", maxMounts)
		}
		if len(line) > maxMountLine {
			bad = append(bad,
				fmt.Errorf("line %d: %d bytes, over the bound of %d", n, len(line), maxMountLine))
			continue
		}
		m, err := parseMountLine(string(line))
		if err != nil {
			bad = append(bad, fmt.Errorf("line %d: %w", n, err))
			continue
		}
		out = append(out, m)
	}
	if len(bad) > 0 {
		if len(bad) > 4 {
			bad = append(bad[:4], fmt.Errorf("and %d more lines", len(bad)-4))
		}
		return out, fmt.Errorf("parse mountinfo: %w", errors.Join(bad...))
	}
	return out, nil
}

// parseMountLine reads one line: "ID PARENT MAJ:MIN ROOT POINT OPTIONS
// [OPTIONAL...] - FSTYPE SOURCE SUPER-OPTIONS".
func parseMountLine(line string) (Mount, error) {
	f := strings.Fields(line)
	sep := slices.Index(f, "-")
	if sep < 6 || len(f) < sep+3 {
		return Mount{}, errors.New("not ID PARENT DEV ROOT POINT OPTIONS ... - TYPE SOURCE")
	}
	var m Mount
	var err error
	if m.ID, err = strconv.Atoi(f[0]); err != nil {
		return Mount{}, fmt.Errorf("mount id %q: %w", f[0], err)
	}
	if m.Parent, err = strconv.Atoi(f[1]); err != nil {
		return Mount{}, fmt.Errorf("parent id %q: %w", f[1], err)
	}
	if m.Root, err = unescapeMount(f[3]); err != nil {
		return Mount{}, fmt.Errorf("root: %w", err)
	}
	point, err := unescapeMount(f[4])
	if err != nil {
		return Mount{}, fmt.Errorf("mount point: %w", err)
	}
	if !strings.HasPrefix(point, "/") {
		return Mount{}, fmt.Errorf("mount point %q is not absolute", point)
	}
	m.Point = filepath.Clean(point)
	m.Options = strings.Split(f[5], ",")
	if m.FSType, err = unescapeMount(f[sep+1]); err != nil {
		return Mount{}, fmt.Errorf("type: %w", err)
	}
	if m.Source, err = unescapeMount(f[sep+2]); err != nil {
		return Mount{}, fmt.Errorf("source: %w", err)
	}
	return m, nil
}

// unescapeMount decodes the kernel's escapes in a field of the table: a
// backslash and three octal digits stand for one byte (\040 a space,
// \011 a tab, \012 a newline, \134 a backslash).
func unescapeMount(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+4 > len(s) {
			return "", fmt.Errorf("%q: an escape cut short", s)
		}
		v, err := strconv.ParseUint(s[i+1:i+4], 8, 8)
		if err != nil {
			return "", fmt.Errorf("%q: escape %q is not three octal digits of a byte", s, s[i:i+4])
		}
		b.WriteByte(byte(v))
		i += 3
	}
	return b.String(), nil
}

// dataFS are the file systems that hold data: a file in one is a file,
// not a door into the kernel. Each stays on the list for a reason:
var dataFS = map[string]bool{
	// disks
	"ext2": true, "ext3": true, "ext4": true, "xfs": true, "btrfs": true, "f2fs": true, "jfs": true,
	"reiserfs": true, "nilfs2": true, "bcachefs": true, "zfs": true,
	// memory: tmpfs and ramfs hold files a process wrote; rootfs is the
	// initial ramfs or tmpfs at / (a /dev or /sys/fs/cgroup on tmpfs is
	// held by the table by its path)
	"tmpfs": true, "ramfs": true, "rootfs": true,
	// stacked over other data: a container's root, snaps, encrypted homes
	"overlay": true, "aufs": true, "shiftfs": true, "ecryptfs": true,
	// removable media and images
	"vfat": true, "msdos": true, "exfat": true, "ntfs": true, "ntfs3": true, "hfs": true,
	"hfsplus": true, "udf": true, "iso9660": true, "squashfs": true, "erofs": true, "cramfs": true,
	// network and the host's share in a virtual machine (WSL's drvfs)
	"nfs": true, "nfs4": true, "cifs": true, "smb3": true, "smbfs": true, "9p": true, "virtiofs": true,
	"ceph": true, "ocfs2": true, "gfs2": true, "lustre": true, "gpfs": true, "afs": true,
	"vboxsf": true, "drvfs": true,
	// FUSE: a user's file system (sshfs, s3fs, ntfs-3g as fuseblk); but
	// fuse.lxcfs, below, which stands in for the kernel's files
	"fuse": true, "fuseblk": true,
	// autofs holds nothing itself: the file system it mounts on demand is
	// judged by its own type
	"autofs": true,
}

// kernelFUSE are FUSE file systems that serve the kernel's files in its
// stead: lxcfs serves /proc and /sys files of a container.
var kernelFUSE = map[string]bool{"fuse.lxcfs": true}

// DataFS reports whether the file system type fstype (as the mount table
// names it) holds data. Every other type is a kernel surface: proc, sysfs,
// debugfs, tracefs, securityfs, cgroup, cgroup2, bpf, configfs, devtmpfs,
// devpts, mqueue, pstore, efivarfs, binfmt_misc, nsfs, hugetlbfs, fusectl,
// rpc_pipefs, selinuxfs, and any type this list does not know.
func DataFS(fstype string) bool {
	if dataFS[fstype] {
		return true
	}
	return strings.HasPrefix(fstype, "fuse.") && len(fstype) > len("fuse.") && !kernelFUSE[fstype]
}

// dataMagic are the statfs(2) f_type numbers of the data file systems of
// DataFS (linux/magic.h), so that the worker can tell, on a descriptor, a
// data file system from the kernel's.
var dataMagic = map[uint64]string{
	0xef53:     "ext2/ext3/ext4",
	0x58465342: "xfs",
	0x9123683e: "btrfs",
	0xf2f52010: "f2fs",
	0x3153464a: "jfs",
	0x52654973: "reiserfs",
	0x3434:     "nilfs2",
	0xca451a4e: "bcachefs",
	0x2fc12fc1: "zfs",
	0x01021994: "tmpfs",
	0x858458f6: "ramfs",
	0x794c7630: "overlay",
	0x61756673: "aufs",
	0x6a656a62: "shiftfs",
	0xf15f:     "ecryptfs",
	0x4d44:     "vfat/msdos",
	0x2011bab0: "exfat",
	0x5346544e: "ntfs",
	0x7366746e: "ntfs3",
	0x4244:     "hfs",
	0x482b:     "hfsplus",
	0x15013346: "udf",
	0x9660:     "iso9660",
	0x73717368: "squashfs",
	0xe0f5e1e2: "erofs",
	0x28cd3d45: "cramfs",
	0x6969:     "nfs",
	0xff534d42: "cifs",
	0xfe534d42: "smb3",
	0x517b:     "smbfs",
	0x01021997: "9p",
	0x65735546: "fuse/virtiofs",
	0x00c36400: "ceph",
	0x7461636f: "ocfs2",
	0x01161970: "gfs2",
	0x0bd00bd0: "lustre",
	0x47504653: "gpfs",
	0x5346414f: "afs",
	0x6b414653: "afs",
	0x786f4256: "vboxsf",
	0x0187:     "autofs",
}

// DataMagic reports whether the statfs(2) f_type magic names a file
// system that holds data (DataFS), and which. Every other number is a
// kernel surface: the kernel's own file systems, and any the list does not
// know.
func DataMagic(magic uint64) (string, bool) {
	name, ok := dataMagic[magic&0xffffffff]
	return name, ok
}

// kernelLocation is the location of a kernel surface mounted at m, false
// for a data file system, and for one within a surface the table names
// (/proc, /sys, /dev, which it holds whole, with the devices of /dev it
// keeps reachable).
func (m Mount) kernelLocation() (Location, bool) {
	if !m.KernelSurface() || !filepath.IsAbs(m.Point) {
		return Location{}, false
	}
	for _, k := range kernelSurfaces {
		if slices.Contains(k.OS, goruntime.GOOS) && Within(m.Point, k.Path) {
			return Location{}, false
		}
	}
	return Location{Path: m.Point, Kind: Kernel,
		Holds: "a " + m.FSType + " mount: a file system of the kernel's, not of data"}, true
}

// kernelMounts lists the kernel surfaces among mounts (KernelSurface),
// outside the ones the table names by their path, as Build guards them.
func kernelMounts(mounts []Mount) []Location {
	var out []Location
	for _, m := range mounts {
		if l, ok := m.kernelLocation(); ok {
			out = append(out, l)
		}
	}
	return out
}
