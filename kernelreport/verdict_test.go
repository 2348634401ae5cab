package kernelreport

import (
	"reflect"
	"strings"
	"testing"
)

var (
	eperm    = Outcome{StoppedBy: BySeccomp, Errno: "EPERM"}
	eacces   = Outcome{StoppedBy: ByLandlock, Errno: "EACCES"}
	went     = Outcome{StoppedBy: ByLanguage}
	harmless = Outcome{StoppedBy: ByLanguage, Errno: "EBADF"}
	notMade  = Outcome{StoppedBy: Unavailable}
)

// tgt is a target of row that was expected to meet expect and met got.
func tgt(id, row string, expect, got Outcome) Target {
	return Target{ID: id, Group: "files", Threat: "threat of " + id, Row: row, Expected: &expect,
		Observed: got, Witness: Witness{Kind: WitnessNone}}
}

// linux is a report of schema /4 of targets.
func linux(targets ...Target) Report {
	yes := true
	return Report{Schema: Schema, OS: "linux", Kernel: "6.18", LandlockABI: 7, I386Entry: &yes,
		Build: Build{Sabline: "0.1.0", Knockout: true, Go: "go1.26.8", Arch: "amd64"}, Targets: targets}
}

func TestVerdict(t *testing.T) {
	killed := tgt("k", "", went, went)
	killed.Witness = Witness{Kind: "victim", Confined: []string{"victim: alive limits nice pgrp sid"},
		Unconfined: []string{"victim: alive"}}
	reniced := tgt("r", "", went, went)
	reniced.Witness = Witness{Kind: "victim", Confined: []string{"victim: nice"},
		Unconfined: []string{"victim: nice"}}
	tests := []struct {
		t       Target
		want    Verdict
		by      string
		alone   string
		witness string
	}{
		{tgt("a", "", eperm, eperm), VerdictRefused, "seccomp EPERM", "not measured", "none"},
		{tgt("b", "", went, went), VerdictWent, "", "not measured", "none"},
		{killed, VerdictKilled, "", "not measured",
			"victim (confined: victim: alive limits nice pgrp sid; unconfined: victim: alive)"},
		{reniced, VerdictWent, "", "not measured",
			"victim (confined: victim: nice; unconfined: victim: nice)"},
		{tgt("c", "", harmless, harmless), VerdictUnrefused, "EBADF, as unconfined", "not measured", "none"},
		{tgt("d", "", eperm, notMade), VerdictUnavailable, "", "not measured", "none"},
		{tgt("e", "", eperm, Outcome{StoppedBy: ByUnknown, Errno: "ENOENT"}), VerdictUnknown, "unknown ENOENT",
			"not measured", "none"},
		{tgt("f", "", eperm, Outcome{}), VerdictUnknown, "", "not measured", "none"},
		{Target{ID: "g", Observed: Outcome{StoppedBy: "job-object", Errno: "ERROR_NOT_ENOUGH_QUOTA"},
			LayersAlone: map[string]bool{"seccomp": true, "landlock": true, "capabilities": false},
			Witness:     Witness{Kind: "files", Confined: []string{}}},
			VerdictRefused, "job-object ERROR_NOT_ENOUGH_QUOTA", "landlock, seccomp",
			"files (confined: nothing changed; unconfined: no control)"},
		{Target{ID: "h", Observed: eperm, LayersAlone: map[string]bool{"seccomp": false}},
			VerdictRefused, "seccomp EPERM", "no layer alone", ""},
	}
	for _, tt := range tests {
		if got := tt.t.Verdict(); got != tt.want {
			t.Errorf("%s: verdict %q, want %q", tt.t.ID, got, tt.want)
		}
		if got := tt.t.By(); got != tt.by {
			t.Errorf("%s: by %q, want %q", tt.t.ID, got, tt.by)
		}
		if got := tt.t.Alone(); got != tt.alone {
			t.Errorf("%s: alone %q, want %q", tt.t.ID, got, tt.alone)
		}
		if got := tt.t.WitnessText(); tt.witness != "" && got != tt.witness {
			t.Errorf("%s: witness %q, want %q", tt.t.ID, got, tt.witness)
		}
	}
}

