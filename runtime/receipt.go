package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sort"
	"strings"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine"
)

// ReasonNotApplied is the confinement reason of a run that ended before
// the policy was applied (a command line refused, a program that does not
// compile, a worker that died first): its level says nothing of what the
// system can hold, and receipts diff passes over it.
const ReasonNotApplied = "the run ended before the policy was applied"

// ReceiptSchema names the receipt format.
const ReceiptSchema = "sabline.receipt/1"

// ReceiptsEnv overrides the default receipts directory; --receipts
// overrides it in turn.
const ReceiptsEnv = "SABLINE_RECEIPTS"

// Receipt is the record of one run, refused and failed ones too, written
// by the supervisor.
type Receipt struct {
	Schema        string         `json:"schema"`
	RunID         string         `json:"run_id"`
	Sabline       Build          `json:"sabline"`
	Program       ProgramInfo    `json:"program"`
	Budget        string         `json:"budget"`
	Args          []string       `json:"args"`
	RunParameters RunParameters  `json:"run_parameters"`
	Outcome       Outcome        `json:"outcome"`
	Effects       []budget.Usage `json:"effects"`
	Faults        []FaultAttempt `json:"fault_injection,omitempty"`
	Timings       Timings        `json:"timings"`
	Platform      Platform       `json:"platform"`
}

// Build says which binary made the receipt.
type Build struct {
	Version  string `json:"version"`
	Knockout bool   `json:"knockout"` // built with -tags sabline_knockout: no budget checks
}

// ProgramInfo names the program and the digests of its files.
type ProgramInfo struct {
	Path   string       `json:"path"`
	SHA256 string       `json:"sha256,omitempty"`
	Files  []FileDigest `json:"files,omitempty"` // the program and every file it loads
}

// RunParameters are how the run was asked for and what it was given.
type RunParameters struct {
	Confinement        confine.Level `json:"confinement"`
	ConfinementReason  string        `json:"confinement_reason"`
	ConfinementLayers  []string      `json:"confinement_layers"`
	OSPolicySHA256     string        `json:"os_policy_sha256"`
	Confine            string        `json:"confine"`
	RequireConfinement confine.Level `json:"require_confinement,omitempty"`
	TimeoutMS          int64         `json:"timeout_ms,omitempty"`
	MaxMemoryMB        int           `json:"max_memory_mb,omitempty"`
}

// Timings of the run.
type Timings struct {
	Started time.Time     `json:"started"`
	WallMS  float64       `json:"wall_ms"`
	Worker  WorkerTimings `json:"worker"`
}

// Platform is where the run ran.
type Platform struct {
	OS     string `json:"os"`
	Arch   string `json:"arch"`
	Kernel string `json:"kernel,omitempty"`
	Go     string `json:"go"`
}

// Version is Sabline's version.
const Version = "0.1.0"

// VersionString is what --version prints.
func VersionString() string {
	s := "sabline " + Version + " (" + goruntime.GOOS + "/" + goruntime.GOARCH + ")"
	if Knockout {
		s += " KNOCK-OUT BUILD: every budget check passes"
	}
	return s
}

// NewReceipt starts the receipt of a run of program under b. The program's
// digest is taken here, so a run that never starts still names the bytes
// it was asked to run.
func NewReceipt(program string, b budget.Budget, args []string) *Receipt {
	r := &Receipt{
		Schema:   ReceiptSchema,
		RunID:    newRunID(),
		Sabline:  Build{Version: Version, Knockout: Knockout},
		Program:  ProgramInfo{Path: program},
		Budget:   b.String(),
		Args:     args,
		Effects:  []budget.Usage{},
		Platform: platform(),
		RunParameters: RunParameters{
			Confinement: confine.None, ConfinementReason: ReasonNotApplied, ConfinementLayers: []string{},
		},
	}
	if r.Args == nil {
		r.Args = []string{}
	}
	if data, err := os.ReadFile(program); err == nil {
		sum := sha256.Sum256(data)
		r.Program.SHA256 = hex.EncodeToString(sum[:])
	}
	return r
}

func (rec *Receipt) setParameters(r Run) {
	p := rec.RunParameters
	p.Confine = r.Confine
	p.RequireConfinement = r.Require
	p.TimeoutMS = r.Timeout.Milliseconds()
	p.MaxMemoryMB = r.MaxMemoryMB
	p.OSPolicySHA256 = confine.OSPolicy(r.Budget, confine.Options{Strict: r.Confine == ConfineStrict}).SHA256()
	rec.RunParameters = p
}

// Confinement is what the run's confinement held, as the receipt records it.
func (rec *Receipt) Confinement() confine.Result {
	p := rec.RunParameters
	return confine.Result{Level: p.Confinement, Reason: p.ConfinementReason, Layers: p.ConfinementLayers}
}

