package receipt

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt/journal"
)

// Schema names the receipt format.
const Schema = "sabline.receipt/1"

// DirEnv overrides the default receipts directory; --receipts
// overrides it in turn.
const DirEnv = "SABLINE_RECEIPTS"

// Receipt is the record of one run, refused and failed ones too, written
// by the supervisor.
type Receipt struct {
	Schema  string      `json:"schema"`
	RunID   string      `json:"run_id"`
	Sabline Build       `json:"sabline"`
	Program ProgramInfo `json:"program"`
	Budget  string      `json:"budget"`
	// Args are the program's arguments, whole when they fit the bound
	// (MaxArgsBytes, MaxArgsKept), else their beginning, and ArgsCut
	// says what is left out. A receipt written before the bound holds
	// them whole, however long, with no ArgsCut.
	Args          []string      `json:"args"`
	ArgsCut       *ArgsCut      `json:"args_cut,omitempty"`
	RunParameters RunParameters `json:"run_parameters"`
	// Observed is what the supervisor saw of the worker, and Reported
	// names the fields the worker reported once the program had started,
	// and says when they are testimony (parts.go).
	Observed Observed `json:"observed"`
	// StdoutCut says how much of the program's standard output its
	// caller was given, when not all of it (StdoutLine); a pool's worker
	// reports it (FieldStdoutCut).
	StdoutCut *StdoutCut     `json:"stdout_cut,omitempty"`
	Reported  *Reported      `json:"reported"`
	Outcome   Outcome        `json:"outcome"`
	Effects   []budget.Usage `json:"effects"`
	Faults    []FaultAttempt `json:"fault_injection,omitempty"`
	Timings   Timings        `json:"timings"`
	Platform  Platform       `json:"platform"`
	// CrashReport is where the supervisor kept the worker's own crash
	// report (at most MaxCrashReportBytes of it), beside the receipt.
	CrashReport string `json:"crash_report,omitempty"`
	// Cut says what was left out of a receipt finished in its reserved
	// space, on a full file system, to fit it there (see Finish): one
	// line per field cut. Empty when nothing was.
	Cut []string `json:"cut,omitempty"`
	// Tenant is the tenant whose client asked for the run through a
	// server's door (its name in the server's tenants file, never its
	// token): only that tenant's clients read the receipt there.
	Tenant string `json:"tenant,omitempty"`

	path     string // where the receipt was stored, once it was
	reserved int    // the bytes its file holds from the reservation
	storeErr error  // why it could not be stored or finished
	stored   []byte // the JSON a Store appended as it finished it (StoredJSON)
}

// ProgramInfo names the program and the digests of its files.
type ProgramInfo struct {
	Path   string               `json:"path"`
	SHA256 string               `json:"sha256,omitempty"`
	Files  []program.FileDigest `json:"files,omitempty"` // the program and every file it loads
}

// RunParameters are how the run was asked for and what it was given.
type RunParameters struct {
	Confinement       core.Level `json:"confinement"`
	ConfinementReason string     `json:"confinement_reason"`
	ConfinementLayers []string   `json:"confinement_layers"`
	// ConfinementGaps are the facts the level and the reason were made
	// from (core.Gap); none in a receipt of a run never confined.
	ConfinementGaps    []core.Gap `json:"confinement_gaps,omitempty"`
	OSPolicySHA256     string     `json:"os_policy_sha256"`
	Confine            core.Mode  `json:"confine"`
	RequireConfinement core.Level `json:"require_confinement,omitempty"`
	TimeoutMS          int64      `json:"timeout_ms,omitempty"`
	// MaxMemoryMB is the limit the worker's address space was held to, never one asked for and not
	// held.
	MaxMemoryMB int `json:"max_memory_mb,omitempty"`
	// CredentialsLent are the credential locations the operator lent the
	// run (--lend-credential): a grant that names one reaches it.
	CredentialsLent []string `json:"credentials_lent,omitempty"`
	// Durability is how the receipt was kept before the run's result was
	// returned (a Store keeps it so). Absent from a receipt file the
	// command line writes, and from receipts written before it was
	// recorded.
	Durability Durability `json:"durability,omitempty"`
	// DurabilityWindowMS is, with Background, the journal's commit
	// interval: the flush that takes the receipt begins within it of the
	// receipt's write (or once a flush under way then has ended), and a
	// power cut before that flush ends can lose the receipt. Absent with
	// any other durability, and from receipts written before it was
	// recorded.
	DurabilityWindowMS int64 `json:"durability_window_ms,omitempty"`
}

// Asked records how the run was asked for: the confine mode, the level
// required, the timeout, and the digest of the OS policy its budget
// derives.
func (p *RunParameters) Asked(mode core.Mode, require core.Level, timeout time.Duration,
	policySHA256 string) {
	p.Confine, p.RequireConfinement = mode, require
	p.TimeoutMS, p.OSPolicySHA256 = timeout.Milliseconds(), policySHA256
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

// New starts the receipt of a run of the program at path under b. The
// program's digest is taken here, so a run that never starts still names
// the bytes it was asked to run.
func New(path string, b budget.Budget, args []string) *Receipt {
	r := NewForSource(path, nil, b, args)
	// Only a regular file is read here: a pipe can be read once, and
	// the supervisor does that.
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		if f, err := os.Open(path); err == nil {
			data, err := program.Read(f, fi.Size())
			f.Close()
			if err == nil {
				sum := sha256.Sum256(data)
				r.Program.SHA256 = hex.EncodeToString(sum[:])
			}
		}
	}
	return r
}

