package escape

import (
	"strconv"
	"strings"
)

// The catalogue's placeholders, filled in by Scratch.Expand:
//
//	$GRANT     a scratch directory with data.txt, sub/ and link (a symbolic
//	           link to $OUTSIDE/secret.txt); the budgets grant it
//	$OUTSIDE   a scratch directory with secret.txt; no budget grants it
//	$HOME      the run's home directory, with .ssh/id_ed25519 (not a key) and
//	           .config/app/settings
//	$RECEIPTS  the run's receipts directory: naming it makes it a witness
//	$VICTIM    the pid of a process started for the run
//	$PORT, $PORT2, $PORT6, $UDPPORT
//	           TCP listeners on 127.0.0.1 and [::1], a UDP socket on 127.0.0.1
//	$SHARED    a UDP port on 127.0.0.1 a receiver of the harness holds with
//	           SO_REUSEADDR and SO_REUSEPORT, to which the harness sends a
//	           datagram every few milliseconds: another process's traffic
//	$UNIX      the path of a listening Unix socket in a scratch directory
//	$ABSTRACT  the name of a listening abstract Unix socket
//	$MISSING   Missing, a path that does not exist: raw calls that would
//	           act on a path name one beneath it, so as to fail first
//	$MQ        the name of a POSIX message queue the harness made, of one
//	           message of one byte (a queue of the system's default size
//	           takes a tenth of what all the user's queues may)
//	$MQNEW     the name of a POSIX message queue that does not exist
//	$IPCKEY    a System V IPC key no object has
//	$KEYDESC   the description of a key no keyring holds
//	$SEEN      a path in the scratch world, outside every witnessed
//	           directory, that the harness makes once a target's
//	           WitnessPriority has read the victim's priority lent: an
//	           attempt that lends it waits, a tenth of a second at a time,
//	           until then, and no longer (or until the run's timeout)
//
// $OUTSIDE/secret.txt carries the extended attribute KeptXattr (on Linux).
//
// Linux constants in the programs are written as numbers, with their
// names beside them.

// seccomp and landlock are the expected outcome of a call the layer
// refuses with errno.
func seccomp(errno string) Outcome  { return Outcome{StoppedBy: BySeccomp, Errno: errno} }
func landlock(errno string) Outcome { return Outcome{StoppedBy: ByLandlock, Errno: errno} }

// olderTruncate is the outcome of a truncation outside every write grant
// below Landlock ABI 3, which has no right to truncate: the worker's
// filter refuses truncate(2), and an open that truncates without writing,
// where Landlock does not hold them.
var olderTruncate = []Older{{Below: 3, Expect: seccomp("EPERM"),
	Why: "Landlock has no right to truncate below ABI 3; the worker's filter refuses truncate(2)"}}

// languageOnly is the outcome of an attempt no confinement layer refuses.
var languageOnly = Outcome{StoppedBy: ByLanguage}

// ctypes is what the normal build's refusal names for a program that
// makes raw calls.
const ctypes = "ffi:ctypes"

// Catalogue is every escape target, by group.
var Catalogue = concat(files, metadata, network, processes, kernel, abi, confinement, threads)

func concat(lists ...[]Target) []Target {
	var out []Target
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

var files = []Target{
	{
		ID: "files-read-outside", Group: GroupFiles,
		Threat:  "read a file beside the granted directory",
		Budget:  "io,fs:read:$GRANT",
		Program: "data = fs.read(\"$OUTSIDE/secret.txt\")\nprint(\"RESULT ok bytes=%d\" % len(data))\n",
		Row:     "fs-read-dir", Language: "fs:read:$OUTSIDE/secret.txt",
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-read-no-grant", Group: GroupFiles,
		Threat:  "read a file under a budget with no fs grant",
		Budget:  "io",
		Program: "data = fs.read(\"$OUTSIDE/secret.txt\")\nprint(\"RESULT ok bytes=%d\" % len(data))\n",
		Row:     "no-fs", Language: "fs:read:$OUTSIDE/secret.txt",
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-list-root", Group: GroupFiles,
		Threat:  "list the root directory under a budget with no fs grant",
		Budget:  "io",
		Program: "names = fs.list(\"/\")\nprint(\"RESULT ok entries=%d\" % len(names))\n",
		Row:     "no-fs", Language: "fs:read:/",
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-write-outside", Group: GroupFiles, Witness: WitnessFiles,
		Threat:  "create a file beside the directory granted for writing",
		Budget:  "io,fs:write:$GRANT",
		Program: "fs.write(\"$OUTSIDE/planted.txt\", \"planted\")\nprint(\"RESULT ok\")\n",
		Row:     "fs-write-dir", Language: "fs:write:$OUTSIDE/planted.txt",
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-write-no-grant", Group: GroupFiles, Witness: WitnessFiles,
		Threat:  "overwrite a file under a budget with no fs grant",
		Budget:  "io",
		Program: "fs.write(\"$OUTSIDE/secret.txt\", \"overwritten\")\nprint(\"RESULT ok\")\n",
		Row:     "no-fs", Language: "fs:write:$OUTSIDE/secret.txt",
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-write-read-grant", Group: GroupFiles, Witness: WitnessFiles,
		Threat:  "write into a directory granted for reading only",
		Budget:  "io,fs:read:$GRANT",
		Program: "fs.write(\"$GRANT/data.txt\", \"overwritten\")\nprint(\"RESULT ok\")\n",
		Row:     "fs-read-dir", Language: "fs:write:$GRANT/data.txt",
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-read-write-grant", Group: GroupFiles,
		Threat:  "read back from a directory granted for writing only",
		Budget:  "io,fs:write:$GRANT",
		Program: "data = fs.read(\"$GRANT/data.txt\")\nprint(\"RESULT ok bytes=%d\" % len(data))\n",
		Row:     "fs-write-dir", Language: "fs:read:$GRANT/data.txt",
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-remove-outside", Group: GroupFiles, Witness: WitnessFiles,
		Threat:  "remove a file beside the directory granted for writing",
		Budget:  "io,fs:write:$GRANT",
		Program: "fs.remove(\"$OUTSIDE/secret.txt\")\nprint(\"RESULT ok\")\n",
		Row:     "fs-write-dir", Language: "fs:write:$OUTSIDE/secret.txt",
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-mkdir-outside", Group: GroupFiles, Witness: WitnessFiles,
		Threat:  "make a directory beside the directory granted for writing",
		Budget:  "io,fs:write:$GRANT",
		Program: "fs.mkdir(\"$OUTSIDE/made\")\nprint(\"RESULT ok\")\n",
		Row:     "fs-write-dir", Language: "fs:write:$OUTSIDE/made",
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-truncate-outside", Group: GroupFiles, Witness: WitnessFiles,
		Threat: "truncate a file beside the directory granted for writing",
		Budget: "io,fs:write:$GRANT",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("truncate", "$OUTSIDE/secret.txt", 0))
`,
		Row: "fs-write-dir", Language: ctypes,
		Expect: landlock("EACCES"), Unconfined: Went,
		Older: olderTruncate,
	},
	{
		ID: "files-truncate-read-grant", Group: GroupFiles, Witness: WitnessFiles,
		Threat: "truncate a file the budget grants for reading only",
		Budget: "io,fs:read:$GRANT",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("truncate", "$GRANT/data.txt", 0))
`,
		Row: "fs-read-dir", Language: ctypes,
		Expect: landlock("EACCES"), Unconfined: Went,
		Older: olderTruncate,
	},
	{
		ID: "files-symlink-planted", Group: GroupFiles,
		Threat:  "read through a symbolic link inside the grant that points out of it",
		Budget:  "io,fs:read:$GRANT",
		Program: "data = fs.read(\"$GRANT/link\")\nprint(\"RESULT ok bytes=%d\" % len(data))\n",
		Row:     "fs-read-dir", Language: "fs:read:$OUTSIDE/secret.txt",
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-symlink-make", Group: GroupFiles, Witness: WitnessFiles,
		Threat: "plant a symbolic link to another directory inside the grant, for a later run to follow",
		Budget: "io,fs:write:$GRANT",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("symlink", "$OUTSIDE", "$GRANT/out"))
`,
		Row: "fs-write-dir", Language: ctypes,
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-hardlink-in", Group: GroupFiles, Witness: WitnessFiles,
		Threat: "make a hard link inside the grant to a file outside it",
		Budget: "io,fs:write:$GRANT",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("link", "$OUTSIDE/secret.txt", "$GRANT/hard"))
`,
		Row: "fs-write-dir", Language: ctypes,
		Expect: landlock("EXDEV"), Unconfined: Went,
	},
	{
		ID: "files-rename-in", Group: GroupFiles, Witness: WitnessFiles,
		Threat: "move a file from outside into the directory granted for writing",
		Budget: "io,fs:write:$GRANT",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("rename", "$OUTSIDE/secret.txt", "$GRANT/stolen.txt"))
`,
		Row: "fs-write-dir", Language: ctypes,
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-rename-out", Group: GroupFiles, Witness: WitnessFiles,
		Threat: "move a file out of the directory granted for writing",
		Budget: "io,fs:write:$GRANT",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("rename", "$GRANT/data.txt", "$OUTSIDE/planted.txt"))
`,
		Row: "fs-write-dir", Language: ctypes,
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-mkfifo", Group: GroupFiles, Witness: WitnessFiles,
		Threat: "make a named pipe inside the directory granted for writing",
		Budget: "io,fs:write:$GRANT",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("mknodat", -100, "$GRANT/fifo", 0o010600, 0))  # AT_FDCWD, S_IFIFO|0600
`,
		Row: "fs-write-dir", Language: ctypes,
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-reopen-proc-fd", Group: GroupFiles, Witness: WitnessFiles,
		Threat: "reopen a descriptor of a file granted for reading, through /proc/self/fd, for writing",
		Budget: "io,fs:read:$GRANT",
		Program: `ctypes = ffi.module("ctypes")
fd = ctypes.syscall("open", "$GRANT/data.txt", 0o2000000)  # O_RDONLY|O_CLOEXEC
if fd.errno:
    report(fd, "step=open")
else:
    w = ctypes.syscall("open", "/proc/self/fd/%d" % fd.ret, 0o2000001)  # O_WRONLY|O_CLOEXEC
    if w.errno:
        report(w)
    else:
        report(ctypes.syscall("write", w.ret, "x", 1), "step=write")  # over the first byte: the size stays
`,
		Row: "fs-read-dir", Language: ctypes,
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-proc-self-root", Group: GroupFiles,
		Threat: "read a file outside the grant through /proc/self/root",
		Budget: "io,fs:read:$GRANT",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("open", "/proc/self/root$OUTSIDE/secret.txt", 0o2000000))  # O_RDONLY|O_CLOEXEC
`,
		Row: "fs-read-dir", Language: ctypes,
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-dotdot-raw", Group: GroupFiles,
		Threat: "climb out of the grant with .. in a path the language never cleans",
		Budget: "io,fs:read:$GRANT",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("open", "$GRANT/sub/../../outside/secret.txt", 0o2000000))  # O_RDONLY|O_CLOEXEC