func (rec *Receipt) takeWorker(res *WorkerResult) {
	if res.Confinement.Level != "" { // "" when the worker died before it was confined
		rec.RunParameters.Confinement = res.Confinement.Level
		rec.RunParameters.ConfinementReason = res.Confinement.Reason
		rec.RunParameters.ConfinementLayers = res.Confinement.Layers
	}
	if len(res.Files) > 0 {
		rec.Program.Files = res.Files
		rec.Program.SHA256 = res.Files[0].SHA256
	}
	if res.Effects != nil {
		rec.Effects = res.Effects
	}
	rec.Faults = res.Faults
	rec.Timings.Worker = res.Timings
}

// DefaultReceiptsDir is where receipts go unless SABLINE_RECEIPTS or
// --receipts says otherwise: the user's state directory
// ($XDG_STATE_HOME/sabline/receipts, ~/.local/state/sabline/receipts), or
// on macOS and Windows the user's configuration directory.
func DefaultReceiptsDir() (string, error) {
	if d := os.Getenv(ReceiptsEnv); d != "" {
		return d, nil
	}
	if goruntime.GOOS != "darwin" && goruntime.GOOS != "windows" {
		if d := os.Getenv("XDG_STATE_HOME"); d != "" {
			return filepath.Join(d, "sabline", "receipts"), nil
		}
		home, err := os.UserHomeDir()
		if err != nil {
			return "", Errorf(E317, "no home directory for receipts (set %s): %w", ReceiptsEnv, err)
		}
		return filepath.Join(home, ".local", "state", "sabline", "receipts"), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", Errorf(E317, "no directory for receipts (set %s): %w", ReceiptsEnv, err)
	}
	return filepath.Join(d, "sabline", "receipts"), nil
}

// Write stores the receipt in dir atomically: a temporary file in the same
// directory, synced, then renamed into place. It returns the path.
func (rec *Receipt) Write(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", Errorf(E317, "receipts directory %s: %w", dir, err)
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return "", Errorf(E317, "encode receipt: %w", err)
	}
	name := rec.Timings.Started.Format("20060102T150405.000000000Z") + "-" + rec.RunID + ".json"
	tmp, err := os.CreateTemp(dir, ".receipt-*")
	if err != nil {
		return "", Errorf(E317, "write receipt in %s: %w", dir, err)
	}
	_, err = tmp.Write(append(data, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	final := filepath.Join(dir, name)
	if err == nil {
		err = os.Rename(tmp.Name(), final)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", Errorf(E317, "write receipt %s: %w", final, err)
	}
	return final, nil
}

// MaxReceiptBytes bounds the size of a receipt file LoadReceipt reads. A
// receipts directory is one a program could have written to (under a
// broad grant with the guard knocked out, or by another route), so a file
// in it is read as untrusted bytes: a larger one is not a receipt.
const MaxReceiptBytes = 8 << 20

// LoadReceipt reads one receipt file: a regular file of at most
// MaxReceiptBytes holding a JSON object of this schema with a run id. Any
// other file is E317, with a message that says what it is instead.
func LoadReceipt(path string) (*Receipt, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, Errorf(E317, "read receipt: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, Errorf(E317, "%s is not a receipt: not a regular file (mode %s)", path, fi.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, Errorf(E317, "read receipt: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxReceiptBytes+1))
	if err != nil {
		return nil, Errorf(E317, "read receipt %s: %w", path, err)
	}
	if len(data) > MaxReceiptBytes {
		return nil, Errorf(E317, "%s is not a receipt: larger than %d bytes", path, MaxReceiptBytes)
	}
	return parseReceipt(path, data)
}

// parseReceipt decodes the bytes of a receipt file named path.
func parseReceipt(path string, data []byte) (*Receipt, error) {
	var r Receipt
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, Errorf(E317, "%s is not a receipt: %w", path, err)
	}
	if r.Schema != ReceiptSchema {
		return nil, Errorf(E317, "%s is not a receipt: it has schema %q, want %q", path, r.Schema, ReceiptSchema)
	}
	if r.RunID == "" {
		return nil, Errorf(E317, "%s is not a receipt: it has no run_id", path)
	}
	return &r, nil
}

// StoredReceipt is a receipt and the file it was read from.
type StoredReceipt struct {
	Path string `json:"path"`
	*Receipt
}

// SkippedFile is a file in a receipts directory that is not a receipt,
// and why (what LoadReceipt said of it).
type SkippedFile struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// listHint is what to do when a receipts directory cannot be read.
const listHint = "Check --receipts (or SABLINE_RECEIPTS) names a directory you can read."

