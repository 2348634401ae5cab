package kernelreport

import (
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
)

// changeOf finds the change of subject in cs.
func changeOf(cs []Change, subject string) (Change, bool) {
	for _, c := range cs {
		if c.Subject == subject {
			return c, true
		}
	}
	return Change{}, false
}

func TestDiff(t *testing.T) {
	old := linux(
		tgt("same", "no-fs", eacces, eacces),
		tgt("lost", "no-net", eperm, eperm),
		tgt("won", "net-host", went, went),
		tgt("moved", "deny-list", eperm, eperm),
		tgt("gone", "process-start", eperm, eperm),
		tgt("watched", "deny-list", eperm, eperm),
	)
	i386 := tgt("i386", "deny-list", eperm, eperm)
	i386.Entry = EntryI386
	old.Targets = append(old.Targets, i386)
	no := false
	new := linux(
		tgt("same", "no-fs", eacces, eacces),
		tgt("lost", "no-net", eperm, went),
		tgt("won", "net-host", eperm, eperm),
		tgt("moved", "deny-list", eacces, eacces),
		tgt("new", "fs-any", eacces, eacces),
		tgt("watched", "deny-list", eperm, eperm),
	)
	new.Targets[5].LayersAlone = map[string]bool{"seccomp": true}
	new.Targets[5].Witness = Witness{Kind: "files", Confined: []string{},
		Unconfined: []string{"files:x: mode"}}
	gone := i386
	gone.Observed = notMade
	new.Targets = append(new.Targets, gone)
	new.I386Entry = &no
	c, err := Diff(Named{Report: old, Source: "old.json"}, Named{Report: new, Source: "new.json"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		kind Kind
		what string
	}{
		"lost": {Regressed, "observed: was refused (seccomp EPERM), now went"},
		"gone": {Regressed, "in the old report only: refused (seccomp EPERM)"},
		"won": {Improved, "observed: was went, now refused (seccomp EPERM); " +
			"expected: was language, now seccomp EPERM"},
		"moved": {Changed, "observed: was refused (seccomp EPERM), now refused (landlock EACCES); " +
			"expected: was seccomp EPERM, now landlock EACCES"},
		"watched": {Changed, "witness: was none, now files (confined: nothing changed; " +
			"unconfined: files:x: mode); layers alone: was not measured, now seccomp"},
		"new":  {Added, "in the new report only: refused (landlock EACCES)"},
		"i386": {Uncompared, "was refused (seccomp EPERM), now unavailable: " + textMachinesDiffer},
		// The cells of the rows whose targets changed.
		"no-net on Linux": {Regressed, "was 1 target, all stopped as expected; now 1 of 1 not stopped: lost; " +
			"1 not as expected: lost"},
		"process-start on Linux": {Regressed, "was 1 target, all stopped as expected; now " + textUntested},
		"net-host on Linux": {Improved, "was 1 of 1 not stopped: won; every outcome as expected; " +
			"now 1 target, all stopped as expected"},
		"fs-any on Linux": {Improved, "was " + textUntested + "; now 1 target, all stopped as expected"},
		"deny-list on Linux": {Changed, "was 3 targets, all stopped as expected; " +
			"now 1 of 3 could not be made here: i386; 1 not as expected: i386"},
	}
	all := append(append([]Change{}, c.Targets...), c.Cells...)
	if len(all) != len(want) {
		t.Errorf("%d changes, want %d:\n%s", len(all), len(want), c.Text())
	}
	for subject, w := range want {
		got, ok := changeOf(all, subject)
		if !ok || got.Kind != w.kind || got.What != w.what {
			t.Errorf("%s: %s %q\nwant %s %q", subject, got.Kind, got.What, w.kind, w.what)
		}
	}
	if targets, cells := c.Regressions(); targets != 2 || cells != 2 || !c.regressed() {
		t.Errorf("regressions: %d targets, %d cells, want 2 and 2", targets, cells)
	}
	if c.Targets[0].Kind != Regressed || c.Targets[len(c.Targets)-1].Kind != Uncompared {
		t.Errorf("the changes are not in the order of their kinds:\n%s", c.Text())
	}
	text := string(c.Text())
	for _, line := range []string{
		"old: old.json: linux 6.18, Landlock ABI 7, sabline 0.1.0, go1.26.8, amd64, knock-out (" +
			Schema + ")",
		"machine: i386 entry: was yes, now no",
		"  REGRESSED    lost: observed: was refused (seccomp EPERM), now went",
		"regressed: 2 targets, 2 enforcement cells",
	} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("the text has no line %q:\n%s", line, text)
		}
	}
}

