package escape

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/kernelreport"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name       string
		stdout     string
		stderr     string
		wantCode   string
		wantWent   bool
		wantErrno  string
		wantFields map[string]string
	}{
		{name: "a raw call refused", stdout: "RESULT errno=EPERM ret=-1\n", wantErrno: "EPERM",
			wantFields: map[string]string{"ret": "-1"}},
		{name: "a call that went through, with fields", stdout: "RESULT ok ret=3 threads=5\n", wantWent: true,
			wantFields: map[string]string{"ret": "3", "threads": "5"}},
		{name: "an effect the kernel refused",
			stderr:   "sabline: KNOCK-OUT BUILD: every budget check passes\nsabline: E319: fs.read /x: the kernel refused it (EACCES); refused by: landlock-abi7\n  at prog.vel:1:8\n",
			wantCode: "E319", wantErrno: "EACCES", wantFields: map[string]string{}},
		{name: "a host module's call the kernel refused",
			stderr:   "sabline: E319: os.system: fork/exec /bin/sh: operation not permitted: the kernel refused it; refused by: seccomp\n",
			wantCode: "E319", wantErrno: "EPERM", wantFields: map[string]string{}},
		{name: "the language's refusal carries no errno",
			stderr:   "sabline: E302: ffi module ctypes: not granted: add ffi:ctypes to the budget\n",
			wantCode: "E302", wantFields: map[string]string{}},
		{name: "a Windows refusal by name",
			stderr:   "sabline: E319: fs.read C:\\x: the kernel refused it (ERROR_ACCESS_DENIED); refused by: appcontainer\n",
			wantCode: "E319", wantErrno: "ERROR_ACCESS_DENIED", wantFields: map[string]string{}},
		{name: "a Windows refusal the runtime gives by number",
			stderr:   "sabline: E319: fs.read C:\\x: the kernel refused it (errno 5); refused by: appcontainer\n",
			wantCode: "E319", wantErrno: "ERROR_ACCESS_DENIED", wantFields: map[string]string{}},
		{name: "a number no table names stays a number",
			stderr:   "sabline: E319: fs.read /x: the kernel refused it (errno 4242); refused by: seccomp\n",
			wantCode: "E319", wantErrno: "errno 4242", wantFields: map[string]string{}},
		{name: "the banner is not an error", stderr: "sabline: KNOCK-OUT BUILD: every budget check passes\n",
			wantFields: map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Parse(tt.stdout, tt.stderr, 0)
			if r.Code != tt.wantCode || r.Went != tt.wantWent || r.Errno != tt.wantErrno || !reflect.DeepEqual(r.Fields, tt.wantFields) {
				t.Errorf("Parse = code %q went %v errno %q fields %v; want %q %v %q %v",
					r.Code, r.Went, r.Errno, r.Fields, tt.wantCode, tt.wantWent, tt.wantErrno, tt.wantFields)
			}
		})
	}
}

func TestOutcomeKernel(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Outcome
		want bool
	}{
		{name: "seccomp", o: Outcome{StoppedBy: BySeccomp, Errno: "EPERM"}, want: true},
		{name: "landlock", o: Outcome{StoppedBy: ByLandlock, Errno: "EACCES"}, want: true},
		{name: "the macOS profile", o: Outcome{StoppedBy: "sandbox-profile", Errno: "EPERM"}, want: true},
		{name: "the Windows job", o: Outcome{StoppedBy: "job-object", Errno: "ERROR_NOT_ENOUGH_QUOTA"}, want: true},
		{name: "the language", o: Outcome{StoppedBy: ByLanguage}},
		{name: "unavailable", o: Outcome{StoppedBy: Unavailable}},
		{name: "unknown", o: Outcome{StoppedBy: ByUnknown, Errno: "ENOENT"}},
		{name: "nothing", o: Outcome{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.o.Kernel(); got != tc.want {
				t.Errorf("%v.Kernel() = %v, want %v", tc.o, got, tc.want)
			}
		})
	}
}

