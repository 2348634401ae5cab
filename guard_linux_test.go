package sabline_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/internal/testkit/buildbin"
)

// Programs that try to make or read a guarded location through a host
// module's own I/O, which the language does not judge: only the kernel
// holds them. ARGS[0] is the target.
const (
	plantText = "ffi.module(\"pathlib\").write_text(ARGS[0], \"planted\\n\")\nprint(\"RESULT written\")\n"
	// plantRaw makes ARGS[0]'s directory and the file in it with raw
	// calls (mkdirat, openat with O_CREAT|O_WRONLY), as a native module
	// would.
	plantRaw = `c = ffi.module("ctypes")
c.syscall("mkdirat", -100, ARGS[1], 448)
r = c.syscall("openat", -100, ARGS[0], 65, 384)
if r.errno == "":
    print("RESULT written")
else:
    print("refused", r.errno)
`
	readText = "print(\"RESULT\", ffi.module(\"pathlib\").read_text(ARGS[0]))\n"
	// plantDeep is plantRaw making each directory of ARGS[1:] in turn.
	plantDeep = `c = ffi.module("ctypes")
for d in ARGS[1:]:
    c.syscall("mkdirat", -100, d, 448)
r = c.syscall("openat", -100, ARGS[0], 65, 384)
if r.errno == "":
    print("RESULT written")
else:
    print("refused", r.errno)
`
)

