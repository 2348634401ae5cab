package doorcmd

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// TestTypeScriptClient runs the TypeScript SDK's client
// (testdata/npm/client.mjs) against sabline mcp over its standard input
// and output, and against sabline serve's /mcp: it calls run with a
// progress handler on a program that never ends, cancels the call after
// two notifications, reads the run's receipt as its resource, and tries
// to read a run that is not its own (a command-line run in the same
// store). The run must have stopped, E307, its receipt saying the client
// cancelled it; the progress must rise; the other run must not be found;
// and the client must report no error: the cancelled call is answered
// with nothing (before, standard input answered it, which the client
// reported as "a response for an unknown message ID").
func TestTypeScriptClient(t *testing.T) {
	dir := npmClients(t)
	bin := sablineBin(t)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			var args, env []string
			var rc string
			if transport == "stdio" {
				rc = t.TempDir()
				args = []string{"stdio", bin, "mcp", "--import-root", t.TempDir(),
					"--allow", "io", "--receipts", rc}
			} else {
				s := startServe(t)
				rc = s.rc
				args = []string{"http", s.url + "/mcp"}
				env = append(env, "SABLINE_TOKEN="+s.token)
			}
			other := commandLineRun(t, bin, rc)
			cmd := exec.Command("node", append([]string{filepath.Join(dir, "client.mjs")}, args...)...)
			cmd.Dir = dir
			cmd.Env = append(append(os.Environ(), env...), "OTHER_ID="+other)
			out, err := cmd.Output()
			if err != nil {
				var stderr []byte
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = ee.Stderr
				}
				t.Fatalf("node client.mjs %s: %v\n%s%s", transport, err, out, stderr)
			}
			var seen struct {
				Progress []struct {
					Progress float64 `json:"progress"`
					Message  string  `json:"message"`
				} `json:"progress"`
				Cancel  string          `json:"cancel"`
				Listed  []string        `json:"listed"`
				Receipt receipt.Receipt `json:"receipt"`
				Other   string          `json:"other"`
				Errors  []string        `json:"errors"`
			}
			if err := json.Unmarshal(out, &seen); err != nil {
				t.Fatalf("client.mjs printed %q: %v", out, err)
			}
			if len(seen.Progress) < 2 || seen.Progress[1].Progress <= seen.Progress[0].Progress {
				t.Errorf("progress %+v: want two notifications, rising", seen.Progress)
			}
			if seen.Cancel == "the call returned" {
				t.Error("the cancelled call returned a result")
			}
			o := seen.Receipt.Outcome
			if len(seen.Listed) == 0 || o.Code != "E307" ||
				!strings.Contains(o.Message, "the client cancelled the tools/call") {
				t.Errorf("listed %v, the newest's outcome %+v: want the cancelled run, E307, "+
					"saying the client cancelled it", seen.Listed, o)
			}
			if len(seen.Errors) > 0 {
				t.Errorf("the client reported errors: %q", seen.Errors)
			}
			if !strings.Contains(seen.Other, "Resource not found") {
				t.Errorf("reading %s, another's run in the same store: %q, want Resource not found",
					other, seen.Other)
			}
			t.Logf("TypeScript SDK over %s: %d progress notifications (%s, %s); cancel: %s; "+
				"receipt %s: %s %s: %s; another's run %s: %s",
				transport, len(seen.Progress), seen.Progress[0].Message, seen.Progress[1].Message, seen.Cancel,
				seen.Receipt.RunID, o.Status, o.Code, o.Message, other, seen.Other)
		})
	}
}

