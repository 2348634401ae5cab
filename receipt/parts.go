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
	// a worker that ran this run alone and has exited (the command line's;
	// a pool's that was sent no other run, as one under a raw-call grant
	// is), not a pool's worker that served other runs or lives on.
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
	// Connections are the connections the supervisor made for the run,
	// and those it refused, in the order they were asked for: at most
	// MaxConnectionsListed, and past half of it only those to a
	// Destination not listed yet, so that many connections to one place
	// leave room for the others. ConnectionsUnlisted counts those left out.
	// A confined run under a net grant makes none of its own: each of its
	// connections is here.
	Connections         []Connection `json:"connections,omitempty"`
	ConnectionsUnlisted int          `json:"connections_unlisted,omitempty"`
}

// MaxConnectionsListed is the most connections a receipt lists one by
// one: with the rest of it, they fit the space a receipt reserves.
const MaxConnectionsListed = 64

// Connection is one connection a run asked its supervisor for: what the
// program named, the grant that admitted it, where the supervisor
// connected and what went through, or why it made none.
type Connection struct {
	Network string `json:"network"` // tcp or udp
	Host    string `json:"host"`    // as the program named it
	Port    int    `json:"port"`
	// Grant is the budget item the connection was counted against, with
	// its @N; "" for one a granted module made under its widening, or
	// one no grant admitted.
	Grant string `json:"grant,omitempty"`
	// Address is the address the supervisor connected to, one the name
	// resolved to when it looked it up; "" when it made no connection.
	Address string `json:"address,omitempty"`
	// SentBytes and ReceivedBytes are what the kernel counted on a TCP
	// connection when the run ended and the supervisor shut it down: the
	// bytes the run wrote to it, those the kernel sent and those it still
	// held to send (which reach the peer after the run, as it reads
	// them), and the bytes the peer sent. Absent for UDP, whose sockets
	// keep no count.
	SentBytes     *int64 `json:"sent_bytes,omitempty"`
	ReceivedBytes *int64 `json:"received_bytes,omitempty"`
	// Refused says why no connection was made, after its code: a grant
	// missing or used up (E302, E303), an address the grant does not
	// reach or too many connections (E335), or what the network answered
	// (E315).
	Code    codes.Code `json:"code,omitempty"`
	Refused string     `json:"refused,omitempty"`
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
	// how much of its output a pool's run printed, and was cut to
	FieldStdoutCut = "stdout_cut"
)

// reportable are the fields Reported may name: a receipt that names
// another is not one a supervisor wrote.
var reportable = []string{FieldOutcome, FieldPosition, FieldEffects, FieldFiles, FieldWorkerTimings,
	FieldStdoutCut}

