package doorcmd

import (
	"slices"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
)

// doorPackages are what the doors link and no other command of sabline
// needs (on the system the test runs on: Linux's worker needs no
// runtime/metrics): the door itself, Go's HTTP server and the MCP SDK
// with what it brings, and runtime/metrics, which the doors' metrics
// read and whose initialisation, a table of every metric's description,
// some 0.06 to 0.10 of a bare start, every start would pay.
var doorPackages = []string{"github.com/sabline/sabline/door", "net/http",
	"github.com/modelcontextprotocol/go-sdk/mcp", "encoding/gob",
	"github.com/google/jsonschema-go/jsonschema", "runtime/metrics"}

// TestDoorsStayInTheirCommand: the sabline command, whose binary every
// worker of a command-line run is a new start of, links none of the
// doors' packages (Go initialises every linked package in every process);
// sabline-door links each (the control: the list would find them).
func TestDoorsStayInTheirCommand(t *testing.T) {
	door := func(p string) bool { return slices.Contains(doorPackages, p) }
	if got := testkit.Linked(t, "github.com/sabline/sabline/cmd/sabline", door); len(got) != 0 {
		t.Errorf("the sabline command links %v: every process it starts would initialise them", got)
	}
	got := testkit.Linked(t, "github.com/sabline/sabline/cmd/sabline-door", door)
	if len(got) != len(doorPackages) {
		t.Errorf("sabline-door links %v of %v: the list finds them where they are", got, doorPackages)
	}
}
