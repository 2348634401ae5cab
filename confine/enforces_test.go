package confine

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
)

// osLayers are the layers a cell of each system may name, in the order a
// Result lists them.
var osLayers = map[System][]string{
	Linux:   {core.LayerLandlockFamily, core.LayerSeccomp},
	Darwin:  {core.LayerSandboxProfile},
	Windows: {core.LayerJobObject, core.LayerTokenPrivs, core.LayerLowIntegrity, core.LayerAppContainer},
}

func TestEnforcesRowsInOrder(t *testing.T) {
	want := []struct {
		id   string
		item string
	}{
		{"no-fs", "no fs granted"},
		{"fs-read-dir", "fs:read:DIR"},
		{"fs-write-dir", "fs:write:DIR"},
		{"fs-any", "fs, fs:read, fs:write with no path"},
		{"credential", "a guarded location under a broad grant (E318): a credential location, a dot-entry of a home, the receipts and tokens of every Sabline on the machine, a kernel file system wherever it is mounted, a device"},
		{"no-net", "no net granted"},
		{"net-host", "net:HOST, net:HOST:PORT"},
		{"net-any", "net with no host"},
		{"net-udp", "net:udp, net:udp:HOST, net:udp:HOST:PORT"},
		{"counts", "@N counts"},
		{"io", "io"},
		{"env", "env"},
		{"clock-rand-declassify", "clock, rand, declassify"},
		{"tool", "tool"},
		{"process-start", "starting a process (never a budget item)"},
		{"deny-list", "every other system call (never a budget item)"},
		{"ffi-module", "ffi:MODULE"},
		{"ffi-strict", "ffi:MODULE under --confine strict"},
		{"require-confinement", "--require-confinement full, partial or none (never a budget item)"},
		{"limits", "time and memory limits"},
	}
	if len(Enforces()) != len(want) {
		t.Fatalf("Enforces() has %d rows, want %d", len(Enforces()), len(want))
	}
	for i, w := range want {
		if r := Enforces()[i]; r.ID != w.id || r.Item != w.item {
			t.Errorf("row %d is %s %q, want %s %q", i, r.ID, r.Item, w.id, w.item)
		}
		got, ok := EnforcesRow(w.id)
		if !ok || got.Item != w.item {
			t.Errorf("EnforcesRow(%q) = %q, %v; want %q, true", w.id, got.Item, ok, w.item)
		}
	}
	if _, ok := EnforcesRow("no-such-row"); ok {
		t.Error(`EnforcesRow("no-such-row") found a row`)
	}
}

func TestEnforcesCells(t *testing.T) {
	checked := 0
	for _, r := range Enforces() {
		if len(r.Cells) != len(systems) {
			t.Errorf("%s: %d cells, want one for each of %v", r.ID, len(r.Cells), systems)
		}
		// PartlyOps names only systems whose cell holds partly.
		for sys, h := range r.PartlyOps {
			if c := r.Cells[sys]; c.Holds != HoldsPartly {
				t.Errorf("%s: PartlyOps names %s, whose cell holds %s, not partly", r.ID, sys, c.Holds)
			}
			if got := r.OpsHold(sys); got != h {
				t.Errorf("%s: OpsHold(%s) = %s, want PartlyOps's %s", r.ID, sys, got, h)
			}
		}
		for _, sys := range systems {
			allowed := osLayers[sys]
			c, ok := r.Cell(sys)
			if !ok {
				t.Fatalf("%s: Cell(%q) found nothing", r.ID, sys)
			}
			where := r.ID + ", " + string(sys)
			switch c.Holds {
			case HoldsYes, HoldsPartly, HoldsNo:
			default:
				t.Errorf("%s: holds %q, want yes, partly or no", where, c.Holds)
			}
			if c.Text == "" || strings.ContainsAny(c.Text, "\n|") {
				t.Errorf("%s: text %q is empty or has a newline or a pipe", where, c.Text)
			}
			if c.Holds == HoldsNo && len(c.Layers) > 0 {
				t.Errorf("%s: holds no but names layers %v", where, c.Layers)
			}
			last := -1
			for _, l := range c.Layers {
				i := slices.Index(allowed, l)
				if i <= last {
					t.Errorf("%s: layers %v are not among %v in that order, once each", where, c.Layers, allowed)
					break
				}
				last = i
			}
			checked++
		}
		if _, ok := r.Cell("plan9"); ok {
			t.Errorf("%s: Cell(plan9) found a cell", r.ID)
		}
	}
	t.Logf("checked %d cells", checked)
}

