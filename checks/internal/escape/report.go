package escape

import (
	"bytes"
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"os/exec"
	"reflect"
	goruntime "runtime"
	"sort"

	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/kernelreport"
	"github.com/sabline/sabline/receipt"
)

// ReportSchema names the kernel report's format; tests/confine/README.md
// describes it, and the kernelreport package reads it.
const ReportSchema = kernelreport.Schema

// UpdateEnv is the environment variable that, set to 1, has the sandbox
// checks write the kernel report instead of comparing against it.
const UpdateEnv = "SABLINE_UPDATE_REPORT"

// Report is what the kernel of one system stopped, target by target, on
// the knock-out build, confined: tests/confine/kernel-GOOS.json, as
// kernelreport.Report has it, with what the suite that makes it adds
// (Add, Offers).
type Report struct {
	kernelreport.Report
}

// ReportBuild is the binary the report was made with.
type ReportBuild = kernelreport.Build

// ReportTarget is one target's line.
type ReportTarget = kernelreport.Target

// ReportWitness is a target's witness in the report.
type ReportWitness = kernelreport.Witness

// Machine asks the sabline binary bin what this machine offers (`sabline
// doctor --json`, and on linux/amd64 I386Entry) and returns the report's
// header, without targets.
func Machine(bin string) (Report, error) {
	var stdout bytes.Buffer
	cmd := exec.Command(bin, "doctor", "--json")
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		return Report{}, fmt.Errorf("%s doctor --json: %w", bin, err)
	}
	var doc struct {
		Machine confine.Machine `json:"machine"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		return Report{}, fmt.Errorf("%s doctor --json: %w", bin, err)
	}
	r := Report{kernelreport.Report{
		Schema: ReportSchema, OS: doc.Machine.OS, Kernel: doc.Machine.Kernel,
		LandlockABI: doc.Machine.LandlockABI,
		Build: ReportBuild{
			Sabline:  receipt.Version,
			Knockout: true,
			Go:       goruntime.Version(),
			Arch:     goruntime.GOARCH,
		},
		Targets: []ReportTarget{},
	}}
	// The source bin was built from, as the Go command stamped it: the
	// report names the build that ran its targets.
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		return Report{}, fmt.Errorf("read the build information of %s: %w", bin, err)
	}
	r.Build.Commit, r.Build.Modified = receipt.SourceOf(bi)
	if goruntime.GOOS == "linux" && goruntime.GOARCH == "amd64" {
		present, err := I386Entry(bin)
		if err != nil {
			return Report{}, err
		}
		r.I386Entry = &present
	}
	return r, nil
}

// Offers reports whether the machine of the report offers what t is made
// through: true but for a target made through the i386 entry on a kernel
// without one.
func (r Report) Offers(t Target) bool {
	return t.Entry != EntryI386 || r.I386Entry == nil || *r.I386Entry
}

// Add records what was observed of t, from its confined run and its
// control (nil for none), and which layers stopped it alone (nil when
// that could not be measured). The expectation, at the report's Landlock
// ABI, is recorded on Linux only.
func (r *Report) Add(t Target, observed Outcome, confined Run, unconfined *Run,
	layersAlone map[string]bool) {
	w := ReportWitness{Kind: "none"}
	if t.Witness != "" {
		w.Kind, w.Confined = t.Witness, confined.Witnessed
		if unconfined != nil {
			w.Unconfined = unconfined.Witnessed
		}
	}
	line := ReportTarget{ID: t.ID, Group: t.Group, Threat: t.Threat, Entry: t.Entry, Row: t.Row,
		Observed: observed, Witness: w, LayersAlone: layersAlone, Gap: t.Gap, Note: t.Note}
	if r.OS == string(confine.Linux) {
		e := t.ExpectAt(r.LandlockABI)
		line.Expected = &e
	}
	r.Targets = append(r.Targets, line)
}

// ReadReport reads a committed report, of ReportSchema only
// (kernelreport.Read). When there is no file, the error wraps
// fs.ErrNotExist.
func ReadReport(path string) (Report, error) {
	r, err := kernelreport.Read(path)
	if err != nil {
		return Report{}, err
	}
	if r.Schema != ReportSchema {
		return Report{}, fmt.Errorf("read report %s: schema %q, want %q", path, r.Schema, ReportSchema)
	}
	return Report{r}, nil
}

// Disagreements compares two reports outcome by outcome, expected and
// observed, and returns one line for each target they disagree on, or
// that one of them lacks, sorted. The machine, kernel and build are not
// compared. Nor is a target made through an entry that one of the two
// machines offers and the other does not (the i386 entry), nor one
// expected to end otherwise at the two reports' Landlock ABIs (a
// truncation, below ABI 3 and from it): uncompared has a line for each,
// saying why, and the spec that compares prints them. Of the layers
// alone, those fresh measured are compared: a run at the default size
// measures only the layer each outcome names (see checks/sandbox).
func Disagreements(committed, fresh Report) (out, uncompared []string) {
	old := map[string]ReportTarget{}
	for _, t := range committed.Targets {
		old[t.ID] = t
	}
	sameI386 := (committed.I386Entry == nil) == (fresh.I386Entry == nil) &&
		(committed.I386Entry == nil || *committed.I386Entry == *fresh.I386Entry)
	for _, t := range fresh.Targets {
		c, ok := old[t.ID]
		delete(old, t.ID)
		switch {
		case ok && t.Entry == EntryI386 && c.Entry == EntryI386 && !sameI386:
			uncompared = append(uncompared, fmt.Sprintf("%s: made through the i386 entry, "+
				"which one of the two machines offers", t.ID))
		case ok && committed.LandlockABI != fresh.LandlockABI && !sameOutcome(c.Expected, t.Expected):
			uncompared = append(uncompared, fmt.Sprintf("%s: expected %s at Landlock ABI %d, "+
				"%s at ABI %d", t.ID, show(t.Expected), fresh.LandlockABI, show(c.Expected),
				committed.LandlockABI))
		case !ok:
			out = append(out, t.ID+": not in the committed report")
		case c.Observed != t.Observed:
			out = append(out,
				fmt.Sprintf("%s: observed %s, the committed report says %s", t.ID, t.Observed, c.Observed))
		case !sameOutcome(c.Expected, t.Expected):
			out = append(out, fmt.Sprintf("%s: expected %s, the committed report expects %s", t.ID,
				show(t.Expected), show(c.Expected)))
		case !reflect.DeepEqual(c.Witness, t.Witness):
			out = append(out,
				fmt.Sprintf("%s: witness %+v, the committed report says %+v", t.ID, t.Witness, c.Witness))
		case !measuredAgree(c.LayersAlone, t.LayersAlone):
			out = append(out, fmt.Sprintf("%s: layers alone %v, the committed report says %v", t.ID,
				t.LayersAlone, c.LayersAlone))
		}
	}
	for id := range old {
		out = append(out, id+": in the committed report, not in this run")
	}
	sort.Strings(out)
	sort.Strings(uncompared)
	return out, uncompared
}

// measuredAgree reports whether every layer fresh measured alone is in
// committed with the same result; nil (not measured) agrees with nil only.
func measuredAgree(committed, fresh map[string]bool) bool {
	if (committed == nil) != (fresh == nil) {
		return false
	}
	for l, stopped := range fresh {
		if c, ok := committed[l]; !ok || c != stopped {
			return false
		}
	}
	return true
}

func sameOutcome(a, b *Outcome) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func show(o *Outcome) string {
	if o == nil {
		return "nothing"
	}
	return o.String()
}
