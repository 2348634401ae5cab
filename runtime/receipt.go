package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	// MadeForGrants are the granted write directories the supervisor
	// made before the worker started, each missing with its parent in
	// place, so that the kernel holds the grant exactly (see
	// makeGrantedDirs).
	MadeForGrants []string `json:"made_for_grants,omitempty"`
	// CrashReport is where the supervisor kept the worker's own crash
	// report (at most MaxCrashReportBytes of it), beside the receipt.
	CrashReport string `json:"crash_report,omitempty"`

	path     string // where the receipt was stored, once it was
	reserved int    // the bytes its file holds from the reservation
	storeErr error  // why it could not be stored or finished
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
	MaxMemoryMB        int           `json:"max_memory_mb,omitempty"` // the limit the worker's address space was held to, never one asked for and not held
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
	// Only a regular file is read here: a pipe can be read once, and
	// Supervise does that.
	if fi, err := os.Stat(program); err == nil && fi.Mode().IsRegular() {
		if f, err := os.Open(program); err == nil {
			data, over := readBounded(f, MaxProgramBytes)
			f.Close()
			if !over {
				sum := sha256.Sum256(data)
				r.Program.SHA256 = hex.EncodeToString(sum[:])
			}
		}
	}
	return r
}

func (rec *Receipt) setParameters(r Run) {
	p := rec.RunParameters
	p.Confine = r.Confine
	p.RequireConfinement = r.Require
	p.TimeoutMS = r.Timeout.Milliseconds()
	p.OSPolicySHA256 = confine.OSPolicy(r.Budget, confine.Options{Strict: r.Confine == ConfineStrict}).SHA256()
	rec.RunParameters = p
}

// Confinement is what the run's confinement held, as the receipt records it.
func (rec *Receipt) Confinement() confine.Result {
	p := rec.RunParameters
	return confine.Result{Level: p.Confinement, Reason: p.ConfinementReason, Layers: p.ConfinementLayers}
}

// takeWorker takes what the worker said of the run. For a program read from
// a pipe, the worker compiled a copy: the receipt names the operator's path.
func (rec *Receipt) takeWorker(res *WorkerResult, piped bool) {
	if res.Confinement.Level != "" { // "" when the worker died before it was confined
		rec.RunParameters.Confinement = res.Confinement.Level
		rec.RunParameters.ConfinementReason = res.Confinement.Reason
		rec.RunParameters.ConfinementLayers = res.Confinement.Layers
	}
	if len(res.Files) > 0 {
		rec.Program.Files = res.Files
		if piped {
			rec.Program.Files[0].Path = rec.Program.Path
		}
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
// directory, synced, then renamed into place. It returns the path. A run
// that starts has its receipt reserved instead (Run.Receipts); Write is
// for a run refused before it could start.
func (rec *Receipt) Write(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", Errorf(E317, "receipts directory %s: %w", dir, err)
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return "", Errorf(E317, "encode receipt: %w", err)
	}
	final := filepath.Join(dir, rec.fileName())
	if err := writeAtomic(final, append(data, '\n')); err != nil {
		return "", Errorf(E317, "write receipt %s: %w", final, err)
	}
	return final, nil
}

// fileName is the receipt's name in the store: its start time, then its
// run id.
func (rec *Receipt) fileName() string {
	return rec.Timings.Started.Format("20060102T150405.000000000Z") + "-" + rec.RunID + ".json"
}

// writeAtomic writes data to a temporary file beside final, syncs it and
// renames it into place.
func writeAtomic(final string, data []byte) error { return writeReceiptFile(final, data, true) }

// writeReceiptFile writes data to a temporary file beside final, syncs it when
// sync is set, and renames it into place.
func writeReceiptFile(final string, data []byte, sync bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(final), ".receipt-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil && sync {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), final)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// ReceiptReserve is the least space a run's receipt holds from before the
// worker starts (twice the skeleton's size when that is more, as with
// very long program arguments): the finished receipt fits in it whatever
// the program did to the file system meanwhile (filled it, say).
const ReceiptReserve = 64 << 10

// reserveReceipt makes the receipts directory and stores rec there as a
// skeleton whose outcome says the run started and its receipt was not
// finished (StatusUnfinished), padded with blanks to its reserved size and
// synced, so that the space of the finished receipt is taken before the
// program runs. It returns the directories it made that did not exist,
// the topmost one only: the run's grants never reach it. A failure is
// E317, and then nothing runs.
func reserveReceipt(rec *Receipt, dir string) (made []string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, Errorf(E317, "receipts directory %s: %w", dir, err)
	}
	top := ""
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		top = d
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, Errorf(E317, "receipts directory %s: %w: nothing ran", dir, err)
	}
	if top != "" {
		made = []string{top}
	}
	skeleton := *rec
	skeleton.Outcome = outcomeOf(Errorf(E327, "the run started at %s and its receipt was not finished: the supervisor was stopped, or could not write it",
		rec.Timings.Started.Format(time.RFC3339)))
	first, err := json.MarshalIndent(&skeleton, "", "  ")
	if err != nil {
		return nil, Errorf(E317, "encode receipt: %w: nothing ran", err)
	}
	rec.reserved = max(ReceiptReserve, 2*len(first))
	data, err := reservedBytes(&skeleton, rec.reserved)
	if err != nil {
		return nil, Errorf(E317, "reserve receipt: %w: nothing ran", err)
	}
	// Not synced: the file system takes the blocks at the write (a full
	// one refuses it there), and the finished receipt is synced. Two
	// syncs a run would cost every run a disk flush.
	final := filepath.Join(abs, rec.fileName())
	if err := writeReceiptFile(final, data, false); err != nil {
		return nil, Errorf(E317, "reserve receipt %s: %w: nothing ran", final, err)
	}
	rec.path = final
	return made, nil
}