// NewForSource starts the receipt of a run of src, named path, under b,
// reading nothing: the digest is src's (none when src is nil).
func NewForSource(path string, src []byte, b budget.Budget, args []string) *Receipt {
	r := &Receipt{
		Schema:   Schema,
		RunID:    makeRunID(),
		Sabline:  ThisBuild(),
		Program:  ProgramInfo{Path: path},
		Budget:   b.String(),
		Effects:  []budget.Usage{},
		Reported: &Reported{Fields: []string{}},
		Platform: platform(),
	}
	r.SetConfinement(core.NotApplied())
	r.Args, r.ArgsCut = keepArgs(args)
	if src != nil {
		sum := sha256.Sum256(src)
		r.Program.SHA256 = hex.EncodeToString(sum[:])
	}
	return r
}

// Confinement is what the run's confinement held, as the receipt records it.
func (rec *Receipt) Confinement() core.Result {
	p := rec.RunParameters
	return core.Result{
		Level:  p.Confinement,
		Reason: p.ConfinementReason,
		Layers: p.ConfinementLayers,
		Gaps:   p.ConfinementGaps,
	}
}

// SetConfinement records what the run's confinement held: its level,
// reason, layers and gaps.
func (rec *Receipt) SetConfinement(held core.Result) {
	p := &rec.RunParameters
	p.Confinement, p.ConfinementReason, p.ConfinementLayers, p.ConfinementGaps =
		held.Level, held.Reason, held.Layers, held.Gaps
}

// DefaultDir is where receipts go unless SABLINE_RECEIPTS or
// --receipts says otherwise: the user's state directory
// ($XDG_STATE_HOME/sabline/receipts, ~/.local/state/sabline/receipts), or
// on macOS and Windows the user's configuration directory. A relative
// XDG_STATE_HOME is passed over, as the XDG base directory specification
// says and as Go passes over a relative XDG_CACHE_HOME; a relative HOME
// is E317: each named a place beneath whatever the working directory
// was, and each run from another one kept its receipt, and found the
// last, somewhere else.
func DefaultDir() (string, error) {
	if d := os.Getenv(DirEnv); d != "" {
		return d, nil
	}
	if goruntime.GOOS != "darwin" && goruntime.GOOS != "windows" {
		if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
			return filepath.Join(d, "sabline", "receipts"), nil
		}
		home, err := os.UserHomeDir()
		if err == nil && !filepath.IsAbs(home) {
			err = fmt.Errorf("$HOME is not an absolute path: %q", home)
		}
		if err != nil {
			return "", codes.Errorf(codes.E317, "no home directory for receipts (set %s): %w", DirEnv, err)
		}
		return filepath.Join(home, ".local", "state", "sabline", "receipts"), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", codes.Errorf(codes.E317, "no directory for receipts (set %s): %w", DirEnv, err)
	}
	return filepath.Join(d, "sabline", "receipts"), nil
}

// Write stores the receipt in dir atomically: a temporary file in the same
// directory, synced, then renamed into place. It returns the path. A run
// that starts has its receipt reserved instead (Run.Receipts); Write is
// for a run refused before it could start. A directory that a user who is
// neither this one nor root owns is E317, and nothing is written there.
func (rec *Receipt) Write(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", roomless(codes.Errorf(codes.E317, "receipts directory %s: %w", dir, err), err)
	}
	if err := checkDirOwner(dir); err != nil {
		return "", err
	}
	data, err := rec.indented()
	if err != nil {
		return "", codes.Errorf(codes.E317, "encode receipt: %w", err)
	}
	final := filepath.Join(dir, rec.fileName())
	if err := writeAtomic(final, append(data, '\n')); err != nil {
		return "", roomless(codes.Errorf(codes.E317, "write receipt %s: %w", final, err), err)
	}
	return final, nil
}

// Key is the receipt's name in a store, a file's name or a journal
// record's key: its start time, then its run id.
func (rec *Receipt) Key() string { return rec.fileName() }

// RunIDOfKey is the run id a receipt's Key names, and whether key is one.
func RunIDOfKey(key string) (string, bool) {
	rest, ok := strings.CutSuffix(key, ".json")
	if !ok {
		return "", false
	}
	i := strings.LastIndexByte(rest, '-')
	if i < 0 || !ValidRunID(rest[i+1:]) {
		return "", false
	}
	return rest[i+1:], true
}

// fileName is the receipt's name in the store: its start time, then its
// run id; made twice a run, in one allocation.
func (rec *Receipt) fileName() string {
	var buf [96]byte
	b := rec.Timings.Started.AppendFormat(buf[:0], "20060102T150405.000000000Z")
	b = append(b, '-')
	b = append(b, rec.RunID...)
	return string(append(b, ".json"...))
}

// writeAtomic writes data to a temporary file beside final, syncs it and
// renames it into place.
func writeAtomic(final string, data []byte) error { return writeReceiptFile(final, data, 0, syncNow) }

// durability is how long writing a receipt file waits for the disk.
type durability int

const (
	// syncNow waits for the file's bytes to reach the disk.
	syncNow durability = iota
	// startWriteback starts the file's bytes on their way to the disk
	// and does not wait (on Linux, sync_file_range; elsewhere, as
	// syncNow): a crash of the process loses nothing, a power cut within
	// the writeback can.
	startWriteback
	// noWait leaves the file's bytes to the kernel's writeback.
	noWait
)

// fileDurability is how long writing a receipt file kept with d waits for
// the disk: Flush waits for it; none recorded (the command line's) and
// Background start the writeback; None leaves it to the kernel.
func fileDurability(d Durability) durability {
	switch d {
	case Flush:
		return syncNow
	case None:
		return noWait
	}
	return startWriteback
}

