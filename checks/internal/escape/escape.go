// Package escape is the harness of Sabline's escape checks: a catalogue of
// programs that try to get out of a confined run, each with the budget it
// runs under and what should stop it, and the code that runs them, reads
// what became of each attempt and records it as the kernel report.
//
// A target is attempted three times, by checks/sandbox:
//
//   - on the normal build, where the language refuses it (E302 naming the
//     missing grant, or E318) and nothing happens;
//   - on the knock-out build (-tags sabline_knockout), where every budget
//     check passes and only the operating system holds the run: the kernel
//     refuses it, with the errno the catalogue expects, or nothing does;
//   - on the knock-out build with --no-confine, where a destructive target
//     meets its harmless errno (EINVAL, EBADF, ENOENT...) and a harmless one
//     goes through. This run is the control: it shows the attempt is
//     harmless, and that the errno of the confined run came from a
//     confinement layer, since without one the answer differs.
//
// What an attempt changed outside the worker is read by the harness before
// and after each run (Scratch.Witness): the scratch files' content and
// metadata, the kernel objects the placeholders name, the victim, the
// listeners; and the victim's priority, which a lend changes only while
// the run waits, throughout it (WitnessPriority). A target with a witness
// is judged by it (Observe), its errno recorded beside it.
//
// Every target is harmless by construction on a machine where the tests run
// as root: raw calls carry arguments the kernel rejects before it acts
// (reboot with a bad magic, mount of a missing source onto a missing
// target, settimeofday with a negative microsecond count), files are made
// and changed only in scratch directories the harness made, connections go
// only to loopback listeners it started, and signals only to a process it
// started, or to -1 and 0 with signal 0, which checks permission and
// delivers nothing. The targets that change metadata or make kernel
// objects do so only on scratch files and under names the harness made,
// and the harness removes those objects when the run ends.
package escape

import (
	"fmt"
	"strings"

	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/kernelreport"
)

// The groups of the catalogue, in the order reports print them.
const (
	GroupFiles       = "files"
	GroupNetwork     = "network"
	GroupProcesses   = "processes"
	GroupKernel      = "kernel"
	GroupABI         = "abi"
	GroupConfinement = "confinement"
	GroupThreads     = "threads"
)

// Groups lists the groups in order.
var Groups = []string{GroupFiles, GroupNetwork, GroupProcesses, GroupKernel, GroupABI,
	GroupConfinement, GroupThreads}

// What stopped an attempt, as an Outcome names it: kernelreport's names.
// A layer that stopped it is named as confine.RefusedBy names the layer
// that answers the errno the attempt met, on the system of the run: on
// Linux BySeccomp or ByLandlock, on macOS core.LayerSandboxProfile, on
// Windows confine.layerAppContainer, confine.layerJobObject and the rest.
const (
	// BySeccomp: the seccomp filter refused the call (EPERM or ENOSYS on
	// Linux).
	BySeccomp = kernelreport.BySeccomp
	// ByLandlock: Landlock refused it (EACCES, or EXDEV for a link or
	// rename across directories), or its scope kept a signal from another
	// process while the call itself went through.
	ByLandlock = kernelreport.ByLandlock
	// ByLanguage: no confinement layer changed the outcome: the attempt
	// went through, or failed as it fails unconfined. Only the language,
	// which refuses it on the normal build, holds it.
	ByLanguage = kernelreport.ByLanguage
	// Unavailable: the attempt could not be made on this system (raw
	// system calls are offered on Linux only, and a call's name may not
	// exist on every architecture).
	Unavailable = kernelreport.Unavailable
	// ByUnknown: the confined run failed in a way this harness cannot
	// attribute: an errno no layer of the system gives (confine.Refusals
	// has no line for it); a check that meets it fails.
	ByUnknown = kernelreport.ByUnknown
)

// Outcome is what became of an attempt on the knock-out build, confined:
// what stopped it, and the errno it met ("" when it went through). Its
// String prints it as "seccomp EPERM" or "language"; its Kernel says
// whether a confinement layer stopped it.
type Outcome = kernelreport.Outcome

// Attempt results that are not an errno.
const (
	// Went: the attempt went through (the program printed RESULT ok).
	Went = "ok"
	// Killed: the attempt went through and the victim process died of it.
	Killed = "killed"
)

// victimEnded is the attempt's result when the victim process exited by
// itself, no signal ending it: no attempt's doing (Scratch.Victim).
const victimEnded = "victim-ended"