// TestDiffImprovesOnly: a newer report that only adds and refuses more
// has not regressed; a report compared with itself has no change.
func TestDiffImprovesOnly(t *testing.T) {
	old := linux(tgt("a", "no-fs", went, went))
	new := linux(tgt("a", "no-fs", eacces, eacces), tgt("b", "no-fs", eacces, eacces))
	c, err := Diff(Named{Report: old}, Named{Report: new})
	if err != nil {
		t.Fatal(err)
	}
	if c.regressed() || len(c.Targets) != 2 || len(c.Cells) != 1 || c.Cells[0].Kind != Improved {
		t.Errorf("an improvement:\n%s", c.Text())
	}
	same, _ := Diff(Named{Report: new}, Named{Report: new})
	if same.regressed() || len(same.Targets)+len(same.Cells)+len(same.Machine) != 0 ||
		!strings.HasSuffix(string(same.Text()), textNoChange+"\n") {
		t.Errorf("a report differs from itself:\n%s", same.Text())
	}
}

// TestDiffOfSystems: two reports of different systems are not compared.
func TestDiffOfSystems(t *testing.T) {
	_, err := Diff(Named{Report: linux(), Source: "a.json"},
		Named{Report: darwinReport(), Source: "b.json"})
	if codes.CodeOf(err) != codes.E301 ||
		!strings.Contains(err.Error(), "a.json is a report of linux and b.json of darwin") {
		t.Errorf("Diff of two systems: %v", err)
	}
}

// TestDiffOfTheTree: the report of schema /2 the tree once had, beside
// the committed one: the targets that changed are named, the three that
// regressed among them, and the cells, whose evidence /2 did not record,
// changed without regressing.
func TestDiffOfTheTree(t *testing.T) {
	old, err := Read(schema2Path)
	if err != nil {
		t.Fatal(err)
	}
	var now Named
	for _, n := range committed(t) {
		if n.OS == "linux" {
			now = n
		}
	}
	c, err := Diff(Named{Report: old, Source: schema2Path}, now)
	if err != nil {
		t.Fatal(err)
	}
	for id, kind := range map[string]Kind{
		"threads-seccomp-every-thread": Regressed, "files-credential": Improved, "kern-tcsets-pty": Changed,
		"files-dotentry": Added, "abi-i386-getpid": Uncompared,
	} {
		if got, ok := changeOf(c.Targets, id); !ok || got.Kind != kind {
			t.Errorf("%s: %q %q, want %s", id, got.Kind, got.What, kind)
		}
	}
	for _, cell := range c.Cells {
		if cell.Kind != Changed || !strings.HasPrefix(cell.What, "was "+textNotRecorded) {
			t.Errorf("cell %s: %s %q", cell.Subject, cell.Kind, cell.What)
		}
	}
	if targets, cells := c.Regressions(); targets == 0 || cells != 0 {
		t.Errorf("regressions: %d targets, %d cells", targets, cells)
	}
}