// writeReceiptFile writes data, padded to size bytes when it is shorter
// (writePadded), to a temporary file beside final, with the durability d,
// and renames it into place: the file at final is the old one or the new
// one, never a mix.
func writeReceiptFile(final string, data []byte, size int, d durability) error {
	tmp, err := os.CreateTemp(filepath.Dir(final), ".receipt-*")
	if err != nil {
		return err
	}
	err = writePadded(tmp, data, size)
	if err == nil {
		switch d {
		case syncNow:
			err = tmp.Sync()
		case startWriteback:
			err = writeBack(tmp)
		}
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

// ReserveBytes is the least space a run's receipt holds from before the
// worker starts (twice the skeleton's size when that is more, as with a
// long budget): the finished receipt fits in it whatever the program did
// to the file system meanwhile (filled it, say). Its outcome is bounded
// (codes.Error.Bounded), and what else can make it long (the arguments,
// of which the skeleton keeps only the digest, and what a worker's record
// says) is cut to fit, saying so (Cut), when the receipt must be finished
// there.
const ReserveBytes = 64 << 10

// Reserve makes the receipts directory and stores rec there as a
// skeleton whose outcome says the run started and its receipt was not
// finished (StatusUnfinished), padded with blanks to its reserved size and
// synced, so that the space of the finished receipt is taken before the
// program runs. It returns the directories it made that did not exist,
// the topmost one only: the run's grants never reach it. A failure is
// E317, and then nothing runs; so is a receipts directory that a user who
// is neither this one nor root owns (made first at a shared place, it is
// theirs to empty and fill). A Reserve that succeeds after one that failed
// leaves rec stored as it says.
func (rec *Receipt) Reserve(dir string) (made []string, err error) {
	defer func() { rec.storeErr = err }()
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, codes.Errorf(codes.E317, "receipts directory %s: %w", dir, err)
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
		return nil, roomless(codes.Errorf(codes.E317, "receipts directory %s: %w: nothing ran",
			dir, err), err)
	}
	if err := checkDirOwner(abs); err != nil {
		e := err.(*codes.Error)
		e.Msg += ": nothing ran"
		return nil, e
	}
	if top != "" {
		made = []string{top}
	}
	skeleton := rec.skeleton("the supervisor")
	first, err := skeleton.indented()
	if err != nil {
		return nil, codes.Errorf(codes.E317, "encode receipt: %w: nothing ran", err)
	}
	rec.reserved = max(ReserveBytes, 2*len(first))
	// The file system takes the blocks at the write (a full one refuses
	// it there); the skeleton starts for the disk while the run goes on.
	final := filepath.Join(abs, rec.fileName())
	if err := writeReceiptFile(final, first, rec.reserved, startWriteback); err != nil {
		return nil, roomless(codes.Errorf(codes.E317, "reserve receipt %s: %w: nothing ran",
			final, err), err)
	}
	rec.path = final
	return made, nil
}

// skeleton is rec as reserved before its run: its outcome says the run
// started and its receipt was not finished (who names what finishes it),
// its confinement, unless rec has one already, that what was applied is
// not recorded (core.Unrecorded), and of the arguments it keeps only their digest, count and size, which
// name them: the finished receipt keeps them (as many as fit the bound),
// so that they are stored once. rec is a receipt New or NewForSource made.
func (rec *Receipt) skeleton(who string) Receipt {
	s := *rec
	s.Outcome = unfinished(rec, who)
	if rec.Confinement().Unapplied() {
		// What the worker will apply is not known yet, and stays so
		// where the run's end never finishes the receipt.
		s.SetConfinement(core.Unrecorded())
	}
	if d, ok := rec.argsDigestOnly(); ok {
		s.Args, s.ArgsCut = []string{}, &d
	}
	return s
}

// argsDigestOnly is what a receipt that keeps none of rec's arguments
// says of them (their digest, count and size), and false when there are
// none to leave out.
func (rec *Receipt) argsDigestOnly() (ArgsCut, bool) {
	switch {
	case rec.ArgsCut != nil:
		d := *rec.ArgsCut
		d.KeptCount, d.KeptBytes = 0, 0
		return d, true
	case len(rec.Args) > 0:
		return argsDigest(rec.Args), true
	}
	return ArgsCut{}, false
}

// reservedBytes is rec as indented JSON that, padded (writePadded), fills
// size bytes: whole when it fits with the padding's newline, else fitted.
// kept is the receipt the bytes are: rec, or its fitted copy.
func reservedBytes(rec *Receipt, size int) (data []byte, kept *Receipt, err error) {
	kept = rec
	data, err = rec.indented()
	if err == nil && len(data)+1 > size {
		kept = rec.fitted()
		data, err = kept.indented()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("encode receipt: %w", err)
	}
	if len(data)+1 > size {
		return nil, nil, fmt.Errorf("the receipt is %d bytes, more than the %d reserved, even cut",
			len(data), size)
	}
	return data, kept, nil
}

// fittedBytes bounds each text fitted keeps of what the worker said.
const fittedBytes = 512

// fittedConnections is how many connections fitted lists.
const fittedConnections = 8

// fitted is a copy of rec with what the worker's record may make long
// cut, each cut named in Cut: the arguments (their digest stays), the
// stack but its innermost frame, the
// digests of the files the program loaded (the program's own stays), the
// connections past the first fittedConnections (counted), and the message, the confinement reason and the fault attempts' errors past
// fittedBytes, and so the program's own path and digest (a pooled run's
// worker says them). What the run was, how it ended, its effects and its
// level stay: the receipt a full file system, or the journal's bound on a
// record, leaves is a finished one, never the skeleton.
func (rec *Receipt) fitted() *Receipt {
	out := *rec
	out.Cut = slices.Clone(rec.Cut)
	if n := len(rec.Outcome.Stack); n > 1 {
		out.Outcome.Stack = rec.Outcome.Stack[:1]
		out.Cut = append(out.Cut, fmt.Sprintf("outcome.stack: all but the innermost of its %d frames", n))
	}
	if n := len(rec.Program.Files); n > 1 {
		out.Program.Files = rec.Program.Files[:1]
		out.Cut = append(out.Cut,
			fmt.Sprintf("program.files: the digests of the %d files the program loaded", n-1))
	}
	clip := func(field string, s *string) {
		if c := codes.Clip(*s, fittedBytes); c != *s {
			*s = c
			out.Cut = append(out.Cut, field+": past its first "+fmt.Sprint(fittedBytes)+" bytes")
		}
	}
	if n := len(rec.Observed.Connections); n > fittedConnections {
		out.Observed.Connections = rec.Observed.Connections[:fittedConnections]
		out.Observed.ConnectionsUnlisted += n - fittedConnections
		out.Cut = append(out.Cut, fmt.Sprintf("observed.connections: all but the first %d of %d, "+
			"counted in connections_unlisted", fittedConnections, n))
	}
	if n := len(rec.Args); ArgsBytes(rec.Args)+int64(4*n) > fittedBytes {
		d, _ := rec.argsDigestOnly()
		out.Args, out.ArgsCut = []string{}, &d
		out.Cut = append(out.Cut, fmt.Sprintf("args: the %d arguments kept, named by their digest in "+
			"args_cut", n))
	}
	if len(out.Program.Files) == 1 {
		out.Program.Files = slices.Clone(out.Program.Files)
		clip("program.files.0.path", &out.Program.Files[0].Path)
		clip("program.files.0.sha256", &out.Program.Files[0].SHA256)
	}
	clip("outcome.message", &out.Outcome.Message)
	clip("run_parameters.confinement_reason", &out.RunParameters.ConfinementReason)
	out.Faults = slices.Clone(rec.Faults)
	for i := range out.Faults {
		clip(fmt.Sprintf("fault_injection.%d.error", i), &out.Faults[i].Error)
	}
	return &out
}

// Blocks of blanks, made by the compiler. blanks is the block a reserved
// receipt is padded from (JSON allows blanks after a value).
const (
	blanks64 = "                                                                "
	blanks1K = blanks64 + blanks64 + blanks64 + blanks64 + blanks64 + blanks64 + blanks64 +
		blanks64 + blanks64 + blanks64 + blanks64 + blanks64 + blanks64 + blanks64 +
		blanks64 + blanks64
	blanks4K  = blanks1K + blanks1K + blanks1K + blanks1K
	blanks16K = blanks4K + blanks4K + blanks4K + blanks4K
	blanks    = blanks16K + "\n"
)

// writePadded writes data to w, then, when data is shorter than size,
// blanks and a newline to size bytes in all. The padding is written a
// block at a time from blanks, the binary's read-only data, not built in
// memory: 64 KB of fresh memory is some 30 page faults in every run, each
// taken by the kernel (10 to 11 µs apiece on this project's virtual
// machine; bench/README.md, "Page faults").
func writePadded(w io.Writer, data []byte, size int) error {
	if _, err := w.Write(data); err != nil {
		return err
	}
	rest := size - len(data)
	if rest <= 0 {
		return nil
	}
	for ; rest > len(blanks); rest -= len(blanks) - 1 {
		if _, err := io.WriteString(w, blanks[:len(blanks)-1]); err != nil {
			return err
		}
	}
	// The last block is blanks' end, its newline last.
	_, err := io.WriteString(w, blanks[len(blanks)-rest:])
	return err
}

// Finish finishes the reserved receipt: atomically, when the file system
// has room, and otherwise in the space reserved for it, cut to fit there
// when it is longer (Cut), and rec is then the cut receipt the file
// holds. When neither can
// be done, the skeleton stays (saying the receipt was not finished) and
// Stored returns E327. How long it waits for the disk follows the
// receipt's RunParameters.Durability (fileDurability); where it does not
// wait, a power cut just after a run can leave its skeleton, which says
// the receipt was not finished, in its place (docs/library.md, Receipts).
func (rec *Receipt) Finish() {
	data, err := rec.indented()
	if err != nil {
		rec.storeErr = codes.Errorf(codes.E327, "encode receipt: %w", err)
		return
	}
	d := fileDurability(rec.RunParameters.Durability)
	err = writeReceiptFile(rec.path, append(data, '\n'), 0, d)
	if err == nil && d == syncNow {
		// The file's bytes are on the device; its name, the rename's, is
		// once the directory is.
		if err := journal.SyncDir(filepath.Dir(rec.path)); err != nil {
			rec.storeErr = codes.Errorf(codes.E327, "finish receipt %s: flush its directory: %w",
				rec.path, err)
		}
		return
	}
	if err == nil {
		return
	}
	if err2 := overwriteReserved(rec); err2 != nil {
		rec.storeErr = codes.Errorf(codes.E327, "finish receipt %s: %v; in its reserved space: %w",
			rec.path, err, err2)
	}
}

// overwriteReserved writes rec over its reserved skeleton in place: the
// blocks are the file's already, so a full file system does not stop it.
// A receipt cut to fit there is, once written, rec too: the caller holds
// the receipt the file does, its Cut saying what was left out, as a
// Store's caller does (Store.Finish).
func overwriteReserved(rec *Receipt) error {
	data, kept, err := reservedBytes(rec, rec.reserved)
	if err != nil {
		return err
	}
	// One write, so that the file holds the skeleton or the receipt
	// whole: the padding is built in memory, on this rare path alone (a
	// bytes.Buffer takes every write).
	var whole bytes.Buffer
	writePadded(&whole, data, rec.reserved)
	f, err := os.OpenFile(rec.path, os.O_WRONLY|inPlaceFlags, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(whole.Bytes(), 0)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		*rec = *kept
	}
	return err
}

// Stored returns where Supervise stored the run's receipt and, when it
// could not reserve or finish it, why: E317 when it could not be reserved
// (and nothing ran), E327 when the run ran but its receipt could not be
// finished.
func (rec *Receipt) Stored() (string, error) { return rec.path, rec.storeErr }

// StoredJSON is the JSON a Store appended as rec when it last finished it
// (Store.Finish), byte for byte as the journal holds it: the bytes
// json.Marshal writes for rec as it was then (AppendJSON). It is nil when
// no store finished rec, or the append failed. A caller that sends the
// receipt on reads these bytes, shared with rec and not to be changed,
// rather than encoding it again; a change made to rec after Finish is in
// neither them nor the journal.
func (rec *Receipt) StoredJSON() []byte { return rec.stored }

// KeepCrashReport writes the worker's crash report (as the supervisor read
// it) to the receipts directory, beside the receipt, and names it
// in the receipt. It returns the copy's path, or "" when there is none.
func (rec *Receipt) KeepCrashReport(dir, report string) string {
	if strings.TrimSpace(report) == "" {
		return ""
	}
	path := filepath.Join(dir, crashReportName(rec.fileName()))
	if err := writeAtomic(path, []byte(report)); err != nil {
		return ""
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	rec.CrashReport = path
	return path
}

// crashReportName is the name of the crash report kept beside the
// receipt whose key is key (KeepCrashReport).
func crashReportName(key string) string {
	return strings.TrimSuffix(key, ".json") + ".crash.txt"
}

// MaxBytes bounds the size of a receipt file Load reads. A
// receipts directory is one a program could have written to (under a
// broad grant with the guard knocked out, or by another route), so a file
// in it is read as untrusted bytes: a larger one is not a receipt. It is
// the journal's bound on a record, so that what one holds the other does.
const MaxBytes = journal.MaxPayloadBytes

// Load reads one receipt file: a regular file of at most
// MaxBytes holding a JSON object of this schema with a run id, whose
// reported part names only fields a worker reports, and, when its name
// is a receipt's (Key: its start, then a run id), the receipt of the run
// its name names, owned by this user or root (a file another user owns,
// its content theirs to choose, is no receipt of ours). Any other file is
// E317, with a message that says what it is instead.
func Load(path string) (*Receipt, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, codes.Errorf(codes.E317, "read receipt: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, codes.Errorf(codes.E317, "%s is not a receipt: not a regular file (mode %s)", path,
			fi.Mode().Type())
	}
	if err := anotherOwner(fi); err != nil {
		return nil, codes.Errorf(codes.E317, "%s is not a receipt: %w", path, err)
	}
	// Opened as it was found: a name swapped since for a link or a named
	// pipe (whose open would wait for a writer) is refused, not read; one
	// swapped for another user's file is refused by its owner.
	data, opened, err := journal.ReadRegularInfo(path, MaxBytes)
	switch {
	case errors.Is(err, journal.ErrFileTooLarge):
		return nil, codes.Errorf(codes.E317, "%s is not a receipt: larger than %d bytes", path, MaxBytes)
	case err != nil:
		return nil, codes.Errorf(codes.E317, "read receipt: %w", err)
	}
	if err := anotherOwner(opened); err != nil {
		return nil, codes.Errorf(codes.E317, "%s is not a receipt: %w", path, err)
	}
	return parseKeyed(path, filepath.Base(path), data)
}

// parseReceipt decodes the bytes of a receipt file named path.
// Parse reads data as a receipt, checked as Load checks a file; name
// says where it came from in an error.
func Parse(name string, data []byte) (*Receipt, error) {
	if len(data) > MaxBytes {
		return nil, codes.Errorf(codes.E317, "%s is not a receipt: larger than %d bytes", name, MaxBytes)
	}
	return parseReceipt(name, data)
}

func parseReceipt(path string, data []byte) (*Receipt, error) {
	var r Receipt
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, codes.Errorf(codes.E317, "%s is not a receipt: %w", path, err)
	}
	if r.Schema != Schema {
		return nil, codes.Errorf(codes.E317, "%s is not a receipt: it has schema %q, want %q", path,
			r.Schema, Schema)
	}
	if r.RunID == "" {
		return nil, codes.Errorf(codes.E317, "%s is not a receipt: it has no run_id", path)
	}
	if err := r.Reported.check(); err != nil {
		return nil, codes.Errorf(codes.E317, "%s is not a receipt: %w", path, err)
	}
	if d := r.RunParameters.Durability; d != "" && !slices.Contains(Durabilities, d) {
		return nil, codes.Errorf(codes.E317, "%s is not a receipt: its durability %q is none of Sabline's",
			path, d)
	}
	if w := r.RunParameters.DurabilityWindowMS; w < 0 ||
		w > 0 && r.RunParameters.Durability != Background {
		return nil, codes.Errorf(codes.E317, "%s is not a receipt: a durability window of %d ms "+
			"with durability %q (a window is a background receipt's, and not below zero)",
			path, w, r.RunParameters.Durability)
	}
	return &r, nil
}