func TestObserve(t *testing.T) {
	refused := func(errno string) Run { return Run{Errno: errno} }
	noAttempt := func(msg string) Run { return Run{Code: "E305", Message: msg} }
	ptr := func(r Run) *Run { return &r }
	went := Run{Went: true}
	files := Target{Witness: WitnessFiles}
	changed := []string{"files:outside/secret.txt: ctime mode"}
	tests := []struct {
		name       string
		target     Target
		confined   Run
		unconfined *Run
		goos       string
		want       Outcome
	}{
		{name: "EPERM where unconfined meets EINVAL", confined: refused("EPERM"), unconfined: &Run{Errno: "EINVAL"},
			goos: "linux", want: Outcome{StoppedBy: BySeccomp, Errno: "EPERM"}},
		{name: "ENOSYS of clone3", confined: refused("ENOSYS"), unconfined: &Run{Errno: "EINVAL"},
			goos: "linux", want: Outcome{StoppedBy: BySeccomp, Errno: "ENOSYS"}},
		{name: "EACCES where unconfined goes through", confined: refused("EACCES"), unconfined: &went,
			goos: "linux", want: Outcome{StoppedBy: ByLandlock, Errno: "EACCES"}},
		{name: "EXDEV of a link across directories", confined: refused("EXDEV"), unconfined: &went,
			goos: "linux", want: Outcome{StoppedBy: ByLandlock, Errno: "EXDEV"}},
		{name: "the same answer either way", confined: refused("EINVAL"), unconfined: &Run{Errno: "EINVAL"},
			goos: "linux", want: Outcome{StoppedBy: ByLanguage, Errno: "EINVAL"}},
		{name: "went through", confined: went, unconfined: &went, goos: "linux", want: Outcome{StoppedBy: ByLanguage}},
		{name: "the victim lived where unconfined it died", target: Target{Witness: WitnessVictim},
			confined: Run{Went: true, Witnessed: []string{}}, unconfined: &Run{Went: true, Victim: Killed, Witnessed: []string{"victim: alive"}},
			goos: "linux", want: Outcome{StoppedBy: ByLandlock}},
		{name: "the victim died", target: Target{Witness: WitnessVictim},
			confined:   Run{Went: true, Victim: Killed, Witnessed: []string{"victim: alive"}},
			unconfined: &Run{Went: true, Victim: Killed, Witnessed: []string{"victim: alive"}},
			goos:       "linux", want: Outcome{StoppedBy: ByLanguage}},
		{name: "a witness unchanged where the control changed it: the errno names the layer", target: files,
			confined: Run{Errno: "EPERM", Witnessed: []string{}}, unconfined: &Run{Went: true, Witnessed: changed},
			goos: "linux", want: Outcome{StoppedBy: BySeccomp, Errno: "EPERM"}},
		{name: "a witness changed: went through, whatever the errno", target: files,
			confined: Run{Errno: "EACCES", Witnessed: changed}, unconfined: &Run{Went: true, Witnessed: changed},
			goos: "linux", want: Outcome{StoppedBy: ByLanguage, Errno: "EACCES"}},
		{name: "a witness the control did not change tells nothing", target: files,
			confined: Run{Errno: "EPERM", Witnessed: []string{}}, unconfined: &Run{Went: true, Witnessed: []string{}},
			goos: "linux", want: Outcome{StoppedBy: ByUnknown, Errno: "EPERM"}},
		{name: "a witness unchanged, and a call that went through without a signal to explain it", target: files,
			confined: Run{Went: true, Witnessed: []string{}}, unconfined: &Run{Went: true, Witnessed: changed},
			goos: "linux", want: Outcome{StoppedBy: ByUnknown}},
		{name: "a witness unchanged elsewhere", target: files,
			confined: Run{Errno: "EPERM", Witnessed: []string{}}, unconfined: &Run{Went: true, Witnessed: changed},
			goos: "darwin", want: Outcome{StoppedBy: "sandbox-profile", Errno: "EPERM"}},
		{name: "no control: the errno names the layer", confined: refused("EPERM"), goos: "linux", want: Outcome{StoppedBy: BySeccomp, Errno: "EPERM"}},
		{name: "an errno no layer gives", confined: refused("ENOENT"), unconfined: &went, goos: "linux", want: Outcome{StoppedBy: ByUnknown, Errno: "ENOENT"}},
		{name: "no raw calls on this system", confined: noAttempt("ctypes.syscall: raw system calls are offered on Linux only, not darwin"),
			unconfined: ptr(noAttempt("ctypes.syscall: raw system calls are offered on Linux only, not darwin")), goos: "darwin",
			want: Outcome{StoppedBy: Unavailable}},
		{name: "a name this architecture lacks", confined: noAttempt(`ctypes.syscall: no system call "fork" on arm64`),
			unconfined: ptr(noAttempt(`ctypes.syscall: no system call "fork" on arm64`)), goos: "linux",
			want: Outcome{StoppedBy: Unavailable}},
		{name: "no table for this architecture", confined: noAttempt("ctypes.syscall: no system call table for riscv64"),
			unconfined: ptr(noAttempt("ctypes.syscall: no system call table for riscv64")), goos: "linux",
			want: Outcome{StoppedBy: Unavailable}},
		{name: "no i386 entry on this architecture",
			confined:   noAttempt("ctypes.syscall32: the i386 entry (int $0x80) is offered on linux/amd64 only, not linux/arm64"),
			unconfined: ptr(noAttempt("ctypes.syscall32: the i386 entry (int $0x80) is offered on linux/amd64 only, not linux/arm64")),
			goos:       "linux", want: Outcome{StoppedBy: Unavailable}},
		{name: "no i386 entry off Linux", confined: noAttempt("module has no .syscall32 field or method (did you mean .syscall?)"),
			unconfined: ptr(noAttempt("module has no .syscall32 field or method (did you mean .syscall?)")), goos: "darwin",
			want: Outcome{StoppedBy: Unavailable}},
		{name: "no raw calls, with no control", confined: noAttempt("ctypes.syscall: raw system calls are offered on Linux only, not windows"),
			goos: "windows", want: Outcome{StoppedBy: Unavailable}},
		{name: "the target's own bad argument, either way", confined: noAttempt("ctypes.syscall: argument 1: want int, string, bytes or None, got list"),
			unconfined: ptr(noAttempt("ctypes.syscall: argument 1: want int, string, bytes or None, got list")), goos: "linux",
			want: Outcome{StoppedBy: ByUnknown}},
		{name: "a misspelt call, either way", confined: noAttempt("module has no .sycall field or method (did you mean .syscall?)"),
			unconfined: ptr(noAttempt("module has no .sycall field or method (did you mean .syscall?)")), goos: "linux",
			want: Outcome{StoppedBy: ByUnknown}},
		{name: "the words of an unavailable call inside another message",
			confined:   noAttempt(`fs.read /x: no system call "open" on amd64`),
			unconfined: ptr(noAttempt(`fs.read /x: no system call "open" on amd64`)), goos: "linux",
			want: Outcome{StoppedBy: ByUnknown}},
		{name: "no attempt and no message, either way", confined: Run{Code: "E310"}, unconfined: &Run{Code: "E310"}, goos: "linux",
			want: Outcome{StoppedBy: ByUnknown}},
		{name: "unavailable confined, yet made unconfined", confined: noAttempt(`ctypes.syscall: no system call "fork" on arm64`),
			unconfined: &went, goos: "linux", want: Outcome{StoppedBy: ByUnknown}},
		{name: "no attempt confined only", confined: Run{Code: "E310"}, unconfined: &went, goos: "linux", want: Outcome{StoppedBy: ByUnknown}},
		{name: "no attempt in the control only: nothing to differ from", confined: refused("EPERM"),
			unconfined: &Run{Code: "E307"}, goos: "linux", want: Outcome{StoppedBy: ByUnknown, Errno: "EPERM"}},
		{name: "went confined, no attempt in the control: an escape all the same", confined: went,
			unconfined: &Run{Code: "E307"}, goos: "linux", want: Outcome{StoppedBy: ByLanguage}},
		{name: "a victim killed confined, no attempt in the control", confined: Run{Victim: Killed},
			unconfined: &Run{Code: "E307"}, goos: "linux", want: Outcome{StoppedBy: ByLanguage}},
		{name: "refused by the profile on macOS", confined: refused("EPERM"), unconfined: &went, goos: "darwin", want: Outcome{StoppedBy: "sandbox-profile", Errno: "EPERM"}},
		{name: "the file's own permissions on macOS", confined: refused("EACCES"), unconfined: &went, goos: "darwin", want: Outcome{StoppedBy: ByUnknown, Errno: "EACCES"}},
		{name: "refused by the container on Windows", confined: refused("ERROR_ACCESS_DENIED"), unconfined: &went, goos: "windows",
			want: Outcome{StoppedBy: "appcontainer", Errno: "ERROR_ACCESS_DENIED"}},
		{name: "a process past the job's limit on Windows", confined: refused("ERROR_NOT_ENOUGH_QUOTA"), unconfined: &went, goos: "windows",
			want: Outcome{StoppedBy: "job-object", Errno: "ERROR_NOT_ENOUGH_QUOTA"}},
		{name: "a Unix name on Windows", confined: refused("EPERM"), unconfined: &went, goos: "windows", want: Outcome{StoppedBy: ByUnknown, Errno: "EPERM"}},
		{name: "EPROTONOSUPPORT, which no layer answers", confined: refused("EPROTONOSUPPORT"), unconfined: &went,
			goos: "linux", want: Outcome{StoppedBy: ByUnknown, Errno: "EPROTONOSUPPORT"}},
		{name: "no attempt confined, the victim alive: no scope kept it",
			target:     Target{Witness: WitnessVictim},
			confined:   Run{Code: "E310", Witnessed: []string{}},
			unconfined: &Run{Went: true, Victim: Killed, Witnessed: []string{"victim: alive"}},
			goos:       "linux", want: Outcome{StoppedBy: ByUnknown}},
		{name: "a victim kept alive off Linux is not credited to a scope", target: Target{Witness: WitnessVictim},
			confined: Run{Went: true, Witnessed: []string{}}, unconfined: &Run{Went: true, Victim: Killed, Witnessed: []string{"victim: alive"}},
			goos: "darwin", want: Outcome{StoppedBy: ByUnknown}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Observe(tt.target, tt.confined, tt.unconfined, tt.goos); got != tt.want {
				t.Errorf("Observe = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUnconfinedAllows(t *testing.T) {
	tests := []struct {
		name       string
		unconfined string
		attempt    string
		want       bool
	}{
		{name: "the one answer", unconfined: "EINVAL", attempt: "EINVAL", want: true},
		{name: "another answer", unconfined: "EINVAL", attempt: "EPERM", want: false},
		{name: "one of two", unconfined: "EINVAL|ENOSYS", attempt: "ENOSYS", want: true},
		{name: "no attempt is never allowed", unconfined: "EINVAL|", attempt: "", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Target{Unconfined: tt.unconfined}).UnconfinedAllows(tt.attempt); got != tt.want {
				t.Errorf("UnconfinedAllows(%q) = %v, want %v", tt.attempt, got, tt.want)
			}
		})
	}
}

func TestExpectAt(t *testing.T) {
	two := Target{Expect: landlock("EACCES"), Older: []Older{
		{Below: 3, Expect: seccomp("EPERM"), Why: "no truncate right"},
		{Below: 6, Expect: languageOnly, Why: "no scope"},
	}}
	tests := []struct {
		name string
		t    Target
		abi  int
		want Outcome
	}{
		{name: "none older: every ABI", t: Target{Expect: landlock("EACCES")}, abi: 1,
			want: landlock("EACCES")},
		{name: "the lowest", t: two, abi: 1, want: seccomp("EPERM")},
		{name: "just below the first bound", t: two, abi: 2, want: seccomp("EPERM")},
		{name: "at the first bound", t: two, abi: 3, want: languageOnly},
		{name: "just below the second", t: two, abi: 5, want: languageOnly},
		{name: "at the second", t: two, abi: 6, want: landlock("EACCES")},
		{name: "the newest", t: two, abi: 7, want: landlock("EACCES")},
		{name: "past the newest", t: two, abi: 9, want: landlock("EACCES")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.t.ExpectAt(tt.abi); got != tt.want {
				t.Errorf("ExpectAt(%d) = %s, want %s", tt.abi, got, tt.want)
			}
		})
	}
}

// TestValidateTarget: a target whose expectation the sandbox suite could
// not hold it to is refused by Validate, which the catalogue's spec runs
// on every target: a gap credited to a layer (the report would say the
// kernel stops what it lets through), a witness with no control to show
// it can change (the confined run would be judged stopped by a witness
// that sees nothing), and both a control and the reason there is none.
// The controls: the same target with its gap only the language holds,
// its witness beside its control, and the control alone, each valid.
func TestValidateTarget(t *testing.T) {
	base := Target{ID: "x", Group: GroupFiles, Threat: "t", Program: "p", Language: "io",
		Expect: languageOnly, Unconfined: Went}
	tests := []struct {
		name    string
		change  func(*Target)
		wantErr string
	}{
		{name: "a gap only the language holds", change: func(t *Target) { t.Gap = "g" }},
		{name: "a gap a layer stops", wantErr: "a gap is something only the language holds",
			change: func(t *Target) { t.Gap, t.Expect = "g", seccomp("EPERM") }},
		{name: "a witness beside its control", change: func(t *Target) { t.Witness = WitnessFiles }},
		{name: "a witness without a control", wantErr: "a witness needs the control",
			change: func(t *Target) { t.Witness, t.Unconfined, t.NoControl = WitnessFiles, "", "n" }},
		{name: "no control, and the reason",
			change: func(t *Target) { t.Unconfined, t.NoControl = "", "n" }},
		{name: "a control and the reason there is none", wantErr: "want either an unconfined result",
			change: func(t *Target) { t.NoControl = "n" }},
		{name: "neither a control nor the reason", wantErr: "want either an unconfined result",
			change: func(t *Target) { t.Unconfined = "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := base
			tt.change(&tg)
			validates(t, tg, tt.wantErr)
		})
	}
}

// validates fails unless tg.Validate() says nothing where wantErr is
// "", and an error saying wantErr otherwise.
func validates(t *testing.T, tg Target, wantErr string) {
	t.Helper()
	err := tg.Validate()
	switch {
	case wantErr == "" && err != nil:
		t.Fatalf("Validate() = %v, want nil", err)
	case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
		t.Fatalf("Validate() = %v, want an error saying %q", err, wantErr)
	}
}

func TestValidateOlder(t *testing.T) {
	base := Target{ID: "x", Group: GroupFiles, Threat: "t", Program: "p", Language: "io",
		Expect: languageOnly, Unconfined: Went}
	tests := []struct {
		name    string
		older   []Older
		wantErr string
	}{
		{name: "one, in range", older: []Older{{Below: 3, Expect: seccomp("EPERM"), Why: "w"}}},
		{name: "below ABI 2 is no ABI", older: []Older{{Below: 1, Expect: seccomp("EPERM"), Why: "w"}},
			wantErr: "below ABI 1"},
		{name: "past the newest", older: []Older{{Below: 8, Expect: seccomp("EPERM"), Why: "w"}},
			wantErr: "below ABI 8"},
		{name: "below the newest", older: []Older{{Below: linux.LandlockMaxABI,
			Expect: seccomp("EPERM"), Why: "w"}}},
		{name: "out of order", older: []Older{{Below: 4, Expect: seccomp("EPERM"), Why: "w"},
			{Below: 3, Expect: languageOnly, Why: "w"}}, wantErr: "rising order"},
		{name: "one bound twice", older: []Older{{Below: 3, Expect: seccomp("EPERM"), Why: "w"},
			{Below: 3, Expect: languageOnly, Why: "w"}}, wantErr: "rising order"},
		{name: "no why", older: []Older{{Below: 3, Expect: seccomp("EPERM")}}, wantErr: "no why"},
		{name: "no layer", older: []Older{{Below: 3, Expect: Outcome{StoppedBy: ByUnknown}, Why: "w"}},
			wantErr: "is not seccomp, landlock or language"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := base
			tg.Older = tt.older
			validates(t, tg, tt.wantErr)
		})
	}
}

