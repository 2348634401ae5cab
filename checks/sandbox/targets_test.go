package sandbox_test

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sabline/sabline/checks/internal/escape"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/testkit"
)

// workers is how many runs are made at once: each is a supervisor and a
// worker process, which spend much of a run waiting (for a process to
// start, for a receipt to reach the disk), so four a core keep the cores
// busy; on a machine shared with other work, they take their share of it.
var workers = 4 * goruntime.NumCPU()

// everyLayerAlone says whether each target the kernel stopped is run with
// every layer alone, as the committed report records, or only with the
// layer its outcome names, which the spec below asserts: every layer at
// the full size (testkit.FullEnv), and when the report is written.
var everyLayerAlone = testkit.Full() || os.Getenv(escape.UpdateEnv) == "1"

// everyTargetOlder says whether every target is run at every Landlock ABI
// older than the kernel's, or only those whose outcome changes with the
// ABI (escape.Target.Older), at the ABIs on either side of each change:
// every one at the full size, and when the report is written.
var everyTargetOlder = everyLayerAlone

// reportPath is the committed kernel report of this system.
var reportPath = filepath.Join("..", "..", "tests", "confine", "kernel-"+goruntime.GOOS+".json")

// attempts are the runs of one target and what they show.
type attempts struct {
	normal, confined escape.Run
	unconfined       *escape.Run // nil when the target has no control
	observed         escape.Outcome
	// alone are the runs with one layer alone, by layer; nil when the
	// build cannot apply one layer at a time.
	alone map[string]*escape.Run
	// layersAlone says which layers stopped the target alone; nil when
	// not measured.
	layersAlone map[string]bool
	// older are the confined runs with Landlock at an older ABI than the
	// kernel's (escape.AtABI), by ABI; nil when none was made.
	older map[int]*escape.Run
}

// olderMeasured says whether the knock-out build applied Landlock at an
// older ABI, and if not, why not; set by attemptOlder.
var olderMeasured struct {
	ok  bool
	why string
}

