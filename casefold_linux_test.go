package sabline_test

import (
	"bytes"
	"cmp"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit/buildbin"
)

// Programs that read ARGS[0]: in the language, and by raw calls
// (openat, read), which only the kernel judges.
const (
	foldRead    = "print(\"RESULT\", fs.read(ARGS[0]))\n"
	foldWrite   = "fs.write(ARGS[0], \"forged\")\nprint(\"RESULT written\")\n"
	foldRawRead = `c = ffi.module("ctypes")
fd = c.syscall("openat", -100, ARGS[0], 0)
if fd.ret < 0:
    print("refused", fd.errno)
else:
    buf = c.syscall("mmap", 0, 4096, 3, 0x22, -1, 0).ret  # PROT_READ|WRITE, PRIVATE|ANONYMOUS
    c.syscall("write", 1, buf, c.syscall("read", fd.ret, buf, 4096).ret)
`
)

// TestGuardedByAnotherName: on a file system whose lookups ignore case
// (mountFolding, as a casefold ext4, a vfat or a CIFS mount), a guarded
// location is one entry under every case of its name. Each case plants a
// secret (a fake key, a receipt, a credential of the operator's) in the
// directory beneath the mount and runs a program through the mount; the
// witness is read from outside the worker: the secret printed or not, the
// forged file on disk or not. A grant that names a guarded location in
// another case (~/.SSH) is refused before anything runs, as its own name
// is (E329); under a grant above one, the language refuses the other name
// (E318) and the kernel's carving holds the location out whatever its
// name, and the name the operator gave it. Each has a positive control (a
// sibling, a dot-entry not guarded, in another case) and the same grants
// on an ordinary directory (ordinary), where the other case is another
// entry, which does not exist.
func TestGuardedByAnotherName(t *testing.T) {
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	bin, err := buildbin.Sabline() // built with the home the test started with
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		// $M is the mount (or, ordinary, the directory beneath it); the
		// home is $M, the receipts $M/Receipts unless receipts says.
		receipts string
		// credentials is SABLINE_CREDENTIALS, lend the locations lent.
		credentials, lend string
		allow, src, arg   string
		confine           sabline.Confine
		ordinary          bool
		// secret is what the run prints where it reached what it reads;
		// forged, the file it makes where it reached it (beneath the
		// mount). granted: the budget reaches it (a positive control).
		secret, forged string
		granted        bool
		code           string // the refusal's, where not granted; "" for any
	}{
		{name: "read home/.SSH in the language", allow: "io,fs:read:$M/.SSH", src: foldRead,
			arg: "$M/.SSH/id_ed25519", secret: "FAKE-KEY", code: "E329"},
		{name: "read home/.SSH by raw calls", allow: "io,ffi:ctypes,fs:read:$M/.SSH",
			confine: sabline.ConfineStrict, src: foldRawRead, arg: "$M/.SSH/id_ed25519",
			secret: "FAKE-KEY", code: "E329"},
		{name: "read home/.SSH/id_ed25519", allow: "io,ffi:ctypes,fs:read:$M/.SSH/id_ed25519",
			confine: sabline.ConfineStrict, src: foldRawRead, arg: "$M/.SSH/id_ed25519",
			secret: "FAKE-KEY", code: "E329"},
		{name: "read home/.SSH on an ordinary directory", allow: "io,fs:read:$M/.SSH", src: foldRead,
			arg: "$M/.SSH/id_ed25519", secret: "FAKE-KEY", ordinary: true, code: "E314"},
		{name: "read home and home/.SSH by raw calls", allow: "io,ffi:ctypes,fs:read:$M",
			confine: sabline.ConfineStrict, src: foldRawRead, arg: "$M/.SSH/id_ed25519",
			secret: "FAKE-KEY"},
		{name: "read home/.Config not guarded (the control)", allow: "io,ffi:ctypes,fs:read:$M/.Config",
			confine: sabline.ConfineStrict, src: foldRawRead, arg: "$M/.Config/app.txt",
			secret: "APP-CONFIG", granted: true},
		{name: "read home/.Config in the language (the control)", allow: "io,fs:read:$M/.Config",
			src: foldRead, arg: "$M/.Config/app.txt", secret: "APP-CONFIG", granted: true},
		{name: "write RECEIPTS", allow: "io,fs:write:$M/RECEIPTS", src: foldWrite,
			arg: "$M/RECEIPTS/forged.json", forged: "Receipts/forged.json", code: "E329"},
		{name: "write RECEIPTS on an ordinary directory", allow: "io,fs:write:$M/RECEIPTS",
			src: foldWrite, arg: "$M/RECEIPTS/forged.json", ordinary: true,
			forged: "Receipts/forged.json", code: ""},
		{name: "an operator's credential as VAULT", credentials: "$M/Vault",
			allow: "io,fs:read:$M/VAULT", src: foldRead, arg: "$M/VAULT/k.key", secret: "VAULT-KEY",
			code: "E329"},
		{name: "a lent credential as VAULT", credentials: "$M/Vault", lend: "$M/Vault",
			allow: "io,fs:read:$M/VAULT", src: foldRead, arg: "$M/VAULT/k.key", secret: "VAULT-KEY",
			code: "E329"},
		{name: "a lent credential by its name (the control)", credentials: "$M/Vault", lend: "$M/Vault",
			allow: "io,fs:read:$M/Vault", src: foldRead, arg: "$M/Vault/k.key", secret: "VAULT-KEY",
			granted: true},
		// The operator names $M/vault, which the directory lists as Vault.
		{name: "an operator's credential named in another case by raw calls", credentials: "$M/vault",
			allow: "io,ffi:ctypes,fs:read:$M", confine: sabline.ConfineStrict, src: foldRawRead,
			arg: "$M/Vault/k.key", secret: "VAULT-KEY"},
		{name: "an operator's credential named in another case in the language", credentials: "$M/vault",
			allow: "io,fs:read:$M", src: foldRead, arg: "$M/Vault/k.key", secret: "VAULT-KEY",
			code: "E318"},
		// The operator names $M/ÉTÉ, which the directory lists as été: a
		// name not ASCII, folded to be found.
		{name: "an operator's credential named in another case not ASCII by raw calls",
			credentials: "$M/ÉTÉ", allow: "io,ffi:ctypes,fs:read:$M",
			confine: sabline.ConfineStrict, src: foldRawRead, arg: "$M/été/k.key",
			secret: "ETE-KEY"},
		// The operator names $M/ßh, which the directory lists as ẞh, beside
		// ssh, which it folds alike and the file system takes for another
		// entry: the entry is found by its identity, not by its name.
		{name: "an operator's credential listed beside a name folded alike by raw calls",
			credentials: "$M/ßh", allow: "io,ffi:ctypes,fs:read:$M",
			confine: sabline.ConfineStrict, src: foldRawRead, arg: "$M/ẞh/k.key",
			secret: "SHARP-KEY"},
		{name: "the name folded alike beside a credential (the control)", credentials: "$M/ßh",
			allow: "io,ffi:ctypes,fs:read:$M", confine: sabline.ConfineStrict, src: foldRawRead,
			arg: "$M/ssh/k.key", secret: "SSH-OTHER", granted: true},
		{name: "a sibling of a credential named in another case (the control)", credentials: "$M/vault",
			allow: "io,ffi:ctypes,fs:read:$M", confine: sabline.ConfineStrict, src: foldRawRead,
			arg: "$M/notes.txt", secret: "NOTES", granted: true},
		// A dot-entry that is a link ($M/.vim to Dotfiles/vim): where it
		// leads is guarded as the dot-entry is, by any name.
		{name: "DOTFILES/vim where the dot-entry .vim leads in the language alone",
			allow: "io,fs:read:$M/DOTFILES", confine: sabline.ConfineOff, src: foldRead,
			arg: "$M/DOTFILES/vim/rc", secret: "VIM-RC", code: "E318"},
		{name: "DOTFILES/vim where the dot-entry .vim leads by raw calls",
			allow: "io,ffi:ctypes,fs:read:$M/DOTFILES", confine: sabline.ConfineStrict,
			src: foldRawRead, arg: "$M/DOTFILES/vim/rc", secret: "VIM-RC"},
		{name: "DOTFILES/other beside where a dot-entry leads (the control)",
			allow: "io,fs:read:$M/DOTFILES", confine: sabline.ConfineOff, src: foldRead,
			arg: "$M/DOTFILES/other", secret: "DOT-OTHER", granted: true},
		// A credential that is a file, $M/vault.key, read as VAULT.KEY: the
		// walk's last entry is the location itself.
		{name: "an operator's credential file as VAULT.KEY in the language alone",
			credentials: "$M/vault.key", allow: "io,fs:read:$M", confine: sabline.ConfineOff,
			src: foldRead, arg: "$M/VAULT.KEY", secret: "FILE-KEY", code: "E318"},
		{name: "NOTES.TXT beside a credential file in the language alone (the control)",
			credentials: "$M/vault.key", allow: "io,fs:read:$M", confine: sabline.ConfineOff,
			src: foldRead, arg: "$M/NOTES.TXT", secret: "NOTES", granted: true},
		// The language alone (the kernel asked for nothing).
		{name: "RECEIPTS under read $M in the language alone", allow: "io,fs:read:$M",
			confine: sabline.ConfineOff, src: foldRead, arg: "$M/RECEIPTS/old.json",
			secret: "OLD-RECEIPT", code: "E318"},
		{name: "NOTES.TXT under read $M in the language alone (the control)", allow: "io,fs:read:$M",
			confine: sabline.ConfineOff, src: foldRead, arg: "$M/NOTES.TXT", secret: "NOTES",
			granted: true},
		// A grant above a location by another name of a directory on the way.
		{name: "read SUB above the receipts Sub/Receipts by raw calls",
			receipts: "$M/Sub/Receipts", allow: "io,ffi:ctypes,fs:read:$M/SUB",
			confine: sabline.ConfineStrict, src: foldRawRead, arg: "$M/SUB/Receipts/old.json",
			secret: "SUB-RECEIPT"},
		{name: "read SUB above the receipts Sub/Receipts in the language",
			receipts: "$M/Sub/Receipts", allow: "io,fs:read:$M/SUB", src: foldRead,
			arg: "$M/SUB/Receipts/old.json", secret: "SUB-RECEIPT", code: "E318"},
		// The receipts named through a directory in another case: $M/sub,
		// which the directory lists as Sub.
		{name: "read the receipts named sub/Receipts by raw calls",
			receipts: "$M/sub/Receipts", allow: "io,ffi:ctypes,fs:read:$M",
			confine: sabline.ConfineStrict, src: foldRawRead, arg: "$M/Sub/Receipts/old.json",
			secret: "SUB-RECEIPT"},
		// The receipts named through a link to the mount ($L/Sub/Receipts):
		// the carving meets Sub by the name that resolves, not through the
		// link, where the rule would be withheld.
		{name: "read SUB above the receipts named through a link by raw calls",
			receipts: "$L/Sub/Receipts", allow: "io,ffi:ctypes,fs:read:$M/SUB",
			confine: sabline.ConfineStrict, src: foldRawRead, arg: "$M/SUB/Receipts/old.json",
			secret: "SUB-RECEIPT"},
		{name: "read SUB a sibling of the receipts named through a link (the control)",
			receipts: "$L/Sub/Receipts", allow: "io,ffi:ctypes,fs:read:$M/SUB",
			confine: sabline.ConfineStrict, src: foldRawRead, arg: "$M/SUB/other.txt",
			secret: "SUB-OTHER", granted: true},
		{name: "read SUB a sibling of the receipts (the control)",
			receipts: "$M/Sub/Receipts", allow: "io,ffi:ctypes,fs:read:$M/SUB",
			confine: sabline.ConfineStrict, src: foldRawRead, arg: "$M/SUB/other.txt",
			secret: "SUB-OTHER", granted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mnt, backing := mountFolding(t)
			if tt.ordinary {
				mnt = backing
			}
			writeFile(t, filepath.Join(backing, ".ssh", "id_ed25519"), "FAKE-KEY\n")
			writeFile(t, filepath.Join(backing, ".config", "app.txt"), "APP-CONFIG\n")
			writeFile(t, filepath.Join(backing, "Receipts", "old.json"), "OLD-RECEIPT\n")
			writeFile(t, filepath.Join(backing, "Sub", "Receipts", "old.json"), "SUB-RECEIPT\n")
			writeFile(t, filepath.Join(backing, "Sub", "other.txt"), "SUB-OTHER\n")
			writeFile(t, filepath.Join(backing, "Vault", "k.key"), "VAULT-KEY\n")
			writeFile(t, filepath.Join(backing, "notes.txt"), "NOTES\n")
			writeFile(t, filepath.Join(backing, "été", "k.key"), "ETE-KEY\n")
			writeFile(t, filepath.Join(backing, "ẞh", "k.key"), "SHARP-KEY\n")
			writeFile(t, filepath.Join(backing, "ssh", "k.key"), "SSH-OTHER\n")
			writeFile(t, filepath.Join(backing, "Dotfiles", "vim", "rc"), "VIM-RC\n")
			writeFile(t, filepath.Join(backing, "Dotfiles", "other"), "DOT-OTHER\n")
			writeFile(t, filepath.Join(backing, "vault.key"), "FILE-KEY\n")
			if err := os.Symlink("Dotfiles/vim", filepath.Join(backing, ".vim")); err != nil {
				t.Fatal(err)
			}
			// $L is a link to the mount, whose path sorts before the mount's.
			link := filepath.Join(filepath.Dir(mnt), "!link")
			if strings.Contains(tt.receipts, "$L") {
				if err := os.Symlink(mnt, link); err != nil {
					t.Fatal(err)
				}
			}
			m := func(s string) string {
				return strings.NewReplacer("$M", mnt, "$L", link).Replace(s)
			}
			cache, err := os.UserCacheDir() // the runs' own directories stay where they were
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv("XDG_CACHE_HOME", cache)
			t.Setenv("HOME", mnt)
			rcpt := m(cmp.Or(tt.receipts, "$M/Receipts"))
			var out, code string
			if tt.credentials != "" {
				out, code = foldCLI(t, bin, mnt, rcpt, m(tt.credentials), m(tt.allow), m(tt.lend), tt.confine,
					tt.src, m(tt.arg))
			} else {
				opts := sabline.Options{Budget: budget.MustParse(mnt, m(tt.allow)), Args: []string{m(tt.arg)},
					Confine: tt.confine, Timeout: time.Minute, Receipts: rcpt}
				res, err := sabline.Run(context.Background(), sabline.Source("fold.vel", []byte(tt.src)), opts)
				if res == nil {
					t.Fatalf("no result: %v", err)
				}
				o, p := res.Receipt.Outcome, res.Receipt.RunParameters
				t.Logf("%s %s: %s; %s; %q", o.Status, o.Code, p.Confinement, o.Message, res.Stdout)
				out, code = string(res.Stdout), string(o.Code)
				if o.Code == "" && tt.confine != sabline.ConfineOff && p.Confinement != core.Full {
					t.Errorf("level %s, want full: the kernel holds it", p.Confinement)
				}
			}
			if tt.secret != "" {
				if got := strings.Contains(out, tt.secret); got != tt.granted {
					t.Errorf("the secret was printed %v, want %v", got, tt.granted)
				}
			}
			if tt.forged != "" {
				_, err := os.Lstat(filepath.Join(backing, tt.forged))
				if forged := err == nil; forged != tt.granted {
					t.Errorf("%s exists %v, want %v", tt.forged, forged, tt.granted)
				}
			}
			if !tt.granted && tt.code != "" && code != tt.code {
				t.Errorf("code %q, want %s", code, tt.code)
			}
		})
	}
}