func TestDisagreements(t *testing.T) {
	eperm := Outcome{StoppedBy: BySeccomp, Errno: "EPERM"}
	line := func(id string, expected *Outcome, observed Outcome) ReportTarget {
		return ReportTarget{ID: id, Expected: expected, Observed: observed}
	}
	committed := Report{kernelreport.Report{Kernel: "6.1", Targets: []ReportTarget{
		line("a", &eperm, eperm), line("b", &eperm, eperm), line("gone", &eperm, eperm),
	}}}
	fresh := Report{kernelreport.Report{Kernel: "6.18", Targets: []ReportTarget{
		line("a", &eperm, eperm), line("b", &eperm, Outcome{StoppedBy: ByLanguage}), line("new", nil, eperm),
	}}}
	want := []string{
		"b: observed language, the committed report says seccomp EPERM",
		"gone: in the committed report, not in this run",
		"new: not in the committed report",
	}
	if got, _ := Disagreements(committed, fresh); !reflect.DeepEqual(got, want) {
		t.Errorf("Disagreements =\n%q\nwant\n%q", got, want)
	}
	seen := ReportWitness{Kind: WitnessFiles, Confined: []string{}, Unconfined: []string{"files:outside/secret.txt: mode"}}
	moved := seen
	moved.Confined = []string{"files:outside/secret.txt: mode"}
	withWitness := Report{kernelreport.Report{Targets: []ReportTarget{
		{ID: "w", Expected: &eperm, Observed: eperm, Witness: seen}}}}
	changedWitness := Report{kernelreport.Report{Targets: []ReportTarget{
		{ID: "w", Expected: &eperm, Observed: eperm, Witness: moved}}}}
	if got, _ := Disagreements(withWitness, changedWitness); len(got) != 1 || !strings.HasPrefix(got[0], "w: witness") {
		t.Errorf("a witness the confined run changed is not a disagreement: %q", got)
	}
	alone := Report{kernelreport.Report{Targets: []ReportTarget{{ID: "w", Expected: &eperm, Observed: eperm,
		Witness: seen, LayersAlone: map[string]bool{"seccomp": true, "landlock": false}}}}}
	if got, _ := Disagreements(withWitness, alone); len(got) != 1 || !strings.HasPrefix(got[0], "w: layers alone") {
		t.Errorf("layers alone measured where they were not is not a disagreement: %q", got)
	}
	if got, _ := Disagreements(committed, committed); len(got) != 0 {
		t.Errorf("a report disagrees with itself: %q", got)
	}
	// A run at the default size measures the layer its outcome names
	// alone: it is compared on that layer only.
	with := func(layers map[string]bool) Report {
		return Report{kernelreport.Report{Targets: []ReportTarget{{ID: "w", Expected: &eperm, Observed: eperm,
			Witness: seen, LayersAlone: layers}}}}
	}
	full := with(map[string]bool{"seccomp": true, "landlock": false, "capabilities": false})
	for _, tt := range []struct {
		name      string
		fresh     map[string]bool
		wantAgree bool
	}{
		{name: "the named layer, as committed", fresh: map[string]bool{"seccomp": true}, wantAgree: true},
		{name: "every layer, as committed", fresh: map[string]bool{"seccomp": true, "landlock": false,
			"capabilities": false}, wantAgree: true},
		{name: "the named layer no longer stops it", fresh: map[string]bool{"seccomp": false}},
		{name: "a layer the committed report did not measure", fresh: map[string]bool{"other": true}},
		{name: "none measured", fresh: nil},
	} {
		got, _ := Disagreements(full, with(tt.fresh))
		if agree := len(got) == 0; agree != tt.wantAgree {
			t.Errorf("%s: disagreements %q, want agreement %v", tt.name, got, tt.wantAgree)
		}
	}
}

