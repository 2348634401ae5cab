package sandbox_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sabline/sabline/checks/internal/escape"
	"github.com/sabline/sabline/confine"
)

// workers is how many runs are made at once: each is a supervisor and a
// worker process, and the machine the checks are written for has two
// cores.
const workers = 2

// reportPath is the committed kernel report of this system.
var reportPath = filepath.Join("..", "..", "tests", "confine", "kernel-"+goruntime.GOOS+".json")

// attempts are the runs of one target and what they show.
type attempts struct {
	normal, confined escape.Run
	unconfined       *escape.Run // nil when the target has no control
	observed         escape.Outcome
}

var _ = Describe("the escape catalogue", func() {
	It("has at least 50 complete targets, in every group, with unique IDs and rows that ENFORCES has", func() {
		Expect(len(escape.Catalogue)).To(BeNumerically(">=", 50))
		ids, groups := map[string]bool{}, map[string]int{}
		for _, t := range escape.Catalogue {
			Expect(t.Validate()).To(Succeed())
			Expect(ids[t.ID]).To(BeFalse(), "%s appears twice", t.ID)
			ids[t.ID] = true
			groups[t.Group]++
			if t.Row != "" {
				_, ok := confine.EnforcesRow(t.Row)
				Expect(ok).To(BeTrue(), "%s names row %q, which ENFORCES does not have", t.ID, t.Row)
			}
		}
		for _, g := range escape.Groups {
			Expect(groups[g]).To(BeNumerically(">", 0), "group %s has no target", g)
		}
	})
})

var _ = Describe("escape targets", Ordered, ContinueOnFailure, func() {
	var results map[string]*attempts

	BeforeAll(func() {
		dir, err := os.MkdirTemp("", "sabline-sandbox-")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.RemoveAll, dir)
		results, err = attemptAll(dir)
		Expect(err).NotTo(HaveOccurred())
	})

	for _, t := range escape.Catalogue {
		Describe(t.ID, func() {
			It("is refused by the language on the normal build, and nothing happens", func() {
				r := results[t.ID].normal
				want := "E302"
				if t.Language == "E318" {
					want = "E318"
				}
				Expect(r.Code).To(Equal(want), "the normal build ended with %q\n%s", r.Code, r.Stderr)
				if want == "E302" {
					Expect(r.Message).To(HaveSuffix("add "+r.Refusal+" to the budget"), "the refusal names what to grant")
				}
				Expect(r.Exit).To(Equal(1))
				Expect(r.Stdout).NotTo(ContainSubstring("RESULT"), "the program went on past its refusal")
				expectNothingHappened(r)
			})

			It("meets its expected outcome on the knock-out build (on Linux), and the kernel stops it where ENFORCES says the kernel holds it", func() {
				a := results[t.ID]
				skipUnavailable(t, a)
				Expect(a.observed.StoppedBy).NotTo(Equal(escape.ByUnknown),
					"the confined run failed in a way no layer explains\n%s%s", a.confined.Stdout, a.confined.Stderr)
				if a.observed.Kernel() {
					expectNothingHappened(a.confined)
				}
				row, ok := confine.EnforcesRow(t.Row)
				cell, _ := row.Cell(goruntime.GOOS)
				holds := ok && cell.Holds == confine.HoldsYes
				switch {
				case goruntime.GOOS == "linux" && holds:
					Expect(a.observed).To(Equal(t.Expect), "ENFORCES row %s holds yes on Linux\n%s%s", t.Row, a.confined.Stdout, a.confined.Stderr)
				case goruntime.GOOS == "linux":
					Expect(a.observed).To(Equal(t.Expect), "the catalogue expects %s on Linux (no ENFORCES row says the kernel holds it)\n%s%s",
						t.Expect, a.confined.Stdout, a.confined.Stderr)
				case holds:
					Expect(a.observed.Kernel()).To(BeTrue(), "ENFORCES row %s holds yes on %s; observed %s", t.Row, goruntime.GOOS, a.observed)
				default:
					AddReportEntry("recorded", fmt.Sprintf("%s: %s (no ENFORCES row says the kernel holds it here)", t.ID, a.observed))
				}
			})

			It("meets its harmless result with --no-confine", func() {
				if t.NoControl != "" {
					Skip(t.NoControl)
				}
				skipUnavailable(t, results[t.ID])
				u := results[t.ID].unconfined
				if goruntime.GOOS == "linux" {
					Expect(t.UnconfinedAllows(u.Attempt())).To(BeTrue(),
						"unconfined, the attempt met %q, want %s\n%s%s", u.Attempt(), t.Unconfined, u.Stdout, u.Stderr)
				}
				Expect(u.Code).NotTo(Equal("E310"), "the unconfined worker crashed\n%s", u.Stderr)
			})
		})
	}

	It("agrees with the committed kernel report", func() {
		fresh, err := escape.Machine(bins.Knockout)
		Expect(err).NotTo(HaveOccurred())
		for _, t := range escape.Catalogue {
			fresh.Add(t, results[t.ID].observed)
		}
		if os.Getenv(escape.UpdateEnv) == "1" {
			Expect(os.MkdirAll(filepath.Dir(reportPath), 0o755)).To(Succeed())
			Expect(os.WriteFile(reportPath, fresh.JSON(), 0o644)).To(Succeed())
			AddReportEntry("written", reportPath)
			return
		}
		committed, err := escape.ReadReport(reportPath)
		if errors.Is(err, fs.ErrNotExist) {
			Skip(fmt.Sprintf("there is no committed kernel report for %s (%s): %s=1 writes it", goruntime.GOOS, reportPath, escape.UpdateEnv))
		}
		Expect(err).NotTo(HaveOccurred())
		Expect(escape.Disagreements(committed, fresh)).To(BeEmpty(),
			"this run and %s disagree; if the change is meant, run again with %s=1 and commit the report", reportPath, escape.UpdateEnv)
	})

	AfterAll(func() {
		if results == nil {
			return
		}
		for _, g := range escape.Groups {
			var n, kernel, language int
			for _, t := range escape.Catalogue {
				if t.Group != g {
					continue
				}
				n++
				switch o := results[t.ID].observed; {
				case o.Kernel():
					kernel++
				case o.StoppedBy == escape.ByLanguage:
					language++
				}
			}
			fmt.Printf("checks/sandbox: %s: %d targets, %d stopped by the kernel, %d language only\n", g, n, kernel, language)
		}
		var gaps []string
		for _, t := range escape.Catalogue {
			if t.Gap != "" && results[t.ID].observed.StoppedBy == escape.ByLanguage {
				gaps = append(gaps, t.ID)
			}
		}
		fmt.Printf("checks/sandbox: gaps the kernel lets through: %s\n", strings.Join(gaps, ", "))
	})
})