// check says why r is not a Reported a supervisor could have written.
func (r *Reported) check() error {
	if r == nil {
		return nil
	}
	for _, f := range r.Fields {
		if !slices.Contains(reportable, f) {
			return fmt.Errorf("its reported fields name %q, which no worker of this build "+
				"reports (a newer Sabline's receipt, or not one Sabline wrote)", codes.Clip(f, 40))
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

// TestimonyOf says why field, one of the Field names, is testimony: the
// receipt's Testimony where the worker reported that field, "" where it
// did not, or the receipt is older and does not say.
func (rec *Receipt) TestimonyOf(field string) string {
	if rec.Older() || !slices.Contains(rec.Reported.Fields, field) {
		return ""
	}
	return rec.Testimony()
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
// reported using a grant no earlier run of the same program
// (programKey) reported using. Only reports are compared with reports: runs whose
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
		e := seen[programKey(r)]
		if e == nil {
			e = &earlier{used: map[string]bool{}}
			seen[programKey(r)] = e
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

// String says the connection in one line: where the program asked to
// go, where the supervisor connected and what went through, or why it
// made none.
func (c Connection) String() string {
	to := c.Network + " " + hostPort(c.Host, c.Port)
	if c.Code != "" {
		return fmt.Sprintf("%s refused (%s: %s)", to, c.Code, c.Refused)
	}
	s := to + " connected to " + c.Address
	if c.Grant != "" {
		s += " under " + c.Grant
	}
	if c.SentBytes != nil && c.ReceivedBytes != nil {
		s += fmt.Sprintf(", %d bytes out, %d in", *c.SentBytes, *c.ReceivedBytes)
	}
	return s
}

// Destination is where the program asked to go, and whether it was
// refused: the network, the host and port as the program named them,
// and a refusal's code. Two connections to one destination are one
// place to a reader of receipts (DiffConnections).
func (c Connection) Destination() string {
	to := c.Network + " " + hostPort(c.Host, c.Port)
	if c.Code != "" {
		to += " (" + string(c.Code) + ")"
	}
	return to
}

// hostPort joins a host and port as an address is written, an IPv6
// address in brackets.
func hostPort(host string, port int) string {
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
		host = "[" + host + "]"
	}
	return fmt.Sprintf("%s:%d", host, port)
}

// ConnectionLines says, one line each, the connections the supervisor
// made for the run and those it refused, and how many more the receipt
// does not list; none for a run that asked for none.
func (rec *Receipt) ConnectionLines() []string {
	var out []string
	for _, c := range rec.Observed.Connections {
		out = append(out, c.String())
	}
	if n := rec.Observed.ConnectionsUnlisted; n > 0 {
		out = append(out, fmt.Sprintf("and %d more, not listed", n))
	}
	return out
}

// ConnectionChange is a run whose supervisor connected, or refused to
// connect, somewhere no earlier run of the same program's did: what the
// supervisor saw, compared with what it saw of the earlier runs.
type ConnectionChange struct {
	Run       StoredReceipt
	Connected []string // network host:port, new among the connections made
	Refused   []string // network host:port and the code, new among the refusals
	// Unlisted is how many of the run's connections its receipt does not
	// list (connections_unlisted): where they went is not known, so they
	// may have gone somewhere new.
	Unlisted int
}

// String names the run and the destinations.
func (c ConnectionChange) String() string {
	var parts []string
	if len(c.Connected) > 0 {
		parts = append(parts, "connected to "+strings.Join(c.Connected, ", "))
	}
	if len(c.Refused) > 0 {
		parts = append(parts, "was refused "+strings.Join(c.Refused, ", "))
	}
	if c.Unlisted > 0 {
		parts = append(parts, fmt.Sprintf("made or was refused %d more connections its receipt "+
			"does not list, to places not known", c.Unlisted))
	}
	return fmt.Sprintf("%s %s: %s, which no earlier run of it did (seen by the supervisor)",
		c.Run.RunID, c.Run.Program.Path, strings.Join(parts, "; "))
}

// DiffConnections walks runs oldest first and names each whose supervisor
// connected to, or refused, a destination (network, host and port as the
// program named them) no earlier run of the same program (programKey) had,
// or whose receipt left connections unlisted, which may have. The first
// run of a program is what the others are compared with.
func DiffConnections(runs []StoredReceipt) []ConnectionChange {
	seen := map[string]map[string]bool{}
	var out []ConnectionChange
	for _, r := range runs {
		earlier, compared := seen[programKey(r)]
		if !compared {
			earlier = map[string]bool{}
			seen[programKey(r)] = earlier
		}
		c := ConnectionChange{Run: r}
		for _, conn := range r.Observed.Connections {
			key := conn.Destination()
			if compared && !earlier[key] {
				if conn.Code != "" {
					c.Refused = append(c.Refused, key)
				} else {
					c.Connected = append(c.Connected, key)
				}
			}
			earlier[key] = true
		}
		if compared {
			c.Unlisted = r.Observed.ConnectionsUnlisted
		}
		if len(c.Connected)+len(c.Refused)+c.Unlisted > 0 {
			out = append(out, c)
		}
	}
	return out
}
