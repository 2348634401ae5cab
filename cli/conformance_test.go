package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// fixtureOnly are the conformance suite's server scenarios that call a
// fixture of the suite's own reference server (a tool, resource or prompt
// by a name it fixes), each with what it calls and why sabline has none.
// Every other scenario must pass.
var fixtureOnly = map[string]string{
	"tools-call-simple-text":        "calls the tool test_simple_text; sabline's tools are run and audit",
	"tools-call-image":              "calls the tool test_image_content; a run answers text",
	"tools-call-audio":              "calls the tool test_audio_content; a run answers text",
	"tools-call-embedded-resource":  "calls the tool test_embedded_resource; a run answers text",
	"tools-call-mixed-content":      "calls the tool test_multiple_content_types; a run answers text",
	"tools-call-with-logging":       "calls the tool test_tool_with_logging; a run's messages are in its reply and receipt",
	"tools-call-error":              "calls the tool test_error_handling; sabline's refusals are tool errors (TestMCPCall)",
	"tools-call-with-progress":      "calls the tool test_tool_with_progress; run's progress is TestMCPCancelAndProgress's",
	"tools-call-sampling":           "calls the tool test_sampling, which asks the client's model; sabline asks a client nothing",
	"tools-call-elicitation":        "calls the tool test_elicitation, which asks the client's user; sabline asks a client nothing",
	"elicitation-sep1034-defaults":  "calls the tool test_elicitation_sep1034_defaults; sabline asks a client nothing",
	"elicitation-sep1330-enums":     "calls the tool test_elicitation_sep1330_enums; sabline asks a client nothing",
	"json-schema-2020-12":           "looks for the tool json_schema_2020_12_tool",
	"resources-read-text":           "reads the resource test://static-text; sabline's resources are its receipts",
	"resources-read-binary":         "reads the resource test://static-binary; sabline's resources are its receipts",
	"resources-templates-read":      "reads test://template/123/data; sabline's template is sabline://receipts/{id}",
	"resources-subscribe":           "subscribes to test://watched-resource; a receipt never changes once written, so none is offered",
	"resources-unsubscribe":         "subscribes to test://watched-resource first (as resources-subscribe)",
	"prompts-get-simple":            "gets the prompt test_simple_prompt; sabline has no prompts",
	"prompts-get-with-args":         "gets the prompt test_prompt_with_arguments; sabline has no prompts",
	"prompts-get-embedded-resource": "gets the prompt test_prompt_with_embedded_resource; sabline has no prompts",
	"prompts-get-with-image":        "gets the prompt test_prompt_with_image; sabline has no prompts",
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
// scenarios, all of them (--suite all), against /mcp of a real sabline
// serve, the server's token set on each request the suite sends and
// nothing else of them changed. Every scenario but those fixtureOnly
// names must pass (no check failed); a name in fixtureOnly that the suite
// no longer has fails the test. The suite's server mode takes a URL, so
// sabline mcp on standard input and output is held by the SDK clients
// instead (TestMCPCancelAndProgress, TestTypeScriptClient).
func TestConformance(t *testing.T) {
	dir := npmClients(t)
	s := startServe(t)
	out := t.TempDir()
	cmd := exec.Command(filepath.Join(dir, "node_modules", ".bin", "conformance"), "server", "--suite", "all", "--url", s.url+"/mcp", "-o", out)
	cmd.Env = append(os.Environ(), "SABLINE_TOKEN="+s.token, "NODE_OPTIONS=--import "+filepath.Join(dir, "token.mjs"))
	text, _ := cmd.CombinedOutput() // it exits 1 when a scenario fails; the results decide
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
	var names []string
	for name := range results {
		names = append(names, name)
	}
	sort.Strings(names)
	passed, fixtures := 0, 0
	for _, name := range names {
		var failed, warned []string
		for _, c := range results[name] {
			switch c.Status {
			case "FAILURE":
				failed = append(failed, c.ID+": "+c.ErrorMessage)
			case "WARNING":
				warned = append(warned, c.ID+": "+c.ErrorMessage+string(c.Details))
			}
		}
		why, fixture := fixtureOnly[name]
		switch {
		case len(failed) == 0:
			passed++
			t.Logf("pass     %s %s", name, strings.Join(warned, "; "))
		case fixture:
			fixtures++
			t.Logf("fixture  %s: %s", name, why)
		default:
			t.Errorf("fail     %s: %s", name, strings.Join(failed, "; "))
		}
	}
	for name := range fixtureOnly {
		if _, ok := results[name]; !ok {
			t.Errorf("fixtureOnly names %s, which the suite did not run", name)
		}
	}
	for _, c := range results["dns-rebinding-protection"] {
		t.Logf("dns-rebinding-protection %s %s: %s", c.ID, c.Status, c.Details)
	}
	if len(results["dns-rebinding-protection"]) != 2 {
		t.Errorf("dns-rebinding-protection: %d checks, want its 2 (the foreign Host and Origin refused, the server's own accepted)", len(results["dns-rebinding-protection"]))
	}
	t.Logf("%d scenarios: %d pass, %d need the suite's own fixtures", len(names), passed, fixtures)
}