`,
		Row: "fs-read-dir", Language: ctypes,
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-credential", Group: GroupFiles,
		Threat:  "read a private key under a grant of the whole home directory",
		Budget:  "io,fs:read:$HOME",
		Program: "data = fs.read(\"$HOME/.ssh/id_ed25519\")\nprint(\"RESULT ok bytes=%d\" % len(data))\n",
		Row:     "credential", Language: "E318",
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-credential-everywhere", Group: GroupFiles,
		Threat:  "read a private key under a grant of every path",
		Budget:  "io,fs:read",
		Program: "data = fs.read(\"$HOME/.ssh/id_ed25519\")\nprint(\"RESULT ok bytes=%d\" % len(data))\n",
		Row:     "credential", Language: "E318",
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-credential-plant", Group: GroupFiles, Witness: WitnessFiles,
		Threat: "plant an authorized key under a grant of every path",
		Budget: "io,fs",
		Program: "fs.append(\"$HOME/.ssh/authorized_keys\", \"ssh-ed25519 AAAA planted\\n\")\n" +
			"print(\"RESULT ok\")\n",
		Row: "credential", Language: "E318",
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-credential-raw", Group: GroupFiles,
		Threat: "read a private key with raw calls, which the language does not judge, under a grant " +
			"of every path",
		Budget: "io,fs:read",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("openat", -100, "$HOME/.ssh/id_ed25519", 0o2000000))  # AT_FDCWD, O_RDONLY|O_CLOEXEC
`,
		Row: "credential", Language: ctypes,
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-dotentry", Group: GroupFiles,
		Threat: "read a program's settings in a dot-entry of the home under a grant of the home",
		Budget: "io,fs:read:$HOME",
		Program: "data = fs.read(\"$HOME/.config/app/settings\")\n" +
			"print(\"RESULT ok bytes=%d\" % len(data))\n",
		Row: "credential", Language: "E318",
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-receipts-forge", Group: GroupFiles, Witness: WitnessReceipts,
		Threat:  "forge a receipt in the receipts directory under a grant of every path",
		Budget:  "io,fs:write",
		Program: "fs.write(\"$RECEIPTS/forged.json\", \"{}\")\nprint(\"RESULT ok\")\n",
		Row:     "credential", Language: "E318",
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-proc-sys", Group: GroupFiles,
		Threat: "read the kernel's parameters under a grant of every path",
		Budget: "io,fs:read",
		Program: "data = fs.read(\"/proc/sys/kernel/ostype\")\n" +
			"print(\"RESULT ok bytes=%d\" % len(data))\n",
		Row: "credential", Language: "E318",
		Expect: landlock("EACCES"), Unconfined: Went,
	},
	{
		ID: "files-proc-granted", Group: GroupFiles,
		Threat:  "list the worker's threads and read their status through a grant that names /proc",
		Budget:  "io,fs:read:/proc",
		Program: "tasks = fs.list(\"/proc/self/task\")\nprint(\"RESULT ok threads=%d\" % len(tasks))\n",
		Row:     "credential", Language: "E329",
		Expect: landlock("EACCES"), Unconfined: Went,
		Note: "the normal build refuses the grant before anything runs (E329); the knock-out build " +
			"admits it, and the worker withholds it from the Landlock ruleset, as every grant that lies " +
			"in a kernel surface (linux.Carving.Withheld): /proc stays out of the domain whatever the " +
			"grant. Each thread's filter is read from outside the worker by confine's TestApplyLayers",
	},
	{
		ID: "files-stat-outside", Group: GroupFiles,
		Threat:  "learn whether a file outside the grants exists, and its size and times",
		Budget:  "io",
		Program: "print(\"RESULT ok exists=%s\" % fs.exists(\"$OUTSIDE/secret.txt\"))\n",
		Row:     "no-fs", Language: "fs:read:$OUTSIDE/secret.txt",
		Expect: languageOnly, Unconfined: Went,
		Gap: "Landlock (to ABI 7) has no right for stat, access or readlink, so any path's existence, " +
			"size and times are visible, as the no-fs row of ENFORCES says; the seccomp filter refuses " +
			"statx and the extended-attribute reads (files-statx-outside, files-getxattr-outside), but " +
			"the worker's own Go code needs newfstatat and readlinkat, and a filter cannot read the path " +
			"a call names",
	},
	{
		ID: "files-chmod-outside", Group: GroupFiles, Witness: WitnessFiles,
		Threat: "change the mode of a file outside the grants",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("chmod", "$OUTSIDE/secret.txt", 0o640))
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: "Landlock has no right for a file's mode, owner, times or extended attributes; seccomp " +
			"refuses the calls that change them",
	},
	{
		ID: "files-chown-outside", Group: GroupFiles, Witness: WitnessFiles,
		Threat: "change the owner of a file outside the grants",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("chown", "$OUTSIDE/secret.txt", 65534, 65534))  # to nobody
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "files-setuid-create", Group: GroupFiles,
		Threat: "make a set-user-ID file in the directory granted for writing, a program any user " +
			"could start as the worker's user",
		Budget: "io,fs:write:$GRANT",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("openat", -100, "$GRANT/absent/suid", 0o101, 0o4755))  # O_WRONLY|O_CREAT; no such directory: ENOENT
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "ENOENT",
		Note: "Landlock lets a file be made in the grant and has no right for its mode; seccomp " +
			"refuses S_ISUID and S_ISGID in the mode of a call that makes a file. Unconfined, the " +
			"directory named does not exist, so nothing is made",
	},
	{
		ID: "files-setgid-tmpfile", Group: GroupFiles, Arch: "amd64",
		Threat: "make an unnamed set-group-ID file in the directory granted for writing, for linkat to " +
			"name later",
		Budget: "io,fs:write:$GRANT",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("openat", -100, "$GRANT/absent", 0o20200001, 0o2755))  # O_TMPFILE|O_WRONLY (amd64); no such directory: ENOENT
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "ENOENT",
		Note: "O_TMPFILE is __O_TMPFILE|O_DIRECTORY, and O_DIRECTORY differs by architecture; the " +
			"filter reads __O_TMPFILE, the same on amd64 and arm64",
	},
	{
		ID: "files-setuid-mknod", Group: GroupFiles,
		Threat: "make a set-user-ID regular file with mknodat in the directory granted for writing",
		Budget: "io,fs:write:$GRANT",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("mknodat", -100, "$GRANT/absent/suid", 0o104755, 0))  # S_IFREG|04755; no such directory: ENOENT
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "ENOENT",
	},
	{
		ID: "files-openat2", Group: GroupFiles,
		Threat: "open or make a file with openat2, whose flags and mode lie in a structure no seccomp " +
			"filter can read",
		Budget: "io,fs:write:$GRANT",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("openat2", -100, "$GRANT/data.txt", None, 24))  # no struct open_how: EFAULT
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("ENOSYS"), Unconfined: "EFAULT",
		Note: "ENOSYS, as from a kernel without openat2, so that a caller falls back to openat, whose " +
			"flags and mode the filter reads",
	},
	{
		ID: "files-inotify", Group: GroupFiles,
		Threat: "watch files outside the grants, which a watch checks for read permission only, not " +
			"against Landlock",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("inotify_init1", 0xffffffff))  # unknown flags: EINVAL
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EINVAL",
	},
}

