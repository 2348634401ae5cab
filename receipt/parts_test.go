package receipt

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestParseParts: a receipt says which of its fields the worker reported
// and whether they are testimony; one written before receipts said so
// still loads, as an older receipt; one that names a field no worker
// reports is not a receipt.
func TestParseParts(t *testing.T) {
	head := `{"schema":"` + Schema + `","run_id":"a",`
	tests := []struct {
		name          string
		json          string
		wantOlder     bool
		wantTestimony string
		wantParts     string
		wantErr       string
	}{
		{name: "an older receipt", json: head + `"outcome":{"status":"ok"},"effects":[]}`,
			wantOlder: true, wantParts: "an older receipt"},
		{name: "an older receipt whose reported is null", json: head + `"reported":null}`,
			wantOlder: true, wantParts: "an older receipt"},
		{name: "nothing reported", json: head + `"reported":{"fields":[]}}`,
			wantParts: "every field is what the supervisor saw"},
		{name: "reported, not testimony", json: head + `"reported":{"fields":["outcome","effects"]}}`,
			wantParts: "outcome, effects: reported by what ran the program, which could not have forged it"},
		{name: "testimony", json: head + `"reported":{"fields":["outcome","effects"],"testimony":"ffi:ctypes is granted"}}`,
			wantTestimony: "ffi:ctypes is granted", wantParts: "outcome, effects: TESTIMONY"},
		{name: "testimony of nothing is no mark", json: head + `"reported":{"fields":[],"testimony":"ffi:ctypes is granted"}}`,
			wantParts: "every field is what the supervisor saw"},
		{name: "a field no worker reports", json: head + `"reported":{"fields":["outcome","run_parameters.confinement"]}}`,
			wantErr: `its reported fields name "run_parameters.confinement", which no worker of this build reports`},
		{name: "fields of another type", json: head + `"reported":{"fields":"outcome"}}`,
			wantErr: "cannot unmarshal string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := parseReceipt("r.json", []byte(tt.json))
			if tt.wantErr != "" {
				testkit.WantError(t, err, codes.E317, "", tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Older() != tt.wantOlder || r.Testimony() != tt.wantTestimony || !strings.HasPrefix(r.Parts(), tt.wantParts) {
				t.Errorf("older %v, testimony %q, parts %q; want %v, %q, %q...", r.Older(), r.Testimony(), r.Parts(),
					tt.wantOlder, tt.wantTestimony, tt.wantParts)
			}
		})
	}
	// A receipt made now tells its parts apart from its start.
	if r := New("/p/a.vel", budget.MustParse("/", "io"), nil); r.Older() {
		t.Error("a new receipt reads as an older one")
	}
}

// TestDiffEffects walks runs oldest first; each run is
// program:grant+grant, with a trailing "!" for a report that is testimony,
// "?" for an older receipt and "-" for a run whose effects no worker
// reported (it died first). A grant is used once, or listed unused when
// it ends in "=0" (a meter lists every grant of the budget).
func TestDiffEffects(t *testing.T) {
	type change struct {
		Run              string
		New              []string
		Testimony        bool
		EarlierTestimony int
	}
	tests := []struct {
		name string
		runs []string
		want []change
	}{
		{name: "the same grants throughout", runs: []string{"a:io", "a:io"}},
		{name: "a new grant", runs: []string{"a:io", "a:io+env"},
			want: []change{{Run: "1", New: []string{"env"}}}},
		{name: "fewer grants are no change", runs: []string{"a:io+env", "a:io"}},
		{name: "a testimony that reports a new grant", runs: []string{"a:io", "a:io+ffi:ctypes!"},
			want: []change{{Run: "1", New: []string{"ffi:ctypes"}, Testimony: true}}},
		{name: "a report compared with earlier testimony", runs: []string{"a:io!", "a:io!", "a:io+env"},
			want: []change{{Run: "2", New: []string{"env"}, EarlierTestimony: 2}}},
		{name: "older receipts are not compared", runs: []string{"a:io?", "a:io+env"}},
		{name: "nor runs whose effects no worker reported", runs: []string{"a:io", "a:io+env-", "a:io+env"},
			want: []change{{Run: "2", New: []string{"env"}}}},
		{name: "programs tracked apart", runs: []string{"a:io", "b:env", "a:io"}},
		{name: "a grant listed unused is not reported using", runs: []string{"a:io", "a:io+env=0"}},
		{name: "a grant used after runs that left it unused", runs: []string{"a:io+env=0", "a:io+env"},
			want: []change{{Run: "1", New: []string{"env"}}}},
		// Text sent to a door is one program only where the text (its
		// digest, after @) is the same; a file is one as it is edited.
		{name: "two texts sent to a door", runs: []string{"<source>@1:io", "<source>@2:io+env"}},
		{name: "one text sent twice", runs: []string{"<source>@1:io", "<source>@1:io+env"},
			want: []change{{Run: "1", New: []string{"env"}}}},
		{name: "a file edited", runs: []string{"a@1:io", "a@2:io+env"},
			want: []change{{Run: "1", New: []string{"env"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs []StoredReceipt
			for i, s := range tt.runs {
				prog, grants, _ := strings.Cut(s, ":")
				id := string(rune('0' + i))
				prog, text, _ := strings.Cut(prog, "@")
				path := "/p/" + prog + ".vel"
				if prog == SourceName {
					path = "/p/" + prog
				}
				r := receipt(path, id, i, core.Full, StatusOK)
				r.Program.SHA256 = text
				r.Reported = &Reported{Fields: []string{FieldOutcome, FieldEffects}}
				switch grants[len(grants)-1] {
				case '!':
					r.Reported.Testimony = "ffi:ctypes is granted"
				case '?':
					r.Reported = nil
				case '-':
					r.Reported.Fields = []string{}
				}
				for _, g := range strings.Split(strings.TrimRight(grants, "!?-"), "+") {
					u := budget.Usage{Grant: g, Uses: 1}
					if g, unused := strings.CutSuffix(g, "=0"); unused {
						u = budget.Usage{Grant: g}
					}
					r.Effects = append(r.Effects, u)
				}
				runs = append(runs, StoredReceipt{Path: id + ".json", Receipt: r})
			}
			var got []change
			for _, c := range DiffEffects(runs) {
				got = append(got, change{Run: c.Run.RunID, New: c.New, Testimony: c.Run.Testimony() != "", EarlierTestimony: c.EarlierTestimony})
				s := c.String()
				if !strings.Contains(s, c.Run.RunID+" "+c.Run.Program.Path+": reported using "+strings.Join(c.New, ", ")) ||
					strings.Contains(s, "this report is TESTIMONY") != (c.Run.Testimony() != "") ||
					strings.Contains(s, "earlier reports that are testimony") != (c.EarlierTestimony > 0) {
					t.Errorf("String() = %q does not name the run, its grants, or which side is testimony", s)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DiffEffects = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestDiffConnections: a run is named when its supervisor connected to,
// or refused, a place no earlier run of the program had, or when its
// receipt left connections unlisted, which may have gone anywhere; the
// first run of a program is what the others are compared with.
func TestDiffConnections(t *testing.T) {
	to := func(port int) Connection { return Connection{Network: "tcp", Host: "h", Port: port} }
	refused := Connection{Network: "tcp", Host: "h", Port: 1, Code: codes.E335}
	type run struct {
		prog     string
		conns    []Connection
		unlisted int
	}
	type change struct {
		Run                string
		Connected, Refused []string
		Unlisted           int
	}
	tests := []struct {
		name       string
		runs       []run
		want       []change
		wantString string // in the last change's String
	}{
		{name: "the same place throughout",
			runs: []run{{prog: "a", conns: []Connection{to(1)}}, {prog: "a", conns: []Connection{to(1)}}}},
		{name: "a new place", runs: []run{{prog: "a", conns: []Connection{to(1)}},
			{prog: "a", conns: []Connection{to(1), to(2)}}},
			want: []change{{Run: "1", Connected: []string{"tcp h:2"}}}, wantString: "connected to tcp h:2"},
		{name: "a place refused where it was made before", runs: []run{{prog: "a", conns: []Connection{to(1)}},
			{prog: "a", conns: []Connection{refused}}},
			want:       []change{{Run: "1", Refused: []string{"tcp h:1 (E335)"}}},
			wantString: "was refused tcp h:1 (E335)"},
		{name: "connections unlisted", runs: []run{{prog: "a", conns: []Connection{to(1)}},
			{prog: "a", conns: []Connection{to(1)}, unlisted: 3}},
			want:       []change{{Run: "1", Unlisted: 3}},
			wantString: "3 more connections its receipt does not list"},
		{name: "the first run is not compared", runs: []run{{prog: "a", conns: []Connection{to(1)}, unlisted: 3}}},
		{name: "programs tracked apart", runs: []run{{prog: "a", conns: []Connection{to(1)}},
			{prog: "b", conns: []Connection{to(2)}}}},
		// Text sent to a door, or piped in, is one program only where its
		// text (its digest, after @) is the same; a file is one as it is
		// edited.
		{name: "two texts sent to a door", runs: []run{{prog: "<source>@1", conns: []Connection{to(1)}},
			{prog: "<source>@2", conns: []Connection{to(2)}}}},
		{name: "one text sent to a door twice", runs: []run{
			{prog: "<source>@1", conns: []Connection{to(1)}},
			{prog: "<source>@1", conns: []Connection{to(2)}}},
			want: []change{{Run: "1", Connected: []string{"tcp h:2"}}}, wantString: "connected to tcp h:2"},
		{name: "two programs piped in", runs: []run{
			{prog: "/proc/self/fd/0@1", conns: []Connection{to(1)}},
			{prog: "/proc/self/fd/0@2", conns: []Connection{to(2)}}}},
		{name: "a file edited", runs: []run{{prog: "a@1", conns: []Connection{to(1)}},
			{prog: "a@2", conns: []Connection{to(2)}}},
			want: []change{{Run: "1", Connected: []string{"tcp h:2"}}}, wantString: "connected to tcp h:2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs []StoredReceipt
			for i, r := range tt.runs {
				id := string(rune('0' + i))
				prog, text, _ := strings.Cut(r.prog, "@")
				path := "/p/" + prog + ".vel"
				if prog == SourceName {
					path = "/p/" + prog
				} else if strings.HasPrefix(prog, "/") {
					path = prog
				}
				rec := receipt(path, id, i, core.Full, StatusOK)
				rec.Program.SHA256 = text
				rec.Observed.Connections, rec.Observed.ConnectionsUnlisted = r.conns, r.unlisted
				runs = append(runs, StoredReceipt{Path: id + ".json", Receipt: rec})
			}
			var got []change
			var last string
			for _, c := range DiffConnections(runs) {
				got = append(got, change{Run: c.Run.RunID, Connected: c.Connected, Refused: c.Refused,
					Unlisted: c.Unlisted})
				last = c.String()
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DiffConnections = %+v, want %+v", got, tt.want)
			}
			if !strings.Contains(last, tt.wantString) {
				t.Errorf("String() = %q, want it to say %q", last, tt.wantString)
			}
		})
	}
}
