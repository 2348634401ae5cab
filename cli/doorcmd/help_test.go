package doorcmd

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/sabline/sabline/cli/internal/cmdline"
	"github.com/sabline/sabline/internal/testkit/helpcheck"
)

// mainOut runs Main, the doors linked, with args and returns its status
// and what it wrote.
func mainOut(args ...string) (status int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	status = Main(args, strings.NewReader(""), &out, &errOut)
	return status, out.String(), errOut.String()
}

// TestDoorHelp: sabline serve --help, -h and sabline help serve print the
// same help, with the flags the parser takes; so for mcp (helpcheck).
func TestDoorHelp(t *testing.T) {
	for _, cmd := range []string{"serve", "mcp"} {
		t.Run(cmd, func(t *testing.T) {
			out := helpcheck.Command(t, mainOut, cmd, []string{cmd, "--bogus"})
			for _, l := range strings.Split(out, "\n") {
				if len(l) > cmdline.HelpWidth {
					t.Errorf("a line of %d columns, past %d: %q", len(l), cmdline.HelpWidth, l)
				}
			}
		})
	}
}

// TestHelpShowsPlaceholderAndDefault: serve's help shows the flags a
// terminal had no word of, each with its placeholder and default.
func TestHelpShowsPlaceholderAndDefault(t *testing.T) {
	_, out, _ := mainOut("help", "serve")
	for _, want := range []string{
		"  --max-idle N\n", "(default 1)",
		"  --idle-timeout DURATION\n", "(default 1m0s)",
		"  --receipts-url URL\n",
		"  --listen ADDRESS\n", "(default 127.0.0.1:8080)",
		"  --allow-origin ORIGIN\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("sabline help serve does not show %q:\n%s", want, out)
		}
	}
}

// TestHelpPlaceholdersAreNotValues: a flag of the doors that takes a
// word of a closed set shows a placeholder that names what to give, never
// one of its words in capitals (--durability FLUSH, typed as the help
// showed it, was refused, E301). The control: each word is one the
// flag's check takes.
func TestHelpPlaceholdersAreNotValues(t *testing.T) {
	closed := map[string][]string{"confine": {"strict"},
		"durability": {"flush", "background", "none"}, "keep-receipts": {"all", "shipped"},
		"log-format": {"text", "json"}}
	for _, cmd := range []string{"serve", "mcp"} {
		_, out, _ := mainOut("help", cmd)
		helpcheck.Placeholders(t, cmd, out, closed)
	}
	for _, w := range closed["log-format"] {
		if err := (&observeFlags{logFormat: w}).check(); err != nil {
			t.Errorf("the control: --log-format %s: %v", w, err)
		}
	}
}

// TestDocFlags: the docs' tables of the doors' flags name every flag the
// command's flag set has and no other.
func TestDocFlags(t *testing.T) {
	serve, _ := serveFlagSet()
	mcp, _ := mcpFlagSet()
	fleet := cmdline.NewFlagSet("serve")
	new(fleetFlags).register(fleet)
	for _, d := range []helpcheck.DocTable{
		{Doc: "docs/serve.md", Of: "sabline serve", Flags: serve, Whole: true},
		{Doc: "docs/mcp.md", Of: "sabline mcp", Flags: mcp, Whole: true},
		{Doc: "docs/scale.md", Of: "a replica of a fleet (sabline serve)", Flags: fleet, Whole: true},
	} {
		helpcheck.DocFlags(t, "../..", d)
	}
}

// TestDoorOfAnotherBuild: started by a sabline of another build, the
// doors' command runs nothing (E338); started by its own build, it runs
// the command line, and the workers it starts are not told the build.
func TestDoorOfAnotherBuild(t *testing.T) {
	defer func(b func() string) { build = b }(build)
	build = func() string { return "v1.2.3 abc" }
	tests := []struct {
		name       string
		started    string // the build the starting sabline names
		wantStatus int
		wantOut    string
		wantErr    string
	}{
		{name: "another build", started: "v1.2.4 def", wantStatus: 2,
			wantErr: `E338: sabline-door is build "v1.2.3 abc", and the sabline that started it is ` +
				`build "v1.2.4 def"`},
		{name: "its own build", started: "v1.2.3 abc", wantStatus: 0, wantOut: "sabline "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(cmdline.BuildEnv, tt.started)
			status, out, errOut := mainOut("version")
			if status != tt.wantStatus || !strings.HasPrefix(out, tt.wantOut) ||
				(tt.wantOut == "") != (out == "") || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("%d, stdout %q, stderr %q; want %d, %q and %q", status, out, errOut,
					tt.wantStatus, tt.wantOut, tt.wantErr)
			}
			if _, set := os.LookupEnv(cmdline.BuildEnv); tt.wantStatus == 0 && set {
				t.Errorf("%s is still set for the workers", cmdline.BuildEnv)
			}
		})
	}
}

// TestSablineStartsItsDoor: the sabline command, its sabline-door beside
// it, runs sabline serve --help and sabline mcp --help by that command,
// in its own place, which prints the door's help with its flags.
func TestSablineStartsItsDoor(t *testing.T) {
	bin := sablineBin(t)
	for _, cmd := range []string{"serve", "mcp"} {
		c := exec.Command(bin, cmd, "--help")
		c.Env = append(os.Environ(), "PATH="+t.TempDir()) // beside it, not on PATH
		out, err := c.CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "usage: sabline "+cmd) ||
			!strings.Contains(string(out), "--import-root") {
			t.Errorf("sabline %s --help: %v\n%s", cmd, err, out)
		}
	}
}