// commandLineRun runs hello.vel on the command line with its receipt in
// rc, and returns its run id.
func commandLineRun(t *testing.T, bin, rc string) string {
	t.Helper()
	prog := filepath.Join(t.TempDir(), "hello.vel")
	if err := os.WriteFile(prog, []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--receipts", rc, "--allow", "io", prog)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	runs, err := receipt.List(rc)
	if err != nil || len(runs) == 0 {
		t.Fatalf("the command-line run's receipt: %v", err)
	}
	return runs[len(runs)-1].RunID
}

// docStep is one step of docs/mcp.md's "Connecting a client, step by
// step": the fenced block after a `<!-- step: NAME -->` line.
type docStep struct {
	name, lang, text string
}

// docStepLine names the step whose block follows it.
var docStepLine = regexp.MustCompile(`^<!-- step: ([a-z0-9-]+) -->$`)

// readDocSteps reads the steps of docs/mcp.md, in their order.
func readDocSteps(t *testing.T) []docStep {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var steps []docStep
	for i := 0; i < len(lines); i++ {
		m := docStepLine.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			t.Fatalf("docs/mcp.md:%d: step %s is not followed by a fenced block", i+1, m[1])
		}
		s := docStep{name: m[1], lang: strings.TrimPrefix(lines[i+1], "```")}
		var body []string
		for i += 2; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		s.text = strings.Join(body, "\n") + "\n"
		steps = append(steps, s)
	}
	return steps
}

// docStepWants is what each client step of docs/mcp.md must do: exit with
// exit and print each of want. The steps serve and token are run first,
// by TestDocClientSteps itself.
var docStepWants = map[string]struct {
	exit int
	want []string
}{
	"inspector-http":     {0, []string{`"stdout": "42\n"`, `"exit_status": 0`}},
	"inspector-stdio":    {0, []string{`"name": "run"`, `"name": "audit"`}},
	"inspector-no-token": {3, []string{`unauthorized`, `Authorization: Bearer TOKEN`, `--header`}},
	"sdk-http":           {0, []string{"run", "audit"}},
	"sdk-stdio":          {0, []string{"42"}},
}