// aloneMeasured says whether the knock-out build applied one layer at a
// time, and if not, why not; set by attemptAll.
var aloneMeasured struct {
	ok  bool
	why string
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
				if codes.Code(t.Language) == codes.E318 || codes.Code(t.Language) == codes.E329 {
					want = t.Language
				}
				Expect(r.Code).To(Equal(want), "the normal build ended with %q\n%s", r.Code, r.Stderr)
				switch {
				case want == "E302" && strings.Contains(r.Message, "leads outside every grant"):
					// Refused on its way through a link: the message names the
					// path as written, never where the link leads.
					_, led, _ := strings.Cut(strings.TrimPrefix(r.Refusal, "fs:"), ":")
					Expect(r.Message).NotTo(ContainSubstring(led), "the refusal names what lies outside the grant")
				case want == "E302":
					Expect(r.Message).To(HaveSuffix("add "+r.Refusal+" to the budget"), "the refusal names what to grant")
				}
				info, _ := codes.Info(codes.Code(want))
				Expect(r.Exit).To(Equal(info.Exit), "%s ends with exit status %d", want, info.Exit)
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
				cell, _ := row.Cell(confine.System(goruntime.GOOS))
				holds := ok && cell.Holds == confine.HoldsYes
				switch {
				case goruntime.GOOS == string(confine.Linux) && holds:
					Expect(a.observed).To(Equal(t.ExpectAt(machine.LandlockABI)), "ENFORCES row %s holds yes on Linux (Landlock ABI %d)\n%s%s",
						t.Row, machine.LandlockABI, a.confined.Stdout, a.confined.Stderr)
				case goruntime.GOOS == string(confine.Linux):
					Expect(a.observed).To(Equal(t.ExpectAt(machine.LandlockABI)), "the catalogue expects %s on Linux at Landlock ABI %d (no ENFORCES row says the kernel holds it)\n%s%s",
						t.ExpectAt(machine.LandlockABI), machine.LandlockABI, a.confined.Stdout, a.confined.Stderr)
				case holds:
					Expect(a.observed.Kernel()).To(BeTrue(), "ENFORCES row %s holds yes on %s; observed %s", t.Row, goruntime.GOOS, a.observed)
				default:
					AddReportEntry("recorded", fmt.Sprintf("%s: %s (no ENFORCES row says the kernel holds it here)", t.ID, a.observed))
				}
			})

			It("meets its harmless result with --no-confine, and changes nothing outside the worker unless it has a witness", func() {
				if t.NoControl != "" {
					Skip(t.NoControl)
				}
				skipUnavailable(t, results[t.ID])
				u := results[t.ID].unconfined
				if goruntime.GOOS == string(confine.Linux) {
					Expect(t.UnconfinedAllows(u.Attempt())).To(BeTrue(),
						"unconfined, the attempt met %q, want %s\n%s%s", u.Attempt(), t.Unconfined, u.Stdout, u.Stderr)
				}
				Expect(u.Code).NotTo(Equal("E310"), "the unconfined worker crashed\n%s", u.Stderr)
				if t.Witness == "" {
					Expect(u.Changed).To(BeEmpty(), "the control changed something outside the worker: the target needs a witness of that kind")
				}
			})

			It("changes its witness with --no-confine, and the confined run leaves it as it was where a layer stopped it", func() {
				if t.Witness == "" {
					Skip("no witness: the attempt changes nothing outside the worker even when it goes through")
				}
				a := results[t.ID]
				skipUnavailable(t, a)
				Expect(a.unconfined.Witnessed).NotTo(BeEmpty(), "the control did not change the %s witness: it cannot see the attempt\n%s%s",
					t.Witness, a.unconfined.Stdout, a.unconfined.Stderr)
				if a.observed.Kernel() {
					Expect(a.confined.Witnessed).To(BeEmpty())
				}
				AddReportEntry("witness", fmt.Sprintf("%s: confined %q, unconfined %q", t.Witness, a.confined.Witnessed, a.unconfined.Witnessed))
			})

			It("meets its expected outcome with Landlock at each older ABI (on Linux), and the kernel's stops change nothing", func() {
				a := results[t.ID]
				skipUnavailable(t, a)
				if !olderMeasured.ok {
					Skip("older Landlock ABIs not measured: " + olderMeasured.why)
				}
				if len(a.older) == 0 {
					Skip(fmt.Sprintf("the catalogue says no older ABI changes its outcome (%s=1 runs it at every one)", testkit.FullEnv))
				}
				for _, abi := range slices.Sorted(maps.Keys(a.older)) {
					r := a.older[abi]
					got := escape.Observe(t, *r, a.unconfined, goruntime.GOOS)
					Expect(got).To(Equal(t.ExpectAt(abi)), "at Landlock ABI %d\n%s%s", abi, r.Stdout, r.Stderr)
					if got.Kernel() {
						expectNothingHappened(*r)
					}
				}
			})

			It("is stopped by the layer its outcome names when that layer is applied alone", func() {
				a := results[t.ID]
				skipUnavailable(t, a)
				if !aloneMeasured.ok {
					Skip("layers alone not measured: " + aloneMeasured.why)
				}
				for _, l := range escape.Layers {
					if strings.HasPrefix(l.Receipt, a.observed.StoppedBy) {
						Expect(a.layersAlone[l.Name]).To(BeTrue(), "the outcome credits %s, which does not stop the target alone (alone: %v)",
							l.Name, a.layersAlone)
					}
				}
			})
		})
	}

	It("agrees with the committed kernel report", func() {
		fresh := machine
		fresh.Targets = nil
		for _, t := range escape.Catalogue {
			a := results[t.ID]
			fresh.Add(t, a.observed, a.confined, a.unconfined, a.layersAlone)
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
		disagree, uncompared := escape.Disagreements(committed, fresh)
		if len(uncompared) > 0 {
			AddReportEntry("not compared", fmt.Sprintf("this machine (Landlock ABI %d, the i386 entry offered: %s) "+
				"and the committed report's (ABI %d, %s): %s", fresh.LandlockABI, offers(fresh.I386Entry),
				committed.LandlockABI, offers(committed.I386Entry), strings.Join(uncompared, "; ")))
		}
		Expect(disagree).To(BeEmpty(),
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
		witnesses := map[string]int{}
		for _, t := range escape.Catalogue {
			if t.Witness != "" {
				witnesses[t.Witness]++
			}
		}
		fmt.Printf("checks/sandbox: witnesses: %v\n", witnesses)
		if !aloneMeasured.ok {
			fmt.Printf("checks/sandbox: layers alone not measured: %s\n", aloneMeasured.why)
		}
		if !olderMeasured.ok {
			fmt.Printf("checks/sandbox: older Landlock ABIs not measured: %s\n", olderMeasured.why)
		} else {
			var older, changed int
			for _, t := range escape.Catalogue {
				older += len(results[t.ID].older)
				if len(t.Older) > 0 {
					changed++
				}
			}
			fmt.Printf("checks/sandbox: %d runs at an older Landlock ABI than this kernel's %d; %d targets change outcome "+
				"below it (every target at every older ABI: %v, %s=1)\n", older, machine.LandlockABI, changed, everyTargetOlder, testkit.FullEnv)
		}
		fmt.Printf("checks/sandbox: %d runs of the sabline command (each a supervisor and a worker), %d at a time; "+
			"every layer alone: %v (%s=1 for every one)\n", runs.Load(), workers, everyLayerAlone, testkit.FullEnv)
	})
})