// errOtherRun is wrapped by the error of a receipt file or journal
// record whose name (its Key) names one run and whose content is
// another's: planted, or written over, it is not the receipt of the run
// its name says.
var errOtherRun = errors.New("another run's receipt under this run's name")

// parseKeyed is parseReceipt of data, stored under key (a receipt file's
// name or a journal record's key), which, when it names a run
// (RunIDOfKey), must be the run data is the receipt of: another run's is
// E317, wrapping errOtherRun, and never read as either run's receipt.
func parseKeyed(path, key string, data []byte) (*Receipt, error) {
	r, err := parseReceipt(path, data)
	if err != nil {
		return nil, err
	}
	if id, ok := RunIDOfKey(key); ok && id != r.RunID {
		return nil, codes.Errorf(codes.E317, "%s is not a receipt: its name is run %s's, its "+
			"content run %s's (%w)", path, id, codes.TerminalSafe(codes.Clip(r.RunID, 64)), errOtherRun)
	}
	return r, nil
}

// StoredReceipt is a receipt and the file it was read from.
type StoredReceipt struct {
	Path string `json:"path"`
	*Receipt
}

// SkippedFile is a file in a receipts directory that is not a receipt,
// and why (what Load said of it).
type SkippedFile struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// fullDo is what to do when a receipt cannot be written for want of room
// on its file system (roomless): the directory is writable, and every run
// would be refused again until there is room.
const fullDo = "The file system that holds the receipts directory is full (no space or no " +
	"inodes left, or your quota used up): free room there, or name another directory with " +
	"--receipts (or SABLINE_RECEIPTS). Nothing ran."