// ScanReceipts reads every receipt in dir, oldest first. A *.json file
// that is not a receipt (see LoadReceipt) does not stop the others: it is
// returned in skipped, for the caller to name. Hidden files (the store's
// temporary files among them) and directories are passed over. A missing
// directory holds no receipts.
func ScanReceipts(dir string) (runs []StoredReceipt, skipped []SkippedFile, err error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil, nil
	}
	if err != nil {
		e := Errorf(E317, "list receipts: %w", err)
		e.Do = listHint
		return nil, nil, e
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		r, err := LoadReceipt(p)
		if err != nil {
			why := err.(*Error).Msg
			skipped = append(skipped, SkippedFile{Path: p, Why: strings.TrimPrefix(why, p+" is not a receipt: ")})
			continue
		}
		runs = append(runs, StoredReceipt{Path: p, Receipt: r})
	}
	sort.SliceStable(runs, func(i, j int) bool {
		return runs[i].Timings.Started.Before(runs[j].Timings.Started)
	})
	return runs, skipped, nil
}

// ListReceipts reads every receipt in dir, oldest first, passing over the
// files that are not receipts (ScanReceipts names them).
func ListReceipts(dir string) ([]StoredReceipt, error) {
	runs, _, err := ScanReceipts(dir)
	return runs, err
}

// LastRun is the run id PickReceipt reads as the newest run.
const LastRun = "last"

// PickReceipt returns the run of runs (oldest first, as ScanReceipts
// returns them) that id names: the run whose id is id, else the one run
// whose id starts with id, or, for LastRun, the newest. An empty id is
// E301; no run, or more than one, is E317 saying what to give instead.
// File names are not matched: they begin with the date, which many runs
// share.
func PickReceipt(runs []StoredReceipt, id string) (StoredReceipt, error) {
	if id == "" {
		return StoredReceipt{}, Errorf(E301, "receipts show: the run id is empty: give a run id (receipts list shows them) or %s", LastRun)
	}
	if len(runs) == 0 {
		e := Errorf(E317, "no receipts to find %q in: the directory holds none", id)
		e.Do = "Give --receipts (or SABLINE_RECEIPTS) the directory the runs wrote their receipts in (a run that fails prints its receipt's path)."
		return StoredReceipt{}, e
	}
	if id == LastRun {
		return runs[len(runs)-1], nil
	}
	var hits []StoredReceipt
	for _, r := range runs {
		if r.RunID == id {
			return r, nil
		}
		if strings.HasPrefix(r.RunID, id) {
			hits = append(hits, r)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		e := Errorf(E317, "no run id is or begins with %q (%d receipts)", id, len(runs))
		e.Do = "`sabline receipts list` shows the run ids (the second column); give one, a prefix of one, or " + LastRun + "."
		return StoredReceipt{}, e
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.RunID
	}
	e := Errorf(E317, "%d run ids begin with %q: %s", len(hits), id, strings.Join(ids, ", "))
	e.Do = "Give more of the run id, enough to name one run."
	return StoredReceipt{}, e
}

// FindReceipt returns the receipt in dir that id names (see PickReceipt).
func FindReceipt(dir, id string) (StoredReceipt, error) {
	if id == "" {
		return PickReceipt(nil, id)
	}
	runs, err := ListReceipts(dir)
	if err != nil {
		return StoredReceipt{}, err
	}
	return PickReceipt(runs, id)
}

// LevelChange is a run whose confinement level no earlier run of the same
// program had.
type LevelChange struct {
	Run     StoredReceipt
	Earlier []confine.Level // the levels earlier runs of the program had
	Weaker  bool            // below every level an earlier run had
}

// String names the run, its level and why, the earlier levels, and WEAKER
// when it is below all of them.
func (c LevelChange) String() string {
	earlier := make([]string, len(c.Earlier))
	for i, l := range c.Earlier {
		earlier[i] = string(l)
	}
	s := fmt.Sprintf("%s %s: level %s (%s), earlier runs had %s",
		c.Run.RunID, c.Run.Program.Path, c.Run.RunParameters.Confinement,
		c.Run.RunParameters.ConfinementReason, strings.Join(earlier, ", "))
	if c.Weaker {
		s += ": WEAKER"
	}
	return s
}

// DiffLevels walks runs oldest first and names each whose level no earlier
// run of the same program (by path) had, saying when it is weaker than all
// of them. Runs that ended before the policy was applied
// (ReasonNotApplied) are passed over.
func DiffLevels(runs []StoredReceipt) []LevelChange {
	seen := map[string]map[confine.Level]bool{}
	var out []LevelChange
	for _, r := range runs {
		if r.RunParameters.ConfinementReason == ReasonNotApplied {
			continue
		}
		key := r.Program.Path
		lv := r.RunParameters.Confinement
		prev := seen[key]
		if len(prev) > 0 && !prev[lv] {
			c := LevelChange{Run: r, Weaker: true}
			for l := range prev {
				c.Earlier = append(c.Earlier, l)
				if l.Rank() <= lv.Rank() {
					c.Weaker = false
				}
			}
			sort.Slice(c.Earlier, func(i, j int) bool { return c.Earlier[i].Rank() > c.Earlier[j].Rank() })
			out = append(out, c)
		}
		if prev == nil {
			prev = map[confine.Level]bool{}
			seen[key] = prev
		}
		prev[lv] = true
	}
	return out
}
