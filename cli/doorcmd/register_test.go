package doorcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
)

// sablineRun is one run of the sabline command in dir with env added to
// this process's, and what it printed and exited with.
type sablineRun struct {
	stdout, stderr string
	exit           int
}

func runSabline(t *testing.T, dir string, env []string, args ...string) sablineRun {
	t.Helper()
	// A server that should have refused to start would serve for ever.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sablineBin(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return sablineRun{stdout: out.String(), stderr: errb.String(), exit: cmd.ProcessState.ExitCode()}
}

// snapshot is every file beneath dir and its bytes.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		files[p] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestRegisterKeepsAnotherSablinesStore re-runs the attack of a
// command-line run on a server beside it: with the ceiling io,fs and a
// store of its own, a run tries to read the server's token, empty its
// journal and plant a receipt in its store, through the language and
// through pathlib's own I/O, which only the kernel holds. Every attempt
// is refused (E318 by the language, E319 by Landlock), and from outside: the token's bytes were not printed, every
// file of the server's store is byte for byte as it was, and no planted
// file exists. The control runs the same programs reading a register of
// their own, empty, in which the server never registered its store: each
// attempt goes through (the token is printed, the journal emptied, the
// file planted), so it is the register that held them.
func TestRegisterKeepsAnotherSablinesStore(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the server's token file and receipts layout are tested where sabline serve runs in CI: Linux")
	}
	shared := testkit.NewRegister(t)
	t.Setenv(guard.RegisterEnv, shared) // the server's
	s := startServe(t)
	if st, v := s.do(t, "POST", "/v1/run", s.token, `{"path": "hello.vel"}`); st != 200 {
		t.Fatalf("a run of the server: %d %v", st, v)
	}
	tokenFile := filepath.Join(s.rc, tokenFileName)
	journal := filepath.Join(s.rc, "journal")
	var segment string
	for p := range snapshot(t, journal) {
		segment = p
	}
	if segment == "" {
		t.Fatal("the server's journal has no segment")
	}
	planted := filepath.Join(s.rc, "planted.json")
	plantedRaw := filepath.Join(s.rc, "planted-by-pathlib.json")
	// The last two go past the language (pathlib's own I/O): only the
	// kernel holds them.
	attacks := []struct {
		name, src string
		arg       string
	}{
		{name: "read the token", src: "print(fs.read(ARGS[0]))\n", arg: tokenFile},
		{name: "empty the journal", src: "fs.write(ARGS[0], \"\")\n", arg: segment},
		{name: "plant a receipt", src: "fs.write(ARGS[0], \"{}\")\n", arg: planted},
		{name: "read the token with pathlib", src: "print(ffi.module(\"pathlib\").read_text(ARGS[0]))\n", arg: tokenFile},
		{name: "plant a receipt with pathlib", src: "ffi.module(\"pathlib\").write_text(ARGS[0], \"{}\")\n",
			arg: plantedRaw},
	}
	attack := func(t *testing.T, register string) []sablineRun {
		dir := t.TempDir()
		var runs []sablineRun
		for i, a := range attacks {
			prog := filepath.Join(dir, "attack"+string(rune('a'+i))+".vel")
			if err := os.WriteFile(prog, []byte(a.src), 0o644); err != nil {
				t.Fatal(err)
			}
			runs = append(runs, runSabline(t, dir, []string{guard.RegisterEnv + "=" + register},
				"--receipts", filepath.Join(dir, "receipts"), "--allow", "io,fs,ffi:pathlib", prog, "--", a.arg))
		}
		return runs
	}

	before := snapshot(t, s.rc)
	for i, r := range attack(t, shared) {
		want := "E318" // the language
		if strings.Contains(attacks[i].src, "pathlib") {
			want = "E319" // the kernel
		}
		if r.exit == 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, stderr %q; want it refused, %s", attacks[i].name, r.exit, r.stderr, want)
		}
		if strings.Contains(r.stdout+r.stderr, s.token) {
			t.Errorf("%s: the server's token was printed", attacks[i].name)
		}
	}
	after := snapshot(t, s.rc)
	for p, data := range before {
		if after[p] != data {
			t.Errorf("%s changed: %d bytes, was %d", p, len(after[p]), len(data))
		}
	}
	for _, p := range []string{planted, plantedRaw} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was planted", p)
		}
	}

	// Control: the attacking runs read a register the server never
	// joined.
	runs := attack(t, testkit.NewRegister(t))
	if !strings.Contains(runs[0].stdout, s.token) {
		t.Errorf("control: the token was not read (exit %d, %q): the test proves nothing", runs[0].exit, runs[0].stderr)
	}
	if data, err := os.ReadFile(segment); err != nil || len(data) != 0 {
		t.Errorf("control: the journal segment holds %d bytes (%v), want it emptied (exit %d, %q)", len(data), err, runs[1].exit, runs[1].stderr)
	}
	if _, err := os.Lstat(planted); err != nil {
		t.Errorf("control: nothing was planted (%v; exit %d, %q)", err, runs[2].exit, runs[2].stderr)
	}
	if !strings.Contains(runs[3].stdout, s.token) {
		t.Errorf("control: pathlib did not read the token (exit %d, %q)", runs[3].exit, runs[3].stderr)
	}
	if _, err := os.Lstat(plantedRaw); err != nil {
		t.Errorf("control: pathlib planted nothing (%v; exit %d, %q)", err, runs[4].exit, runs[4].stderr)
	}
}

