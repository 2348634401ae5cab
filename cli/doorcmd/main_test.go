package doorcmd

import (
	"os"
	"testing"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/buildbin"
)

// TestMain removes the binaries the door tests build (sablineBin).
func TestMain(m *testing.M) {
	// The door tests run pools whose workers are this test binary.
	sabline.HandOver()
	// A test started under nohup still stops its runs by their hangup.
	testkit.TakeIgnoredStops()
	code := testkit.RunApart(m) // its stores, tokens and runs join a register of its own
	buildbin.Cleanup()
	os.Exit(code)
}

// sablineBin builds the sabline command, with the sabline-door its serve
// and mcp start beside it, once for the tests that run it as a server; a
// build that fails fails the test.
func sablineBin(t *testing.T) string {
	t.Helper()
	bin, err := buildbin.SablineWithDoor()
	if err != nil {
		t.Fatalf("build sabline: %v", err)
	}
	return bin
}