// roomless sets e's Do to fullDo when err is the file system's having no
// room for the receipt (ENOSPC, EDQUOT, or a journal's record cut short:
// a write to a regular file is short where the file system had room for
// part of it), or to sizeLimitDo when it is the process's file size
// limit's (EFBIG, as the journal says a record it cut short too), or to
// what to do about the descriptor limit when it is that (EMFILE, ENFILE),
// and returns e.
func roomless(e *codes.Error, err error) *codes.Error {
	switch {
	case errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) ||
		errors.Is(err, io.ErrShortWrite):
		e.Do = fullDo
	case errors.Is(err, syscall.EFBIG):
		e.Do = sizeLimitDo
	case codes.OutOfDescriptors(err):
		e.Do = codes.DescriptorsDo("writing a receipt")
	}
	return e
}

// sizeLimitDo is what to do when a receipt cannot be written past the
// process's file size limit (EFBIG: a caller's ulimit -f below the 64
// KiB a receipt file is reserved with), which roomless tells from a full
// file system: the directory has room, and every run would be refused
// again under the same limit.
const sizeLimitDo = "The file size limit this process was started with (ulimit -f, a unit's " +
	"LimitFSIZE) is below what a receipt takes (a receipt file is reserved at 64 KiB): raise " +
	"or lift the limit. Nothing ran."

