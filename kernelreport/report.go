// Package kernelreport owns Sabline's kernel report: what the operating
// system of one machine stopped, escape target by escape target, when
// nothing but its confinement held the run (tests/confine/kernel-GOOS.json,
// written by the escape suite, checks/sandbox). It reads a report, renders
// reports for a person to read, and compares two of them.
//
// # Reading
//
// Read and Parse take the schemas /2, /3 and /4 (Schema), within bounds
// (MaxBytes, MaxTargets); a report that cannot be read is E333. A report
// of schema /4 names, for each target, the row of the ENFORCES table
// (confine.Enforces) whose claim it tests; an older one names none.
//
// # Rendering
//
// Markdown and HTML render one report per system as a release report: a
// header per report, the enforcement table with the evidence of each
// system's report beside each claim (Evidence), and the escape targets
// with their verdicts (Verdict). Both are pure functions of the reports
// and of the ENFORCES table of this build.
//
// # Comparing
//
// Diff lists what changed between two reports of one system: every
// target whose verdict, expectation, witness or layers alone changed,
// every target in one report only, and every enforcement cell whose
// evidence changed. Changes.regressed says whether the newer report is
// worse (`sabline report diff` then ends with E332).
package kernelreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
)

// The schemas of the kernel report. Schema is the one written; Read takes
// every one of Schemas.
const (
	// Schema: each target names its ENFORCES row ("row").
	Schema = "sabline.kernel-report/4"
	// Schema3: the report says whether the kernel offers the i386 entry
	// ("i386_entry"), and which targets are made through it ("entry").
	Schema3 = "sabline.kernel-report/3"
	// Schema2: the first schema with witnesses and layers alone.
	Schema2 = "sabline.kernel-report/2"
)

// Schemas are the schemas Read takes, oldest first.
var Schemas = []string{Schema2, Schema3, Schema}

// The bounds of a report Read takes: a report of every target of the
// catalogue is about 200 KiB and 200 targets.
const (
	MaxBytes   = 16 << 20
	MaxTargets = 10000
)

// EntryI386 is a target's Entry for an attempt made through the i386
// entry, int $0x80, on linux/amd64.
const EntryI386 = "i386"

// Report is what the kernel of one system stopped, target by target, on
// the knock-out build, confined: tests/confine/kernel-GOOS.json.
type Report struct {
	Schema      string `json:"schema"`
	OS          string `json:"os"`
	Kernel      string `json:"kernel"`
	LandlockABI int    `json:"landlock_abi"`
	// I386Entry says whether the kernel offers the i386 entry, int $0x80;
	// null off linux/amd64, and in a report of schema /2, which did not
	// record it. Where it is false, the targets made through it are
	// unavailable: a program cannot use the entry either.
	I386Entry *bool    `json:"i386_entry"`
	Build     Build    `json:"build"`
	Targets   []Target `json:"targets"`
}

// Named is a report and the name it is shown under: the file it was read
// from, or "".
type Named struct {
	Report
	Source string
}

// Build is the binary the report was made with.
type Build struct {
	Sabline  string `json:"sabline"`  // Sabline's version (receipt.Version)
	Knockout bool   `json:"knockout"` // always true: only the kernel holds the runs
	Go       string `json:"go"`
	Arch     string `json:"arch"`
	// Commit and Modified are the source the binary was built from, as
	// the Go command stamped it (receipt.Build): empty where it was not.
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
}

// Target is one target's line.
type Target struct {
	ID     string `json:"id"`
	Group  string `json:"group"`
	Threat string `json:"threat"`
	// Entry is the target's entry: EntryI386 for an attempt made through
	// int $0x80.
	Entry string `json:"entry,omitempty"`
	// Row is the ID of the ENFORCES row (confine.Enforces) whose claim
	// the target tests; "" when no row claims it, and in a report older
	// than Schema.
	Row string `json:"row,omitempty"`
	// Expected is the catalogue's expectation; null off Linux, for which
	// the catalogue names none.
	Expected *Outcome `json:"expected"`
	Observed Outcome  `json:"observed"`
	// Witness is what the harness read from outside the worker: the
	// kind, and what the confined and the unconfined runs changed of it.
	Witness Witness `json:"witness"`
	// LayersAlone says, for each confinement layer applied alone, whether
	// it stopped the target; null when the build cannot apply one layer
	// at a time.
	LayersAlone map[string]bool `json:"layers_alone"`
	Gap         string          `json:"gap,omitempty"`
	Note        string          `json:"note,omitempty"`
}

// Witness is a target's witness in the report.
type Witness struct {
	// Kind is the target's kind of witness, or WitnessNone for an
	// attempt that changes nothing outside the worker.
	Kind string `json:"kind"`
	// Confined and Unconfined are the lines about the witness, of the
	// confined run and of the control: empty where it did not change;
	// both are null for the kind "none", and Unconfined is null where
	// there is no control.
	Confined   []string `json:"confined"`
	Unconfined []string `json:"unconfined"`
}