func TestDisagreementsOfTheI386Entry(t *testing.T) {
	eperm := Outcome{StoppedBy: BySeccomp, Errno: "EPERM"}
	unavailable := Outcome{StoppedBy: Unavailable}
	yes, no := true, false
	report := func(entry *bool, observed Outcome) Report {
		return Report{kernelreport.Report{I386Entry: entry, Targets: []ReportTarget{
			{ID: "native", Expected: &eperm, Observed: eperm},
			{ID: "i386", Entry: EntryI386, Expected: &eperm, Observed: observed},
		}}}
	}
	tests := []struct {
		name           string
		committed      Report
		fresh          Report
		wantDisagree   []string
		wantUncompared []string
	}{
		{name: "both machines offer the entry", committed: report(&yes, eperm), fresh: report(&yes, eperm)},
		{name: "both offer it, and the fresh run lets the call through",
			committed: report(&yes, eperm), fresh: report(&yes, Outcome{StoppedBy: ByLanguage}),
			wantDisagree: []string{"i386: observed language, the committed report says seccomp EPERM"}},
		{name: "neither offers it", committed: report(&no, unavailable), fresh: report(&no, unavailable)},
		{name: "this machine has no entry", committed: report(&yes, eperm), fresh: report(&no, unavailable),
			wantUncompared: []string{"i386: made through the i386 entry, which one of the two machines offers"}},
		{name: "the committed report's machine had none", committed: report(&no, unavailable), fresh: report(&yes, eperm),
			wantUncompared: []string{"i386: made through the i386 entry, which one of the two machines offers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantDisagreements(t, tt.committed, tt.fresh, tt.wantDisagree, tt.wantUncompared)
		})
	}
}

