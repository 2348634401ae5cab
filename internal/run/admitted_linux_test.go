package run

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// TestGrantSwappedWhileTheProgramIsRead: the supervisor admits the budget,
// then waits for its program on a named pipe; meanwhile another process
// (a run granted the directory above, say) swaps the granted directory
// for a link, into ~/.config or ~/.ssh, and only then feeds the program.
// Judged from outside, by the files: nothing is written in ~/.config, and
// no granted directory is made in ~/.ssh: the grant's resolution handed
// to the worker is the one admitted, before the program was read, and
// the supervisor makes a granted directory through no link. The control:
// with no swap, the same program writes the file, and the directory is
// made.
func TestGrantSwappedWhileTheProgramIsRead(t *testing.T) {
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	tests := []struct {
		name  string
		into  string // the link's target in the home, "" for no swap
		grant string // beneath the work directory
		write bool   // the program writes sub/app.conf
	}{
		{name: "into a dot-entry", into: ".config", grant: "sub", write: true},
		{name: "a directory to make beneath it into a credential location", into: ".ssh",
			grant: "sub/newdir"},
		{name: "no swap (the control)", grant: "sub", write: true},
		{name: "no swap with a directory to make (the control)", grant: "sub/newdir"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			cache, err := os.UserCacheDir() // where the runs' own directories stay
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv("XDG_CACHE_HOME", cache)
			t.Setenv("HOME", home)
			testkit.WriteFile(t, filepath.Join(home, ".config", "app.conf"), "orig\n")
			if err := os.Mkdir(filepath.Join(home, ".ssh"), 0o700); err != nil {
				t.Fatal(err)
			}
			work, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			sub := filepath.Join(work, "sub")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			prog := filepath.Join(t.TempDir(), "prog.vel")
			if err := syscall.Mkfifo(prog, 0o600); err != nil {
				t.Skipf("no named pipe here: %v", err)
			}
			src := "print(\"ran\")\n"
			if tt.write {
				src = "fs.write(ARGS[0], \"planted\\n\")\n" + src
			}
			var out, errs bytes.Buffer
			done := make(chan *receipt.Receipt, 1)
			go func() {
				done <- Supervise(Run{Program: prog, Args: []string{filepath.Join(sub, "app.conf")},
					Budget: budget.MustParse(work, "io,fs:write:"+filepath.Join(work, tt.grant)),
					Cwd:    work, Confine: core.ModeDefault, Timeout: testkit.Bound(60 * time.Second),
					Receipts: filepath.Join(t.TempDir(), "receipts"), Stdin: bytes.NewReader(nil),
					Stdout: &out, Stderr: &errs})
			}()
			// The supervisor opens the pipe once the budget is admitted: a
			// writer's open that does not wait fails until then (ENXIO).
			fd := -1
			for deadline := time.Now().Add(testkit.Bound(20 * time.Second)); fd < 0; {
				fd, err = unix.Open(prog, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
				if err != nil && !errors.Is(err, unix.ENXIO) || err != nil && time.Now().After(deadline) {
					t.Fatalf("open the program's pipe for writing: %v", err)
				}
				if err != nil {
					time.Sleep(time.Millisecond)
				}
			}
			if tt.into != "" {
				if err := os.Rename(sub, sub+".old"); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(home, tt.into), sub); err != nil {
					t.Fatal(err)
				}
			}
			w := os.NewFile(uintptr(fd), prog)
			if _, err := io.WriteString(w, src); err != nil {
				t.Fatal(err)
			}
			w.Close()
			rec := <-done
			p := rec.RunParameters
			t.Logf("%s %s: %s; %s; out %q; stderr %q", rec.Outcome.Status, rec.Outcome.Code, p.Confinement,
				p.ConfinementReason, out.String(), errs.String())

			if tt.write {
				conf, _ := os.ReadFile(filepath.Join(home, ".config", "app.conf"))
				if string(conf) != "orig\n" {
					t.Errorf("~/.config/app.conf holds %q after the run, want it untouched", conf)
				}
				planted, err := os.ReadFile(filepath.Join(sub, "app.conf"))
				if wrote := err == nil && string(planted) == "planted\n"; wrote != (tt.into == "") {
					t.Errorf("%s/app.conf written %v, want %v (%q)", sub, wrote, tt.into == "",
						rec.Outcome.Message)
				}
				return
			}
			if _, err := os.Lstat(filepath.Join(home, ".ssh", "newdir")); err == nil {
				t.Errorf("~/.ssh/newdir was made: the supervisor made the granted directory through the link")
			}
			_, err = os.Lstat(filepath.Join(sub, "newdir"))
			if made := err == nil; made != (tt.into == "") {
				t.Errorf("%s/newdir made %v, want %v", sub, made, tt.into == "")
			}
		})
	}
}