// TestDocClientSteps runs the steps of docs/mcp.md's "Connecting a
// client, step by step" as they are written there: it starts sabline
// serve by the serve step (on loopback, port 0, in directories of the
// test), then runs each client step after the token step, in bash, the
// inspector by npx from the pinned install (offline), each js step as a
// module beside the pinned SDK, with sabline and the pinned Node.js 22
// first on PATH and HOME a directory of the test. Each step must exit as
// docStepWants says and print what it wants; a step the doc has and the
// table not, or the other way round, fails the test. The inspector
// without --stored-auth-only is run too, and what it prints logged: it
// starts its own OAuth login, which stops without a terminal.
func TestDocClientSteps(t *testing.T) {
	steps := readDocSteps(t)
	dir := npmClients(t)
	node := pinnedNode(t, dir)
	bin := sablineBin(t)
	for _, tool := range []string{"bash", "npx"} {
		if _, err := exec.LookPath(tool); err != nil {
			missingNPM(t, fmt.Errorf("no %s on PATH: %w", tool, err))
		}
	}
	byName := map[string]docStep{}
	for _, s := range steps {
		byName[s.name] = s
		if _, ok := docStepWants[s.name]; !ok && s.name != "serve" && s.name != "token" {
			t.Errorf("docs/mcp.md has the step %s, which docStepWants does not know", s.name)
		}
	}
	for name := range docStepWants {
		if _, ok := byName[name]; !ok {
			t.Errorf("docs/mcp.md has no step %s", name)
		}
	}
	if byName["serve"].text == "" || byName["token"].text == "" {
		t.Fatal("docs/mcp.md has no serve or token step")
	}

	// The doc's directories are the test's; sabline on PATH is the test's
	// binary, in the test's register.
	tmp := t.TempDir()
	root, rc := filepath.Join(tmp, "programs"), filepath.Join(tmp, "receipts")
	home, binDir := filepath.Join(tmp, "home"), filepath.Join(tmp, "bin")
	for _, d := range []string{root, home, binDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	wrapper := fmt.Sprintf("#!/bin/sh\n%s=%q exec %q \"$@\"\n",
		guard.RegisterEnv, os.Getenv(guard.RegisterEnv), bin)
	if err := os.WriteFile(filepath.Join(binDir, "sabline"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	// The steps run in a directory of the test whose node_modules is the
	// pinned install's: npx finds the inspector there, a js step the SDK.
	work := filepath.Join(tmp, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyFiles(filepath.Join("testdata", "npm"), work); err != nil {
		t.Fatal(err)
	}
	err := os.Symlink(filepath.Join(dir, "node_modules"), filepath.Join(work, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	dirs := strings.NewReplacer("/home/me/programs", root, "/home/me/receipts", rc)
	addr := startDocServe(t, bin, dirs.Replace(strings.ReplaceAll(byName["serve"].text,
		"127.0.0.1:8080", "127.0.0.1:0")))
	subst := func(s string) string {
		return strings.ReplaceAll(dirs.Replace(s), "127.0.0.1:8080", addr)
	}
	env := append(os.Environ(),
		"PATH="+binDir+string(os.PathListSeparator)+filepath.Dir(node)+
			string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+home, "npm_config_offline=true", "npm_config_update_notifier=false")
	run := func(t *testing.T, script string) (string, int) {
		t.Helper()
		cmd := exec.Command("bash", "-c", "set -e\n"+subst(byName["token"].text)+script)
		cmd.Dir, cmd.Env = work, env
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("bash: %v", err)
		}
		return string(out), cmd.ProcessState.ExitCode()
	}
	for _, s := range steps {
		want, ok := docStepWants[s.name]
		if !ok {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			script := subst(s.text)
			if s.lang == "js" {
				file := filepath.Join(work, "doc-"+s.name+".mjs")
				if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
					t.Fatal(err)
				}
				script = "node " + file + "\n"
			}
			out, code := run(t, script)
			if code != want.exit {
				t.Errorf("exit %d, want %d", code, want.exit)
			}
			for _, w := range want.want {
				if !strings.Contains(out, w) {
					t.Errorf("it printed no %q", w)
				}
			}
			t.Logf("%s (exit %d):\n%s", strings.TrimSpace(script), code, out)
		})
	}
	noLogin := strings.Replace(subst(byName["inspector-no-token"].text),
		" --stored-auth-only", "", 1)
	t.Run("inspector-no-token without --stored-auth-only", func(t *testing.T) {
		out, code := run(t, noLogin)
		if code == 0 || !strings.Contains(out, "Interactive OAuth requires a TTY") {
			t.Errorf("exit %d: want the inspector's OAuth login to stop without a terminal", code)
		}
		t.Logf("%s (exit %d):\n%s", strings.TrimSpace(noLogin), code, out)
	})
	t.Run("inspector-no-token without --stored-auth-only, at a terminal", func(t *testing.T) {
		if _, err := exec.LookPath("script"); err != nil {
			t.Skipf("skipped: no script(1) to give the inspector a terminal: %v", err)
		}
		// script(1) runs it on a pseudo-terminal; BROWSER=true opens none.
		out, code := run(t, "export BROWSER=true\nscript -qec "+
			strconv.Quote(strings.TrimSpace(noLogin))+" /dev/null </dev/null\n")
		for _, want := range []string{"Dynamic Client Registration rejected (HTTP 401)",
			"unauthorized", "Authorization: Bearer TOKEN"} {
			if !strings.Contains(out, want) {
				t.Errorf("exit %d: it printed no %q", code, want)
			}
		}
		if code == 0 {
			t.Error("exit 0: want the inspector to fail")
		}
		t.Logf("at a terminal (exit %d):\n%s", code, out)
	})
}

// startDocServe starts docs/mcp.md's serve step, line (its sabline the
// test's binary), and returns the address it says it listens on; the
// server is stopped when the test ends.
func startDocServe(t *testing.T, bin, line string) string {
	t.Helper()
	args := strings.Fields(line)
	if len(args) < 2 || args[0] != "sabline" || args[1] != "serve" {
		t.Fatalf("docs/mcp.md's serve step is %q: want one line, sabline serve ...", line)
	}
	cmd := exec.Command(bin, args[1:]...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), "listening on "); ok {
				a, _, _ := strings.Cut(rest, " ")
				addrc <- a
			}
		}
		close(addrc)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	select {
	case a, ok := <-addrc:
		if !ok {
			t.Fatal("sabline serve ended before it listened")
		}
		if !strings.HasPrefix(a, "127.0.0.1:") {
			t.Fatalf("sabline serve listens on %s, want loopback", a)
		}
		return a
	case <-time.After(testkit.Bound(20 * time.Second)):
		t.Fatal("sabline serve did not say where it listens")
	}
	return ""
}
