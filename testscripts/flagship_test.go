package testscripts

import (
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// TestFlagshipFull runs the README's first run as a new user types it, in
// a fresh copy of examples/report, where out/ does not exist yet: the run
// is full, out/ was made for it and its receipt says so. So it is where
// the directory holds a guarded location (the receipts store beneath
// it). The control is the same run granted a directory beneath one that
// does not exist: partial, and nothing made.
func TestFlagshipFull(t *testing.T) {
	if goruntime.GOOS != "linux" || confine.Probe().LandlockABI < 1 {
		t.Skipf("skipped: full is a Linux kernel's with Landlock; this is %s with Landlock ABI %d",
			goruntime.GOOS, confine.Probe().LandlockABI)
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var flagship []string
	for _, st := range tourSteps(string(readme)) {
		if f := strings.Fields(st.cmd); len(f) > 3 && f[0] == "go" && f[3] == "report.vel" {
			flagship = f[3:]
			break
		}
	}
	if flagship == nil {
		t.Fatal("the README's tour runs no report.vel: the flagship is gone, or this test no longer finds it")
	}
	tests := []struct {
		name      string
		receipts  string // beneath the example's copy
		swap      [2]string
		wantLevel string
		wantMade  bool
	}{
		{name: "fresh clone", receipts: "", wantLevel: "full", wantMade: true},
		{name: "beside a guarded location", receipts: "receipts", wantLevel: "full", wantMade: true},
		{name: "control: parent missing", swap: [2]string{"fs:write:out", "fs:write:gone/out"},
			wantLevel: "partial"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "report")
			if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "examples", "report"))); err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll(filepath.Join(dir, "out")); err != nil {
				t.Fatal(err)
			}
			store := filepath.Join(t.TempDir(), "receipts")
			if tt.receipts != "" {
				store = filepath.Join(dir, tt.receipts)
			}
			args := append([]string(nil), flagship...)
			for i, a := range args {
				if tt.swap[0] != "" {
					args[i] = strings.ReplaceAll(a, tt.swap[0], tt.swap[1])
				}
			}
			cmd := exec.Command(filepath.Join(commands(t), "sabline"), args...)
			cmd.Dir = dir
			cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"),
				receipt.DirEnv + "=" + store, guard.RegisterEnv + "=" + os.Getenv(guard.RegisterEnv)}
			out, err := cmd.CombinedOutput()
			if (err == nil) != tt.wantMade {
				t.Errorf("sabline %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			runs, err := receipt.List(store)
			if err != nil || len(runs) != 1 {
				t.Fatalf("receipts in %s: %d, %v; want the run's one", store, len(runs), err)
			}
			rec := runs[0].Receipt
			if got := string(rec.RunParameters.Confinement); got != tt.wantLevel {
				t.Errorf("level %s (%s), want %s", got, rec.RunParameters.ConfinementReason, tt.wantLevel)
			}
			made := filepath.Join(dir, "out")
			if tt.wantMade != (len(rec.Observed.Made) == 1 && rec.Observed.Made[0] == made) {
				t.Errorf("observed made %q, want %s made: %v", rec.Observed.Made, made, tt.wantMade)
			}
			if _, err := os.Stat(filepath.Join(dir, "out", "report.txt")); (err == nil) != tt.wantMade {
				t.Errorf("out/report.txt: %v, want it written: %v", err, tt.wantMade)
			}
		})
	}
}

// TestClientExampleFull runs the README's loopback client as it shows it,
// examples/client.vel under io,net:localhost:PORT with
// --require-confinement full, against a listener of this test's own (the
// README's 8080 is another port here: the test takes a free one): the run
// is full, the answer comes back, and the receipt lists the connection
// the supervisor made. The control is the same run under --no-confine:
// the same answer, and no connection listed, since the worker dialled
// itself.
func TestClientExampleFull(t *testing.T) {
	if goruntime.GOOS != "linux" || confine.Probe().LandlockABI < 1 {
		t.Skipf("skipped: full is a Linux kernel's with Landlock; this is %s with Landlock ABI %d",
			goruntime.GOOS, confine.Probe().LandlockABI)
	}
	port := testkit.Serve(t, testkit.EchoLine("echo: "))
	prog, err := filepath.Abs(filepath.Join("..", "examples", "client.vel"))
	if err != nil {
		t.Fatal(err)
	}
	for _, confined := range []bool{true, false} {
		store := filepath.Join(t.TempDir(), "receipts")
		args := []string{"--allow", "io,net:localhost:" + port, "--require-confinement", "full"}
		if !confined {
			args = []string{"--allow", "io,net:localhost:" + port, "--no-confine"}
		}
		cmd := exec.Command(filepath.Join(commands(t), "sabline"), append(args, prog, "--", port)...)
		cmd.Dir = t.TempDir()
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"),
			receipt.DirEnv + "=" + store, guard.RegisterEnv + "=" + os.Getenv(guard.RegisterEnv)}
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "answer: echo: hello from sabline\n") {
			t.Fatalf("sabline %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		runs, err := receipt.List(store)
		if err != nil || len(runs) != 1 {
			t.Fatalf("receipts: %d, %v", len(runs), err)
		}
		rec := runs[0].Receipt
		conns := rec.Observed.Connections
		switch {
		case confined && (rec.RunParameters.Confinement != "full" || len(conns) != 1 ||
			conns[0].Host != "localhost" || conns[0].Address != "127.0.0.1:"+port):
			t.Errorf("confined: level %s, connections %+v; want full and the one connection",
				rec.RunParameters.Confinement, conns)
		case !confined && len(conns) != 0:
			t.Errorf("--no-confine lists %+v; want none", conns)
		}
	}
}
