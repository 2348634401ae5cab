package run

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
)

// TestPoolRefusesMalformedCredentials: a pool does not start while
// SABLINE_CREDENTIALS holds an entry that is not an absolute path (E301,
// guard.CheckOperatorCredentials), as no run is admitted then, and makes
// nothing first: its receipts directory is not made (the admission of its
// budget refuses too, but only once the store is opened and the runs
// directory swept). The control: the same list with the entry absolute
// starts one, its receipts directory made. The variable
// is read once per process, so each case runs in a process that has it
// from the start.
func TestPoolRefusesMalformedCredentials(t *testing.T) {
	const caseEnv = "SABLINE_TEST_POOL_CREDENTIALS"
	if want := os.Getenv(caseEnv); want != "" {
		dir := t.TempDir()
		receipts := filepath.Join(t.TempDir(), "receipts")
		p, err := StartPool(PoolConfig{Budget: budget.MustParse(dir, "io"), Workers: 1,
			Confine: core.ModeOff, ImportRoot: dir, Receipts: receipts})
		if err == nil {
			p.Close()
		}
		_, serr := os.Stat(receipts)
		switch {
		case want == "refused" && serr == nil:
			t.Errorf("StartPool refused with %s=%q made its receipts directory %s",
				guard.CredentialsEnv, os.Getenv(guard.CredentialsEnv), receipts)
		case want == "started" && serr != nil:
			t.Errorf("the receipts directory of a pool started: %v", serr)
		}
		switch {
		case want == "refused" && codes.CodeOf(err) != codes.E301:
			t.Fatalf("StartPool with %s=%q: %v; want E301", guard.CredentialsEnv,
				os.Getenv(guard.CredentialsEnv), err)
		case want == "started" && err != nil:
			t.Fatalf("StartPool with %s=%q: %v; want a pool", guard.CredentialsEnv,
				os.Getenv(guard.CredentialsEnv), err)
		}
		return
	}
	vault := filepath.Join(t.TempDir(), "vault")
	for _, tt := range []struct{ name, list, want string }{
		{name: "a relative entry", list: vault + string(filepath.ListSeparator) + "vault",
			want: "refused"},
		{name: "absolute entries", list: vault + string(filepath.ListSeparator),
			want: "started"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestPoolRefusesMalformedCredentials$",
				"-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), caseEnv+"="+tt.want,
				guard.CredentialsEnv+"="+tt.list)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out),
				"--- PASS: TestPoolRefusesMalformedCredentials") {
				t.Fatalf("the test in a process with %s=%q: %v\n%s", guard.CredentialsEnv,
					tt.list, err, out)
			}
		})
	}
}
