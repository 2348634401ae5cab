package doorcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/backlog"
)

// TestServerDomainAtOlderABIs holds a re-run copy of the test binary to
// the domain a door under the budget io (its workers connect nowhere)
// derives for each Landlock ABI from 1 to this kernel's, with the apply
// the door makes (confineServer), and has it connect to a loopback
// listener the test holds, before the domain (the control) and after. The
// listener's queue, read from outside, says whether the second connection
// arrived: where it did, the line the door prints of its domain must say
// that it connects anywhere, not that it connects only where its workers
// may; where it did not, the line may say it connects nowhere.
func TestServerDomainAtOlderABIs(t *testing.T) {
	if part := os.Getenv(testkit.OwnProcessEnv); strings.HasPrefix(part, "server domain ") {
		runServerDomainChild(t, part)
		return
	}
	kernel, err := linux.LandlockABI()
	if err != nil {
		t.Skipf("the kernel has no Landlock: %v", err)
	}
	for abi := 1; abi <= min(kernel, linux.LandlockMaxABI); abi++ {
		t.Run("ABI "+strconv.Itoa(abi), func(t *testing.T) {
			ln := backlog.Listen(t, unix.AF_INET, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}, 8)
			sa, err := unix.Getsockname(ln)
			if err != nil {
				t.Fatal(err)
			}
			port := sa.(*unix.SockaddrInet4).Port
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			testkit.Rerun(t, fmt.Sprintf("server domain %d %d %s", abi, port, dir), nil)
			report, err := os.ReadFile(filepath.Join(dir, "receipts", "report"))
			if err != nil {
				t.Fatal(err)
			}
			line, after, _ := strings.Cut(strings.TrimSpace(string(report)), "\n")
			conns := backlog.Count(t, ln)
			t.Logf("at ABI %d: %d connections arrived (the second: %s); the door says %q", abi, conns,
				after, line)
			if conns < 1 {
				t.Fatal("the control's connection, made before the domain, did not arrive")
			}
			reached := conns > 1
			says := strings.Contains(line, "; connects anywhere: Landlock holds no TCP")
			if reached != says {
				t.Errorf("at ABI %d the door's connection after its domain arrived: %v (read from the "+
					"listener), and the door says it connects anywhere: %v: %q", abi, reached, says, line)
			}
			if !reached && !strings.HasSuffix(line, "; connects nowhere") {
				t.Errorf("at ABI %d the door connected nowhere, and says %q", abi, line)
			}
		})
	}
}

// serverDomainBudget is the budget of the door TestServerDomainAtOlderABIs
// holds: its workers connect nowhere.
const serverDomainBudget = "io"

// runServerDomainChild derives the domain of part's ABI, connects to
// part's port, applies the domain as the door does, connects again, and
// writes the door's line of its domain, and the second connection's
// errno, into the receipts directory beneath part's directory.
func runServerDomainChild(t *testing.T, part string) {
	f := strings.Fields(strings.TrimPrefix(part, "server domain "))
	if len(f) != 3 {
		t.Fatalf("bad part %q", part)
	}
	abi, _ := strconv.Atoi(f[0])
	port, _ := strconv.Atoi(f[1])
	dir := f[2]
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"root", "receipts", "runs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	root := filepath.Join(dir, "root")
	o := doorOptions{ImportRoot: root, Ceiling: budget.MustParse(root, serverDomainBudget),
		Confine: core.ModeDefault, Receipts: filepath.Join(dir, "receipts")}
	d, err := serverRules(o, serverEnv{Exe: exe, TempDir: filepath.Join(dir, "runs")}, abi)
	if err != nil {
		t.Fatal(err)
	}
	if err := backlog.Connect(port); err != nil {
		t.Fatalf("the control, before the domain: %v", err)
	}
	held, err := confineServer(d)
	if err != nil {
		t.Fatal(err)
	}
	after := "ok"
	if err := backlog.Connect(port); err != nil {
		after = err.Error()
	}
	report := "the server process is held (" + held + "): it " + d.describe() + "\n" + after + "\n"
	// The receipts directory: the one the domain lets the door write.
	err = os.WriteFile(filepath.Join(dir, "receipts", "report"), []byte(report), 0o644)
	if err != nil {
		t.Fatal(err)
	}
}