// metadata is the catalogue's attributes, extended attributes, owners,
// modes and times, by path, by *at call and by descriptor: each target
// changes a scratch file's metadata, witnessed by the harness, and only the
// seccomp filter holds it (Landlock has no right for any of them).
// Descriptors are of a file the worker opens ($GRANT/data.txt, which the
// budget lets it read) or of one it inherits: $OUTSIDE/secret.txt, opened
// by the harness for reading as the run's standard input (descriptor 0).
var metadata = []Target{
	// By path, and by *at call with the current directory.
	metadataCall("files-utimensat-outside", "change the times of a file outside the grants",
		`ctypes.syscall("utimensat", -100, "$OUTSIDE/secret.txt", None, 0)  # both times to now`),
	metadataCall("files-fchmodat-outside", "change the mode of a file outside the grants, by fchmodat",
		`ctypes.syscall("fchmodat", -100, "$OUTSIDE/secret.txt", 0o640)`),
	metadataCall("files-fchmodat2-outside",
		"change the mode of a file outside the grants, by fchmodat2",
		`ctypes.syscall("fchmodat2", -100, "$OUTSIDE/secret.txt", 0o640, 0)`),
	metadataCall("files-fchownat-outside",
		"change the owner of a file outside the grants, by fchownat",
		`ctypes.syscall("fchownat", -100, "$OUTSIDE/secret.txt", 65534, 65534, 0)  # to nobody`),
	metadataCall("files-setxattr-outside", "set an extended attribute on a file outside the grants",
		`ctypes.syscall("setxattr", "$OUTSIDE/secret.txt", "user.sabline-escape", "x", 1, 0)`),
	metadataCall("files-lsetxattr-outside",
		"set an extended attribute on a file outside the grants, not following a link",
		`ctypes.syscall("lsetxattr", "$OUTSIDE/secret.txt", "user.sabline-escape", "x", 1, 0)`),
	metadataCall("files-setxattrat-outside",
		"set an extended attribute on a file outside the grants, by setxattrat",
		`ctypes.syscall("setxattrat", -100, "$OUTSIDE/secret.txt", 0, "user.sabline-escape", le(0, `+
			`16), 16)  # struct xattr_args: an empty value`),
	metadataCall("files-removexattr-outside",
		"remove an extended attribute from a file outside the grants",
		`ctypes.syscall("removexattr", "$OUTSIDE/secret.txt", "`+KeptXattr+`")`),
	metadataCall("files-removexattrat-outside",
		"remove an extended attribute from a file outside the grants, by removexattrat",
		`ctypes.syscall("removexattrat", -100, "$OUTSIDE/secret.txt", 0, "`+KeptXattr+`")`),
	metadataCall("files-file-setattr-outside",
		"set an attribute flag on a file outside the grants, by file_setattr",
		`ctypes.syscall("file_setattr", -100, "$OUTSIDE/secret.txt", le(0x80, 8) + le(0, 16), 24, 0)  `+
			`# struct file_attr: FS_XFLAG_NODUMP`),
	{
		ID: "files-file-setattr-dirfd", Group: GroupFiles, Witness: WitnessFiles,
		Threat: "set an attribute flag on a file outside the grants, by file_setattr beneath a " +
			"directory descriptor",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
d = ctypes.syscall("open", "$OUTSIDE", 0o10000000 | 0o2000000)  # O_PATH|O_CLOEXEC, which Landlock does not check
if d.errno:
    report(d, "step=open")
else:
    report(ctypes.syscall("file_setattr", d.ret, "secret.txt", le(0x80, 8) + le(0, 16), 24, 0))  # FS_XFLAG_NODUMP
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "files-file-getattr-outside", Group: GroupFiles,
		Threat: "read the attribute flags of a file outside the grants, by file_getattr",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("file_getattr", -100, "$OUTSIDE/secret.txt", le(0, 24), 24, 0))
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: "a read of metadata, as stat is; no Go code of the worker makes this call, so the " +
			"allow-list refuses it",
	},
	// Reads of metadata the worker's Go code never makes: stat through
	// newfstatat stays a gap (files-stat-outside), these are refused.
	metadataRead("files-getxattr-outside", "read an extended attribute of a file outside the grants",
		`ctypes.syscall("getxattr", "$OUTSIDE/secret.txt", "`+KeptXattr+`", le(0, 64), 64)`),
	metadataRead("files-listxattr-outside",
		"list the extended attributes of a file outside the grants",
		`ctypes.syscall("listxattr", "$OUTSIDE/secret.txt", le(0, 256), 256)`),
	metadataRead("files-getxattrat-outside",
		"read an extended attribute of a file outside the grants, by getxattrat",
		`ctypes.syscall("getxattrat", -100, "$OUTSIDE/secret.txt", 0, "`+KeptXattr+`", le(0, 16), 16)  `+
			`# struct xattr_args with no buffer: the value's size`),
	metadataRead("files-listxattrat-outside",
		"list the extended attributes of a file outside the grants, by listxattrat",
		`ctypes.syscall("listxattrat", -100, "$OUTSIDE/secret.txt", 0, None, 0)  # no buffer: the `+
			`list's size`),
	metadataRead("files-statx-outside",
		"read the size, times and owner of a file outside the grants, by statx",
		`ctypes.syscall("statx", -100, "$OUTSIDE/secret.txt", 0, 0xfff, le(0, 256))  # STATX_ALL`),
	// By a descriptor the worker opened itself, on a file the budget lets
	// it read.
	openedCall("files-fchmod-fd",
		"change the mode of a file granted for reading, through a descriptor the worker opened",
		`ctypes.syscall("fchmod", fd, 0o640)`),
	openedCall("files-fchown-fd",
		"change the owner of a file granted for reading, through a descriptor the worker opened",
		`ctypes.syscall("fchown", fd, 65534, 65534)  # to nobody`),
	openedCall("files-fsetxattr-fd",
		"set an extended attribute on a file granted for reading, through a descriptor the worker opened",
		`ctypes.syscall("fsetxattr", fd, "user.sabline-escape", "x", 1, 0)`),
	openedCall("files-fsetxattr-ioctl-fd",
		"set an attribute flag on a file granted for reading, with the FS_IOC_FSSETXATTR ioctl",
		`ctypes.syscall("ioctl", fd, 0x401c5820, le(0x80, 4) + le(0, 24))  # FS_IOC_FSSETXATTR, struct `+
			`fsxattr: FS_XFLAG_NODUMP`),
	// Through what the sabline command inherited: standard input, and a
	// descriptor beyond the standard three.
	{
		ID: "files-write-inherited-extra", Group: GroupFiles,
		Threat: "write to a file outside the grants through a descriptor the sabline command inherited " +
			"beyond the standard three",
		Budget: "io",
		Extra:  "$OUTSIDE/secret.txt",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("write", 60, "A", 1))  # descriptor ExtraFD, at offset 0: over the first byte, the size stays
`,
		Row: "no-fs", Language: ctypes,
		Expect: Outcome{StoppedBy: ByLanguage, Errno: "EBADF"}, Unconfined: "EBADF",
		Note: "the worker closes every descriptor it inherited without close-on-exec before anything " +
			"else, confined or not, so the descriptor is gone in both runs (EBADF) and the file outside " +
			"is unchanged: Landlock checks a file when it is opened, and could not hold a descriptor " +
			"opened before the run",
	},
	inheritedCall("files-fchmod-inherited",
		"change the mode of a file outside the grants, through standard input, which the caller opened "+
			"on it",
		`ctypes.syscall("fchmod", 0, 0o640)`, Went, seccomp("EPERM")),
	inheritedCall("files-fchown-inherited",
		"change the owner of a file outside the grants, through standard input, which the caller "+
			"opened on it",
		`ctypes.syscall("fchown", 0, 65534, 65534)  # to nobody`, Went, seccomp("EPERM")),
	inheritedCall("files-futimens-inherited",
		"change the times of a file outside the grants, through standard input, which the caller "+
			"opened on it",
		`ctypes.syscall("utimensat", 0, None, None, 0)  # futimens: both times to now`,
		Went, seccomp("EPERM")),
	// A pipe takes no user attribute: EPERM either way.
	inheritedCall("files-fsetxattr-inherited",
		"set an extended attribute on a file outside the grants, through standard input, which the "+
			"caller opened on it",
		`ctypes.syscall("fsetxattr", 0, "user.sabline-escape", "x", 1, 0)`, "EPERM",
		Outcome{StoppedBy: ByLanguage, Errno: "EPERM"}),
	inheritedCall("files-fremovexattr-inherited",
		"remove an extended attribute from a file outside the grants, through standard input, which "+
			"the caller opened on it",
		`ctypes.syscall("fremovexattr", 0, "`+KeptXattr+`")`, "EPERM",
		Outcome{StoppedBy: ByLanguage, Errno: "EPERM"}),
	inheritedCall("files-file-setattr-inherited",
		"set an attribute flag on a file outside the grants, by file_setattr on standard input, which "+
			"the caller opened on it",
		`ctypes.syscall("file_setattr", 0, "", le(0x80, 8) + le(0, 16), 24, 0x1000)  # AT_EMPTY_PATH, `+
			`FS_XFLAG_NODUMP`, "ENOTSUP|EOPNOTSUPP", seccomp("EPERM")),
	inheritedCall("files-fsetxattr-ioctl-inherited",
		"set an attribute flag on a file outside the grants, with FS_IOC_FSSETXATTR on standard input, "+
			"which the caller opened on it",
		`ctypes.syscall("ioctl", 0, 0x401c5820, le(0x80, 4) + le(0, 24))  # FS_IOC_FSSETXATTR: `+
			`FS_XFLAG_NODUMP`, "ENOTTY", seccomp("EPERM")),
}

// metadataCall is a target of metadata: one raw call that changes
// $OUTSIDE/secret.txt's metadata, under a budget of io alone. A comment
// after the call, "call  # why", is kept on its line.
func metadataCall(id, threat, call string) Target {
	call, comment, _ := strings.Cut(call, "  #")
	if comment != "" {
		comment = "  #" + comment
	}
	return Target{
		ID: id, Group: GroupFiles, Witness: WitnessFiles, Threat: threat, Budget: "io",
		Program:  "ctypes = ffi.module(\"ctypes\")\nreport(" + call + ")" + comment + "\n",
		Row:      "deny-list",
		Language: ctypes, Expect: seccomp("EPERM"), Unconfined: Went,
	}
}

// metadataRead is a target of metadata that reads a file's metadata
// outside the grants and changes nothing: it has no witness, and the
// allow-list refuses it, since no Go code of the worker makes the call.
func metadataRead(id, threat, call string) Target {
	t := metadataCall(id, threat, call)
	t.Witness = ""
	return t
}

// openedCall is a metadataCall on the descriptor fd of $GRANT/data.txt,
// which the worker opens for reading, as its budget allows.
func openedCall(id, threat, call string) Target {
	t := metadataCall(id, threat, call)
	t.Budget = "io,fs:read:$GRANT"
	body := strings.TrimPrefix(t.Program, "ctypes = ffi.module(\"ctypes\")\n")
	t.Program = `ctypes = ffi.module("ctypes")
r = ctypes.syscall("open", "$GRANT/data.txt", 0o2000000)  # O_RDONLY|O_CLOEXEC
fd = r.ret
if r.errno:
    report(r, "step=open")
else:
    ` + body
	return t
}

// inheritedCall is a metadataCall on descriptor 0, standard input, which
// the harness gives the command as $OUTSIDE/secret.txt opened for
// reading. The worker's descriptor 0 is a pipe the supervisor relays the
// file through, never the file: the call reaches the pipe, confined or
// not (unconfined is what it meets there), and the harness sees the file
// outside unchanged in both runs.
func inheritedCall(id, threat, call, unconfined string, expect Outcome) Target {
	t := metadataCall(id, threat, call)
	t.Stdin = "$OUTSIDE/secret.txt"
	t.Witness, t.Unconfined, t.Expect = "", unconfined, expect
	t.Note = "the worker's standard input is a pipe the supervisor made and relays the caller's " +
		"file through: the call reaches the pipe and never the file, confined or not, and the file " +
		"outside is unchanged in both runs (docs/THREAT_MODEL.md, \"The caller's open files\")"
	return t
}

// handedNote says why a socket of the worker's own meets EPERM under any
// net grant.
const handedNote = "under a net grant the worker makes no socket of its own: its supervisor " +
	"connects for it and hands the connected socket in, and the filter refuses socket, connect, " +
	"bind and addressed sends"

var network = []Target{
	{
		ID: "net-tcp4", Group: GroupNetwork, Witness: WitnessListener,
		Threat:  "connect to a TCP port on 127.0.0.1 with no net grant",
		Budget:  "io",
		Program: "c = net.connect(\"127.0.0.1\", $PORT)\nc.send(\"escaped\\n\")\nprint(\"RESULT ok\")\n",
		Row:     "no-net", Language: "net:127.0.0.1:$PORT",
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "net-tcp6", Group: GroupNetwork, Witness: WitnessListener,
		Threat:  "connect to a TCP port on ::1 with no net grant",
		Budget:  "io",
		Program: "c = net.connect(\"::1\", $PORT6)\nc.send(\"escaped\\n\")\nprint(\"RESULT ok\")\n",
		Row:     "no-net", Language: "net:[::1]:$PORT6",
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "net-udp", Group: GroupNetwork, Witness: WitnessListener,
		Threat: "send a UDP datagram with no net grant",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
s = ctypes.syscall("socket", 2, 2, 0)  # AF_INET, SOCK_DGRAM
if s.errno:
    report(s)
else:
    report(ctypes.syscall("sendto", s.ret, "escaped", 7, 0, inet($UDPPORT), 16))
`,
		Row: "no-net", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "net-raw", Group: GroupNetwork,
		Threat: "open a raw ICMP socket",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("socket", 2, 3, 1))  # AF_INET, SOCK_RAW, IPPROTO_ICMP
`,
		Row: "no-net", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "net-packet", Group: GroupNetwork,
		Threat: "open a packet socket, below IP",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("socket", 17, 3, 0))  # AF_PACKET, SOCK_RAW, no protocol: it receives nothing
`,
		Row: "no-net", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "net-netlink", Group: GroupNetwork,
		Threat: "open a netlink socket to the kernel's routing tables",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("socket", 16, 3, 0))  # AF_NETLINK, SOCK_RAW, NETLINK_ROUTE
`,
		Row: "no-net", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "net-mptcp", Group: GroupNetwork,
		Threat: "open a Multipath TCP socket, which Landlock's TCP rules do not see",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("socket", 2, 1, 262))  # AF_INET, SOCK_STREAM, IPPROTO_MPTCP