// TestDisagreementsAcrossABIs: reports made at two Landlock ABIs are
// compared target by target, but for a target expected to end otherwise
// at the two: a target expected alike is still held to the committed
// outcome.
func TestDisagreementsAcrossABIs(t *testing.T) {
	eperm, eacces := seccomp("EPERM"), landlock("EACCES")
	report := func(abi int, truncate, other Outcome) Report {
		return Report{kernelreport.Report{LandlockABI: abi, Targets: []ReportTarget{
			{ID: "truncate", Expected: &truncate, Observed: truncate},
			{ID: "other", Expected: &eperm, Observed: other},
		}}}
	}
	tests := []struct {
		name           string
		committed      Report
		fresh          Report
		wantDisagree   []string
		wantUncompared []string
	}{
		{name: "one ABI", committed: report(7, eacces, eperm), fresh: report(7, eacces, eperm)},
		{name: "one ABI, another outcome", committed: report(7, eacces, eperm),
			fresh:        report(7, eperm, eperm),
			wantDisagree: []string{"truncate: observed seccomp EPERM, the committed report says landlock EACCES"}},
		{name: "an older ABI, where the target is expected to end otherwise",
			committed: report(7, eacces, eperm), fresh: report(2, eperm, eperm),
			wantUncompared: []string{"truncate: expected seccomp EPERM at Landlock ABI 2, landlock EACCES at ABI 7"}},
		{name: "an older ABI, and a target expected alike that ends otherwise",
			committed: report(7, eacces, eperm), fresh: report(2, eperm, Outcome{StoppedBy: ByLanguage}),
			wantDisagree:   []string{"other: observed language, the committed report says seccomp EPERM"},
			wantUncompared: []string{"truncate: expected seccomp EPERM at Landlock ABI 2, landlock EACCES at ABI 7"}},
		{name: "an older ABI, and a target the committed report lacks",
			committed: report(7, eacces, eperm), fresh: withNew(report(2, eacces, eperm)),
			wantDisagree: []string{"new: not in the committed report"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantDisagreements(t, tt.committed, tt.fresh, tt.wantDisagree, tt.wantUncompared)
		})
	}
}