// skipUnavailable skips a spec about a target this machine cannot
// attempt: one of another architecture, one made through an entry the
// kernel does not offer (machine.Offers), or one whose runs could not
// make the attempt at all (a raw call the system does not offer). The
// report still records it, so that a target that stops being attempted
// on a machine whose committed report has it attempted fails there.
func skipUnavailable(t escape.Target, a *attempts) {
	switch {
	case t.Arch != "" && t.Arch != goruntime.GOARCH:
		Skip(fmt.Sprintf("%s is a target of %s, not %s", t.ID, t.Arch, goruntime.GOARCH))
	case !machine.Offers(t):
		Expect(a.observed.StoppedBy).To(Equal(escape.Unavailable),
			"the kernel has no %s entry, yet the attempt through it was made\n%s", t.Entry, a.confined.Stderr)
		Skip(escape.NoI386Entry)
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
	err := concurrently(jobs, func(j job) error {
		r, err := escape.Execute(bins, j.t, j.mode, dir)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		switch a := results[j.t.ID]; j.mode {
		case escape.Normal:
			a.normal = r
		case escape.Confined:
			a.confined = r
		default:
			a.unconfined = &r
		}
		return nil
	})
	for _, t := range escape.Catalogue {
		a := results[t.ID]
		a.observed = escape.Observe(t, a.confined, a.unconfined, goruntime.GOOS)
	}
	if err != nil {
		return results, err
	}
	if err := attemptOlder(dir, results); err != nil {
		return results, err
	}
	return results, attemptAlone(dir, results)
}

// attemptOlder runs, on Linux, targets confined with Landlock at ABIs
// older than the kernel's (escape.AtABI): every target at every one when
// everyTargetOlder, else those whose outcome changes with the ABI, at
// the ABIs on either side of each change. A first run asks the build
// whether it honours the switch: its receipt must name the ABI asked
// for; where it does not, nothing is measured and olderMeasured says why.
func attemptOlder(dir string, results map[string]*attempts) error {
	switch {
	case goruntime.GOOS != string(confine.Linux):
		olderMeasured.why = "Landlock is Linux's"
		return nil
	case machine.LandlockABI < 2:
		olderMeasured.why = fmt.Sprintf("this kernel's Landlock ABI is %d: there is none older to apply", machine.LandlockABI)
		return nil
	}
	probe := escape.Target{ID: "abi-probe", Budget: "io", Program: "print(\"RESULT ok\")\n"}
	runs.Add(1)
	r, err := escape.Execute(bins, probe, escape.AtABI(1), dir)
	if err != nil {
		return err
	}
	if !slices.Contains(r.Layers, "landlock-abi1") {
		olderMeasured.why = fmt.Sprintf("with %s=1 the knock-out build's receipt says the layers %q held the run: it does not apply an older ABI",
			escape.ABIEnv, r.Layers)
		return nil
	}
	olderMeasured.ok = true
	type job struct {
		t   escape.Target
		abi int
	}
	var jobs []job
	for _, t := range escape.Catalogue {
		abis := map[int]bool{}
		for _, o := range t.Older {
			abis[o.Below-1], abis[o.Below] = true, true
		}
		for abi := 1; abi < machine.LandlockABI; abi++ {
			if everyTargetOlder || abis[abi] {
				jobs = append(jobs, job{t, abi})
			}
		}
		if len(abis) > 0 || everyTargetOlder {
			results[t.ID].older = map[int]*escape.Run{}
		}
	}
	var mu sync.Mutex
	return concurrently(jobs, func(j job) error {
		r, err := escape.Execute(bins, j.t, escape.AtABI(j.abi), dir)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		results[j.t.ID].older[j.abi] = &r
		return nil
	})
}

// attemptAlone runs, on Linux, every target the kernel stopped with each
// layer alone (escape.LayerEnv), or with the one its outcome names unless
// everyLayerAlone, and records which layers stopped it on their own. A first run asks the build whether it honours the
// switch: its receipt must name the one layer asked for; where it does
// not, nothing is measured and aloneMeasured says why.
func attemptAlone(dir string, results map[string]*attempts) error {
	if goruntime.GOOS != string(confine.Linux) {
		aloneMeasured.why = "the layers are told apart on Linux only"
		return nil
	}
	probe := escape.Target{ID: "layer-probe", Budget: "io", Program: "print(\"RESULT ok\")\n"}
	for _, l := range escape.Layers {
		runs.Add(1)
		r, err := escape.Execute(bins, probe, escape.Alone(l.Name), dir)
		if err != nil {
			return err
		}
		if len(r.Layers) != 1 || !strings.HasPrefix(r.Layers[0], l.Receipt) {
			aloneMeasured.why = fmt.Sprintf("with %s=%s the knock-out build's receipt says the layers %q held the run: it does not apply one layer alone",
				escape.LayerEnv, l.Name, r.Layers)
			return nil
		}
	}
	aloneMeasured.ok = true
	type job struct {
		t     escape.Target
		layer string
	}
	var jobs []job
	for _, t := range escape.Catalogue {
		a := results[t.ID]
		if !a.observed.Kernel() {
			continue
		}
		a.alone, a.layersAlone = map[string]*escape.Run{}, map[string]bool{}
		for _, l := range escape.Layers {
			if everyLayerAlone || strings.HasPrefix(l.Receipt, a.observed.StoppedBy) {
				jobs = append(jobs, job{t, l.Name})
			}
		}
	}
	var mu sync.Mutex
	return concurrently(jobs, func(j job) error {
		r, err := escape.Execute(bins, j.t, escape.Alone(j.layer), dir)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		a := results[j.t.ID]
		a.alone[j.layer] = &r
		a.layersAlone[j.layer] = escape.Observe(j.t, r, a.unconfined, goruntime.GOOS).Kernel()
		return nil
	})
}

// runs counts the runs the suite made.
var runs atomic.Int64

// concurrently calls do for each job, workers at a time, and returns
// every error.
func concurrently[J any](jobs []J, do func(J) error) error {
	runs.Add(int64(len(jobs)))
	var mu sync.Mutex
	var errs []error
	queue := make(chan J)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range queue {
				if err := do(j); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	for _, j := range jobs {
		queue <- j
	}
	close(queue)
	wg.Wait()
	return errors.Join(errs...)
}

// offers prints whether a machine offers the i386 entry.
func offers(entry *bool) string {
	if entry == nil {
		return "not asked"
	}
	return fmt.Sprint(*entry)
}
