package door

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// TestHostFactsText: the import root, the receipts directory and the
// host's cgroup paths are redacted from what a client reads; a file
// beneath the root is named relative to it; a name that only begins or
// ends with the root's is left as it is.
func TestHostFactsText(t *testing.T) {
	h := newHostFacts("/srv/root", "/var/lib/sabline/receipts")
	tests := []struct {
		name, in, want string
	}{
		{name: "a file beneath the root", in: "program /srv/root/lib/x.vel: no such file",
			want: "program lib/x.vel: no such file"},
		{name: "the root itself", in: "the workers may read the import root /srv/root, where programs are",
			want: "the workers may read the import root " + RedactedImportRoot + ", where programs are"},
		{name: "the root at the end", in: "read /srv/root", want: "read " + RedactedImportRoot},
		{name: "a budget's path", in: "io,fs:read:/srv/root/data", want: "io,fs:read:data"},
		{name: "a longer name", in: "/srv/rooted/x and /srv/root-2", want: "/srv/rooted/x and /srv/root-2"},
		{name: "a path that ends in it", in: "/mnt/srv/root/x", want: "/mnt/srv/root/x"},
		{name: "the receipts directory", in: "crash report /var/lib/sabline/receipts/crash-1.txt",
			want: "crash report " + RedactedReceipts + "/crash-1.txt"},
		{name: "a cgroup v2 mount", in: "the cgroup v2 hierarchy at /sys/fs/cgroup offers no memory controller",
			want: "the cgroup v2 hierarchy at " + RedactedCgroup + " offers no memory controller"},
		{name: "this process's cgroup", in: "no cgroup holds it: this process's cgroup /sys/fs/cgroup/user.slice/u-0.slice/s.scope does not hand",
			want: "no cgroup holds it: this process's cgroup " + RedactedCgroup + " does not hand"},
		{name: "a cgroup outside the mount", in: "this process's cgroup /machine.slice/x lies outside the cgroup v2 hierarchy mounted at /cg2",
			want: "this process's cgroup " + RedactedCgroup + " lies outside the cgroup v2 hierarchy mounted at " + RedactedCgroup},
		{name: "the parent handed the controller", in: "hand the memory controller to the children of /sys/fs/cgroup/a: denied",
			want: "hand the memory controller to the children of " + RedactedCgroup + ": denied"},
		{name: "a lead begun inside a path redacted", in: "this process's cgroup /sys/fs/cgroup/hierarchy at /x",
			want: "this process's cgroup " + RedactedCgroup + " at /x"},
		{name: "nothing of the host", in: "every limit is held", want: "every limit is held"},
		{name: "cgroups named, no path of them", in: "no cgroup holds it: the cgroup v2 hierarchy " +
			"is not mounted, this process's cgroup is the root",
			want: "no cgroup holds it: the cgroup v2 hierarchy is not mounted, this process's cgroup " +
				"is the root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := h.text(tt.in); got != tt.want {
				t.Errorf("text(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestHostFactsReceipt: the client's copy of a receipt is the receipt
// with its strings redacted, its fields in their order, its numbers as
// they were; a receipt that names nothing of the host is sent as it is.
func TestHostFactsReceipt(t *testing.T) {
	h := newHostFacts("/srv/root", "")
	in := `{"schema":"sabline.receipt/1","program":{"path":"/srv/root/a.vel","files":[{"path":"/srv/root/b.vel"}]},` +
		`"n":12345678901234567890,"f":1.5e-7,"ok":true,"none":null,"e":[],"o":{}}`
	want := `{"schema":"sabline.receipt/1","program":{"path":"a.vel","files":[{"path":"b.vel"}]},` +
		`"n":12345678901234567890,"f":1.5e-7,"ok":true,"none":null,"e":[],"o":{}}`
	got, err := h.receipt(json.RawMessage(in))
	if err != nil || string(got) != want {
		t.Errorf("receipt:\n got %s, %v\nwant %s", got, err, want)
	}
	plain := `{"schema":"sabline.receipt/1","args":["a","b"],"x":{"y":[1,2,{"z":"\u003csource\u003e"}]}}`
	if got, err := h.receipt(json.RawMessage(plain)); err != nil || string(got) != plain {
		t.Errorf("a receipt with nothing of the host: %s, %v; want it as it was", got, err)
	}
}

// FuzzHostFactsReceipt: whatever JSON the redaction reads, it writes
// valid JSON, and the same JSON where there was nothing to redact.
func FuzzHostFactsReceipt(f *testing.F) {
	f.Add([]byte(`{"a":"/srv/root/x","b":[1,2.5,true,null,{"c":"d"}]}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`"/srv/root"`))
	h := newHostFacts("/srv/root", "")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 || !json.Valid(data) {
			return
		}
		got, err := h.receipt(data)
		if err != nil {
			t.Fatalf("receipt(%q): %v", data, err)
		}
		if !json.Valid(got) {
			t.Fatalf("receipt(%q) = %q: not JSON", data, got)
		}
		// A receipt redacted as a whole text is what the rewrite makes of it.
		if !bytes.Contains(data, []byte(`\`)) {
			slow, err := h.rewrite(data)
			if err != nil {
				t.Fatalf("rewrite(%q): %v", data, err)
			}
			if canon(t, got) != canon(t, slow) {
				t.Fatalf("receipt(%q) = %q, but the rewrite makes %q", data, got, slow)
			}
		}
		if !bytes.Contains(data, []byte("root")) && !bytes.Contains(data, []byte("cgroup")) &&
			canon(t, data) != canon(t, got) {
			t.Fatalf("receipt(%q) = %q: changed with nothing to redact", data, got)
		}
	})
}

// cgroupOracle is the regular expression redactCgroups reads as: each
// of cgroupLeads, then anything but white space and punctuation.
var cgroupOracle = func() *regexp.Regexp {
	alt := make([]string, len(cgroupLeads))
	for i, l := range cgroupLeads {
		alt[i] = regexp.QuoteMeta(l) + `[^\s,;:"'()]*`
	}
	return regexp.MustCompile(strings.Join(alt, "|"))
}()

// FuzzRedactCgroups: the scan that redacts cgroup paths redacts what the
// regular expression of the same paths matches, and nothing else.
func FuzzRedactCgroups(f *testing.F) {
	f.Add("this process's cgroup /machine.slice/x lies outside the cgroup v2 hierarchy mounted at /cg2")
	f.Add("hand the memory controller to the children of /sys/fs/cgroup/a: denied")
	f.Add("the cgroup v2 hierarchy at /sys/fs/cgroup offers no memory controller")
	f.Add("/sys/fs/cgroup/\xff\tx /sys/fs/cgroup")
	f.Add("this process's cgroup /sys/fs/cgroup/hierarchy at /x")
	f.Add("every limit is held")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<12 {
			return
		}
		want := cgroupOracle.ReplaceAllStringFunc(s, func(m string) string {
			if i := strings.IndexByte(m, '/'); i > 0 {
				return m[:i] + RedactedCgroup
			}
			return RedactedCgroup
		})
		if got := redactCgroups(s); got != want {
			t.Fatalf("redactCgroups(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestCgroupLeads: redactCgroups looks for the leads at slashes, so each
// lead must hold one, or it would never be found; and a path beneath the
// mount, which begins at its slash, is found.
func TestCgroupLeads(t *testing.T) {
	for _, l := range cgroupLeads {
		if !strings.Contains(l, "/") {
			t.Errorf("lead %q holds no slash: redactCgroups would never find it", l)
		}
	}
	if got := redactCgroups("/sys/fs/cgroup/a"); got != RedactedCgroup {
		t.Errorf("redactCgroups of a path beneath the mount = %q, want %q", got, RedactedCgroup)
	}
}

// TestPoolRunnerRedacts: a run's reply, its receipt as the client is sent
// it and as a lookup answers it name no absolute path of the operator's:
// the program is named as the client named it, and the import root in
// the confinement's reason is redacted, and so is the host's cgroup
// layout where the reason names it. The receipt the server keeps, the
// operator's copy, names the import root (the control), and the cgroup
// layout where a machine has one to name.
func TestPoolRunnerRedacts(t *testing.T) {
	root := filepath.Join(t.TempDir(), "operator-root-sentinel-4b7d")
	if err := os.MkdirAll(filepath.Join(root, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "lib", "fails.vel"), []byte("print(1)\nfail(\"no\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	receipts := filepath.Join(t.TempDir(), "receipts-sentinel-91e3")
	// The memory limit's reason names the host's cgroup layout where no
	// cgroup holds it.
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Budget: budget.MustParse(root, "io"), Receipts: receipts,
		MaxMemoryMB: 128})
	reply, err := r.Run(t.Context(), RunRequest{Path: "lib/fails.vel"})
	if err != nil {
		t.Fatal(err)
	}
	sent, err := json.Marshal(runJSON{runOutputOf(reply), reply.Receipt})
	if err != nil {
		t.Fatal(err)
	}
	looked, err := r.Receipt(t.Context(), "", reply.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"the reply": string(sent), "the lookup": string(looked)} {
		for _, s := range []string{"operator-root-sentinel", "receipts-sentinel", "/sys/fs/cgroup"} {
			if strings.Contains(text, s) {
				t.Errorf("%s names %q: %s", what, s, text)
			}
		}
	}
	var rec receipt.Receipt
	if err := json.Unmarshal(reply.Receipt, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Program.Path != "lib/fails.vel" || !strings.HasPrefix(reply.Position, "lib/fails.vel:2:") {
		t.Errorf("the client's receipt names the program %q, the reply's position %q; want it as the client named it",
			rec.Program.Path, reply.Position)
	}
	if !strings.Contains(reply.Reason, RedactedImportRoot) {
		t.Errorf("the reply's reason %q does not say the workers read the import root", reply.Reason)
	}
	kept, err := receipt.FindRun(receipts, reply.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(kept.Receipt.Program.Path, "operator-root-sentinel") ||
		!strings.Contains(kept.Receipt.RunParameters.ConfinementReason, "operator-root-sentinel") {
		t.Errorf("the operator's receipt names the program %q, the reason %q; want the import root in both",
			kept.Receipt.Program.Path, kept.Receipt.RunParameters.ConfinementReason)
	}
	if strings.Contains(kept.Receipt.RunParameters.ConfinementReason, "/sys/fs/cgroup") {
		if !strings.Contains(reply.Reason, RedactedCgroup) {
			t.Errorf("the reply's reason %q does not say a cgroup was redacted", reply.Reason)
		}
	} else {
		t.Logf("no cgroup path to redact on this machine: %s", kept.Receipt.RunParameters.ConfinementReason)
	}
}

// TestPoolRunnerRefusedPathNamesNoParent: a path refused for leaving the
// import root ("../x.vel") is named in the client's copy of its receipt
// as the client wrote it, not resolved against the root: resolved, it
// named the directories around the import root, which the client had
// not named. The operator's copy names the root. Controls: a path
// beneath the root, run or refused, is named as the client wrote it too.
func TestPoolRunnerRefusedPathNamesNoParent(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "operator-parent-sentinel-5c2e")
	root := filepath.Join(parent, "root")
	for _, p := range []string{filepath.Join(root, "hello.vel"),
		filepath.Join(parent, "outside.vel")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("print(1)\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rc := t.TempDir()
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root,
		Budget: budget.MustParse(root, "io"), Receipts: rc})
	for _, tt := range []struct {
		path     string
		wantCode codes.Code
	}{
		{"../outside.vel", codes.E316},
		{"lib/../../outside.vel", codes.E316},
		{"../root/../outside.vel", codes.E316},
		{"hello.vel", ""},           // control: run
		{"missing.vel", codes.E316}, // control: refused beneath the root
	} {
		reply, err := r.Run(t.Context(), RunRequest{Path: tt.path})
		if codes.CodeOf(err) != tt.wantCode || reply.RunID == "" {
			t.Errorf("%s: run %s, %v; want code %q and a receipt", tt.path, reply.RunID, err,
				tt.wantCode)
			continue
		}
		looked, err := r.Receipt(t.Context(), "", reply.RunID)
		if err != nil {
			t.Fatal(err)
		}
		for what, text := range map[string]string{"the reply's receipt": string(reply.Receipt),
			"the lookup": string(looked)} {
			var rec receipt.Receipt
			if err := json.Unmarshal([]byte(text), &rec); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(text, "operator-parent-sentinel") || rec.Program.Path != tt.path {
				t.Errorf("%s: %s names the program %q, want %q as the client named it, and "+
					"nothing of the directories around the import root", tt.path, what,
					rec.Program.Path, tt.path)
			}
		}
		kept, err := receipt.FindRun(rc, reply.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(kept.Receipt.Program.Path, root+string(filepath.Separator)) {
			t.Errorf("%s: the operator's receipt names the program %q, want it beneath %s",
				tt.path, kept.Receipt.Program.Path, root)
		}
	}
}

// canon is data decoded, numbers as they are written, and encoded again.
func canon(t *testing.T, data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", data, err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestRedactionInStrings: where every fact of the host is found only
// inside a JSON string, a receipt redacted as one text is not read again,
// which keeps it valid because the words put in the facts' place, and a
// cgroup path's end, keep it inside its string; a fact that could be
// found outside a string, or across one's end, has the redaction read
// again and, where it broke the JSON, the receipt rewritten string by
// string (the controls).
func TestRedactionInStrings(t *testing.T) {
	for _, w := range []string{RedactedImportRoot, RedactedReceipts, RedactedCgroup} {
		if strings.ContainsAny(w, "\"\\") || strings.ContainsFunc(w, func(r rune) bool { return r < 0x20 }) {
			t.Errorf("the word %q would end or escape a JSON string", w)
		}
	}
	if !strings.Contains(cgroupPathEnds, `"`) {
		t.Errorf("a cgroup path does not end at a quote (%q): it could run past its string", cgroupPathEnds)
	}
	tests := []struct {
		name, root, receipts string
		in                   string
		wantInStrings        bool
		want                 string
	}{
		{name: "absolute directories", root: "/srv/root", receipts: "/srv/receipts", wantInStrings: true,
			in:   `{"n":1,"p":"/srv/root/a.vel","c":"/srv/receipts/c.txt","r":"hierarchy at /sys/fs/cgroup"}`,
			want: `{"n":1,"p":"a.vel","c":"<receipts>/c.txt","r":"hierarchy at <cgroup>"}`},
		{name: "a root of digits", root: "1", in: `{"n":1,"p":"1/a.vel"}`, want: `{"n":1,"p":"a.vel"}`},
		{name: "a root named true", root: "true", in: `{"ok":true,"p":"true/a.vel"}`,
			want: `{"ok":true,"p":"a.vel"}`},
		{name: "a root with a quote", root: `/srv/a",`, in: `{"a":"/srv/a","b":1}`, want: `{"a":"/srv/a","b":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHostFacts(tt.root, tt.receipts)
			if h.inStrings != tt.wantInStrings {
				t.Fatalf("inStrings = %v; want %v", h.inStrings, tt.wantInStrings)
			}
			got, err := h.receipt(json.RawMessage(tt.in))
			if err != nil || !json.Valid(got) || canon(t, got) != canon(t, []byte(tt.want)) {
				t.Errorf("receipt(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
			}
		})
	}
}

// FuzzRedactionInStrings: for any directories the facts could name, when
// inStringsOnly says they are found only inside strings, every valid JSON
// holding no escape is still valid redacted as one text, which is then
// not read again; and the client's copy is valid JSON whatever they are.
func FuzzRedactionInStrings(f *testing.F) {
	f.Add("/srv/root", "/srv/receipts", []byte(`{"a":"/srv/root/x","b":[1,2.5,true,null,{"c":"d"}]}`))
	f.Add("1", "", []byte(`{"n":1,"p":"1/a.vel"}`))
	f.Add(`/a",`, "e", []byte(`{"a":"/a","b":1e5}`))
	f.Add("/r", "/r/x", []byte(`["/r","/r/x/y","hierarchy at /sys/fs/cgroup/a"]`))
	f.Fuzz(func(t *testing.T, root, receipts string, data []byte) {
		if len(data) > 1<<16 || len(root)+len(receipts) > 1<<10 || !json.Valid(data) ||
			bytes.IndexByte(data, '\\') >= 0 {
			return
		}
		var h hostFacts
		if root != "" {
			h.roots = []string{root}
		}
		if receipts != "" {
			h.receipts = []string{receipts}
		}
		h.inStrings = h.inStringsOnly()
		if out := h.text(string(data)); h.inStrings && !json.Valid([]byte(out)) {
			t.Fatalf("facts %q, %q found only inside strings, but %s redacted is %s: not JSON",
				root, receipts, data, out)
		}
		got, err := h.receipt(data)
		if err != nil || !json.Valid(got) {
			t.Fatalf("receipt(%s) = %s, %v; want valid JSON", data, got, err)
		}
	})
}

// BenchmarkHostFactsReply: a client's copy of a pooled run's reply, as
// a run of hello.vel on a machine whose memory is no cgroup's makes it:
// its reason and receipt name the import root and the cgroup hierarchy.
func BenchmarkHostFactsReply(b *testing.B) {
	root := "/srv/sabline/programs"
	h := newHostFacts(root, "/var/lib/sabline/receipts")
	rec := receipt.NewForSource(root+"/hello.vel", []byte("print(1)\n"), budget.Budget{}, nil)
	reason := "every file, network and process limit of this budget is held by the kernel; " +
		"beside the budget, the workers may read the import root " + root + ", where programs " +
		"and their loads are read; the memory limit of 256 MB is held by the worker's watch of " +
		"its resident memory; no cgroup holds it: the cgroup v2 hierarchy at /sys/fs/cgroup " +
		"offers no memory controller to this process's cgroup"
	rec.RunParameters.ConfinementReason = reason
	rec.RunParameters.ConfinementGaps = []core.Gap{{Layer: "pool", Kind: core.GapHeld,
		Text: "the workers may read the import root " + root}, {Layer: "memory", Kind: core.GapHeld,
		Text: "no cgroup holds it: the cgroup v2 hierarchy at /sys/fs/cgroup offers none"}}
	rec.Program.Files = []program.FileDigest{{Path: root + "/hello.vel", SHA256: rec.Program.SHA256}}
	raw, err := json.Marshal(rec)
	if err != nil {
		b.Fatal(err)
	}
	reply := RunReply{RunID: rec.RunID, Status: "ok", Level: "full", Reason: reason,
		Stdout: "hello, world\n", Receipt: raw}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.reply(reply); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPoolRunnerAuditRedacts: an audit the server cannot read the
// program of (its import root made a file since it started) is refused
// without the import root's path, as a run is; the error keeps its code.
// The control: the same refusal from underRoot names the root.
func TestPoolRunnerAuditRedacts(t *testing.T) {
	root := filepath.Join(t.TempDir(), "operator-root-sentinel-5c2a")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Budget: budget.MustParse(root, "io"),
		Receipts: t.TempDir(), OnDemand: true})
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(root, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, raw := underRoot(root, "a.vel")
	if raw == nil || !strings.Contains(raw.Error(), "operator-root-sentinel") {
		t.Fatalf("underRoot of a root made a file: %v; want an error that names it", raw)
	}
	_, err := r.Audit(t.Context(), AuditRequest{Path: "a.vel"})
	if codes.CodeOf(err) != codes.E316 || strings.Contains(err.Error(), "operator-root-sentinel") {
		t.Errorf("the audit's refusal: %v; want E316 without the import root", err)
	}
}

// TestPoolRunnerNamesNoGrantOfTheServers: a run with a budget narrower
// than the server's is told that the operating system holds the server's
// budget and the language its own, without the server's grants (a
// directory only another tenant may be granted); a relative path of
// allow that climbs out of the import root is refused (E301) without
// naming, resolved, the directories above the root. The controls: the
// reason still says what holds the run, and the server's directory named
// in full is granted.
func TestPoolRunnerNamesNoGrantOfTheServers(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	data := filepath.Join(base, "server-grant-sentinel-7c2a")
	for _, d := range []string{root, data} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root,
		Budget: budget.MustParse(root, "io,fs:read:"+data), Receipts: t.TempDir()})
	reply, err := r.Run(t.Context(), RunRequest{Path: "hello.vel", Allow: []string{"io"}})
	if err != nil {
		t.Fatal(err)
	}
	looked, err := r.Receipt(t.Context(), "", reply.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"the reply's receipt": string(reply.Receipt),
		"the reason": reply.Reason, "the lookup": string(looked)} {
		if strings.Contains(text, "server-grant-sentinel") {
			t.Errorf("%s names the server's grant: %s", what, text)
		}
	}
	if !strings.Contains(reply.Reason, "held by the language") {
		t.Errorf("the reply's reason %q does not say the language holds the narrower budget", reply.Reason)
	}

	_, err = r.Run(t.Context(), RunRequest{Path: "hello.vel", Allow: []string{"io,fs:read:.."}})
	if codes.CodeOf(err) != codes.E301 || strings.Contains(err.Error(), base) {
		t.Errorf("allow fs:read:..: %v; want E301 naming the item as written, not %s", err, base)
	}
	if _, err := r.Run(t.Context(), RunRequest{Path: "hello.vel",
		Allow: []string{"io,fs:read:" + data}}); err != nil {
		t.Errorf("allow of the server's directory in full: %v; want it run", err)
	}
}

// TestPoolRunnerImportRootThroughALink: a door whose import root is
// given as a link runs a path and a text beneath it, as a door given
// the directory itself does (the control): the pool holds its programs to
// the root as it resolves, and the door named them beneath the link, so
// that every run was refused E316. Each reply, a load's failure named on
// standard error among it, names neither the link nor the directory.
func TestPoolRunnerImportRootThroughALink(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "operator-root-sentinel-77a1")
	if err := os.MkdirAll(filepath.Join(dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "operator-link-sentinel-2f90")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"hello.vel": "print(\"hi\")\n",
		"lib/loads.vel": "load(\"lib/nosuch.vel\", \"greet\")\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, root := range []string{dir, link} {
		r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root,
			Budget: budget.MustParse(root, "io"), Receipts: t.TempDir()})
		for _, tt := range []struct {
			req                  RunRequest
			wantStdout, wantCode string
		}{
			{RunRequest{Path: "hello.vel"}, "hi\n", ""},
			{RunRequest{Source: "print(2)"}, "2\n", ""},
			{RunRequest{Path: "lib/loads.vel"}, "", string(codes.E306)},
		} {
			reply, err := r.Run(t.Context(), tt.req)
			if err != nil || reply.Stdout != tt.wantStdout || reply.Code != tt.wantCode {
				t.Errorf("root %s, %+v: %q %s, %v; want %q %s", root, tt.req, reply.Stdout,
					reply.Code, err, tt.wantStdout, tt.wantCode)
				continue
			}
			sent, err := json.Marshal(runJSON{runOutputOf(reply), reply.Receipt})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{"operator-root-sentinel", "operator-link-sentinel"} {
				if strings.Contains(string(sent), s) {
					t.Errorf("root %s, %+v: the reply names %q: %s", root, tt.req, s, sent)
				}
			}
			if tt.wantCode != "" && !strings.Contains(reply.Stderr, RedactedImportRoot) {
				t.Errorf("root %s, %+v: standard error %q does not say the import root",
					root, tt.req, reply.Stderr)
			}
		}
	}
}

// TestHostFactsFormsOfALink: an import root given as a link is redacted
// in both its forms, as given and as it resolves, each wherever it is
// found: a file beneath either is named relative to the root. A root
// whose link leads to its own parent has the longer form, the link's,
// redacted first: the shorter first left the link's name ("root/x.vel").
func TestHostFactsFormsOfALink(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "dir-sentinel")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	toDir := filepath.Join(parent, "link-sentinel")
	toParent := filepath.Join(dir, "up-sentinel")
	for _, l := range []struct{ target, name string }{{dir, toDir}, {"..", toParent}} {
		if err := os.Symlink(l.target, l.name); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		root, in, want string
	}{
		{dir, dir + "/x.vel", "x.vel"}, // the control: no link
		{toDir, toDir + "/x.vel", "x.vel"},
		{toDir, dir + "/x.vel", "x.vel"},
		{toDir, "beneath " + dir, "beneath " + RedactedImportRoot},
		{toParent, toParent + "/x.vel", "x.vel"},
		{toParent, parent + "/x.vel", "x.vel"},
		{toParent, toParent + "/dir-sentinel/x.vel", "dir-sentinel/x.vel"},
	} {
		if got := newHostFacts(tt.root, "").text(tt.in); got != tt.want {
			t.Errorf("root %s: text(%q) = %q, want %q", tt.root, tt.in, got, tt.want)
		}
	}
}