// foldCLI runs src on arg with the sabline command, its home and
// SABLINE_CREDENTIALS (credentials) as the case sets them (the operator's
// credentials are read once a process): bin, built before the test set
// its home, where the go command finds its caches. It returns what the command
// printed, and the code of its refusal ("" for none).
func foldCLI(t *testing.T, bin, home, receipts, credentials, allow, lend string, confine sabline.Confine,
	src, arg string) (string, string) {
	t.Helper()
	prog := filepath.Join(t.TempDir(), "fold.vel")
	writeFile(t, prog, src)
	args := []string{"--receipts", receipts, "--allow", allow}
	if lend != "" {
		args = append(args, "--lend-credential", lend)
	}
	switch confine {
	case sabline.ConfineOff:
		args = append(args, "--no-confine")
	case sabline.ConfineStrict:
		args = append(args, "--confine", "strict")
	}
	cmd := exec.Command(bin, append(args, prog, "--", arg)...)
	cmd.Env = append(os.Environ(), "HOME="+home, guard.CredentialsEnv+"="+credentials)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	t.Logf("SABLINE_CREDENTIALS=%s sabline %q: %v: %q; %q", credentials, args, err, stdout.String(),
		stderr.String())
	return stdout.String(), regexp.MustCompile(`E3\d\d`).FindString(stderr.String())
}