// TestCellKindOfUnknown: a cell whose target went from not stopped to
// unknown (its run failed in a way no layer explains) did not improve:
// nothing shows it is stopped now. The controls: not stopped to stopped
// improved; unknown to stopped improved; stopped to unknown regressed.
func TestCellKindOfUnknown(t *testing.T) {
	tested := func(notStopped, unknown []string) Evidence {
		return Evidence{State: Tested, Targets: []string{"a", "b"}, NotStopped: notStopped,
			Unknown: unknown}
	}
	tests := []struct {
		name     string
		old, new Evidence
		want     Kind
	}{
		{name: "an escape now unknown", old: tested([]string{"a"}, nil),
			new: tested(nil, []string{"a"}), want: Changed},
		{name: "an escape now stopped", old: tested([]string{"a"}, nil), new: tested(nil, nil),
			want: Improved},
		{name: "unknown now stopped", old: tested(nil, []string{"a"}), new: tested(nil, nil),
			want: Improved},
		{name: "stopped now unknown", old: tested(nil, nil), new: tested(nil, []string{"a"}),
			want: Regressed},
	}
	for _, tt := range tests {
		if got := cellKind(tt.old, tt.new); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

// TestDiffOfATargetNowUnknown: a target the older report's kernel
// refused whose run now fails in a way no layer explains (it timed out)
// regressed: nothing shows it is stopped any more, and a target that
// names no row has no cell to regress for it, so that `sabline report
// diff` exited 0. The control: refused by another layer, it changed.
func TestDiffOfATargetNowUnknown(t *testing.T) {
	unknown := Outcome{StoppedBy: ByUnknown}
	for _, tt := range []struct {
		name string
		now  Outcome
		want Kind
	}{
		{name: "now unknown", now: unknown, want: Regressed},
		{name: "the control: refused by another layer", now: eacces, want: Changed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Diff(Named{Report: linux(tgt("a", "", eperm, eperm))},
				Named{Report: linux(tgt("a", "", eperm, tt.now))})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Targets) != 1 || c.Targets[0].Kind != tt.want || len(c.Cells) != 0 {
				t.Fatalf("want the target %s, no cell:\n%s", tt.want, c.Text())
			}
			if c.regressed() != (tt.want == Regressed) {
				t.Errorf("regressed() = %v:\n%s", c.regressed(), c.Text())
			}
		})
	}
}

// TestDiffOfATargetNoLongerMade: a target the older report's kernel
// refused that the newer report could not make is not compared only
// where the two machines cannot both make it (the i386 entry one of
// them lacks, for a target made through it; another architecture);
// on machines that can, it regressed: its evidence is gone.
func TestDiffOfATargetNoLongerMade(t *testing.T) {
	yes, no := true, false
	i386 := func(t Target) Target { t.Entry = EntryI386; return t }
	for _, tt := range []struct {
		name      string
		entry     func(Target) Target
		newI386   *bool
		newArch   string
		want      Kind
		regressed bool
	}{
		{name: "one machine", entry: func(t Target) Target { return t }, newI386: &yes,
			want: Regressed, regressed: true},
		{name: "the i386 entry differs, a target of the architecture's own",
			entry: func(t Target) Target { return t }, newI386: &no, want: Regressed,
			regressed: true},
		{name: "the control: the i386 entry differs, a target made through it", entry: i386,
			newI386: &no, want: Uncompared},
		{name: "the control: another architecture", entry: func(t Target) Target { return t },
			newI386: &yes, newArch: "arm64", want: Uncompared},
	} {
		t.Run(tt.name, func(t *testing.T) {
			old := linux(tt.entry(tgt("a", "", eperm, eperm)))
			new := linux(tt.entry(tgt("a", "", eperm, notMade)))
			new.I386Entry = tt.newI386
			if tt.newArch != "" {
				new.Build.Arch = tt.newArch
			}
			c, err := Diff(Named{Report: old}, Named{Report: new})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Targets) != 1 || c.Targets[0].Kind != tt.want {
				t.Fatalf("want the target %s:\n%s", tt.want, c.Text())
			}
			if c.regressed() != tt.regressed {
				t.Errorf("regressed() = %v, want %v:\n%s", c.regressed(), tt.regressed, c.Text())
			}
		})
	}
}