`,
		Row: "no-net", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "net-mptcp-host-grant", Group: GroupNetwork,
		Threat: "open a Multipath TCP socket under a grant of one TCP port",
		Budget: "io,net:127.0.0.1:$PORT",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("socket", 2, 1, 262))  # AF_INET, SOCK_STREAM, IPPROTO_MPTCP
`,
		Row: "net-host", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: handedNote,
	},
	{
		ID: "net-unix-path", Group: GroupNetwork, Witness: WitnessListener,
		Threat: "connect to a Unix socket by its path",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
s = ctypes.syscall("socket", 1, 1, 0)  # AF_UNIX, SOCK_STREAM
if s.errno:
    report(s)
else:
    report(ctypes.syscall("connect", s.ret, unix_path("$UNIX"), 3 + len("$UNIX")))
`,
		Row: "no-net", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "net-unix-abstract", Group: GroupNetwork, Witness: WitnessListener,
		Threat: "connect to an abstract Unix socket, which has no path for Landlock's file rules",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
s = ctypes.syscall("socket", 1, 1, 0)  # AF_UNIX, SOCK_STREAM
if s.errno:
    report(s)
else:
    report(ctypes.syscall("connect", s.ret, unix_abstract("$ABSTRACT"), 3 + len("$ABSTRACT")))
`,
		Row: "no-net", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "net-unix-net-grant", Group: GroupNetwork, Witness: WitnessListener,
		Threat: "connect to a Unix socket under a grant of the whole network",
		Budget: "io,net",
		Program: `ctypes = ffi.module("ctypes")
s = ctypes.syscall("socket", 1, 1, 0)  # AF_UNIX, SOCK_STREAM
if s.errno:
    report(s)
else:
    report(ctypes.syscall("connect", s.ret, unix_path("$UNIX"), 3 + len("$UNIX")))
`,
		Row: "net-any", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "net-unix-module-grant", Group: GroupNetwork, Witness: WitnessListener,
		Threat: "connect to a Unix socket by its path under a module that widens the policy to any host",
		Budget: "io,ffi:socket",
		Program: `ctypes = ffi.module("ctypes")
s = ctypes.syscall("socket", 1, 1, 0)  # AF_UNIX, SOCK_STREAM
if s.errno:
    report(s)
else:
    report(ctypes.syscall("connect", s.ret, unix_path("$UNIX"), 3 + len("$UNIX")))
`,
		Row: "ffi-module", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: "Landlock does not check connect on a socket named by its path, and the worker keeps " +
			"CAP_DAC_OVERRIDE, so a root-only socket's mode does not hold it either: the filter alone does",
	},
	{
		ID: "net-socketpair", Group: GroupNetwork,
		Threat: "make a connected pair of Unix sockets",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("socketpair", 1, 1, 0, le(0, 8)))  # AF_UNIX, SOCK_STREAM
`,
		Row: "no-net", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "net-io-uring", Group: GroupNetwork,
		Threat: "set up an io_uring, whose socket and file operations no seccomp filter sees",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("io_uring_setup", 1, None))  # no parameters: EFAULT before anything is made
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EFAULT",
	},
	{
		ID: "net-bind-host-grant", Group: GroupNetwork,
		Threat: "listen on a TCP port under a grant to connect to one",
		Budget: "io,net:127.0.0.1:$PORT",
		Program: `ctypes = ffi.module("ctypes")
s = ctypes.syscall("socket", 2, 1, 0)  # AF_INET, SOCK_STREAM
if s.errno:
    report(s)
else:
    report(ctypes.syscall("bind", s.ret, inet(0), 16))
`,
		Row: "net-host", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: handedNote,
	},
	{
		ID: "net-bind-net-grant", Group: GroupNetwork,
		Threat: "listen on a TCP port under a grant of the whole network",
		Budget: "io,net",
		Program: `ctypes = ffi.module("ctypes")
s = ctypes.syscall("socket", 2, 1, 0)  # AF_INET, SOCK_STREAM
if s.errno:
    report(s)
else:
    report(ctypes.syscall("bind", s.ret, inet(0), 16))
`,
		Row: "net-any", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: handedNote,
	},
	{
		ID: "net-other-port-host-grant", Group: GroupNetwork, Witness: WitnessListener,
		Threat: "connect to a port the grant does not name",
		Budget: "io,net:127.0.0.1:$PORT",
		Program: `ctypes = ffi.module("ctypes")
s = ctypes.syscall("socket", 2, 1, 0)  # AF_INET, SOCK_STREAM
if s.errno:
    report(s, "step=socket")
else:
    report(ctypes.syscall("connect", s.ret, inet($PORT2), 16), "step=connect")
`,
		Row: "net-host", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: handedNote + "; Landlock, alone, refuses the connect (EACCES): it handles TCP " +
			"connects with no port allowed",
	},
	{
		ID: "net-granted-port-host-grant", Group: GroupNetwork, Witness: WitnessListener,
		Threat: "connect on a socket of the program's own to the very port the grant names",
		Budget: "io,net:127.0.0.1:$PORT",
		Program: `ctypes = ffi.module("ctypes")
s = ctypes.syscall("socket", 2, 1, 0)  # AF_INET, SOCK_STREAM
if s.errno:
    report(s, "step=socket")
else:
    report(ctypes.syscall("connect", s.ret, inet($PORT), 16), "step=connect")
`,
		Row: "net-host", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: handedNote + ", even to a granted host and port, so that each connection is one " +
			"the supervisor checked and counted",
	},
	{
		ID: "net-udp-host-grant", Group: GroupNetwork, Witness: WitnessListener,
		Threat: "bind a UDP port and send a datagram under a grant of one TCP port",
		Budget: "io,net:127.0.0.1:$PORT",
		Program: `ctypes = ffi.module("ctypes")
s = ctypes.syscall("socket", 2, 2, 0)  # AF_INET, SOCK_DGRAM
if s.errno:
    report(s, "step=socket")
else:
    b = ctypes.syscall("bind", s.ret, inet(0), 16)  # a free port
    if b.errno:
        report(b, "step=bind")
    else:
        report(ctypes.syscall("sendto", s.ret, "escaped", 7, 0, inet($UDPPORT), 16))
`,
		Row: "net-host", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: handedNote,
	},
	sharedBind("net-udp-reuseaddr-host-grant",
		"take another process's datagrams by binding its UDP port with SO_REUSEADDR, under a grant of "+
			"one TCP port",
		"io,net:127.0.0.1:$PORT", "net-host", 2, "SO_REUSEADDR"),
	sharedBind("net-udp-reuseport-host-grant",
		"take another process's datagrams by binding its UDP port with SO_REUSEPORT, under a grant of "+
			"one TCP port",
		"io,net:127.0.0.1:$PORT", "net-host", 15, "SO_REUSEPORT"),
	sharedBind("net-udp-reuseaddr-udp-grant",
		"take another process's datagrams by binding its UDP port with SO_REUSEADDR, under a UDP grant",
		"io,net:udp:127.0.0.1:$UDPPORT", "net-udp", 2, "SO_REUSEADDR"),
	sharedBind("net-udp-reuseport-udp-grant",
		"take another process's datagrams by binding its UDP port with SO_REUSEPORT, under a UDP grant",
		"io,net:udp:127.0.0.1:$UDPPORT", "net-udp", 15, "SO_REUSEPORT"),
	{
		ID: "net-udp-other-port-udp-grant", Group: GroupNetwork, Witness: WitnessListener,
		Threat: "send a datagram to a port the UDP grant does not name",
		Budget: "io,net:udp:127.0.0.1:$PORT",
		Program: `ctypes = ffi.module("ctypes")
s = ctypes.syscall("socket", 2, 2, 0)  # AF_INET, SOCK_DGRAM
if s.errno:
    report(s, "step=socket")
else:
    report(ctypes.syscall("sendto", s.ret, "escaped", 7, 0, inet($UDPPORT), 16), "step=sendto")
`,
		Row: "net-udp", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: handedNote,
	},
	{
		ID: "net-udp-reconnect-udp-grant", Group: GroupNetwork, Witness: WitnessListener,
		Threat: "connect the datagram socket a UDP grant hands in to another port, and send on it",
		Budget: "io,net:udp:127.0.0.1:$PORT",
		Program: `ctypes = ffi.module("ctypes")
c = net.udp("127.0.0.1", $PORT)
# Every descriptor the worker may hold, the socket handed in among them:
# the first that connects to $UDPPORT gets the datagram.
met = {}
went = -1
for fd in range(3, 64):
    r = ctypes.syscall("connect", fd, inet($UDPPORT), 16)
    if not r.errno:
        went = fd
        break
    met[r.errno] = met.get(r.errno, 0) + 1
if went >= 0:
    report(ctypes.syscall("write", went, "escaped", 7), "step=write fd=%d" % went)
else:
    # One errno for every descriptor, or all those met, which no layer names.
    print("RESULT errno=%s step=connect" % (",".join(sorted(met.keys())) or "none"))
`,
		Row: "net-udp", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: "the worker cannot connect any socket it holds, the ones handed in too: a datagram " +
			"socket stays connected where the supervisor connected it (under --no-confine net.udp " +
			"dials itself, and the control's connect and write reach the listener)",
	},
	{
		ID: "net-udp-sendmsg-udp-grant", Group: GroupNetwork, Witness: WitnessListener,
		Threat: "send a datagram to another port with an address on it, on the socket a UDP grant " +
			"hands in",
		Budget: "io,net:udp:127.0.0.1:$PORT",
		Program: `ctypes = ffi.module("ctypes")
c = net.udp("127.0.0.1", $PORT)
# The datagram socket handed in, found by connecting each descriptor to
# the peer it has: a pipe or a Unix socket refuses that, and is not sent
# on. Where the filter refuses the probe (EPERM), it tells nothing of the
# descriptor, and the send is tried.
met = {}
went = -1
for fd in range(3, 64):
    p = ctypes.syscall("connect", fd, inet($PORT), 16)
    if p.errno and p.errno != "EPERM":
        continue
    r = ctypes.syscall("sendto", fd, "escaped", 7, 0, inet($UDPPORT), 16)
    if not r.errno:
        went = fd
        break
    met[r.errno] = met.get(r.errno, 0) + 1