// TestGuardedWhateverExists: what no grant reaches is held by the kernel
// whether or not it exists when the run starts, and however many
// dot-entries a home has. Each case runs confined and, as its control,
// with the kernel asked for nothing, where the same program goes through:
// the witness is read from outside the worker (the file planted or not,
// the secret's bytes printed or not).
func TestGuardedWhateverExists(t *testing.T) {
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	tests := []struct {
		name    string
		setup   func(t *testing.T, home string) // makes the home's entries
		allow   string                          // $H is the home
		confine sabline.Confine
		src     string
		args    []string // $H is the home
		// witness is the file whose making, or whose secret, the case
		// watches; read true when the secret was printed.
		witness string
		read    bool
		// granted: the budget reaches the witness, which is made
		// confined too (a positive control).
		granted bool
	}{
		{name: "~/.bashrc in a home with no dot-entry and no file grant", allow: "io,ffi:pathlib",
			src: plantText, args: []string{"$H/.bashrc"}, witness: "$H/.bashrc"},
		{name: "~/.netrc in a home with no dot-entry and no file grant", allow: "io,ffi:pathlib",
			src: plantText, args: []string{"$H/.netrc"}, witness: "$H/.netrc"},
		{name: "~/.ssh/authorized_keys by raw calls under a grant of the home", confine: sabline.ConfineStrict,
			allow: "io,ffi:ctypes,fs:write:$H", src: plantRaw,
			args: []string{"$H/.ssh/authorized_keys", "$H/.ssh"}, witness: "$H/.ssh/authorized_keys"},
		{name: "a new file in the home under a grant of it", confine: sabline.ConfineStrict,
			allow: "io,ffi:pathlib,fs:write:$H", src: plantText, args: []string{"$H/new.txt"}, witness: "$H/new.txt"},
		{name: "~/.config/gh not there yet under a grant of ~/.config", confine: sabline.ConfineStrict,
			setup: func(t *testing.T, home string) { mkdir(t, filepath.Join(home, ".config", "app")) },
			allow: "io,ffi:ctypes,fs:write:$H/.config", src: plantRaw,
			args: []string{"$H/.config/gh/hosts.yml", "$H/.config/gh"}, witness: "$H/.config/gh/hosts.yml"},
		// No ~/.config when the run starts: the supervisor makes it for
		// the grant, after it built the set, which expanded the home
		// above ~/.config/gh then, not ~/.config.
		{name: "~/.config made for a grant of it with no ~/.config/gh", confine: sabline.ConfineStrict,
			allow: "io,ffi:ctypes,fs:write:$H/.config", src: plantDeep,
			args:    []string{"$H/.config/gh/hosts.yml", "$H/.config", "$H/.config/gh"},
			witness: "$H/.config/gh/hosts.yml"},
		{name: "~/.cargo made for a grant of it with no ~/.cargo/credentials",
			confine: sabline.ConfineStrict, allow: "io,ffi:ctypes,fs:write:$H/.cargo", src: plantDeep,
			args: []string{"$H/.cargo/credentials", "$H/.cargo"}, witness: "$H/.cargo/credentials"},
		{name: "a file in a directory made for a grant of it", confine: sabline.ConfineStrict,
			allow: "io,ffi:ctypes,fs:write:$H/.myapp", src: plantDeep, granted: true,
			args: []string{"$H/.myapp/notes.txt", "$H/.myapp"}, witness: "$H/.myapp/notes.txt"},
		{name: "the 700th dot-entry of a home", allow: "io,ffi:pathlib", src: readText,
			setup: func(t *testing.T, home string) {
				for i := range 700 {
					mkdir(t, filepath.Join(home, ".app-"+strconv.Itoa(i)))
				}
				writeFile(t, filepath.Join(home, ".zz-app", "token"), "SECRET-TOKEN")
			},
			args: []string{"$H/.zz-app/token"}, witness: "$H/.zz-app/token", read: true},
	}
	for _, tt := range tests {
		for _, confined := range []bool{true, false} {
			name := tt.name
			if !confined {
				name += " (the control)"
			}
			t.Run(name, func(t *testing.T) {
				home, err := filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				cache, err := os.UserCacheDir() // the runs' own directories stay where they were
				if err != nil {
					t.Fatal(err)
				}
				t.Setenv("XDG_CACHE_HOME", cache)
				t.Setenv("HOME", home)
				if tt.setup != nil {
					tt.setup(t, home)
				}
				h := func(s string) string { return strings.ReplaceAll(s, "$H", home) }
				var args []string
				for _, a := range tt.args {
					args = append(args, h(a))
				}
				witness := h(tt.witness)
				opts := sabline.Options{Budget: budget.MustParse(home, h(tt.allow)), Args: args, Confine: tt.confine,
					Timeout: time.Minute, Receipts: t.TempDir()}
				if !confined {
					opts.Confine = sabline.ConfineOff
				}
				res, err := sabline.Run(context.Background(), sabline.Source("guarded.vel", []byte(tt.src)), opts)
				if res == nil {
					t.Fatalf("no result: %v", err)
				}
				p := res.Receipt.RunParameters
				t.Logf("%s %s: %s; %s; %q", res.Receipt.Outcome.Status, res.Receipt.Outcome.Code, p.Confinement,
					p.ConfinementReason, res.Stdout)
				if confined && p.Confinement != core.Full {
					t.Errorf("level %s, want full: the kernel holds it", p.Confinement)
				}
				if tt.read {
					if got := strings.Contains(string(res.Stdout), "SECRET-TOKEN"); got != !confined {
						t.Errorf("the secret was printed %v, want %v", got, !confined)
					}
					return
				}
				want := !confined || tt.granted
				_, err = os.Lstat(witness)
				if planted := err == nil; planted != want {
					t.Errorf("%s exists %v, want %v", witness, planted, want)
				}
				if said := strings.Contains(string(res.Stdout), "RESULT written"); said != want {
					t.Errorf("the program says it wrote %v, want %v: %q", said, want, res.Stdout)
				}
			})
		}
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p, data string) {
	t.Helper()
	mkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestGuardedKnockout: in the knock-out build, whose budget checks all
// pass, the language's own fs.mkdir and fs.write make ~/.ssh and
// ~/.ssh/authorized_keys in a home with no dot-entry under a grant of the
// home: the kernel refuses them, and nothing is there afterwards; with
// the kernel asked for nothing (the control) both are made.
func TestGuardedKnockout(t *testing.T) {
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	bin, err := buildbin.Sabline("sabline_knockout")
	if err != nil {
		t.Fatal(err)
	}
	src := "fs.mkdir(ARGS[0])\nfs.write(ARGS[0] + \"/authorized_keys\", \"ssh-ed25519 AAAA planted\\n\")\nprint(\"RESULT written\")\n"
	for _, confined := range []bool{true, false} {
		t.Run(map[bool]string{true: "confined", false: "the control"}[confined], func(t *testing.T) {
			home, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			work := t.TempDir()
			prog := filepath.Join(work, "plant.vel")
			writeFile(t, prog, src)
			args := []string{"--receipts", filepath.Join(work, "receipts"), "--allow", "io,fs:write:" + home}
			if !confined {
				args = append(args, "--no-confine")
			}
			cmd := exec.Command(bin, append(args, prog, "--", filepath.Join(home, ".ssh"))...)
			cmd.Env = append(os.Environ(), "HOME="+home)
			out, err := cmd.CombinedOutput()
			t.Logf("%v: %s", err, out)
			_, err = os.Lstat(filepath.Join(home, ".ssh", "authorized_keys"))
			if planted := err == nil; planted != !confined {
				t.Errorf("~/.ssh/authorized_keys exists %v, want %v", planted, !confined)
			}
			if confined && !strings.Contains(string(out), "E319") {
				t.Errorf("no kernel refusal (E319) in %q", out)
			}
		})
	}
}
