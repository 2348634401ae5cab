// Package sandbox_test attempts every target of the escape catalogue
// (checks/internal/escape) three times, with the sabline command built
// twice:
//
//   - the normal build refuses each with the language's code (E302 naming
//     the missing grant, or E318), and nothing happens: no file changes,
//     no connection is taken, the victim process lives;
//   - the knock-out build (-tags sabline_knockout), whose budget checks all
//     pass, records whether the kernel stopped each target, and with which
//     layer and errno; on Linux every target must meet the outcome the
//     catalogue expects of it, errno and all, whatever its ENFORCES row
//     says; elsewhere, where the row says the kernel holds it on this
//     system, a layer must have stopped it;
//   - the knock-out build with --no-confine meets each target's harmless
//     result: the errno a destructive call gets when nothing filters it,
//     or, for a harmless one, the attempt going through; and a target with
//     a witness changes it there, which shows the witness can see it.
//
// A target with a witness (a scratch file's content and metadata, a kernel
// object, the victim process, a listener) is judged by it, read from
// outside the worker before and after each run (the victim's priority,
// which a lend changes only while the run waits, throughout it too): it counts as stopped only
// where the confined run left it unchanged. Where the knock-out build
// honours escape.LayerEnv, every target the kernel stopped is run again
// with the layer its outcome names alone, which must stop it on its own;
// at the full size (SABLINE_FULL=1), and when the report is written, with
// each layer alone, as the report records.
//
// What the knock-out build observed is the kernel report,
// tests/confine/kernel-GOOS.json: the suite compares a fresh run with the
// committed report and fails, naming the targets, where they disagree.
// SABLINE_UPDATE_REPORT=1 writes the report instead:
//
//	go test ./checks/sandbox/... -v
//	SABLINE_UPDATE_REPORT=1 go test ./checks/sandbox/...
//
// At the end it prints, per group, how many targets the kernel stopped and
// how many only the language holds.
package sandbox_test

import (
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sabline/sabline/checks/internal/escape"
	"github.com/sabline/sabline/checks/internal/suite"
	"github.com/sabline/sabline/internal/testkit/buildbin"
)

func TestSandbox(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "checks/sandbox", suite.Config(t))
}

// bins are the normal and knock-out builds, made once for the suite.
var bins escape.Binaries

// machine is what this machine offers, asked once before the specs: the
// kernel report's header (the kernel, its Landlock ABI, whether it has
// the i386 entry).
var machine escape.Report

var _ = BeforeSuite(func() {
	var err error
	bins.Normal, err = buildbin.Sabline()
	Expect(err).NotTo(HaveOccurred())
	bins.Knockout, err = buildbin.Sabline("sabline_knockout")
	Expect(err).NotTo(HaveOccurred())
	machine, err = escape.Machine(bins.Knockout)
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(buildbin.Cleanup)

// Every skipped spec, counted by its reason: a skip says why, and the
// count line says how many there were.
var _ = ReportAfterSuite("checks/sandbox: skips counted", func(report Report) {
	suite.Print(os.Stdout, "checks/sandbox", report)
})