if went >= 0:
    print("RESULT ok fd=%d" % went)
else:
    print("RESULT errno=%s step=sendto" % (",".join(sorted(met.keys())) or "none"))
`,
		Row: "net-udp", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: "an address on a send overrides a connected datagram socket's peer: the filter " +
			"refuses sendto, sendmsg and sendmmsg under every grant",
	},
	{
		ID: "net-dns-udp-host-grant", Group: GroupNetwork, Witness: WitnessListener,
		Threat: "ask a name server of the program's choosing, over UDP, under a grant of a host by name",
		Budget: "io,net:example.org:443",
		Program: `ctypes = ffi.module("ctypes")
# A query for example.org's A record: id, flags (RD), one question.
query = (le(0x5ab1, 2) + bytes([1, 0, 0, 1, 0, 0, 0, 0, 0, 0]) +
         bytes([7]) + bytes("example") + bytes([3]) + bytes("org") + bytes([0, 0, 1, 0, 1]))
s = ctypes.syscall("socket", 2, 2, 0)  # AF_INET, SOCK_DGRAM
if s.errno:
    report(s, "step=socket")
else:
    report(ctypes.syscall("sendto", s.ret, query, len(query), 0, inet($UDPPORT), 16), "step=sendto")
`,
		Row: "net-host", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: "the listener on loopback stands for a resolver; the supervisor looks a granted name up " +
			"itself, so the worker has no use for one: " + handedNote,
	},
	{
		ID: "net-dns-tcp-host-grant", Group: GroupNetwork, Witness: WitnessListener,
		Threat: "ask a name server of the program's choosing, over TCP, under a grant of a host by name",
		Budget: "io,net:example.org:443",
		Program: `ctypes = ffi.module("ctypes")
query = (le(0x5ab1, 2) + bytes([1, 0, 0, 1, 0, 0, 0, 0, 0, 0]) +
         bytes([7]) + bytes("example") + bytes([3]) + bytes("org") + bytes([0, 0, 1, 0, 1]))
s = ctypes.syscall("socket", 2, 1, 0)  # AF_INET, SOCK_STREAM
if s.errno:
    report(s, "step=socket")
else:
    r = ctypes.syscall("connect", s.ret, inet($PORT), 16)
    if r.errno:
        report(r, "step=connect")
    else:
        msg = bytes([len(query) >> 8, len(query) & 255]) + query
        report(ctypes.syscall("write", s.ret, msg, len(msg)), "step=write")
`,
		Row: "net-host", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: "the listener on loopback stands for a resolver, which asks over TCP when an answer is " +
			"long; Landlock, alone, refuses the connect too (EACCES): it allows no TCP port, 53 included",
	},
}

// sharedBind is a target that binds $SHARED, the UDP port a receiver of
// the harness holds, with the socket option opt (SOL_SOCKET's optName)
// set first, and waits for a datagram on it: unconfined, the bind shares
// the port and takes datagrams the receiver was sent, which the receiver
// misses. The wait ends with the first datagram, which the harness's
// sending every few milliseconds brings however loaded the machine; a
// wait of its own that ended on the clock would, on a busy machine, end
// before any came, and the control would show nothing (the run's timeout
// bounds it).
func sharedBind(id, threat, budget, row string, opt int, optName string) Target {
	return Target{
		ID: id, Group: GroupNetwork, Witness: WitnessShared,
		Threat: threat,
		Budget: budget,
		Program: `ctypes = ffi.module("ctypes")
s = ctypes.syscall("socket", 2, 2, 0)  # AF_INET, SOCK_DGRAM
if s.errno:
    report(s, "step=socket")
else:
    o = ctypes.syscall("setsockopt", s.ret, 1, ` + strconv.Itoa(opt) + `, le(1, 4), 4)  # SOL_SOCKET, ` + optName + `
    if o.errno:
        report(o, "step=setsockopt")
    else:
        b = ctypes.syscall("bind", s.ret, inet($SHARED), 16)
        if b.errno:
            report(b, "step=bind")
        else:
            report(ctypes.syscall("recvfrom", s.ret, "." * 64, 64, 0, None, None), "step=recvfrom")
`,
		Row: row, Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: handedNote + "; were the socket made, the filter would refuse " + optName,
	}
}

var processes = []Target{
	{
		ID: "proc-os-system", Group: GroupProcesses, Witness: WitnessFiles,
		Threat: "run a shell command",
		Budget: "io",
		Program: `os = ffi.module("os")
print("RESULT ok status=%d" % os.system("echo started > $OUTSIDE/started"))
`,
		Row: "process-start", Language: "ffi:os",
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "proc-subprocess", Group: GroupProcesses, Witness: WitnessFiles,
		Threat: "start a program",
		Budget: "io",
		Program: `subprocess = ffi.module("subprocess")
print("RESULT ok status=%d" % subprocess.run(["/bin/touch", "$OUTSIDE/started"]).returncode)
`,
		Row: "process-start", Language: "ffi:subprocess",
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "proc-execve", Group: GroupProcesses,
		Threat: "replace the worker with another program",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("execve", "$MISSING/sh", None, None))
`,
		Row: "process-start", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "ENOENT",
	},
	{
		ID: "proc-execveat-memfd", Group: GroupProcesses,
		Threat: "execute a file made in memory, which has no path for Landlock to refuse",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
fd = ctypes.syscall("memfd_create", "sabline-escape", 1)  # MFD_CLOEXEC
if fd.errno:
    report(fd, "step=memfd_create")
else:
    # The file is empty: no format executes it.
    report(ctypes.syscall("execveat", fd.ret, "", None, None, 0x1000))  # AT_EMPTY_PATH
`,
		Row: "process-start", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "ENOEXEC",
	},
	{
		ID: "proc-fork", Group: GroupProcesses,
		Threat: "fork a copy of the worker",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
r = ctypes.syscall("fork")
if r.ret == 0 and not r.errno:
    ctypes.syscall("exit_group", 0)  # the copy ends at once
report(r)
`,
		Row: "process-start", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: "fork takes no argument that makes it fail; unconfined, the copy ends at its first " +
			"statement",
	},
	{
		ID: "proc-vfork", Group: GroupProcesses,
		Threat: "vfork a child that shares the worker's memory",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("vfork"))
`,
		Row: "process-start", Language: ctypes,
		Expect: seccomp("EPERM"),
		NoControl: "vfork takes no argument that makes it fail, and its child would run on the " +
			"worker's own stack",
	},
	{
		ID: "proc-clone-process", Group: GroupProcesses,
		Threat: "start a process with clone",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("clone", 17 | 0x800, 0, 0, 0, 0))  # SIGCHLD|CLONE_SIGHAND without CLONE_VM: EINVAL
`,
		Row: "process-start", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EINVAL",
	},
	{
		ID: "proc-clone-thread-namespace", Group: GroupProcesses,
		Threat: "start a thread in a new user namespace",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("clone", 0x10000 | 0x10000000, 0, 0, 0, 0))  # CLONE_THREAD|CLONE_NEWUSER without CLONE_SIGHAND: EINVAL
`,
		Row: "process-start", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EINVAL",
	},
	{
		ID: "proc-clone3", Group: GroupProcesses,
		Threat: "start a process with clone3, whose flags a filter cannot read",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("clone3", None, 0))  # no arguments: EINVAL
`,
		Row: "process-start", Language: ctypes,
		Expect: seccomp("ENOSYS"), Unconfined: "EINVAL",
	},
	{
		ID: "proc-ptrace", Group: GroupProcesses,
		Threat: "attach to another process as its debugger",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("ptrace", 16, 2147483647, 0, 0))  # PTRACE_ATTACH to a pid that cannot exist
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "ESRCH",
	},
	{
		ID: "proc-process-vm-readv", Group: GroupProcesses,
		Threat: "read another process's memory",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("process_vm_readv", $VICTIM, None, 0, None, 0, 1))  # flags 1: EINVAL
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EINVAL",
	},
	{
		ID: "proc-process-vm-writev", Group: GroupProcesses,
		Threat: "write another process's memory",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("process_vm_writev", $VICTIM, None, 0, None, 0, 1))  # flags 1: EINVAL
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EINVAL",
	},
	{
		ID: "proc-pidfd-open", Group: GroupProcesses,
		Threat: "take a handle on another process",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("pidfd_open", $VICTIM, 0))
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "proc-pidfd-send-signal", Group: GroupProcesses,
		Threat: "signal a process through a handle on it",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("pidfd_send_signal", -1, 0, None, 0))  # no handle: EBADF
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EBADF",
	},
	{
		ID: "proc-pidfd-getfd", Group: GroupProcesses,
		Threat: "copy a descriptor out of another process",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("pidfd_getfd", -1, 0, 0))  # no handle: EBADF
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EBADF",
	},
	{
		ID: "proc-kill-victim", Group: GroupProcesses,
		Threat: "signal another process",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("kill", $VICTIM, 0))  # signal 0: permission is checked, nothing is sent
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "proc-kill-all", Group: GroupProcesses,
		Threat: "signal every process the worker may signal",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("kill", -1, 0))  # signal 0: permission is checked, nothing is sent
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "proc-kill-group", Group: GroupProcesses,
		Threat: "signal the worker's process group",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("kill", 0, 0))  # signal 0: permission is checked, nothing is sent
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "proc-tgkill-victim", Group: GroupProcesses,
		Threat: "signal a thread of another process",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("tgkill", $VICTIM, $VICTIM, 0))  # signal 0
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "proc-tkill-victim", Group: GroupProcesses,
		Threat: "signal a thread by its id alone",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("tkill", $VICTIM, 0))  # signal 0
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "proc-sigqueue-victim", Group: GroupProcesses,
		Threat: "queue a signal with data to another process",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
info = le(0, 8) + le(-1 & 0xffffffff, 4) + le(0, 116)  # siginfo: si_code SI_QUEUE
report(ctypes.syscall("rt_sigqueueinfo", $VICTIM, 0, info))  # signal 0
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "proc-fsetown-sigio", Group: GroupProcesses, Witness: WitnessVictim,
		Threat: "have the kernel send another process SIGIO, through F_SETOWN on a pipe, and kill it",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
# The two lowest free descriptors, which pipe2 takes next: its read and write ends.
a = ctypes.syscall("dup", 2)
b = ctypes.syscall("dup", 2)
ctypes.syscall("close", a.ret)
ctypes.syscall("close", b.ret)
r = ctypes.syscall("pipe2", le(0, 8), 0o4000)  # O_NONBLOCK
if not r.errno:
    r = ctypes.syscall("fcntl", a.ret, 8, $VICTIM)  # F_SETOWN