// WitnessNone is the witness kind of an attempt that changes nothing
// outside the worker even when it goes through.
const WitnessNone = "none"

// witnessVictim is the witness kind of a signal's victim, a process the
// attempt would kill: Landlock's scope keeps the signal from it while the
// call itself goes through, with no errno.
const witnessVictim = "victim"

// What stopped an attempt, as an Outcome names it. A layer that stopped
// it is named as confine.RefusedBy names the layer that answers the errno
// the attempt met, on the system of the run: on Linux BySeccomp or
// ByLandlock, on macOS core.LayerSandboxProfile, on Windows
// confine.layerAppContainer, confine.layerJobObject and the rest.
const (
	// BySeccomp: the seccomp filter refused the call (EPERM or ENOSYS on
	// Linux; EPROTONOSUPPORT in a report of a build whose filter answered
	// an MPTCP socket so).
	BySeccomp = core.LayerSeccomp
	// ByLandlock: Landlock refused it (EACCES, or EXDEV for a link or
	// rename across directories), or its scope kept a signal from another
	// process while the call itself went through.
	ByLandlock = core.LayerLandlockFamily
	// ByLanguage: no confinement layer changed the outcome: the attempt
	// went through, or failed as it fails unconfined. Only the language,
	// which refuses it on the normal build, holds it.
	ByLanguage = "language"
	// Unavailable: the attempt could not be made on this system (raw
	// system calls are offered on Linux only, and a call's name may not
	// exist on every architecture).
	Unavailable = "unavailable"
	// ByUnknown: the confined run failed in a way the harness cannot
	// attribute: an errno no layer of the system gives (confine.Refusals
	// has no line for it); a check that meets it fails.
	ByUnknown = "unknown"
)

// Outcome is what became of an attempt on the knock-out build, confined:
// what stopped it, and the errno it met ("" when it went through).
type Outcome struct {
	StoppedBy string `json:"stopped_by"`
	Errno     string `json:"errno"`
}

// String prints the outcome as "seccomp EPERM" or "language".
func (o Outcome) String() string {
	return strings.TrimSpace(o.StoppedBy + " " + o.Errno)
}

// Kernel reports whether a confinement layer stopped the attempt: its
// StoppedBy names a layer, not the language, an unavailable attempt or
// an unknown failure.
func (o Outcome) Kernel() bool {
	switch o.StoppedBy {
	case "", ByLanguage, Unavailable, ByUnknown:
		return false
	}
	return true
}

// recordsRows reports whether the report's targets name the ENFORCES row
// they test: a report of Schema does; an older one does not, and the
// evidence of its cells is not known.
func (r Report) recordsRows() bool { return r.Schema == Schema }

// System is the system the report is of.
func (r Report) System() confine.System {
	sys, _ := confine.SystemOf(r.OS)
	return sys
}

// JSON is the report as it is committed: indented, targets in catalogue
// order.
func (r Report) JSON() []byte {
	out, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		panic("kernelreport: marshal report: " + err.Error()) // every field is marshalable
	}
	return append(out, '\n')
}

// Read reads the report at path, as Parse does. Every error is E333; when
// there is no file, it wraps fs.ErrNotExist.
func Read(path string) (Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return Report{}, codes.Errorf(codes.E333, "read report: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return Report{}, codes.Errorf(codes.E333, "read report %s: %w", path, err)
	}
	r, err := Parse(data)
	if err != nil {
		return Report{}, codes.Errorf(codes.E333, "read report %s: %w", path, err)
	}
	return r, nil
}

