package doorcmd

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// doorPackages are what the doors link and no other command of sabline
// needs: the door itself, Go's HTTP server and the MCP SDK with what it
// brings.
var doorPackages = []string{"github.com/sabline/sabline/door", "net/http",
	"github.com/modelcontextprotocol/go-sdk/mcp", "encoding/gob",
	"github.com/google/jsonschema-go/jsonschema"}

// TestDoorsStayInTheirCommand: the sabline command, whose binary every
// worker of a command-line run is a new start of, links none of the
// doors' packages (Go initialises every linked package in every process);
// sabline-door links each (the control: the list would find them).
func TestDoorsStayInTheirCommand(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the packages with:", err)
	}
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		var found []string
		for _, p := range strings.Fields(string(out)) {
			if slices.Contains(doorPackages, p) {
				found = append(found, p)
			}
		}
		return found
	}
	if got := deps("github.com/sabline/sabline/cmd/sabline"); len(got) != 0 {
		t.Errorf("the sabline command links %v: every process it starts would initialise them", got)
	}
	if got := deps("github.com/sabline/sabline/cmd/sabline-door"); len(got) != len(doorPackages) {
		t.Errorf("sabline-door links %v of %v: the list finds them where they are", got, doorPackages)
	}
}