if not r.errno:
    r = ctypes.syscall("fcntl", a.ret, 4, 0o20000 | 0o4000)  # F_SETFL: O_ASYNC|O_NONBLOCK
if not r.errno:
    r = ctypes.syscall("write", b.ret, "x", 1)  # the read end is readable: SIGIO to its owner
report(r)
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Killed,
		Note: "seccomp refuses pipe2, and F_SETOWN (proc-fsetown-victim); were both let through, " +
			"Landlock's signal scope (ABI 6) would keep the SIGIO from the victim",
	},
	{
		ID: "proc-fsetown-victim", Group: GroupProcesses,
		Threat: "name another process as the owner of a descriptor, for the kernel to send it SIGIO",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("fcntl", -1, 8, $VICTIM))  # F_SETOWN on no descriptor: EBADF
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EBADF",
	},
	{
		ID: "proc-fiosetown-victim", Group: GroupProcesses,
		Threat: "name another process as the owner of a socket, with ioctl, for the kernel to send it " +
			"SIGIO",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("ioctl", -1, 0x8901, le($VICTIM, 4)))  # FIOSETOWN on no descriptor: EBADF
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EBADF",
	},
	{
		ID: "proc-setpriority-victim", Group: GroupProcesses, Witness: WitnessVictim,
		Threat: "change the scheduling priority of another process",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("setpriority", 0, $VICTIM, 5))  # PRIO_PROCESS
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: "Landlock scopes signals and abstract sockets only; seccomp refuses setpriority whatever " +
			"it names",
	},
	{
		ID: "proc-futex-lock-pi-victim", Group: GroupProcesses, Witness: WitnessPriority,
		Threat: "lend another process the worker's priority, by a priority-inheritance lock that " +
			"names it as the owner",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
# A word of the worker's own that holds the victim's pid: FUTEX_LOCK_PI takes
# the victim as the lock's owner and lends it the worker's priority while
# the worker waits. Each wait ends at a time of CLOCK_REALTIME a tenth of a
# second on (ETIMEDOUT); the next begins until the harness has read the
# victim's priority lent ($SEEN), or the call is refused.
for i in range(3000):
    t = clock.now() + 0.1
    timeout = le(int(t), 8) + le(int((t - int(t)) * 1000000000), 8)
    r = ctypes.syscall("futex", le($VICTIM, 4), 6, 0, timeout, None, 0)  # FUTEX_LOCK_PI
    if r.errno != "ETIMEDOUT" or fs.exists("$SEEN"):
        break
report(r)
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "ETIMEDOUT",
		Note: "the victim, at nice 19, reads priority 39 in its /proc/PID/stat, and the worker's " +
			"(20 at nice 0) while the worker waits unconfined; the lend ends with the wait, so the " +
			"victim's nice value, read before and after the run, never shows it. The filter " +
			"allows futex waiting and waking only",
	},
	{
		ID: "proc-setpriority-self", Group: GroupProcesses,
		Threat: "raise the worker's own scheduling priority, as root may, to a negative nice value",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
prio = ctypes.syscall("getpriority", 0, 0)  # PRIO_PROCESS, the caller: 20 - its nice value
if prio.errno:
    report(prio, "step=getpriority")
else:
    report(ctypes.syscall("setpriority", 0, 0, 20 - prio.ret))  # the nice value it has: no change
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "proc-sched-fifo-self", Group: GroupProcesses,
		Threat: "give the worker a real-time scheduling policy, which would run it ahead of every " +
			"other process",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("sched_setscheduler", 0, 1, le(0, 4)))  # SCHED_FIFO at priority 0, which it may not have: EINVAL
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EINVAL",
	},
	{
		ID: "proc-getpriority-victim", Group: GroupProcesses,
		Threat: "read another process's priority, and so learn that it exists",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("getpriority", 0, $VICTIM))  # PRIO_PROCESS
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "proc-cpuclock-victim", Group: GroupProcesses,
		Threat: "read another process's processor time, to the nanosecond",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
m = ctypes.syscall("mmap", 0, 4096, 3, 0x22, -1, 0)  # PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS
report(ctypes.syscall("clock_gettime", ((~$VICTIM) << 3) | 2, m.ret))  # its CPUCLOCK_SCHED
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "proc-getsid-victim", Group: GroupProcesses,
		Threat: "read another process's session",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("getsid", $VICTIM))
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "proc-setuid", Group: GroupProcesses,
		Threat: "change the worker's user id, as root to any user's",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
uid = ctypes.syscall("getuid").ret
report(ctypes.syscall("setuid", uid))  # the uid it has: no change
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "proc-setpgid", Group: GroupProcesses,
		Threat: "move the worker into another process group, to take its signals and its terminal's " +
			"job control",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("setpgid", 0, -1))  # a negative group: EINVAL
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EINVAL",
	},
	{
		ID: "proc-mlockall", Group: GroupProcesses,
		Threat: "lock the worker's memory, as root without limit, so that the machine cannot reclaim it",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("mlockall", 0))  # no flags: EINVAL
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EINVAL",
	},
	{
		ID: "proc-mmap-locked", Group: GroupProcesses,
		Threat: "map memory locked, with MAP_LOCKED, past a filter that refuses mlock",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("mmap", None, 0, 1, 0x2022, -1, 0))  # MAP_PRIVATE|MAP_ANONYMOUS|MAP_LOCKED of no length: EINVAL
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EINVAL",
	},
	{
		ID: "proc-prctl-set-mm", Group: GroupProcesses,
		Threat: "rewrite what the kernel shows of the worker: its command line, environment and " +
			"/proc/PID/exe",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("prctl", 35, 6, 0, 0, 1))  # PR_SET_MM, PR_SET_MM_START_BRK, a fifth argument: EINVAL
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EINVAL",
	},
	{
		ID: "proc-prlimit-victim", Group: GroupProcesses, Witness: WitnessVictim,
		Threat: "change the resource limits of another process",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("prlimit64", $VICTIM, 4, le(0, 16), None))  # RLIMIT_CORE to 0
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "proc-setrlimit-raise", Group: GroupProcesses,
		Threat: "raise the worker's own hard limits, the memory limit among them, as root may",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("setrlimit", 9, None))  # RLIMIT_AS, no limit given: EFAULT
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EFAULT",
	},
	{
		ID: "proc-kcmp-victim", Group: GroupProcesses,
		Threat: "compare another process's kernel objects with the worker's",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("kcmp", $VICTIM, $VICTIM, 0xff, 0, 0))  # an unknown type: EINVAL
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EINVAL",
	},
}