// rowPolicy derives the policy a row's ops run under, the scratch
// directory standing for PlaceholderGrant.
func rowPolicy(t *testing.T, r Row) core.Policy {
	t.Helper()
	dir := t.TempDir()
	b, err := budget.Parse([]string{strings.ReplaceAll(r.Budget, PlaceholderGrant, dir)}, dir)
	if err != nil {
		t.Fatalf("%s: budget %q: %v", r.ID, r.Budget, err)
	}
	return core.OSPolicy(b, core.Options{})
}

func TestEnforcesOpsAndBudgets(t *testing.T) {
	ops := []string{OpRead, OpWrite, OpConnect, OpExec, OpSignal}
	tested := map[string]bool{}
	for _, r := range Enforces() {
		if (len(r.Ops) > 0) != (r.Budget != "") {
			t.Errorf("%s: ops %v with budget %q: a row has both or neither", r.ID, r.Ops, r.Budget)
			continue
		}
		for _, op := range r.Ops {
			if !slices.Contains(ops, op) {
				t.Errorf("%s: unknown op %q", r.ID, op)
			}
			tested[op] = true
		}
		if r.Budget == "" {
			continue
		}
		if p := rowPolicy(t, r); !p.Enforced {
			t.Errorf("%s: budget %q enforces nothing, so no op can test the row", r.ID, r.Budget)
		}
	}
	for _, op := range ops {
		if !tested[op] {
			t.Errorf("no row is tested by op %q", op)
		}
	}
}

// levelOps are the ops that test the file, network and process limits a
// level counts. The deny-list (the signal op) is hardening every run gets
// whatever its budget, and no level counts it.
var levelOps = []string{OpRead, OpWrite, OpConnect, OpExec}

// TestEnforcesAgreesWithPredict holds each row a level counts to the level
// Predict gives its budget: a cell that holds yes on Linux or Windows is a
// full run where every layer is present, one that holds partly or no is
// not, and the layers a cell names were applied.
func TestEnforcesAgreesWithPredict(t *testing.T) {
	checked := 0
	for _, r := range Enforces() {
		if !slices.ContainsFunc(r.Ops, func(op string) bool { return slices.Contains(levelOps, op) }) {
			continue
		}
		p := rowPolicy(t, r)
		for _, sys := range systems {
			c := r.Cells[sys]
			got := Predict(p, sys)
			where := r.ID + ", " + string(sys) + ", " + r.Budget
			switch {
			case c.Holds != HoldsYes && got.Level == core.Full:
				t.Errorf("%s: the cell holds %s but the level is full", where, c.Holds)
			case c.Holds == HoldsYes && sys != Darwin && got.Level != core.Full:
				t.Errorf("%s: the cell holds yes but the level is %s: %s", where, got.Level, got.Reason)
			}
			for _, l := range c.Layers {
				if l == core.LayerLandlockFamily {
					l = core.LayerLandlock(linux.LandlockMaxABI)
				}
				if !slices.Contains(got.Layers, l) {
					t.Errorf("%s: the cell relies on %s, which the Result %v does not name", where, l, got.Layers)
				}
			}
			checked++
		}
	}
	t.Logf("checked %d cells against Predict", checked)
}

// markdownRows returns the rows of the first table under the header line
// head in doc, each split into its cells and unescaped.
func markdownRows(doc []byte, head string) [][]string {
	lines := strings.Split(string(doc), "\n")
	start := slices.Index(lines, head)
	if start < 0 {
		return nil
	}
	var rows [][]string
	for _, l := range lines[start+2:] { // past the header and the |---| line
		if !strings.HasPrefix(l, "|") {
			break
		}
		rows = append(rows, splitMarkdownRow(l))
	}
	return rows
}

// splitMarkdownRow splits "| a | b\|c |" into ["a", "b|c"], undoing
// markdownCell's escapes.
func splitMarkdownRow(l string) []string {
	var cells []string
	var cell strings.Builder
	for i := 1; i < len(l); i++ { // past the leading pipe
		switch c := l[i]; {
		case c == '\\' && i+1 < len(l):
			i++
			cell.WriteByte(l[i])
		case c == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(c)
		}
	}
	return cells
}

