//go:build unix

package sabline_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
)

// removedCwdEnv switches TestRunInARemovedWorkingDirectory, in a child
// this test binary started, into the caller whose working directory was
// removed: "removed RECEIPTS" removes its own working directory first,
// "there RECEIPTS" leaves it.
const removedCwdEnv = "SABLINE_TEST_REMOVED_CWD"

// TestRunInARemovedWorkingDirectory: sabline.Run called by a process
// whose working directory was removed (Options.Cwd left to the caller's)
// is refused, E301, with a Result whose receipt says so, kept in the
// receipts directory, as Run's every refusal is. It returned a nil
// Result before, with no receipt kept: a caller reading the refusal's
// receipt, as Run's doc says it may, read a nil pointer. The control is
// the same call in a directory that is there: it runs. Each is a child
// of this test, whose own directory is never removed.
func TestRunInARemovedWorkingDirectory(t *testing.T) {
	if spec := os.Getenv(removedCwdEnv); spec != "" {
		removedCwdChild(spec)
		return
	}
	for _, tt := range []struct{ mode, want string }{
		{"removed", "refused: E301 usage E301, kept"},
		{"there", "ran: ok"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			dir := t.TempDir()
			wd, rc := filepath.Join(dir, "wd"), filepath.Join(dir, "receipts")
			if err := os.Mkdir(wd, 0o700); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestRunInARemovedWorkingDirectory$")
			cmd.Dir = wd
			cmd.Env = append(os.Environ(), removedCwdEnv+"="+tt.mode+" "+rc)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "child: "+tt.want+"\n") {
				t.Fatalf("the child: %v, want %q; it said:\n%s", err, "child: "+tt.want, out)
			}
			runs, err := receipt.List(rc)
			if err != nil || len(runs) != 1 {
				t.Fatalf("want one receipt in %s, got %d (%v)", rc, len(runs), err)
			}
		})
	}
}

// removedCwdChild is the child of TestRunInARemovedWorkingDirectory: it
// removes its working directory when spec says so, runs a program named
// relative to it, and prints what Run returned.
func removedCwdChild(spec string) {
	mode, rc, _ := strings.Cut(spec, " ")
	if mode == "removed" {
		wd, err := os.Getwd()
		if err == nil {
			err = os.Remove(wd)
		}
		if err != nil {
			fmt.Println("child: remove the working directory:", err)
			return
		}
	}
	res, err := sabline.Run(context.Background(), sabline.Source("hello.vel", []byte(hello)),
		sabline.Options{Budget: budget.MustParse("/", "io"), Receipts: rc, Timeout: 30 * time.Second})
	switch {
	case res == nil:
		fmt.Printf("child: refused: %v, with no result\n", err)
	case err != nil:
		o := res.Receipt.Outcome
		_, serr := res.Receipt.Stored()
		fmt.Printf("child: refused: %s %s %s, kept%s\n", codes.CodeOf(err), o.Status, o.Code,
			map[bool]string{true: "", false: " not: " + fmt.Sprint(serr)}[serr == nil])
	default:
		fmt.Printf("child: ran: %s\n", res.Receipt.Outcome.Status)
	}
}