var kernel = []Target{
	kernelCall("kern-mount", "mount a file system",
		`ctypes.syscall("mount", "$MISSING/src", "$MISSING/dst", "tmpfs", 0, None)`, "ENOENT"),
	kernelCall("kern-umount2", "unmount a file system",
		`ctypes.syscall("umount2", "$MISSING/dst", 0)`, "ENOENT"),
	kernelCall("kern-fsopen", "open a file system context with the new mount calls",
		`ctypes.syscall("fsopen", "sabline-escape-no-such-fs", 0)`, "ENODEV"),
	kernelCall("kern-fsmount", "make a mount from a file system context",
		`ctypes.syscall("fsmount", -1, 0xffffffff, 0)  # unknown flags: EINVAL`, "EINVAL"),
	kernelCall("kern-open-tree", "take a detached copy of a mount tree",
		`ctypes.syscall("open_tree", -100, "$MISSING/tree", 0)`, "ENOENT"),
	kernelCall("kern-move-mount", "move a mount into place",
		`ctypes.syscall("move_mount", -1, "", -1, "", 0xffffffff)  # unknown flags: EINVAL`, "EINVAL"),
	kernelCall("kern-mount-setattr", "change the attributes of a mount",
		`ctypes.syscall("mount_setattr", -1, "", 0xffffffff, None, 0)  # unknown flags: EINVAL`,
		"EINVAL"),
	kernelCall("kern-pivot-root", "change the root mount",
		`ctypes.syscall("pivot_root", "$MISSING/new", "$MISSING/old")`, "ENOENT"),
	kernelCall("kern-chroot", "change the root directory",
		`ctypes.syscall("chroot", "$MISSING/root")`, "ENOENT"),
	kernelCall("kern-unshare", "enter new namespaces",
		`ctypes.syscall("unshare", 0x20000 | 0x100000)  # CLONE_NEWNS with CLONE_PARENT_SETTID, which `+
			`unshare refuses: EINVAL`, "EINVAL"),
	kernelCall("kern-setns", "join another process's namespace",
		`ctypes.syscall("setns", -1, 0)`, "EBADF"),
	kernelCall("kern-init-module", "load a kernel module from memory",
		`ctypes.syscall("init_module", None, 0, "")  # an empty image: ENOEXEC, or ENOSYS without `+
			`module support`, "ENOEXEC|ENOSYS"),
	kernelCall("kern-finit-module", "load a kernel module from a file",
		`ctypes.syscall("finit_module", -1, "", 0)  # no file: EBADF, or ENOSYS without module support`,
		"EBADF|ENOSYS"),
	kernelCall("kern-delete-module", "remove a kernel module",
		`ctypes.syscall("delete_module", "sabline_escape_no_such_module", 0o4000)  # O_NONBLOCK; `+
			`ENOSYS without module support`, "ENOENT|ENOSYS"),
	kernelCall("kern-kexec-load", "load a new kernel to boot into",
		`ctypes.syscall("kexec_load", 0, 0, None, 0xffffffff)  # unknown flags: EINVAL, or ENOSYS `+
			`without kexec`, "EINVAL|ENOSYS"),
	kernelCall("kern-kexec-file-load", "load a new kernel from a file",
		`ctypes.syscall("kexec_file_load", -1, -1, 0, None, 0xffffffff)  # unknown flags: EINVAL, or `+
			`ENOSYS without kexec`, "EINVAL|ENOSYS"),
	kernelCall("kern-bpf", "load a BPF program into the kernel",
		`ctypes.syscall("bpf", 0xffff, None, 0)  # an unknown command: EINVAL`, "EINVAL"),
	kernelCall("kern-perf-event-open", "open a performance counter on the machine",
		`ctypes.syscall("perf_event_open", None, 0, -1, -1, 0)  # no attributes: EFAULT`, "EFAULT"),
	kernelCall("kern-userfaultfd", "handle page faults in user space, to stall the kernel mid-copy",
		`ctypes.syscall("userfaultfd", 0xffffffff)  # unknown flags: EINVAL`, "EINVAL"),
	kernelCall("kern-keyctl", "reach the kernel keyrings",
		`ctypes.syscall("keyctl", 0xffff, 0, 0, 0, 0)  # an unknown operation`, "ENOTSUP"),
	kernelCall("kern-add-key", "add a key to a kernel keyring",
		`ctypes.syscall("add_key", None, None, None, 0, 0)  # no type: EFAULT`, "EFAULT"),
	kernelCall("kern-open-by-handle-at", "open a file by handle, with no path for Landlock to check",
		`ctypes.syscall("open_by_handle_at", -1, None, 0)  # no handle: EFAULT`, "EFAULT"),
	kernelCall("kern-name-to-handle-at", "take the handle of a file",
		`ctypes.syscall("name_to_handle_at", -100, "$MISSING/file", None, None, 0)`, "ENOENT"),
	kernelCall("kern-personality", "change the execution domain, to turn off address randomisation",
		`ctypes.syscall("personality", 0xffffffff)  # only asks the current one`, Went),
	kernelCall("kern-settimeofday", "set the clock",
		`ctypes.syscall("settimeofday", le(0, 8) + le(-1, 8), None)  # tv_usec -1: EINVAL before `+
			`anything is set`, "EINVAL"),
	kernelCall("kern-clock-settime", "set a clock",
		`ctypes.syscall("clock_settime", 0x7fffffff, None)  # no such clock: EINVAL`, "EINVAL"),
	kernelCall("kern-clock-adjtime", "adjust a clock",
		`ctypes.syscall("clock_adjtime", 0x7fffffff, None)  # no buffer: EFAULT`, "EFAULT"),
	kernelCall("kern-adjtimex", "adjust the system clock",
		`ctypes.syscall("adjtimex", None)  # no buffer: EFAULT`, "EFAULT"),
	kernelCall("kern-reboot", "reboot the machine",
		`ctypes.syscall("reboot", 0, 0, 0, None)  # bad magic numbers: EINVAL`, "EINVAL"),
	kernelCall("kern-swapon", "add swap space",
		`ctypes.syscall("swapon", "$MISSING/swap", 0)`, "ENOENT"),
	kernelCall("kern-swapoff", "remove swap space",
		`ctypes.syscall("swapoff", "$MISSING/swap")`, "ENOENT"),
	kernelCall("kern-acct", "turn process accounting on, or off",
		`ctypes.syscall("acct", "$MISSING/acct")`, "ENOENT"),
	kernelCall("kern-quotactl", "change disk quotas",
		`ctypes.syscall("quotactl", 0xffffffff, None, 0, None)  # an unknown quota type: EINVAL`,
		"EINVAL"),
	kernelCall("kern-iopl", "reach I/O ports",
		`ctypes.syscall("iopl", 4)  # no such level: EINVAL, or ENOSYS where the kernel has no I/O `+
			`port calls`, "EINVAL|ENOSYS"),
	kernelCall("kern-ioperm", "reach a range of I/O ports",
		`ctypes.syscall("ioperm", 0, 0, 1)  # an empty range: EINVAL, or ENOSYS where the kernel has `+
			`no I/O port calls`, "EINVAL|ENOSYS"),
	kernelCall("kern-sethostname", "rename the machine",
		`ctypes.syscall("sethostname", "x", 65)  # longer than a host name may be: EINVAL`, "EINVAL"),
	kernelCall("kern-shmget", "make System V shared memory, named by a number Landlock does not see",
		`ctypes.syscall("shmget", 0, 0, 0)  # IPC_PRIVATE of size 0: EINVAL, nothing made`, "EINVAL"),
	kernelCall("kern-syslog", "read or clear the kernel log",
		`ctypes.syscall("syslog", 0xffff, None, 0)  # an unknown action: EINVAL`, "EINVAL"),
	kernelCall("kern-tiocsti", "push input at a terminal, for its shell to run",
		`ctypes.syscall("ioctl", -1, 0x5412, "x")  # TIOCSTI on no descriptor: EBADF`, "EBADF"),
	kernelCall("kern-tioclinux", "send a Linux console command",
		`ctypes.syscall("ioctl", -1, 0x541c, le(0, 8))  # TIOCLINUX on no descriptor: EBADF`, "EBADF"),
	kernelCall("kern-tiocsti-high-bits",
		"push terminal input with a command word whose high 32 bits are set",
		`ctypes.syscall("ioctl", -1, (1 << 32) | 0x5412, "x")  # the kernel reads TIOCSTI`, "EBADF"),
	kernelCall("kern-tioclinux-high-bits",
		"send a console command with a command word whose high 32 bits are set",
		`ctypes.syscall("ioctl", -1, (1 << 32) | 0x541c, le(0, 8))  # the kernel reads TIOCLINUX`,
		"EBADF"),
	// A terminal the worker inherited: Landlock's ioctl right holds only
	// files opened under it. Each call names no descriptor, which the
	// kernel looks up first (EBADF); the filter answers before it does.
	kernelCall("kern-tiocspgrp",
		"hand a terminal the worker inherited to another process group, as a shell's job control does",
		`ctypes.syscall("ioctl", -1, 0x5410, le(0, 4))  # TIOCSPGRP on no descriptor: EBADF`, "EBADF"),
	kernelCall("kern-tiocsctty",
		"take a terminal the worker inherited as the controlling terminal of its session",
		`ctypes.syscall("ioctl", -1, 0x540e, 1)  # TIOCSCTTY on no descriptor: EBADF`, "EBADF"),
	kernelCall("kern-tiocvhangup", "hang up a terminal, cutting off every process that has it open",
		`ctypes.syscall("ioctl", -1, 0x5437, 0)  # TIOCVHANGUP on no descriptor: EBADF`, "EBADF"),
	kernelCall("kern-tioccons", "send the system console's messages to a terminal",
		`ctypes.syscall("ioctl", -1, 0x541d, 0)  # TIOCCONS on no descriptor: EBADF`, "EBADF"),
	kernelCall("kern-tcsets",
		"change the settings of a terminal the worker inherited, which its shell keeps after the run",
		`ctypes.syscall("ioctl", -1, 0x5402, le(0, 60))  # TCSETS on no descriptor: EBADF`, "EBADF"),
	kernelCall("kern-tcsets-high-bits",
		"change a terminal's settings with a command word whose high 32 bits are set",
		`ctypes.syscall("ioctl", -1, (1 << 32) | 0x5402, le(0, 60))  # the kernel reads TCSETS`, "EBADF"),
	kernelCall("kern-tiocsetd", "change a terminal's line discipline",
		`ctypes.syscall("ioctl", -1, 0x5423, le(0, 4))  # TIOCSETD on no descriptor: EBADF`, "EBADF"),
	kernelCall("kern-tiocswinsz",
		"resize a terminal, which signals the processes in its foreground (SIGWINCH)",
		`ctypes.syscall("ioctl", -1, 0x5414, le(0, 8))  # TIOCSWINSZ on no descriptor: EBADF`, "EBADF"),
	kernelCall("kern-tcsbrk", "send a break on a terminal's line",
		`ctypes.syscall("ioctl", -1, 0x5409, 0)  # TCSBRK on no descriptor: EBADF`, "EBADF"),
	kernelCall("kern-tcxonc", "stop a terminal's output, and with it its shell's",
		`ctypes.syscall("ioctl", -1, 0x540a, 0)  # TCXONC TCOOFF on no descriptor: EBADF`, "EBADF"),
	kernelCall("kern-tcflsh", "discard what the user typed at a terminal",
		`ctypes.syscall("ioctl", -1, 0x540b, 0)  # TCFLSH TCIFLUSH on no descriptor: EBADF`, "EBADF"),
	kernelCall("kern-tiocmset", "drop a serial line's modem signals, hanging up the modem on it",
		`ctypes.syscall("ioctl", -1, 0x5418, le(0, 4))  # TIOCMSET on no descriptor: EBADF`, "EBADF"),
	{
		ID: "kern-tcsets-pty", Group: GroupKernel,
		Threat: "set a terminal's settings, on a terminal the program opens itself",
		Budget: "io,fs",
		Program: `ctypes = ffi.module("ctypes")
# A pseudo-terminal of the program's own, whose settings are set to what they are.
page = 0x5ab1e0000000
r = ctypes.syscall("mmap", page, 4096, 3, 0x22 | 0x100000, -1, 0)  # PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED_NOREPLACE
if not r.errno:
    r = ctypes.syscall("openat", -100, "/dev/ptmx", 0o2000402)  # O_RDWR|O_NOCTTY|O_CLOEXEC
ptmx = r.ret
if not r.errno:
    r = ctypes.syscall("ioctl", ptmx, 0x40045431, le(0, 4))  # TIOCSPTLCK 0, as unlockpt
if not r.errno:
    r = ctypes.syscall("ioctl", ptmx, 0x5441, 0o2000402)  # TIOCGPTPEER: open its terminal side
pty = r.ret
if not r.errno:
    r = ctypes.syscall("ioctl", pty, 0x5401, page)  # TCGETS
if r.errno:
    report(r, "step=open")
else:
    report(ctypes.syscall("ioctl", pty, 0x5402, page))  # TCSETS, with the settings TCGETS read
`,
		Row: "credential", Language: ctypes,
		Expect: landlock("EACCES"), Unconfined: Went,
		Note: "the budget grants every path, and still Landlock refuses to open /dev/ptmx: a device " +
			"outside the six a grant reaches is a guarded location. Were it opened, the filter refuses " +
			"TCSETS: the kern-tc and kern-tioc targets make their calls on no descriptor, for the filter " +
			"answers before the kernel looks the descriptor up",
	},
	// Kernel objects that are not files, each made or removed for real
	// when nothing holds the call, and witnessed by the harness: a
	// message queue it made ($MQ), the name of one that does not exist
	// ($MQNEW), a System V key nothing uses ($IPCKEY), the description
	// of a key that does not exist ($KEYDESC). The harness removes
	// whatever bears these names when the run ends.
	kernelObject("kern-mq-open-create", WitnessMqueue,
		"make a POSIX message queue, which Landlock does not see being made",
		`ctypes.syscall("mq_open", "$MQNEW", 0o102, 0o600, le(0, 8) + le(1, 8) + le(1, 8) + `+
			`le(0, 40))  # O_RDWR|O_CREAT; mq_attr: one message of one byte, as the harness's own`),
	kernelObject("kern-mq-unlink", WitnessMqueue, "remove a POSIX message queue another process made",
		`ctypes.syscall("mq_unlink", "$MQ")`),
	kernelObject("kern-shmget-create", WitnessSysV,
		"make a System V shared memory segment under a key other processes may use",
		`ctypes.syscall("shmget", $IPCKEY, 4096, 0o1600)  # IPC_CREAT|0600`),
	kernelObject("kern-msgget-create", WitnessSysV,
		"make a System V message queue under a key other processes may use",
		`ctypes.syscall("msgget", $IPCKEY, 0o1600)  # IPC_CREAT|0600`),
	kernelObject("kern-semget-create", WitnessSysV,
		"make a System V semaphore set under a key other processes may use",
		`ctypes.syscall("semget", $IPCKEY, 1, 0o1600)  # IPC_CREAT|0600`),
	kernelObject("kern-add-key-create", WitnessKeys,
		"add a key to the user's keyring, which every process of the user shares",
		`ctypes.syscall("add_key", "user", "$KEYDESC", "x", 1, -4)  # KEY_SPEC_USER_KEYRING`),
	kernelCall("kern-listmount", "list the machine's mounts by id, with no path for Landlock to check",
		`ctypes.syscall("listmount", None, None, 0, 0)  # no request: EFAULT`, "EFAULT"),
	kernelCall("kern-statmount", "read a mount's details by its id",
		`ctypes.syscall("statmount", None, None, 0, 0)  # no request: EFAULT`, "EFAULT"),
	// The newest calls of the table.
	kernelCall("kern-listns", "list the machine's namespaces by id",
		`ctypes.syscall("listns", None, None, 0, 0xffffffff)  # unknown flags: EINVAL, or ENOSYS `+
			`before Linux 6.19`, "EINVAL|ENOSYS"),
	kernelCall("kern-open-tree-attr", "take a detached copy of a mount tree with new attributes",
		`ctypes.syscall("open_tree_attr", -100, "$MISSING/tree", 0, None, 0)`, "ENOENT"),
	// Linux AIO.
	kernelCall("kern-io-setup",
		"use up the Linux AIO events the whole machine shares, so that other processes' io_setup fails",
		`ctypes.syscall("io_setup", 1, None)  # no context to fill in: EFAULT before anything is made`,
		"EFAULT"),
	kernelCall("kern-io-submit", "submit Linux AIO requests",
		`ctypes.syscall("io_submit", 0, 0, None)  # no context 0: EINVAL`, "EINVAL"),
}