// Target is one attempt to get out of a run.
type Target struct {
	ID     string // stable: reports and messages name targets by it
	Group  string // one of Groups
	Threat string // one line: what an escape here would give a program
	// Budget is the --allow text the program runs under, with the
	// placeholders Scratch.Expand fills in.
	Budget string
	// Flags are further run flags, such as --confine strict.
	Flags []string
	// Program is the .vel text, with placeholders; Prelude is put before
	// it. It prints one line "RESULT ok ..." or "RESULT errno=NAME ...",
	// or ends with the error of the effect the kernel refused.
	Program string
	// Row is the ID of the ENFORCES row (confine.Enforces) whose claim the
	// target tests; "" when no row claims it.
	Row string
	// Language is what the normal build's refusal names: the item its E302
	// tells the operator to add, such as ffi:ctypes; or "E318" for a
	// guarded location, or "E329" for a budget that names one.
	Language string
	// Arch is the one architecture the target exists on ("amd64" for a
	// call through another architecture's entry); "" for every one.
	Arch string
	// Entry names the kernel entry the attempt is made through when it
	// is not the architecture's own: EntryI386 for int $0x80, which a
	// kernel built without IA32 emulation does not offer (I386Entry
	// asks). "" for the architecture's own.
	Entry string
	// Expect is the outcome on Linux, on the knock-out build, confined,
	// with Landlock at linux.LandlockMaxABI.
	Expect Outcome
	// Older are the outcomes on a kernel whose Landlock is older, where
	// they differ from Expect, by ABI, lowest bound first (ExpectAt).
	Older []Older
	// Unconfined is the attempt's result on the knock-out build with
	// --no-confine: Went, Killed or the harmless errno; where the answer
	// depends on how the kernel was built, the answers it may give,
	// joined by "|" ("EINVAL|ENOSYS"). "" when the target is not run
	// unconfined, and NoControl says why.
	Unconfined string
	NoControl  string
	// Gap, when not empty, says what the kernel lets through here that a
	// confined run should not be allowed, and what would hold it.
	Gap string
	// Note is what else a reader of the outcome should know.
	Note string
	// Witness is the kind of witness (WitnessFiles, WitnessMqueue...)
	// the attempt changes when it goes through: the harness reads it
	// from outside the worker before and after every run, and the
	// target is stopped only where it did not change. "" for an attempt
	// that changes nothing outside the worker even when it goes through
	// (a read, a query, a call whose arguments fail before it acts),
	// which is judged by what the run printed.
	Witness string
	// Stdin is a file, with placeholders, the run reads as standard
	// input: a descriptor the worker inherits from the harness. "" for
	// none.
	Stdin string
	// Extra is a file, with placeholders, the sabline command inherits
	// from the harness as descriptor ExtraFD, opened for reading and
	// writing, as from a shell that had it open. "" for none.
	Extra string
}

// Older is the outcome of a target on a kernel whose Landlock ABI is
// below Below, and at least the Below of the entry before it.
type Older struct {
	Below  int
	Expect Outcome
	// Why says what that kernel's Landlock lacks.
	Why string
}

// ExpectAt is t's outcome on Linux with Landlock at abi (1 to
// linux.LandlockMaxABI): the first of t.Older whose Below is above abi, or
// t.Expect.
func (t Target) ExpectAt(abi int) Outcome {
	for _, o := range t.Older {
		if abi < o.Below {
			return o.Expect
		}
	}
	return t.Expect
}

// UnconfinedAllows reports whether attempt is one of the results
// Unconfined allows.
func (t Target) UnconfinedAllows(attempt string) bool {
	for _, a := range strings.Split(t.Unconfined, "|") {
		if a != "" && a == attempt {
			return true
		}
	}
	return false
}

// Validate checks that t is complete: a known group, a program, an
// expectation, and a control or the reason there is none.
func (t Target) Validate() error {
	var problems []string
	if t.ID == "" || strings.ContainsAny(t.ID, " \t\n") {
		problems = append(problems, "the ID is empty or has blanks")
	}
	known := false
	for _, g := range Groups {
		known = known || g == t.Group
	}
	if !known {
		problems = append(problems, fmt.Sprintf("unknown group %q", t.Group))
	}
	if t.Threat == "" || strings.Contains(t.Threat, "\n") {
		problems = append(problems, "the threat is not one line")
	}
	if t.Program == "" {
		problems = append(problems, "no program")
	}
	if t.Language == "" {
		problems = append(problems, "no language refusal")
	}
	switch t.Expect.StoppedBy {
	case BySeccomp, ByLandlock, ByLanguage:
	default:
		problems = append(problems,
			fmt.Sprintf("the expected outcome %q is not seccomp, landlock or language", t.Expect.StoppedBy))
	}
	if (t.Unconfined == "") == (t.NoControl == "") {
		problems = append(problems, "want either an unconfined result or the reason there is none")
	}
	if t.Witness != "" {
		known := false
		for _, k := range WitnessKinds {
			known = known || k == t.Witness
		}
		if !known {
			problems = append(problems, fmt.Sprintf("unknown witness %q", t.Witness))
		}
		if t.Unconfined == "" {
			problems = append(problems, "a witness needs the control that shows it change")
		}
	}
	if t.Entry != "" && (t.Entry != EntryI386 || t.Arch != "amd64") {
		problems = append(problems,
			fmt.Sprintf("entry %q: the one other entry is %q, on amd64", t.Entry, EntryI386))
	}
	if strings.Contains(t.Program, "syscall32") != (t.Entry == EntryI386) {
		problems = append(problems,
			"a program that calls through the i386 entry, and only one, has the entry "+EntryI386)
	}
	for i, o := range t.Older {
		switch {
		case o.Below < 2 || o.Below > linux.LandlockMaxABI:
			problems = append(problems, fmt.Sprintf("an older outcome below ABI %d, "+
				"where ABI 1 to %d are", o.Below, linux.LandlockMaxABI))
		case i > 0 && o.Below <= t.Older[i-1].Below:
			problems = append(problems, "the older outcomes are not in rising order of ABI")
		case o.Why == "":
			problems = append(problems, fmt.Sprintf("the outcome below ABI %d says no why", o.Below))
		}
		if o.Expect.StoppedBy != BySeccomp && o.Expect.StoppedBy != ByLandlock &&
			o.Expect.StoppedBy != ByLanguage {
			problems = append(problems, fmt.Sprintf("the outcome below ABI %d %q is not "+
				"seccomp, landlock or language", o.Below, o.Expect.StoppedBy))
		}
	}
	if t.Gap != "" && t.Expect.StoppedBy != ByLanguage {
		problems = append(problems, "a gap is something only the language holds")
	}
	if len(problems) > 0 {
		return fmt.Errorf("target %s: %s", t.ID, strings.Join(problems, "; "))
	}
	return nil
}