func TestExpand(t *testing.T) {
	s, err := NewScratch(t.TempDir(), "expand")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tests := []struct {
		name string
		text string
		want func(got string) bool
	}{
		{name: "directories", text: "$GRANT $OUTSIDE $HOME",
			want: func(got string) bool { return got == s.Grant+" "+s.Outside+" "+s.Home }},
		{name: "a port a longer name begins with", text: "$PORT2/$PORT",
			want: func(got string) bool {
				a, b, ok := strings.Cut(got, "/")
				return ok && a != b && !strings.Contains(got, "$")
			}},
		{name: "the same placeholder twice is one listener", text: "$PORT $PORT",
			want: func(got string) bool { a, b, _ := strings.Cut(got, " "); return a == b }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Expand(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.want(got) {
				t.Errorf("Expand(%q) = %q", tt.text, got)
			}
		})
	}
	if _, err := os.Stat(s.Grant + "/data.txt"); err != nil {
		t.Errorf("the grant has no data.txt: %v", err)
	}
}

// TestEnviron: a run's environment is the harness's, less the variables
// of Sabline's own that would change what the run does (its layers, its
// faults, its guarded locations), with the register of Sabline stores
// passed on: without it, a run the tests start would read, and join, the
// machine's register instead of the one testkit.RunApart gives them. The
// controls: a variable not of Sabline's own is passed on, and what the
// caller sets is added.
func TestEnviron(t *testing.T) {
	t.Setenv(guard.RegisterEnv, "/var/tmp/register-of-the-tests")
	t.Setenv("SABLINE_LAYERS_ONLY", "landlock")
	t.Setenv("SABLINE_FAULT_INJECT", "some-fault")
	t.Setenv("ESCAPE_TEST_OTHER", "kept")
	env := Environ("HOME=/home/scratch")
	for _, want := range []string{guard.RegisterEnv + "=/var/tmp/register-of-the-tests",
		"ESCAPE_TEST_OTHER=kept", "HOME=/home/scratch"} {
		if !slices.Contains(env, want) {
			t.Errorf("Environ does not pass on %s", want)
		}
	}
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); name == "SABLINE_LAYERS_ONLY" ||
			name == "SABLINE_FAULT_INJECT" {
			t.Errorf("Environ passes on the harness's %s", kv)
		}
	}
}

// wantDisagreements checks what Disagreements says of two reports.
func wantDisagreements(t *testing.T, committed, fresh Report, wantDisagree, wantUncompared []string) {
	t.Helper()
	disagree, uncompared := Disagreements(committed, fresh)
	if !reflect.DeepEqual(disagree, wantDisagree) {
		t.Errorf("disagreements %q, want %q", disagree, wantDisagree)
	}
	if !reflect.DeepEqual(uncompared, wantUncompared) {
		t.Errorf("not compared %q, want %q", uncompared, wantUncompared)
	}
}

// withNew is r with one more target, "new", expected and observed as
// seccomp EPERM.
func withNew(r Report) Report {
	e := seccomp("EPERM")
	r.Targets = append(r.Targets, ReportTarget{ID: "new", Expected: &e, Observed: e})
	return r
}
