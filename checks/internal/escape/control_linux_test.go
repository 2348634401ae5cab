package escape

import (
	"slices"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/internal/testkit/buildbin"
)

// TestObserveNeedsTheControlsAnswer runs a target with no witness
// (kern-reboot, whose bad magic the kernel answers EINVAL) confined on the
// knock-out build, where seccomp answers EPERM, beside two controls: one
// that made the attempt (the positive control: the refusal is credited to
// seccomp, as the catalogue expects), and one that timed out before its
// first statement, as a control can on a loaded machine. With no answer
// of the control to differ from, the confined run's EPERM shows nothing
// of what stopped the attempt: the outcome is unknown, never a layer's.
func TestObserveNeedsTheControlsAnswer(t *testing.T) {
	bins, target := knockoutTarget(t, "kern-reboot")
	if target.Witness != "" {
		t.Fatal("the catalogue's kern-reboot has a witness")
	}
	run := executor(t, bins)
	confined := run(target, Confined)
	control := run(target, Unconfined)
	if !target.UnconfinedAllows(control.Attempt()) {
		t.Fatalf("the control met %q, want %s\n%s", control.Attempt(), target.Unconfined, control.Stderr)
	}
	if got := Observe(target, confined, &control, "linux"); got != target.Expect {
		t.Fatalf("with the control's answer, Observe = %v, want %v\n%s", got, target.Expect,
			confined.Stderr)
	}
	timedOut := timedOutControl(t, run, target)
	if got := Observe(target, confined, &timedOut, "linux"); got.StoppedBy != ByUnknown {
		t.Errorf("with a control that timed out, Observe = %v, want %s: the confined %s was "+
			"credited to a layer with nothing to differ from", got, ByUnknown, confined.Errno)
	}
}

// TestRunsIgnoreTheHarnessEnvironment runs files-chmod-outside, whose
// witness is the scratch file's mode, on the knock-out build while the
// harness's own environment asks for Landlock alone (LayerEnv), as an
// operator's shell left set can: a run's layers are the harness's to
// choose, so the confined run is held by every layer and seccomp refuses
// the chmod, the file's mode read unchanged from outside. The control:
// the mode Alone("landlock") asks for itself is honoured, and the chmod,
// which Landlock has no right for, goes through and is seen.
func TestRunsIgnoreTheHarnessEnvironment(t *testing.T) {
	bins, target := knockoutTarget(t, "files-chmod-outside")
	if target.Witness != WitnessFiles || target.Expect.StoppedBy != BySeccomp {
		t.Fatal("the catalogue's files-chmod-outside has no files witness, or is not stopped by seccomp")
	}
	t.Setenv(LayerEnv, "landlock")
	execute := executor(t, bins)
	run := func(m Mode) Run { return execute(target, m) }
	control := run(Unconfined)
	if len(control.Witnessed) == 0 {
		t.Fatalf("the control did not change the witness\n%s", control.Stderr)
	}
	alone := run(Alone("landlock"))
	if len(alone.Layers) != 1 || len(alone.Witnessed) == 0 {
		t.Fatalf("with Landlock alone, asked by the harness: layers %q, witness %q; want landlock "+
			"alone and the mode changed\n%s", alone.Layers, alone.Witnessed, alone.Stderr)
	}
	confined := run(Confined)
	if got := Observe(target, confined, &control, "linux"); got != target.Expect {
		t.Errorf("with %s=landlock in the harness's environment, the confined run: %v (layers %q, "+
			"witness %q), want %v", LayerEnv, got, confined.Layers, confined.Witnessed, target.Expect)
	}
}

// TestObserveAnEscapeWithoutItsControl runs files-stat-outside, a gap no
// layer closes (the confined run's fs.exists goes through), confined on
// the knock-out build, beside a control that timed out before its first
// statement, as a control can on a loaded machine. The confined run went
// through: that is an escape whatever its control did, never unknown (a
// run that failed in a way no layer explains), which the kernel report
// counts apart from escapes. The positive control: beside a control that
// made its attempt, the same confined run is the escape the catalogue
// expects.
func TestObserveAnEscapeWithoutItsControl(t *testing.T) {
	bins, target := knockoutTarget(t, "files-stat-outside")
	if target.Witness != "" || target.Expect.StoppedBy != ByLanguage {
		t.Fatal("the catalogue has no files-stat-outside without a witness, held by the " +
			"language alone")
	}
	run := executor(t, bins)
	confined := run(target, Confined)
	if confined.Attempt() != Went {
		t.Fatalf("the confined run met %q, want it to go through\n%s", confined.Attempt(),
			confined.Stderr)
	}
	control := run(target, Unconfined)
	if got := Observe(target, confined, &control, "linux"); got != target.Expect {
		t.Fatalf("with the control's answer, Observe = %v, want %v\n%s", got, target.Expect,
			control.Stderr)
	}
	timedOut := timedOutControl(t, run, target)
	if got := Observe(target, confined, &timedOut, "linux"); got != target.Expect {
		t.Errorf("with a control that timed out, Observe = %v, want %v: the confined run went "+
			"through, an escape whatever its control did", got, target.Expect)
	}
}