func TestCellEvidence(t *testing.T) {
	r := linux(
		tgt("a", "no-fs", eacces, eacces),
		tgt("b", "no-fs", went, went),
		tgt("c", "no-net", eperm, eperm),
		tgt("d", "no-net", eperm, eacces),
		tgt("e", "deny-list", eperm, notMade),
		tgt("f", "deny-list", eperm, eperm),
		tgt("g", "", eperm, eperm),
	)
	off := r
	off.OS = "darwin"
	off.Targets = []Target{{ID: "x", Row: "no-net",
		Observed: Outcome{StoppedBy: "sandbox-profile", Errno: "EPERM"}}}
	tests := []struct {
		row   string
		r     *Report
		state EvidenceState
		said  string
	}{
		{"no-fs", &r, Tested, "1 of 2 not stopped: b; every outcome as expected"},
		{"no-net", &r, Tested, "2 targets, all stopped; 1 by another layer than expected: d"},
		{"deny-list", &r, Tested, "1 of 2 could not be made here: e; 1 not as expected: e"},
		{"fs-any", &r, Untested, textUntested},
		{"no-fs", nil, NoReport, textNoReport},
		{"no-net", &off, Tested, "1 target, all stopped"},
		{"fs-read-dir", &Report{Schema: Schema2, Targets: r.Targets}, NotRecorded, textNotRecorded},
	}
	for _, tt := range tests {
		e := cellEvidence(tt.row, tt.r)
		if e.State != tt.state || e.String() != tt.said {
			t.Errorf("%s: %s %q, want %s %q", tt.row, e.State, e, tt.state, tt.said)
		}
	}
	stopped := cellEvidence("no-net", &r)
	if !stopped.stopped() || !reflect.DeepEqual(stopped.Targets, []string{"c", "d"}) {
		t.Errorf("no-net: stopped %v, targets %q", stopped.stopped(), stopped.Targets)
	}
	if e := linux(tgt("a", "no-fs", eacces, eacces)); cellEvidence("no-fs", &e).String() !=
		"1 target, all stopped as expected" {
		t.Errorf("one target stopped as expected reads %q", cellEvidence("no-fs", &e))
	}
}

// TestCellEvidenceOfUnknown: a target whose run failed in a way no layer
// explains (a run that timed out, say) is neither stopped nor an escape:
// its cell says it is unknown, and does not count it among the targets not
// stopped; a target that went through (the control) still is one.
func TestCellEvidenceOfUnknown(t *testing.T) {
	unknown := Outcome{StoppedBy: ByUnknown}
	r := linux(
		tgt("a", "fs-read-dir", eacces, eacces),
		tgt("timed-out", "fs-read-dir", eacces, unknown),
		tgt("b", "no-fs", eacces, eacces),
		tgt("went", "no-fs", eacces, went),
	)
	tests := []struct{ row, said string }{
		{"fs-read-dir", "1 of 2 unknown (the run failed in a way no layer explains): timed-out; " +
			"1 not as expected: timed-out"},
		{"no-fs", "1 of 2 not stopped: went; 1 not as expected: went"},
	}
	for _, tt := range tests {
		if e := cellEvidence(tt.row, &r); e.String() != tt.said {
			t.Errorf("%s: %q, want %q", tt.row, e, tt.said)
		}
	}
	md := string(Markdown([]Named{{Report: r}}))
	for _, want := range []string{"1 with targets not stopped", "1 with targets unknown"} {
		if !strings.Contains(md, want) {
			t.Errorf("the summary does not say %q:\n%s", want, md)
		}
	}
	// A target refused before and unknown now is still a regression of its
	// cell: the cell lost its evidence.
	old := linux(tgt("a", "fs-read-dir", eacces, eacces), tgt("timed-out", "fs-read-dir", eacces, eacces))
	c, err := Diff(Named{Report: old}, Named{Report: r})
	if err != nil {
		t.Fatal(err)
	}
	if _, cells := c.Regressions(); cells != 2 {
		t.Errorf("%d cells regressed, want 2 (fs-read-dir, no-fs):\n%s", cells, c.Text())
	}
}
