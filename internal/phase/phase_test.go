package phase_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/internal/phase"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/buildbin"
)

func TestMain(m *testing.M) {
	code := testkit.RunApart(m) // the binaries it runs join a register of its own
	buildbin.Cleanup()
	os.Exit(code)
}

// TestMarksOfARun: a binary built with -tags sabline_phases marks a run in
// both of its processes, the worker's marks after its confinement among
// them; the default build, run the same way, writes none.
func TestMarksOfARun(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("a Windows worker runs in an AppContainer, which is not given the marks file")
	}
	if phase.Env != "" {
		t.Fatalf("this test binary marks (Env %q): it is meant to be built without sabline_phases", phase.Env)
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "hello.vel")
	if err := os.WriteFile(prog, []byte(`print("hello")`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		tags       []string
		wantMarked bool
	}{
		{name: "sabline_phases build", tags: []string{"sabline_phases"}, wantMarked: true},
		{name: "default build", wantMarked: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bin, err := buildbin.Sabline(tc.tags...)
			if err != nil {
				t.Fatal(err)
			}
			marks := filepath.Join(t.TempDir(), "marks")
			cmd := exec.Command(bin, "--receipts", filepath.Join(dir, "receipts"), "--allow", "io", prog)
			cmd.Env = append(os.Environ(), "SABLINE_PHASES="+marks)
			if out, err := cmd.CombinedOutput(); err != nil || string(out) != "hello\n" {
				t.Fatalf("run: %v\n%s", err, out)
			}
			byPID := readMarks(t, marks)
			if !tc.wantMarked {
				if byPID != nil {
					t.Fatalf("the default build wrote marks: %v", byPID)
				}
				return
			}
			if len(byPID) != 2 {
				t.Fatalf("marks from %d processes, want the supervisor's and the worker's: %v", len(byPID), byPID)
			}
			want := map[string][]string{
				"supervisor": {"main", "worker started", "request sent", "worker exited", "receipt finished", "exit"},
				"worker":     {"main", "request read", "compiled", "confined", "first record sent", "program ran", "final record sent"},
			}
			for _, names := range byPID {
				role := "supervisor"
				if slices.Contains(names, "confined") {
					role = "worker"
				}
				for _, n := range want[role] {
					if !slices.Contains(names, n) {
						t.Errorf("the %s marked %q, without %q", role, names, n)
					}
				}
			}
		})
	}
}

// readMarks returns the names each process marked, in order, by pid; nil
// when there is no marks file.
func readMarks(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byPID := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.SplitN(sc.Text(), " ", 3)
		if len(fields) != 3 {
			t.Fatalf("not a mark: %q", sc.Text())
		}
		byPID[fields[1]] = append(byPID[fields[1]], fields[2])
	}
	return byPID
}