// TestRegisterKeepsAnotherSablinesRuns: another Sabline's runs directory,
// outside every home (its cache directory elsewhere), joins the register
// when its first run makes it; a command-line run of another Sabline
// granted fs:write above it cannot make a file there (E318), and the
// directory is as it was. The control, reading a register of its own,
// plants the file.
func TestRegisterKeepsAnotherSablinesRuns(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the runs directory's place (XDG_CACHE_HOME) is Linux's")
	}
	shared := testkit.NewRegister(t)
	top := t.TempDir()
	other := filepath.Join(top, "other-cache")
	hello := filepath.Join(top, "hello.vel")
	if err := os.WriteFile(hello, []byte("print(\"hello\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runSabline(t, top, []string{guard.RegisterEnv + "=" + shared, "XDG_CACHE_HOME=" + other},
		"--receipts", filepath.Join(top, "other-receipts"), "--allow", "io", hello); r.exit != 0 {
		t.Fatalf("the other Sabline's run: exit %d, %q", r.exit, r.stderr)
	}
	runs := filepath.Join(other, "sabline", "runs")
	if _, err := os.Stat(runs); err != nil {
		t.Fatalf("the other Sabline made no runs directory: %v", err)
	}
	planted := filepath.Join(runs, "planted")
	prog := filepath.Join(top, "plant.vel")
	if err := os.WriteFile(prog, []byte("fs.write(ARGS[0], \"x\" * 1000)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plant := func(register string) sablineRun {
		return runSabline(t, top, []string{guard.RegisterEnv + "=" + register, "XDG_CACHE_HOME=" + filepath.Join(top, "own-cache")},
			"--receipts", filepath.Join(top, "receipts"), "--allow", "io,fs:write:"+top, prog, "--", planted)
	}
	before := snapshot(t, runs)
	if r := plant(shared); r.exit == 0 || !strings.Contains(r.stderr, "E318") {
		t.Errorf("exit %d, stderr %q; want it refused, E318", r.exit, r.stderr)
	}
	if _, err := os.Lstat(planted); err == nil {
		t.Errorf("%s was planted", planted)
	}
	if after := snapshot(t, runs); len(after) != len(before) {
		t.Errorf("the other runs directory holds %d files, held %d", len(after), len(before))
	}
	// Control: a register the other Sabline never joined.
	if r := plant(testkit.NewRegister(t)); r.exit != 0 {
		t.Errorf("control: exit %d, %q", r.exit, r.stderr)
	}
	if _, err := os.Lstat(planted); err != nil {
		t.Errorf("control: nothing was planted (%v): the test proves nothing", err)
	}
}

// TestRegisterKeepsACommandLineStore: a command-line run's own receipts
// directory, outside every home, joins the register; a command-line run
// of another Sabline granted fs above it can plant no receipt in it: not
// through the language, which lists it first (E318), nor through
// pathlib's own I/O, which only the kernel holds (E319); and the
// directory is as it was. The control, reading a register of its own,
// plants both.
func TestRegisterKeepsACommandLineStore(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the attack's grants are tested where CI runs the command: Linux")
	}
	shared := testkit.NewRegister(t)
	top := t.TempDir()
	store := filepath.Join(top, "other", "receipts")
	hello := filepath.Join(top, "hello.vel")
	if err := os.WriteFile(hello, []byte("print(\"hello\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runSabline(t, top, []string{guard.RegisterEnv + "=" + shared},
		"--receipts", store, "--allow", "io", hello); r.exit != 0 {
		t.Fatalf("the other Sabline's run: exit %d, %q", r.exit, r.stderr)
	}
	attacks := []struct {
		name, src, want string
	}{
		{name: "list and plant", src: "print(fs.list(ARGS[0]))\nfs.write(ARGS[1], \"{}\")\n", want: "E318"},
		{name: "plant with pathlib", src: "ffi.module(\"pathlib\").write_text(ARGS[1], \"{}\")\n", want: "E319"},
	}
	planted := func(i int) string {
		return filepath.Join(store, fmt.Sprintf("20991231T000000.000000000Z-planted%d.json", i))
	}
	attack := func(register string) []sablineRun {
		var runs []sablineRun
		for i, a := range attacks {
			prog := filepath.Join(top, fmt.Sprintf("plant%d.vel", i))
			if err := os.WriteFile(prog, []byte(a.src), 0o644); err != nil {
				t.Fatal(err)
			}
			runs = append(runs, runSabline(t, top, []string{guard.RegisterEnv + "=" + register},
				"--receipts", filepath.Join(top, "own", "receipts"),
				"--allow", "io,fs:read:"+top+",fs:write:"+top+",ffi:pathlib", prog, "--", store, planted(i)))
		}
		return runs
	}
	before := snapshot(t, store)
	for i, r := range attack(shared) {
		if r.exit == 0 || !strings.Contains(r.stderr, attacks[i].want) {
			t.Errorf("%s: exit %d, stderr %q; want it refused, %s", attacks[i].name, r.exit, r.stderr,
				attacks[i].want)
		}
		if _, err := os.Lstat(planted(i)); err == nil {
			t.Errorf("%s: %s was planted", attacks[i].name, planted(i))
		}
	}
	after := snapshot(t, store)
	for p, data := range before {
		if after[p] != data {
			t.Errorf("%s changed: %d bytes, was %d", p, len(after[p]), len(data))
		}
	}
	// Control: a register the other Sabline never joined.
	for i, r := range attack(testkit.NewRegister(t)) {
		if _, err := os.Lstat(planted(i)); err != nil {
			t.Errorf("control, %s: nothing was planted (exit %d, %q): the test proves nothing",
				attacks[i].name, r.exit, r.stderr)
		}
	}
}

// TestServeRefusesAnUntrustedRegister: sabline serve, sabline mcp and a
// command-line run do not start when the register is not one to rely on:
// E331, naming the register and why, and nothing listens or runs; with a
// register to rely on (the control) each starts.
func TestServeRefusesAnUntrustedRegister(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("on Windows the register is neither sticky nor its owner compared")
	}
	for _, tt := range testkit.UntrustedRegisters {
		t.Run(tt.Name, func(t *testing.T) {
			if tt.RootOnly && os.Geteuid() != 0 {
				t.Skip("giving a directory to another user takes root")
			}
			reg := tt.Make(t)
			dir := t.TempDir()
			root := filepath.Join(dir, "root")
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			hello := filepath.Join(root, "hello.vel")
			if err := os.WriteFile(hello, []byte("print(\"hello\")\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			env := []string{guard.RegisterEnv + "=" + reg, "XDG_CACHE_HOME=" + filepath.Join(dir, "cache")}
			door := []string{"--import-root", root, "--allow", "io", "--receipts", filepath.Join(dir, "receipts"), "--workers", "1"}
			if tt.WantWhy == "" {
				s := startServeEnv(t, env, append([]string{"serve", "--listen", "127.0.0.1:0"}, door...))
				if !strings.Contains(s, "listening on") {
					t.Errorf("control: serve said %q, want it listening", s)
				}
				if r := runSabline(t, dir, env, "--receipts", filepath.Join(dir, "receipts"), "--allow", "io", hello); r.exit != 0 || r.stdout != "hello\n" {
					t.Errorf("control: the command line exited %d, %q %q", r.exit, r.stdout, r.stderr)
				}
				return
			}
			for _, args := range [][]string{
				append([]string{"serve", "--listen", "127.0.0.1:0"}, door...),
				append([]string{"mcp"}, door...),
				{"--receipts", filepath.Join(dir, "receipts"), "--allow", "io", hello},
			} {
				r := runSabline(t, dir, env, args...)
				if r.exit != 2 || !strings.Contains(r.stderr, "E331") || !strings.Contains(r.stderr, reg) ||
					!strings.Contains(r.stderr, tt.WantWhy) || strings.Contains(r.stderr, "listening on") || r.stdout != "" {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2, E331 naming %s and %q, and nothing run",
						args[0], r.exit, r.stdout, r.stderr, reg, tt.WantWhy)
				}
			}
		})
	}
}

// startServeEnv starts sabline with args and env, reads its standard
// error until it says where it listens (or ends, or 20 seconds pass),
// stops it, and returns what it said.
func startServeEnv(t *testing.T, env, args []string) string {
	t.Helper()
	cmd := exec.Command(sablineBin(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var errb testkit.LockedBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	deadline := time.After(testkit.Bound(20 * time.Second))
	for !strings.Contains(errb.String(), "listening on") {
		select {
		case <-done:
			return errb.String()
		case <-deadline:
			cmd.Process.Kill()
			<-done
			return errb.String()
		case <-time.After(20 * time.Millisecond):
		}
	}
	cmd.Process.Kill()
	<-done
	return errb.String()
}