// reservedBytes is rec as indented JSON padded with blanks to size bytes
// (JSON allows blanks after a value).
func reservedBytes(rec *Receipt, size int) ([]byte, error) {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode receipt: %w", err)
	}
	if len(data)+1 > size {
		return nil, fmt.Errorf("the receipt is %d bytes, more than the %d reserved", len(data), size)
	}
	pad := bytes.Repeat([]byte{' '}, size-len(data))
	pad[len(pad)-1] = '\n'
	return append(data, pad...), nil
}

// store finishes the reserved receipt: atomically, when the file system
// has room, and otherwise in the space reserved for it. When neither can
// be done, the skeleton stays (saying the receipt was not finished) and
// Stored returns E327.
func (rec *Receipt) store(dir string) {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		rec.storeErr = Errorf(E327, "encode receipt: %w", err)
		return
	}
	err = writeAtomic(rec.path, append(data, '\n'))
	if err == nil {
		return
	}
	if err2 := overwriteReserved(rec); err2 != nil {
		rec.storeErr = Errorf(E327, "finish receipt %s: %v; in its reserved space: %w", rec.path, err, err2)
	}
}

// overwriteReserved writes rec over its reserved skeleton in place: the
// blocks are the file's already, so a full file system does not stop it.
func overwriteReserved(rec *Receipt) error {
	data, err := reservedBytes(rec, rec.reserved)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(rec.path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Stored returns where Supervise stored the run's receipt and, when it
// could not reserve or finish it, why: E317 when it could not be reserved
// (and nothing ran), E327 when the run ran but its receipt could not be
// finished.
func (rec *Receipt) Stored() (string, error) { return rec.path, rec.storeErr }

// keepCrashReport copies the worker's crash report (at most
// MaxCrashReportBytes, a regular file only) from the run's temporary
// directory to the receipts directory, beside the receipt, and names it
// in the receipt. It returns the copy's path, or "" when there is none.
func (rec *Receipt) keepCrashReport(dir, tmp string) string {
	report := readCrashReport(tmp)
	if strings.TrimSpace(report) == "" {
		return ""
	}
	path := filepath.Join(dir, strings.TrimSuffix(rec.fileName(), ".json")+".crash.txt")
	if err := writeAtomic(path, []byte(report)); err != nil {
		return ""
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	rec.CrashReport = path
	return path
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
