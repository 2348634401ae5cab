package bucket

import (
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
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
	cloud := func(p string) bool {
		return slices.ContainsFunc(cloudPackages, func(prefix string) bool {
			return strings.HasPrefix(p, prefix)
		})
	}
	for _, cmd := range []string{"sabline", "sabline-door"} {
		if got := testkit.Linked(t, "github.com/sabline/sabline/cmd/"+cmd, cloud); len(got) != 0 {
			t.Errorf("the %s command links %d cloud packages, the first %s: every worker "+
				"would initialise them", cmd, len(got), got[0])
		}
	}
	if got := testkit.Linked(t, "github.com/sabline/sabline/cmd/sabline-store", cloud); len(got) == 0 {
		t.Error("the store agent links no cloud package: the list finds none where they are")
	}
}