// listHint is what to do when a receipts directory cannot be read.
const listHint = "Check --receipts (or SABLINE_RECEIPTS) names a directory you can read."

// Scan reads every receipt in dir, oldest first: its receipt files and
// the records of its journal (journalDir, kept by a Store). A *.json file
// that is not a receipt (see Load) does not stop the others: it is
// returned in skipped, for the caller to name. Hidden files (the store's
// temporary files among them) and directories are passed over. A missing
// directory holds no receipts; one owned by a user who is neither this one
// nor root is E317 (its owner can remove, replace and plant receipts in
// it), and a receipt file or journal directory such a user owns is
// skipped.
func Scan(dir string) (runs []StoredReceipt, skipped []SkippedFile, err error) {
	if err := checkDirOwner(dir); err != nil {
		return nil, nil, err
	}
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil, nil
	}
	if err != nil {
		e := codes.Errorf(codes.E317, "list receipts: %w", err)
		e.Do = listHint
		return nil, nil, e
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		r, err := Load(p)
		if err != nil {
			why := err.(*codes.Error).Msg
			skipped = append(skipped,
				SkippedFile{Path: p, Why: strings.TrimPrefix(why, p+" is not a receipt: ")})
			continue
		}
		runs = append(runs, StoredReceipt{Path: p, Receipt: r})
	}
	jruns, jskipped, err := scanJournal(dir)
	if err != nil {
		return nil, nil, err
	}
	runs, skipped = append(runs, jruns...), append(skipped, jskipped...)
	sort.SliceStable(runs, func(i, j int) bool {
		return runs[i].Timings.Started.Before(runs[j].Timings.Started)
	})
	return runs, skipped, nil
}

// List reads every receipt in dir, oldest first, passing over the
// files that are not receipts (Scan names them).
func List(dir string) ([]StoredReceipt, error) {
	runs, _, err := Scan(dir)
	return runs, err
}

// LastRun is the run id Pick reads as the newest run.
const LastRun = "last"

// Pick returns the run of runs (oldest first, as Scan
// returns them) that id names: the run whose id is id, else the one run
// whose id starts with id, or, for LastRun, the newest. An empty id is
// E301; no run, or more than one, is E317 saying what to give instead.
// File names are not matched: they begin with the date, which many runs
// share.
func Pick(runs []StoredReceipt, id string) (StoredReceipt, error) {
	if id == "" {
		return StoredReceipt{}, codes.Errorf(codes.E301,
			"receipts show: the run id is empty: give a run id (receipts list shows them) or %s", LastRun)
	}
	if len(runs) == 0 {
		e := codes.Errorf(codes.E317, "no receipts to find %q in: the directory holds none", id)
		e.Do = "Give --receipts (or SABLINE_RECEIPTS) the directory the runs wrote their receipts in " +
			"(a run that fails prints its receipt's path)."
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
		e := codes.Errorf(codes.E317, "no run id is or begins with %q (%d receipts)", id, len(runs))
		e.Do = "`sabline receipts list` shows the run ids (the second column); give one, a prefix of " +
			"one, or " + LastRun + "."
		return StoredReceipt{}, e
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.RunID
	}
	e := codes.Errorf(codes.E317, "%d run ids begin with %q: %s", len(hits), id,
		strings.Join(ids, ", "))
	e.Do = "Give more of the run id, enough to name one run."
	return StoredReceipt{}, e
}

// Find returns the receipt in dir that id names (see PickIn).
func Find(dir, id string) (StoredReceipt, error) {
	if id == "" {
		return Pick(nil, id)
	}
	runs, skipped, err := Scan(dir)
	if err != nil {
		return StoredReceipt{}, err
	}
	return PickIn(dir, runs, skipped, id)
}

// PickIn is Pick of runs, the receipts Scan read in dir, beside skipped,
// the files it passed over. When no run is or begins with id, a receipt
// of such a run among skipped is E317 saying it is there and why it
// cannot be read (unreadableDo), not that there is no such run; else,
// when the directory's journal had segments removed (Store.Prune), it is
// E337, saying the receipt may no longer be kept.
func PickIn(dir string, runs []StoredReceipt, skipped []SkippedFile, id string) (StoredReceipt,
	error) {
	r, err := Pick(runs, id)
	if err != nil && id != "" && id != LastRun && !slices.ContainsFunc(runs,
		func(r StoredReceipt) bool { return strings.HasPrefix(r.RunID, id) }) {
		for _, s := range skipped {
			if run, ok := RunIDOfKey(filepath.Base(s.Path)); ok && strings.HasPrefix(run, id) {
				e := codes.Errorf(codes.E317,
					"the receipt of run %s is in %s and cannot be read: %s", run,
					codes.TerminalSafe(s.Path), codes.TerminalSafe(s.Why))
				e.Do = unreadableDo
				return StoredReceipt{}, e
			}
		}
		if e := noLongerKept(dir, id); e != nil {
			return StoredReceipt{}, e
		}
	}
	return r, err
}