// knockoutTarget builds the knock-out sabline (skipping under -short,
// saying so) and returns it as both of a run's builds, with the target of
// the catalogue named id.
func knockoutTarget(t *testing.T, id string) (Binaries, Target) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the knock-out sabline and runs it")
	}
	knockout, err := buildbin.Sabline("sabline_knockout")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(buildbin.Cleanup)
	for _, c := range Catalogue {
		if c.ID == id {
			return Binaries{Normal: knockout, Knockout: knockout}, c
		}
	}
	t.Fatalf("no target %s in the catalogue", id)
	return Binaries{}, Target{}
}

// executor returns Execute of bins in a temporary directory of the
// test's, failing the test where a run cannot be made.
func executor(t *testing.T, bins Binaries) func(Target, Mode) Run {
	dir := t.TempDir()
	return func(tg Target, m Mode) Run {
		t.Helper()
		r, err := Execute(bins, tg, m, dir)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
}

// timedOutControl runs target's control with a timeout of 1ns, as a
// control on a loaded machine can end: E307, before its first statement,
// no attempt made.
func timedOutControl(t *testing.T, run func(Target, Mode) Run, target Target) Run {
	t.Helper()
	slow := target
	slow.Flags = append(append([]string(nil), target.Flags...), "--timeout", "1ns")
	timedOut := run(slow, Unconfined)
	if timedOut.Code != string(codes.E307) || timedOut.Attempt() != "" {
		t.Fatalf("the control given 1ns ended with %q, attempt %q, want E307 and none\n%s",
			timedOut.Code, timedOut.Attempt(), timedOut.Stderr)
	}
	return timedOut
}

// TestI386EntryIgnoresTheHarnessEnvironment: the probe of the i386 entry
// answers the same with a malformed SABLINE_FAULT_INJECT left in the
// harness's environment, which a sabline it handed it would refuse (E311)
// before running anything. The control: without it, the same answer.
func TestI386EntryIgnoresTheHarnessEnvironment(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sabline and runs it")
	}
	bin, err := buildbin.Sabline()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(buildbin.Cleanup)
	want, wantErr := I386Entry(bin)
	if wantErr != nil {
		t.Fatalf("the probe without the variable: %v", wantErr)
	}
	t.Setenv("SABLINE_FAULT_INJECT", "not-a-fault")
	if got, err := I386Entry(bin); got != want || err != nil {
		t.Errorf("the probe with SABLINE_FAULT_INJECT set: %v, %v; want %v, no error", got, err,
			want)
	}
}

// TestExecuteAsksItsMode runs files-truncate-outside, whose truncation
// Landlock refuses from ABI 3 and the filter below it, on the knock-out
// build in the mode AtABI(2): the run is held by Landlock at ABI 2, as
// its receipt says, the truncation is refused by seccomp (EPERM), as the
// catalogue expects at that ABI, and the file is read unchanged from
// outside the worker. The controls: the same target confined at the
// kernel's ABI is refused by Landlock (EACCES), the file unchanged, and
// unconfined it truncates the file. A harness that did not ask the
// build for the older ABI ran every older-ABI run at the kernel's: the
// sandbox suite then compared nothing below it.
func TestExecuteAsksItsMode(t *testing.T) {
	bins, target := knockoutTarget(t, "files-truncate-outside")
	if abi, err := linux.LandlockABI(); err != nil || abi < 3 {
		t.Skipf("this kernel's Landlock ABI is %d (%v): the truncation is held alike below 3 "+
			"and at it", abi, err)
	}
	run := executor(t, bins)
	control := run(target, Unconfined)
	if len(control.Witnessed) == 0 {
		t.Fatalf("the control did not truncate the file\n%s", control.Stderr)
	}
	for _, tt := range []struct {
		name   string
		mode   Mode
		abi    int
		layer  string // a layer the receipt names
		expect Outcome
	}{
		{name: "at Landlock ABI 2", mode: AtABI(2), abi: 2, layer: "landlock-abi2",
			expect: seccomp("EPERM")},
		{name: "the control: at the kernel's ABI", mode: Confined, abi: linux.LandlockMaxABI,
			expect: landlock("EACCES")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := run(target, tt.mode)
			if tt.layer != "" && !slices.Contains(r.Layers, tt.layer) {
				t.Errorf("the receipt names the layers %q, want %s among them", r.Layers, tt.layer)
			}
			if len(r.Witnessed) != 0 {
				t.Errorf("the file was changed: %q", r.Witnessed)
			}
			got := Observe(target, r, &control, "linux")
			if got != tt.expect || got != target.ExpectAt(tt.abi) {
				t.Errorf("Observe = %v, want %v (the catalogue's at ABI %d: %v)\n%s", got,
					tt.expect, tt.abi, target.ExpectAt(tt.abi), r.Stderr)
			}
		})
	}
}