// TestPoolGuardedByAnotherName: a pool that guards a directory on a file
// system that ignores case ($M/Receipts, PoolOptions.Guarded, as its own
// receipts are guarded) holds it under every case of its name. A pool whose ceiling names them so is refused when it is made; a
// run of a pool whose ceiling is $M that narrows it onto $M/RECEIPTS is
// refused (E328), and one that reads $M/RECEIPTS/old.json under the
// ceiling is refused by the language (E318); the witness is the receipt's
// bytes, printed or not. The control reads $M/NOTES.TXT, the notes.txt
// beside them.
func TestPoolGuardedByAnotherName(t *testing.T) {
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	mnt, backing := mountFolding(t)
	writeFile(t, filepath.Join(backing, "Receipts", "old.json"), "OLD-RECEIPT\n")
	writeFile(t, filepath.Join(backing, "notes.txt"), "NOTES\n")
	root := importRoot(t)
	receipts := filepath.Join(mnt, "Receipts")
	upper := filepath.Join(mnt, "RECEIPTS")
	// The pool keeps its own receipts open while it lives: a directory it
	// guards beside them stands for them on the mount, which its end must
	// leave unused to be unmounted.
	guarded := []string{receipts}
	if p, err := sabline.NewPool(sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:read:"+upper),
		ImportRoot: root, OnDemand: true, Receipts: t.TempDir(), Guarded: guarded}); err == nil {
		p.Close()
		t.Errorf("a pool granted fs:read:%s was made", upper)
	} else {
		t.Logf("NewPool: %v", err)
	}
	p, err := sabline.NewPool(sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:read:"+mnt),
		ImportRoot: root, OnDemand: true, Receipts: t.TempDir(), Guarded: guarded})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	narrowed := budget.MustParse(root, "io,fs:read:"+upper)
	for _, tc := range []struct {
		name, arg, secret string
		budget            *budget.Budget
		granted           bool
		code              string
	}{
		{name: "narrowed onto RECEIPTS", arg: filepath.Join(upper, "old.json"), secret: "OLD-RECEIPT",
			budget: &narrowed, code: "E328"},
		{name: "RECEIPTS under the ceiling", arg: filepath.Join(upper, "old.json"), secret: "OLD-RECEIPT",
			code: "E318"},
		{name: "NOTES.TXT under the ceiling (the control)", arg: filepath.Join(mnt, "NOTES.TXT"),
			secret: "NOTES", granted: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := p.Run(context.Background(), sabline.Source("fold.vel", []byte(foldRead)),
				sabline.RunOptions{Args: []string{tc.arg}, Budget: tc.budget})
			var out, code string
			if res != nil {
				out, code = string(res.Stdout), string(res.Receipt.Outcome.Code)
				t.Logf("%s %s: %s; %q", res.Receipt.Outcome.Status, code, res.Receipt.Outcome.Message, out)
			}
			if err != nil {
				code = string(codes.CodeOf(err))
				t.Logf("run: %v", err)
			}
			if got := strings.Contains(out, tc.secret); got != tc.granted {
				t.Errorf("the secret was printed %v, want %v", got, tc.granted)
			}
			if !tc.granted && code != tc.code {
				t.Errorf("code %q, want %s", code, tc.code)
			}
		})
	}
}