// unreadableDo is what to do about a receipt of the run asked for that
// this build cannot read (PickIn).
const unreadableDo = "A Sabline newer than this one, beside it on the receipts directory " +
	"(during an upgrade), may have written what this build does not know: read the receipt with " +
	"that build's `sabline receipts show`. Otherwise it was damaged, or not written by Sabline."

// FindRun returns the receipt in dir of the run whose id is id, the whole
// id: the receipt file, or the journal's last record, whose name ends in
// "-ID.json". Only that receipt is decoded and read: the journal's records
// are found through an index of the run ids in each segment (runIndex),
// which reads each segment once and then what was appended to it; for an
// id that says when it was made (RunIDOrigin), segments last written
// before then are passed over, unless none of the others holds the run
// (a wall clock stepped back stamps a segment written after the id
// before the id's time). A file or record under the run's name that
// is another run's receipt is passed over (the journal's last record
// before it under that name is read in its place), and so is one another
// user owns (neither this one nor root); a receipts directory such a user
// owns is E317, as Scan says. No such run is E317
// wrapping fs.ErrNotExist (naming what was passed over), or E337
// (wrapping it too) when the directory's journal had segments removed
// (Store.Prune): the receipt may have been in one.
func FindRun(dir, id string) (StoredReceipt, error) {
	var notFound error = codes.Errorf(codes.E317, "no receipt %s in %s: %w", codes.TerminalSafe(id),
		dir, fs.ErrNotExist)
	if !ValidRunID(id) {
		return StoredReceipt{}, notFound
	}
	if err := checkDirOwner(dir); err != nil {
		return StoredReceipt{}, err
	}
	if e := noLongerKept(dir, id); e != nil {
		notFound = e // the journal had segments removed: the receipt may have been in one
	}
	suffix := "-" + id + ".json"
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return StoredReceipt{}, notFound
	}
	if err != nil {
		e := codes.Errorf(codes.E317, "find receipt %s: %w", id, err)
		e.Do = listHint
		return StoredReceipt{}, e
	}
	// A file or record under the run's name that is another run's
	// receipt is passed over (errOtherRun); with nothing else found, the
	// answer is not found, naming it.
	var passed error
	for _, e := range entries {
		if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") && strings.HasSuffix(e.Name(), suffix) {
			p := filepath.Join(dir, e.Name())
			r, err := Load(p)
			if errors.Is(err, errOtherRun) || errors.Is(err, errAnotherOwner) {
				passed = err
				continue
			}
			if err != nil {
				return StoredReceipt{}, err
			}
			return StoredReceipt{Path: p, Receipt: r}, nil
		}
	}
	jdirs, err := JournalDirs(dir)
	if err != nil {
		jdirs = nil
	}
	// A run's records were appended after its id was made: a segment last
	// written before then holds none of them, and is passed over; but the
	// two times are the wall clock's, and one stepped back between them (an
	// NTP step, an operator's date) stamps the segment before the id's
	// time. So a lookup that finds nothing in the segments written since
	// reads the others too: the time only orders the reading.
	var since time.Time
	if _, ms, ok := RunIDOrigin(id); ok {
		since = time.UnixMilli(ms).Add(-clockSlack)
	}
	run, err := findInJournals(dir, jdirs, id, since, &passed)
	if err == nil && run.Receipt == nil && !since.IsZero() {
		run, err = findInJournals(dir, jdirs, id, time.Time{}, &passed)
	}
	if err != nil {
		return StoredReceipt{}, err
	}
	if run.Receipt != nil {
		return run, nil
	}
	if passed != nil && codes.CodeOf(notFound) != codes.E337 {
		return StoredReceipt{}, codes.Errorf(codes.E317, "no receipt %s in %s: passed over %s: %w",
			codes.TerminalSafe(id), dir, passed.(*codes.Error).Msg, fs.ErrNotExist)
	}
	return StoredReceipt{}, notFound
}

// findInJournals is FindRun's lookup of run id in the journals jdirs of
// the receipts directory dir, passing over the segments of each last
// written before since (journal.Index.Find): the run's receipt, none
// (nil), or an error. A record under the run's name that is another
// run's is passed over, and noted in passed.
func findInJournals(dir string, jdirs []string, id string, since time.Time,
	passed *error) (StoredReceipt, error) {
	readFailed := func(err error) (StoredReceipt, error) {
		e := codes.Errorf(codes.E317, "read the receipts journal: %w", err)
		e.Do = listHint
		return StoredReceipt{}, e
	}
	var run StoredReceipt
	var runErr error
	for _, jdir := range jdirs {
		k, payload, err := runIndex().Find(jdir, since, id)
		if errors.Is(err, journal.ErrNotFound) {
			continue
		}
		if err != nil {
			return readFailed(err)
		}
		p := journalPath(dir, k)
		r, err := parseKeyed(p, k, payload)
		if errors.Is(err, errOtherRun) {
			// The last record under the run's name is another run's: the
			// run's own is the last before it, read whole.
			*passed = err
			if k, r, err = lastOwnRecord(jdir, since, id); err != nil {
				return readFailed(err)
			}
			if r == nil {
				continue
			}
			p = journalPath(dir, k)
		}
		run, runErr = StoredReceipt{Path: p, Receipt: r}, err
	}
	if runErr != nil {
		return StoredReceipt{}, runErr
	}
	return run, nil
}

