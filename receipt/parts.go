package receipt

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sabline/sabline/codes"
)

// Observed is what the supervisor saw of the worker process from outside
// it: how it ended, the time and memory the kernel counted for it, and
// what it wrote on the standard streams the supervisor relays. Nothing
// the program does can change it. Beside it, the receipt's run
// parameters (the confinement among them), the program's digest and the
// fault attempts come from the record the worker sent before the
// program's first statement, and its timings.started and wall_ms are the
// supervisor's clock: of the receipt, only the fields Reported names are
// the worker's word.
type Observed struct {
	// ExitStatus is the status the worker process exited with, and
	// Signal the signal that ended it; neither when it had not ended when
	// the receipt was finished (a pool's worker, which serves the next
	// run).
	ExitStatus *int   `json:"exit_status,omitempty"`
	Signal     string `json:"signal,omitempty"`
	// UserMS and SystemMS are the processor time the kernel counted for
	// the worker, and MaxRSSKB its largest resident set, in KiB: only for
	// a worker that ran this run alone (not a pool's).
	UserMS   float64 `json:"user_ms,omitempty"`
	SystemMS float64 `json:"system_ms,omitempty"`
	MaxRSSKB int64   `json:"max_rss_kb,omitempty"`
	// StdoutBytes and StderrBytes are what the worker wrote on its
	// standard output and error, which the supervisor relays, and the
	// caller took; absent where the caller gave none (the worker's is
	// then the null device).
	StdoutBytes *int64 `json:"stdout_bytes,omitempty"`
	StderrBytes *int64 `json:"stderr_bytes,omitempty"`
	// Made are the granted directories the supervisor made before the
	// worker started: each a write grant's that did not exist yet, beneath
	// a parent that did (confine.MakeGranted).
	Made []string `json:"made,omitempty"`
}

// Reported names the fields of the receipt that the worker reported after
// the program started, and says when they are testimony: the run's budget
// let the program run code no budget check holds (any ffi grant, or a
// knock-out build), which could have written the worker's records itself.
// A receipt written before the receipt told the two apart has none
// (nil): Older.
type Reported struct {
	Fields []string `json:"fields"`
	// Testimony, when set, says why the fields are the word of a worker
	// that could have forged them.
	Testimony string `json:"testimony,omitempty"`
}

// The fields a worker may report once its program has started, as
// Reported.Fields names them.
const (
	// how the run ended, taken from the worker's last record
	FieldOutcome = "outcome"
	// where a program stopped at its deadline said it was, and its stack
	FieldPosition = "outcome.position"
	// the grants the program used
	FieldEffects = "effects"
	// the digests of the files the program loaded (a pool's run)
	FieldFiles = "program.files"
	// the worker's own phases
	FieldWorkerTimings = "timings.worker"
)

// reportable are the fields Reported may name: a receipt that names
// another is not one a supervisor wrote.
var reportable = []string{FieldOutcome, FieldPosition, FieldEffects, FieldFiles, FieldWorkerTimings}

// check says why r is not a Reported a supervisor could have written.
func (r *Reported) check() error {
	if r == nil {
		return nil
	}
	for _, f := range r.Fields {
		if !slices.Contains(reportable, f) {
			return fmt.Errorf("its reported fields name %q, which a worker does not report",
				codes.Clip(f, 40))
		}
	}
	return nil
}

// Older reports whether the receipt was written before receipts told what
// the supervisor saw from what the worker reported: it has no Reported,
// and any of its outcome, effects and worker timings may be the worker's
// word.
func (rec *Receipt) Older() bool { return rec.Reported == nil }

// Testimony says why the fields the worker reported are testimony, "" when
// they are not or there are none.
func (rec *Receipt) Testimony() string {
	if rec.Reported == nil || len(rec.Reported.Fields) == 0 {
		return ""
	}
	return rec.Reported.Testimony
}

// Parts is what the receipt says of its two parts, in a sentence for the
// operator: which fields the worker reported, and whether they are
// testimony.
func (rec *Receipt) Parts() string {
	switch {
	case rec.Older():
		return "an older receipt: it does not say which of its fields the worker reported"
	case len(rec.Reported.Fields) == 0:
		return "every field is what the supervisor saw or was asked"
	case rec.Reported.Testimony != "":
		return fmt.Sprintf("%s: TESTIMONY, reported by what ran the program, which could have forged "+
			"it: %s",
			strings.Join(rec.Reported.Fields, ", "), rec.Reported.Testimony)
	}
	return strings.Join(rec.Reported.Fields, ", ") +
		": reported by what ran the program, which could not have forged it"
}

// EffectChange is a run that reported using a grant no earlier run of the
// same program reported using: what the worker said, compared with what
// the earlier workers said, and whether either side is testimony.
type EffectChange struct {
	Run StoredReceipt
	New []string // the grants it reported using that no earlier run did
	// EarlierTestimony counts the earlier runs compared whose reports
	// are testimony.
	EarlierTestimony int
}

// String names the run, the grants, and which side is testimony.
func (c EffectChange) String() string {
	s := fmt.Sprintf("%s %s: reported using %s, which no earlier run of it reported",
		c.Run.RunID, c.Run.Program.Path, strings.Join(c.New, ", "))
	if t := c.Run.Testimony(); t != "" {
		s += "; this report is TESTIMONY: " + t
	}
	if c.EarlierTestimony > 0 {
		s += fmt.Sprintf("; earlier reports that are testimony: %d", c.EarlierTestimony)
	}
	return s
}

// DiffEffects walks runs oldest first and names each whose worker
// reported using a grant no earlier run of the same program (by path)
// reported using. Only reports are compared with reports: runs whose
// receipt does not name effects among the reported fields (the worker
// died first, or an older receipt, which does not say) are passed over.
func DiffEffects(runs []StoredReceipt) []EffectChange {
	type earlier struct {
		used      map[string]bool
		testimony int
	}
	seen := map[string]*earlier{}
	var out []EffectChange
	for _, r := range runs {
		if r.Older() || !slices.Contains(r.Reported.Fields, FieldEffects) {
			continue
		}
		e := seen[r.Program.Path]
		if e == nil {
			e = &earlier{used: map[string]bool{}}
			seen[r.Program.Path] = e
		} else {
			c := EffectChange{Run: r, EarlierTestimony: e.testimony}
			for _, u := range r.Effects {
				if u.Uses > 0 && !e.used[u.Grant] {
					c.New = append(c.New, u.Grant)
				}
			}
			if len(c.New) > 0 {
				out = append(out, c)
			}
		}
		for _, u := range r.Effects {
			if u.Uses > 0 {
				e.used[u.Grant] = true
			}
		}
		if r.Testimony() != "" {
			e.testimony++
		}
	}
	return out
}
