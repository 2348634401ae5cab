package doorcmd

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// expectedFailuresFile lists the conformance suite's server scenarios
// sabline is expected not to pass, each with its reason, in the suite's own
// format (conformance server --expected-failures).
const expectedFailuresFile = "testdata/conformance-expected-failures.yml"

// expectedEntry is one entry of expectedFailuresFile's server list: the
// scenario, and its reason after a #.
var expectedEntry = regexp.MustCompile(`^  - ([a-z0-9-]+)(?:\s+#\s*(.*))?$`)

// readExpectedFailures reads expectedFailuresFile's server list, failing
// the test on an entry without its one-line reason, a name twice, or a
// line of the list it cannot read.
func readExpectedFailures(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(expectedFailuresFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	expected, inServer := map[string]string{}, false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch trimmed := strings.TrimSpace(line); {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case !strings.HasPrefix(line, " "):
			inServer = line == "server:"
		case !inServer:
		default:
			m := expectedEntry.FindStringSubmatch(line)
			switch {
			case m == nil:
				t.Errorf("%s:%d: %q is no entry `  - SCENARIO # reason`", expectedFailuresFile, n, line)
			case strings.TrimSpace(m[2]) == "":
				t.Errorf("%s:%d: %s has no reason", expectedFailuresFile, n, m[1])
			case expected[m[1]] != "":
				t.Errorf("%s:%d: %s twice", expectedFailuresFile, n, m[1])
			default:
				expected[m[1]] = m[2]
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(expected) == 0 {
		t.Fatalf("%s lists no server scenario", expectedFailuresFile)
	}
	return expected
}

// check is one check of a scenario's checks.json.
type check struct {
	ID           string          `json:"id"`
	Status       string          `json:"status"` // SUCCESS, FAILURE, WARNING, INFO
	ErrorMessage string          `json:"errorMessage"`
	Details      json.RawMessage `json:"details"`
}

// scenarioDir is the name the suite gives a scenario's results:
// server-NAME-TIMESTAMP.
var scenarioDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$`)

// TestConformance runs the official MCP conformance suite's server
// scenarios, all of them (--suite all), on the Node.js 22 it needs (the
// one testdata/npm pins), against /mcp of a real sabline serve, the
// server's token set on each request the suite sends and nothing else of
// them changed. The suite is given expectedFailuresFile: it must exit 0,
// that is, fail no scenario the file does not name and pass none it
// names. The test reads the suite's results too, and fails where they
// disagree with the file, or the file names a scenario the suite did not
// run. The suite's server mode takes a URL, so sabline mcp on standard
// input and output is held by the SDK clients instead
// (TestMCPCancelAndProgress, TestTypeScriptClient, TestDocClientSteps).
func TestConformance(t *testing.T) {
	expected := readExpectedFailures(t)
	dir := npmClients(t)
	node := pinnedNode(t, dir)
	baseline, err := filepath.Abs(expectedFailuresFile)
	if err != nil {
		t.Fatal(err)
	}
	suite := filepath.Join(dir, "node_modules", ".bin", "conformance")
	version, err := exec.Command(node, suite, "--version").Output()
	if err != nil {
		t.Fatalf("conformance --version: %v", err)
	}
	s := startServe(t)
	out := t.TempDir()
	cmd := exec.Command(node, suite, "server", "--suite", "all", "--url", s.url+"/mcp",
		"-o", out, "--expected-failures", baseline)
	cmd.Env = append(os.Environ(), "SABLINE_TOKEN="+s.token,
		"NODE_OPTIONS=--import "+filepath.Join(dir, "token.mjs"))
	text, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("conformance: %v", err)
	}
	if err != nil {
		t.Errorf("the suite (%s) with %s: %v, want exit 0; it said:\n%s",
			strings.TrimSpace(string(version)), expectedFailuresFile, err, tail(text, 40))
	}
	results := readResults(t, out, text)
	var names []string
	for name := range results {
		names = append(names, name)
	}
	sort.Strings(names)
	passed, failed := 0, 0
	for _, name := range names {
		var bad, warned []string
		for _, c := range results[name] {
			switch c.Status {
			case "FAILURE":
				bad = append(bad, c.ID+": "+c.ErrorMessage)
			case "WARNING":
				warned = append(warned, c.ID+": "+c.ErrorMessage+string(c.Details))
			}
		}
		why, isExpected := expected[name]
		switch {
		case len(bad)+len(warned) == 0 && !isExpected:
			passed++
			t.Logf("pass      %s", name)
		case len(bad)+len(warned) == 0:
			t.Errorf("stale     %s passes: take it out of %s", name, expectedFailuresFile)
		case isExpected:
			failed++
			t.Logf("expected  %s: %s (%s)", name, why, strings.Join(append(bad, warned...), "; "))
		default:
			t.Errorf("fail      %s: %s", name, strings.Join(append(bad, warned...), "; "))
		}
	}
	for name := range expected {
		if _, ok := results[name]; !ok {
			t.Errorf("%s names %s, which the suite did not run", expectedFailuresFile, name)
		}
	}
	for _, c := range results["dns-rebinding-protection"] {
		t.Logf("dns-rebinding-protection %s %s: %s", c.ID, c.Status, c.Details)
	}
	if n := len(results["dns-rebinding-protection"]); n != 2 {
		t.Errorf("dns-rebinding-protection: %d checks, want its 2 "+
			"(the foreign Host and Origin refused, the server's own accepted)", n)
	}
	t.Logf("suite %s, %d scenarios: %d pass, %d expected not to (%s); it said:\n%s",
		strings.TrimSpace(string(version)), len(names), passed, failed, expectedFailuresFile,
		tail(text, 12))
}

// readResults reads each scenario's checks.json that the suite wrote in
// out; text is what the suite printed, for the failure.
func readResults(t *testing.T, out string, text []byte) map[string][]check {
	t.Helper()
	entries, err := os.ReadDir(out)
	if err != nil || len(entries) == 0 {
		t.Fatalf("the suite wrote no results (%v):\n%s", err, text)
	}
	results := map[string][]check{}
	for _, e := range entries {
		m := scenarioDir.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(out, e.Name(), "checks.json"))
		if err != nil {
			t.Fatal(err)
		}
		var cs []check
		if err := json.Unmarshal(data, &cs); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		results[m[1]] = cs
	}
	return results
}

// tail is the last n lines of text.
func tail(text []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(text), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
