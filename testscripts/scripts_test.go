// Package testscripts runs the sabline command as a user would, one
// behaviour per script. Each script in this directory is a txtar archive:
// the commands first, then the programs and files they use. Read them as
// documentation of the command line; README.md says how to run them.
package testscripts

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/buildbin"
	"github.com/sabline/sabline/receipt"
)

var update = flag.Bool("update", false, "rewrite the files that cmp compares against, inside the scripts, from what the commands printed")

// binDir holds the commands the scripts run: sabline, the normal build,
// sabline-door beside it, and sabline-knockout, the build with -tags
// sabline_knockout. A test reads it through commands.
var binDir string

// builds are the commands in binDir, by the name the scripts use.
var builds = map[string]func() (string, error){
	"sabline": func() (string, error) { return buildbin.Sabline() },
	"sabline-door": func() (string, error) {
		return buildbin.Build("github.com/sabline/sabline/cmd/sabline-door", "sabline-door")
	},
	"sabline-knockout": func() (string, error) { return buildbin.Sabline("sabline_knockout") },
}

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

// runMain builds the binaries, links them into binDir under the names
// the scripts use, runs the tests and removes what it made.
func runMain(m *testing.M) int {
	defer buildbin.Cleanup()
	cleanup, err := testkit.PrivateRegister() // the scripts' sabline joins a register of its own
	if err != nil {
		fmt.Fprintln(os.Stderr, "testscripts:", err)
		return 1
	}
	defer cleanup()
	dir, err := os.MkdirTemp("", "sabline-scripts-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testscripts: bin directory:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	for name, build := range builds {
		built, err := build()
		if err != nil {
			fmt.Fprintf(os.Stderr, "testscripts: build %s: %v\n", name, err)
			return 1
		}
		if goruntime.GOOS == "windows" {
			name += ".exe"
		}
		if err := os.Link(built, filepath.Join(dir, name)); err != nil {
			fmt.Fprintf(os.Stderr, "testscripts: link %s: %v\n", name, err)
			return 1
		}
	}
	binDir = dir
	return m.Run()
}

// commands returns binDir, asking buildbin for each command again: built
// already, it looks at their sources while the test runs, where go test
// sees them and runs these tests again when they change (not in
// TestMain, before the tests run).
func commands(t testing.TB) string {
	t.Helper()
	for name, build := range builds {
		if _, err := build(); err != nil {
			t.Fatalf("build %s: %v", name, err)
		}
	}
	return binDir
}

func TestScripts(t *testing.T) {
	bin := commands(t)
	testscript.Run(t, testscript.Params{
		Dir:           ".",
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, "home")
			if err := os.Mkdir(home, 0o755); err != nil {
				return fmt.Errorf("make HOME: %w", err)
			}
			e.Setenv("PATH", bin+string(os.PathListSeparator)+e.Getenv("PATH"))
			e.Setenv("HOME", home)
			e.Setenv(receipt.DirEnv, filepath.Join(e.WorkDir, "receipts"))
			e.Setenv(guard.RegisterEnv, os.Getenv(guard.RegisterEnv))
			return nil
		},
		Condition: condition,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":   cmdExitCode,
			"listen":     cmdListen,
			"listenudp":  cmdListenUDP,
			"killworker": cmdKillWorker,
			"receipt":    cmdReceipt,
		},
	})
}

// condition answers [landlock:N]: this kernel's Landlock ABI, as the
// worker's own confinement reads it, is N or more.
func condition(cond string) (bool, error) {
	n, ok := strings.CutPrefix(cond, "landlock:")
	if !ok {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	want, err := strconv.Atoi(n)
	if err != nil {
		return false, fmt.Errorf("condition %q: want landlock:N with N a number: %w", cond, err)
	}
	return confine.Probe().LandlockABI >= want, nil
}

// cmdExitCode: exitcode N PROGRAM [ARGS...]
//
// runs PROGRAM as exec does, standard input and output included, and
// requires it to exit with status N: the statuses sabline exits with are
// part of its interface (`sabline help` lists them).
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: status %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = exit.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// cmdListen: listen
//
// starts a TCP listener on 127.0.0.1 and sets $PORT to its port. It
// accepts connections, reads one line of each and answers "echo: " and
// that line. The listener closes when the script ends.
func cmdListen(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: listen")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	ts.Defer(func() { l.Close() })
	ts.Setenv("PORT", strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return // closed at the end of the script
			}
			line, err := bufio.NewReader(c).ReadString('\n')
			if err == nil {
				fmt.Fprintf(c, "echo: %s", line)
			}
			c.Close()
		}
	}()
}

// cmdListenUDP: listenudp
//
// starts a UDP socket on 127.0.0.1 and sets $UDPPORT to its port. It
// answers each datagram with "echo: " and that datagram. The socket
// closes when the script ends.
func cmdListenUDP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: listenudp")
	}
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	ts.Check(err)
	ts.Defer(func() { c.Close() })
	ts.Setenv("UDPPORT", strconv.Itoa(c.LocalAddr().(*net.UDPAddr).Port))
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := c.ReadFrom(buf)
			if err != nil {
				return // closed at the end of the script
			}
			_, _ = c.WriteTo(append([]byte("echo: "), buf[:n]...), from) // the script reads what arrived
		}
	}()
}

// cmdReceipt: [!] receipt PATH WANT
//
// reads the newest receipt in $SABLINE_RECEIPTS and compares the value at
// PATH, a dotted path of object keys and array indexes such as
// outcome.code or fault_injection.0.result, with WANT. Strings compare as
// they are, other values as their JSON.
// With !, PATH must hold anything else, or nothing at all.
func cmdReceipt(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: receipt PATH WANT")
	}
	dir := ts.Getenv(receipt.DirEnv)
	runs, err := receipt.List(dir)
	ts.Check(err)
	if len(runs) == 0 {
		ts.Fatalf("receipt: no receipt in %s", dir)
	}
	// A receipt file or a record of the journal: the receipt as read.
	newest := runs[len(runs)-1].Path
	data, err := json.Marshal(runs[len(runs)-1].Receipt)
	ts.Check(err)
	var v any
	ts.Check(json.Unmarshal(data, &v))
	got, err := lookup(v, args[0])
	if err != nil && neg {
		return // no value there: not WANT
	}
	if err != nil {
		ts.Fatalf("receipt %s: %v", filepath.Base(newest), err)
	}
	switch {
	case got == args[1] && neg:
		ts.Fatalf("receipt %s: %s is %s, want anything else", filepath.Base(newest), args[0], got)
	case got != args[1] && !neg:
		ts.Fatalf("receipt %s: %s is %s, want %s", filepath.Base(newest), args[0], got, args[1])
	}
}

// lookup follows a dotted path into decoded JSON and returns the value
// there as text.
func lookup(v any, path string) (string, error) {
	for _, key := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[key]
			if !ok {
				return "", fmt.Errorf("%s: no key %q", path, key)
			}
			v = next
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(x) {
				return "", fmt.Errorf("%s: %q is not an index of a list of %d", path, key, len(x))
			}
			v = x[i]
		default:
			return "", fmt.Errorf("%s: %q is inside a %T", path, key, v)
		}
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	data, err := json.Marshal(v)
	return string(data), err
}
