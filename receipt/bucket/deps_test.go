package bucket

import (
	"os/exec"
	"strings"
	"testing"
)

// cloudPackages begin the import paths of the cloud drivers and what
// they bring.
var cloudPackages = []string{"gocloud.dev/", "github.com/aws/", "github.com/Azure/", "cloud.google.com/",
	"google.golang.org/grpc", "google.golang.org/protobuf"}

// TestCloudDriversStayInTheAgent: the sabline command and its doors'
// command, whose binaries every worker is a new start of, link none of
// the cloud drivers (Go initialises every linked package in every
// process); the store agent links them (the control: the list would find
// them).
func TestCloudDriversStayInTheAgent(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the packages with:", err)
	}
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		var cloud []string
		for _, p := range strings.Fields(string(out)) {
			for _, prefix := range cloudPackages {
				if strings.HasPrefix(p, prefix) {
					cloud = append(cloud, p)
				}
			}
		}
		return cloud
	}
	for _, cmd := range []string{"sabline", "sabline-door"} {
		if got := deps("github.com/sabline/sabline/cmd/" + cmd); len(got) != 0 {
			t.Errorf("the %s command links %d cloud packages, the first %s: every worker "+
				"would initialise them", cmd, len(got), got[0])
		}
	}
	if got := deps("github.com/sabline/sabline/cmd/sabline-store"); len(got) == 0 {
		t.Error("the store agent links no cloud package: the list finds none where they are")
	}
}