func TestSplitMarkdownRow(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
	}{
		{name: "plain", in: []string{"a", "b c"}},
		{name: "pipe", in: []string{"a|b", "|"}},
		{name: "backslash", in: []string{`a\b`, `\|`, `\\`}},
		{name: "code", in: []string{"`x`", "**yes** (seccomp): t"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			escaped := make([]string, len(tc.in))
			for i, s := range tc.in {
				escaped[i] = markdownCell(s)
			}
			got := splitMarkdownRow("| " + strings.Join(escaped, " | ") + " |")
			if !slices.Equal(got, tc.in) {
				t.Errorf("round trip of %q gives %q", tc.in, got)
			}
		})
	}
}

const (
	mainTableHead  = "| Budget item | Linux | macOS | Windows |"
	widenTableHead = "| A granted module | widens the OS policy to |"
)

// TestEnforcesDoc holds docs/os-enforces.md to the code: each cell of its
// main table and each line of its widening table, then every byte.
func TestEnforcesDoc(t *testing.T) {
	want := EnforcesMarkdown()
	got, err := os.ReadFile(EnforcesDocPath)
	if err != nil {
		t.Fatalf("read the committed page: %v (go generate ./confine writes it)", err)
	}
	const regenerate = "; go generate ./confine writes it anew"

	fileRows := map[string][]string{}
	for _, cells := range markdownRows(got, mainTableHead) {
		if len(cells) > 0 {
			fileRows[cells[0]] = cells[1:]
		}
	}
	var columns []string
	for _, sys := range systems {
		columns = append(columns, sys.Title())
	}
	for _, r := range Enforces() {
		cells, ok := fileRows[r.Item]
		if !ok {
			t.Errorf("row %s (%s) is missing from %s%s", r.ID, r.Item, EnforcesDocPath, regenerate)
			continue
		}
		if len(cells) != len(columns) {
			t.Errorf("row %s has %d cells in %s, want %d%s", r.ID, len(cells), EnforcesDocPath, len(columns), regenerate)
			continue
		}
		for i, sys := range systems {
			if w := cellMarkdown(r.Cells[sys]); cells[i] != w {
				t.Errorf("row %s, column %s: the page says\n\t%s\nthe code says\n\t%s%s", r.ID, columns[i], cells[i], w, regenerate)
			}
		}
		delete(fileRows, r.Item)
	}
	for item := range fileRows {
		t.Errorf("the page has a row %q that Enforces() has not%s", item, regenerate)
	}

	fileWidens := map[string]string{}
	for _, cells := range markdownRows(got, widenTableHead) {
		if len(cells) == 2 {
			fileWidens[cells[1]] = cells[0]
		}
	}
	for _, w := range core.WidenOrder() {
		if want := strings.Join(core.ModulesWidening(w), ", "); fileWidens[string(w)] != want {
			t.Errorf("widening %q: the page names %q, FFIWidens %q%s", w, fileWidens[string(w)], want, regenerate)
		}
	}

	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from EnforcesMarkdown()%s", EnforcesDocPath, regenerate)
	}
}

// TestEnforcesMarkdownTables reads the rendered page back: every row and
// every widening is there once, as the code has it.
func TestEnforcesMarkdownTables(t *testing.T) {
	doc := EnforcesMarkdown()
	rows := markdownRows(doc, mainTableHead)
	if len(rows) != len(Enforces()) {
		t.Fatalf("the main table has %d rows, Enforces() %d", len(rows), len(Enforces()))
	}
	for i, r := range Enforces() {
		want := []string{r.Item}
		for _, sys := range systems {
			want = append(want, cellMarkdown(r.Cells[sys]))
		}
		if !slices.Equal(rows[i], want) {
			t.Errorf("row %s reads back as %q, want %q", r.ID, rows[i], want)
		}
	}
	widens := markdownRows(doc, widenTableHead)
	if len(widens) != len(core.WidenOrder()) {
		t.Fatalf("the widening table has %d rows, want %d", len(widens), len(core.WidenOrder()))
	}
	modules := 0
	for i, w := range core.WidenOrder() {
		names := strings.Split(widens[i][0], ", ")
		for _, n := range names {
			if got, listed := core.WidensTo(n); !listed || got != w {
				t.Errorf("the page says %s widens to %q; WidensTo says %q, listed %v", n, w, got, listed)
			}
		}
		modules += len(names)
	}
	if modules != len(core.FFIWidens()) {
		t.Errorf("the widening table names %d modules, FFIWidens %d", modules, len(core.FFIWidens()))
	}
	if !bytes.Equal(doc, EnforcesMarkdown()) {
		t.Error("EnforcesMarkdown renders different bytes twice")
	}
}