// Parse reads a report of one of Schemas: at most MaxBytes of JSON, one
// object with at most MaxTargets targets, of a system of confine.Systems,
// each target with an ID no other has. The targets of a report older
// than Schema name no row, whatever the file says.
func Parse(data []byte) (Report, error) {
	if len(data) > MaxBytes {
		return Report{}, fmt.Errorf("larger than %d MiB: no kernel report is", MaxBytes>>20)
	}
	// The targets are read one by one, so that a report of too many is
	// refused before they are all held.
	var head struct {
		Report
		Targets json.RawMessage `json:"targets"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Report{}, fmt.Errorf("not a kernel report: %w", err)
	}
	r := head.Report
	if !slices.Contains(Schemas, r.Schema) {
		return Report{}, fmt.Errorf("schema %q: want one of %s", r.Schema,
			strings.Join(Schemas, ", "))
	}
	if _, ok := confine.SystemOf(r.OS); !ok {
		return Report{}, fmt.Errorf("os %q: want one of %s", r.OS, systemNames())
	}
	targets, err := parseTargets(head.Targets)
	if err != nil {
		return Report{}, err
	}
	r.Targets = targets
	seen := map[string]bool{}
	for i := range r.Targets {
		t := &r.Targets[i]
		switch {
		case t.ID == "":
			return Report{}, fmt.Errorf("target %d has no id", i+1)
		case seen[t.ID]:
			return Report{}, fmt.Errorf("target %q is in the report twice", t.ID)
		}
		seen[t.ID] = true
		if !r.recordsRows() {
			t.Row = ""
		}
		if _, ok := confine.EnforcesRow(t.Row); t.Row != "" && !ok {
			// Its evidence would count for no cell, and the cell it
			// meant would read untested without a word.
			return Report{}, fmt.Errorf("target %q: row %q is no row of the enforcement table", t.ID,
				t.Row)
		}
		if err := t.consistent(r.System(), r.Schema); err != nil {
			return Report{}, fmt.Errorf("target %q: %w", t.ID, err)
		}
		if err := t.madeWhereOffered(r.I386Entry); err != nil {
			return Report{}, fmt.Errorf("target %q: %w", t.ID, err)
		}
	}
	if !r.Build.Knockout {
		return Report{}, errors.New("build: not a knock-out build: the language's checks held its runs, " +
			"so nothing in it is what the kernel alone stopped")
	}
	return r, nil
}

// consistent reports whether a target's outcome can be read as the report
// says: a layer it credits with a stop is a layer of the report's system
// that answers with the errno the attempt met (confine.Refusals, as the
// harness names the layer by that errno; Landlock's scope with none, for
// a signal it kept from a victim on Linux; seccomp EPROTONOSUPPORT in a
// report older than Schema) and, where the layers alone were measured,
// one that stopped it alone (the errno a layer answers can come from
// another: seccomp's EPERM from the capabilities dropped), and a stopped
// target with a witness left it as it was while its control changed it;
// otherwise the verdict "refused" would rest on words alone.
func (t Target) consistent(sys confine.System, schema string) error {
	o := t.Observed
	if !o.Kernel() {
		return nil
	}
	known, answers := false, false
	for _, ref := range confine.Refusals() {
		known = known || (ref.System == sys && ref.Layer == o.StoppedBy)
		answers = answers || (ref.System == sys && ref.Layer == o.StoppedBy && ref.Errno == o.Errno)
	}
	switch {
	case !known:
		return fmt.Errorf("stopped by %q, which is no layer of %s", o.StoppedBy, sys)
	case answers,
		sys == confine.Linux && o.StoppedBy == ByLandlock && o.Errno == "" &&
			t.Witness.Kind == witnessVictim,
		sys == confine.Linux && o.StoppedBy == BySeccomp && o.Errno == "EPROTONOSUPPORT" &&
			schema != Schema:
	default:
		return fmt.Errorf("stopped by %s, which on %s answers no call with %q: nothing shows "+
			"that layer refused the attempt", o.StoppedBy, sys, o.Errno)
	}
	for layer, stopped := range t.LayersAlone {
		if !stopped && strings.HasPrefix(o.StoppedBy, layer) {
			return fmt.Errorf("stopped by %s, yet %s alone did not stop it: the errno %q came from "+
				"another layer, and nothing shows %s refused the attempt", o.StoppedBy, layer, o.Errno,
				o.StoppedBy)
		}
	}
	if t.Witness.Kind == WitnessNone || t.Witness.Kind == "" {
		return nil
	}
	switch {
	case len(t.Witness.Confined) > 0:
		return fmt.Errorf("stopped by %s, yet the confined run changed its %s witness: %s", o.StoppedBy,
			t.Witness.Kind, strings.Join(t.Witness.Confined, ", "))
	case len(t.Witness.Unconfined) == 0:
		return fmt.Errorf("stopped by %s, yet the control changed no %s witness: nothing shows the attempt "+
			"could be seen", o.StoppedBy, t.Witness.Kind)
	}
	return nil
}

// madeWhereOffered reports whether a target made through the i386 entry
// is unavailable where the report says the kernel does not offer that
// entry (i386, false): an attempt that cannot be made was stopped by no
// layer, and did not go through.
func (t Target) madeWhereOffered(i386 *bool) error {
	if t.Entry != EntryI386 || i386 == nil || *i386 || t.Observed.StoppedBy == Unavailable {
		return nil
	}
	return fmt.Errorf("made through the i386 entry, which the report says this kernel does not "+
		"offer, yet %s, not %s", t.Observed, Unavailable)
}

// parseTargets reads the targets array, refusing more than MaxTargets.
func parseTargets(raw json.RawMessage) ([]Target, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, errors.New("no targets: a kernel report has a targets array")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, errors.New("targets: want an array")
	}
	targets := []Target{}
	for dec.More() {
		if len(targets) == MaxTargets {
			return nil, fmt.Errorf("more than %d targets: no kernel report has so many", MaxTargets)
		}
		var t Target
		if err := dec.Decode(&t); err != nil {
			return nil, fmt.Errorf("target %d: %w", len(targets)+1, err)
		}
		targets = append(targets, t)
	}
	return targets, nil
}

// systemNames lists confine.Systems for a message.
func systemNames() string {
	names := make([]string, len(confine.Systems()))
	for i, s := range confine.Systems() {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}