// skipUnavailable skips a spec about a target this machine cannot
// attempt: one of another architecture, or one whose runs could not make
// the attempt at all (a raw call the system does not offer). The report
// still records it, so that a target that stops being attempted on a
// machine whose committed report has it attempted fails there.
func skipUnavailable(t escape.Target, a *attempts) {
	switch {
	case t.Arch != "" && t.Arch != goruntime.GOARCH:
		Skip(fmt.Sprintf("%s is a target of %s, not %s", t.ID, t.Arch, goruntime.GOARCH))
	case a.observed.StoppedBy == escape.Unavailable:
		Skip(fmt.Sprintf("the attempt cannot be made on %s/%s: %s", goruntime.GOOS, goruntime.GOARCH, a.confined.Message))
	}
}

// expectNothingHappened fails when a run changed a scratch file, reached a
// listener or killed the victim.
func expectNothingHappened(r escape.Run) {
	GinkgoHelper()
	Expect(r.Changed).To(BeEmpty(), "the run changed files it was refused")
	Expect(r.Accepted).To(BeZero(), "a listener took a connection or datagram the run was refused")
	Expect(r.Victim).NotTo(Equal(escape.Killed), "the victim died")
}

// attemptAll runs every target in every mode, a few at a time, in
// scratch directories beneath dir, and observes each.
func attemptAll(dir string) (map[string]*attempts, error) {
	type job struct {
		t    escape.Target
		mode escape.Mode
	}
	results := map[string]*attempts{}
	var jobs []job
	for _, t := range escape.Catalogue {
		results[t.ID] = &attempts{}
		jobs = append(jobs, job{t, escape.Normal}, job{t, escape.Confined})
		if t.NoControl == "" {
			jobs = append(jobs, job{t, escape.Unconfined})
		}
	}
	var mu sync.Mutex
	var errs []error
	queue := make(chan job)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range queue {
				r, err := escape.Execute(bins, j.t, j.mode, dir)
				mu.Lock()
				switch a := results[j.t.ID]; {
				case err != nil:
					errs = append(errs, err)
				case j.mode == escape.Normal:
					a.normal = r
				case j.mode == escape.Confined:
					a.confined = r
				default:
					a.unconfined = &r
				}
				mu.Unlock()
			}
		})
	}
	for _, j := range jobs {
		queue <- j
	}
	close(queue)
	wg.Wait()
	for _, a := range results {
		a.observed = escape.Observe(a.confined, a.unconfined, goruntime.GOOS)
	}
	return results, errors.Join(errs...)
}