// lastOwnRecord reads the journal jdir for the last record under run
// id's name, in segments written since since, that is run id's receipt:
// its key and receipt, or none.
func lastOwnRecord(jdir string, since time.Time, id string) (string, *Receipt, error) {
	var key string
	var run *Receipt
	_, err := journal.ScanSince(jdir, since, func(k string, payload []byte) error {
		if got, ok := RunIDOfKey(k); ok && got == id {
			if r, err := parseKeyed(k, k, payload); err == nil {
				key, run = k, r
			}
		}
		return nil
	})
	return key, run, err
}

// runIndex finds a run's records in a journal by its id, reading each
// segment once (journal.Index): a lookup, a client's to make as often as
// its tenant may, costs what the records it finds cost, not what the
// journal holds. It keeps at most maxIndexedRuns run ids, some 40 bytes
// each, in a process that looks runs up (a server); made at the first
// lookup, so that no other process (a worker) pays for it at its start.
var runIndex = sync.OnceValue(func() *journal.Index {
	return journal.NewIndex(RunIDOfKey, maxIndexedRuns)
})

// maxIndexedRuns bounds the run ids runIndex keeps.
const maxIndexedRuns = 1 << 20

// clockSlack is how far a file's modification time may lag the clock a
// run id's time was read from: a file system's coarse times (seconds, or
// FAT's two), and the kernel's coarse clock.
const clockSlack = 2 * time.Second

// LevelChange is a run whose confinement level no earlier run of the same
// program had.
type LevelChange struct {
	Run     StoredReceipt
	Earlier []core.Level // the levels earlier runs of the program had
	Weaker  bool         // below every level an earlier run had
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

// SourceName is the name a program sent as text carries (beneath a
// door's import root): it names no file.
const SourceName = "<source>"

// programKey is the program the diffs compare a run with earlier runs
// of: its path, where the path names a program kept in a file, so that a
// program's runs are compared as it is edited; and its path and digest
// where the path names none (text sent to a door, SourceName, or a
// program read from a device or a descriptor beneath /dev or /proc:
// standard input, a pipe), so that unrelated programs sent or piped
// alike are not taken for one (a run of one was called WEAKER beside
// another's). The name is the last element after either separator: a
// door on Windows names its text C:\root\<source>, and its receipts
// may be compared on any system.
func programKey(r StoredReceipt) string {
	p := r.Program.Path
	name := p[strings.LastIndexAny(p, `/\`)+1:]
	if name == SourceName || strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/proc/") {
		return p + "\x00" + r.Program.SHA256
	}
	return p
}

// DiffLevels walks runs oldest first and names each whose level no earlier
// run of the same program (programKey) had, saying when it is weaker than all
// of them. Runs that ended before the policy was applied
// (core.Result.Unapplied) are passed over.
func DiffLevels(runs []StoredReceipt) []LevelChange {
	seen := map[string]map[core.Level]bool{}
	var out []LevelChange
	for _, r := range runs {
		if r.Confinement().Unapplied() {
			continue
		}
		key := programKey(r)
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
			prev = map[core.Level]bool{}
			seen[key] = prev
		}
		prev[lv] = true
	}
	return out
}

// RunIDForm says what ValidRunID accepts, for a message that refuses an id.
const RunIDForm = "1 to 64 lower-case hexadecimal digits"

// ValidRunID reports whether id could be a run id makeRunID made (or, of
// the earlier form, 16 random digits): 1 to 64
// lower-case hexadecimal digits (RunIDForm), nothing else (no path, no
// separator).
func ValidRunID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// A run id makeRunID makes is RunIDLen lower-case hexadecimal digits:
// 16 random, then 8 naming the process that made it (random, drawn once
// per process), then 12 of the time it was made (milliseconds since
// 1970, UTC). A store that many processes share finds a run's receipt
// from its id alone (receipt/ship): the process and the time narrow it
// to a few objects, whatever the number of processes and the store's
// age. The random digits come first, so that a prefix of a few names one
// run (Pick). Ids of the earlier form, 16 random digits, are valid ids
// still (ValidRunID); RunIDOrigin says they name no process.
const RunIDLen = 36

// runIDOrigin is this process's part of the run ids it makes.
var runIDOrigin = sync.OnceValue(func() string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Sprintf("%08x", uint32(time.Now().UnixNano()))
	}
	return hex.EncodeToString(b[:])
})

// makeRunID is a run id: newRunID's 16 random hexadecimal digits, this
// process's 8, and 12 of the time (RunIDLen).
func makeRunID() string {
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(min(max(time.Now().UnixMilli(), 0), 1<<48-1)))
	return newRunID() + runIDOrigin() + hex.EncodeToString(ms[2:])
}

// newRunID is 16 random hexadecimal digits: the random part of a run id,
// and the id of a process's journal (OpenStore).
func newRunID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Sprintf("%016x", uint64(time.Now().UnixNano()))
	}
	return hex.EncodeToString(b[:])
}

// RunIDOrigin returns the process part (8 hexadecimal digits) and the
// time, in milliseconds since 1970, of a run id of the form makeRunID
// makes; ok is false for an id of another form (the earlier 16 random
// digits, or anything but RunIDLen hexadecimal digits).
func RunIDOrigin(id string) (origin string, ms int64, ok bool) {
	if len(id) != RunIDLen || !ValidRunID(id) {
		return "", 0, false
	}
	for _, c := range id[24:] {
		ms = ms<<4 | int64(strings.IndexRune("0123456789abcdef", c))
	}
	return id[16:24], ms, true
}

// platform is where this process runs: read once, not for every receipt
// of a pool's thousands.
var platform = sync.OnceValue(func() Platform {
	return Platform{
		OS:     goruntime.GOOS,
		Arch:   goruntime.GOARCH,
		Kernel: confine.KernelRelease(),
		Go:     goruntime.Version(),
	}
})