// kernelCall is a target of the kernel group: one raw call the seccomp
// filter refuses, with arguments the kernel rejects before it acts.
// A comment after the call, "call  # why", is kept on its line.
func kernelCall(id, threat, call, unconfined string) Target {
	call, comment, _ := strings.Cut(call, "  #")
	if comment != "" {
		comment = "  #" + comment
	}
	return Target{
		ID: id, Group: GroupKernel, Threat: threat, Budget: "io",
		Program:  "ctypes = ffi.module(\"ctypes\")\nreport(" + call + ")" + comment + "\n",
		Row:      "deny-list",
		Language: ctypes, Expect: seccomp("EPERM"), Unconfined: unconfined,
	}
}

// kernelObject is a target of the kernel group: one raw call that makes
// or removes a kernel object the harness witnesses.
func kernelObject(id, witness, threat, call string) Target {
	t := kernelCall(id, threat, call, Went)
	t.Witness = witness
	return t
}

var abi = []Target{
	{
		ID: "abi-i386-getpid", Group: GroupABI, Arch: "amd64", Entry: EntryI386,
		Threat: "make any call through the i386 entry, whose numbers the filter's native table does " +
			"not name",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall32(20))  # i386 getpid
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "abi-i386-reboot", Group: GroupABI, Arch: "amd64", Entry: EntryI386,
		Threat: "reboot through the i386 entry, where 88 is reboot and not the native number",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall32(88, 0, 0, 0, 0))  # i386 reboot, bad magic numbers: EINVAL
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "EINVAL",
	},
	{
		ID: "abi-i386-kill", Group: GroupABI, Arch: "amd64", Entry: EntryI386,
		Threat: "signal another process through the i386 entry",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall32(37, $VICTIM, 0))  # i386 kill, signal 0
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "abi-i386-socket", Group: GroupABI, Arch: "amd64", Entry: EntryI386,
		Threat: "open a socket through the i386 entry",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall32(359, 2, 1, 0))  # i386 socket(AF_INET, SOCK_STREAM)
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
	},
	{
		ID: "abi-x32-getpid", Group: GroupABI, Arch: "amd64",
		Threat: "make a call with an x32 number, bit 30 set",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall(0x40000000 | 39))  # x32 getpid
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "ENOSYS|" + Went,
		Note: "unconfined, a kernel without the x32 ABI answers ENOSYS; the filter refuses bit 30 " +
			"either way",
	},
	{
		ID: "abi-x32-mount", Group: GroupABI, Arch: "amd64",
		Threat: "mount through an x32 number, past a filter that matches native numbers only",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall(0x40000000 | 165, "$MISSING/src", "$MISSING/dst", "tmpfs", 0, None))  # x32 mount
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "ENOSYS|ENOENT",
	},
}

var confinement = []Target{
	{
		ID: "conf-seccomp-second-filter", Group: GroupConfinement,
		Threat: "clear no_new_privs and install a second seccomp filter that allows everything",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
nnp = ctypes.syscall("prctl", 38, 0, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS 0: no process may clear it
# struct sock_fprog at addr, its one instruction at addr+16: ret SECCOMP_RET_ALLOW.
# The bytes go into a memory file mapped at a fixed address, so that the
# structure can point at the instruction.
addr = 0x5ab1e0000000
prog = le(1, 2) + le(0, 6) + le(addr + 16, 8) + le(0x06, 2) + le(0, 2) + le(0x7fff0000, 4)
r = ctypes.syscall("memfd_create", "sabline-escape-filter", 1)  # MFD_CLOEXEC
fd = r.ret
if not r.errno:
    r = ctypes.syscall("write", fd, prog, len(prog))
if not r.errno:
    r = ctypes.syscall("mmap", addr, 4096, 1, 0x01 | 0x100000, fd, 0)  # PROT_READ, MAP_SHARED|MAP_FIXED_NOREPLACE
if not r.errno:
    r = ctypes.syscall("seccomp", 1, 0, addr)  # SECCOMP_SET_MODE_FILTER
if r.errno:
    report(r, "step=install")
else:
    report(ctypes.syscall("acct", "$MISSING/acct"), "nnp_clear=" + (nnp.errno or "ok"))
`,
		Row: "deny-list", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: "ENOENT",
		Note: "the second filter installs; every filter runs and the strictest answer wins, so acct is " +
			"still refused",
	},
	{
		ID: "conf-landlock-second-ruleset", Group: GroupConfinement,
		Threat: "restrict the worker again with a Landlock ruleset that allows reading outside the " +
			"grants",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
rights = 4 | 8  # LANDLOCK_ACCESS_FS_READ_FILE|READ_DIR
r = ctypes.syscall("landlock_create_ruleset", le(rights, 8), 8, 0)
ruleset = r.ret
if not r.errno:
    r = ctypes.syscall("open", "$OUTSIDE", 0o10000000 | 0o2000000)  # O_PATH|O_CLOEXEC
dirfd = r.ret
if not r.errno:
    r = ctypes.syscall("landlock_add_rule", ruleset, 1, le(rights, 8) + le(dirfd, 4), 0)  # LANDLOCK_RULE_PATH_BENEATH
if not r.errno:
    r = ctypes.syscall("landlock_restrict_self", ruleset, 0)
if r.errno:
    report(r, "step=restrict")
else:
    report(ctypes.syscall("open", "$OUTSIDE/secret.txt", 0o2000000))  # O_RDONLY|O_CLOEXEC
`,
		Row: "no-fs", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: "the allow-list refuses the Landlock calls themselves (step=restrict on the RESULT " +
			"line), since the worker makes them before the filter is installed; were they let through, " +
			"the second ruleset would be applied, and a domain only narrows, so the read would still be " +
			"refused (EACCES)",
	},
}

var threads = []Target{
	{
		ID: "threads-landlock-own-thread", Group: GroupThreads,
		Threat: "read outside the grants from whatever thread the program runs on",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
tid = ctypes.syscall("gettid").ret
pid = ctypes.syscall("getpid").ret
report(ctypes.syscall("open", "$OUTSIDE/secret.txt", 0o2000000), "main_thread=%s" % (tid == pid))  # O_RDONLY|O_CLOEXEC
`,
		Row: "no-fs", Language: ctypes,
		Expect: landlock("EACCES"), Unconfined: Went,
		Note: "the program runs on the process's first thread (main_thread=True on its RESULT line), " +
			"which ran long before the policy was applied; a program cannot choose its thread, so this " +
			"sees one. Landlock is applied to every thread at once " +
			"(syscall.AllThreadsSyscall through go-landlock, below ABI 8), and confine's " +
			"TestApplyLandlock checks a thread locked before the ruleset was applied",
	},
	{
		ID: "threads-clone-own-descriptors", Group: GroupThreads, Arch: "amd64",
		Threat: "make a thread with a table of descriptors of its own, which holds what the worker " +
			"closes past its descriptor limit and the supervisor's reads of its table",
		Budget: "io",
		Program: `ctypes = ffi.module("ctypes")
os = ffi.module("os")
# A page of the worker's own at a fixed address: at its start code that ends
# the calling thread (mov eax, 60 (exit); xor edi, edi; syscall), at 0x800
# the word the new thread's stack holds, the code's address, to which the
# clone returns in the new thread. The page is read from a file of the
# worker's private temporary directory.
base = 0x5ab1f0000000
code = bytes([0xb8, 0x3c, 0, 0, 0, 0x31, 0xff, 0x0f, 0x05])
page = code + le(0, 0x800 - len(code)) + le(base, 8) + le(0, 0x1000 - 0x808)
r = ctypes.syscall("openat", -100, os.getenv("TMPDIR") + "/thread", 0o102, 0o600)  # AT_FDCWD, O_RDWR|O_CREAT
fd = r.ret
if not r.errno:
    r = ctypes.syscall("write", fd, page, len(page))
if not r.errno:
    r = ctypes.syscall("mmap", base, 4096, 7, 0x100022, -1, 0)  # PROT_READ|PROT_WRITE|PROT_EXEC, MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED_NOREPLACE
if not r.errno:
    r = ctypes.syscall("pread64", fd, base, 4096, 0)
if r.errno:
    report(r, "step=page")
else:
    report(ctypes.syscall("clone", 0x50b00, base + 0x800, 0, 0, 0))  # CLONE_VM|CLONE_FS|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, without CLONE_FILES
`,
		Row: "process-start", Language: ctypes,
		Expect: seccomp("EPERM"), Unconfined: Went,
		Note: "unconfined, the thread is made and ends at once (RESULT ok, its id the ret); the " +
			"filter lets clone make a thread only with CLONE_FILES, sharing the worker's one table, " +
			"which RLIMIT_NOFILE bounds and the supervisor reads (/proc/PID/fd). internal/run's " +
			"TestTempDirCountsWhatAThreadHolds holds a removed file in such a thread's table",
	},
}
