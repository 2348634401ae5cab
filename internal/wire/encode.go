package wire

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/jsonenc"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// AppendRecord appends r as one JSON line, the bytes encoding/json's
// Encoder writes for it (TestAppendRecordEveryField, FuzzAppendRecord),
// without reflection: a worker sends its first record in a process
// where encoding/json has met no type yet. It fails as encoding/json
// does for a time that is not a finite number, and then appends nothing.
func AppendRecord(b []byte, r *Record) ([]byte, error) {
	e := &jsonenc.Encoder{B: b}
	e.Open()
	ended(e, &r.Outcome, r.Files, r.Effects)
	e.Name("confinement")
	e.Result(&r.Confinement)
	jsonenc.Each(e, "faults", true, r.Faults, func(f *receipt.FaultAttempt) {
		e.B = f.AppendJSON(e.B)
	})
	timings(e, &r.Timings)
	e.IntOmit("memory_limit_held_mb", int64(r.MemoryLimitHeld))
	e.Close()
	if e.Err != nil {
		return b, fmt.Errorf("encode record: %w", e.Err)
	}
	return append(e.B, '\n'), nil
}

// AppendRequest appends r as one JSON line, the bytes encoding/json
// writes for it (TestAppendRequestEveryField, FuzzDecodeRequest), without
// reflection: a command-line run's supervisor sends it in a process
// where encoding/json has met none of its types, on the path to the
// program's first statement.
func AppendRequest(b []byte, r *Request) []byte {
	e := &jsonenc.Encoder{B: slices.Grow(b, requestSize(r))}
	e.Open()
	e.Str("program", r.Program)
	e.Str("sha256", r.SHA256)
	e.BoolOmit("piped", r.Piped)
	e.Strings("args", r.Args)
	e.Name("budget")
	e.Budget(&r.Budget)
	e.Str("cwd", r.Cwd)
	e.Name("guard")
	appendGuard(e, r.Guard)
	if len(r.Admitted) > 0 {
		e.Name("admitted")
		e.Open()
		for _, k := range slices.Sorted(maps.Keys(r.Admitted)) { // as encoding/json orders them
			e.Key(k)
			e.B = jsonenc.AppendString(e.B, r.Admitted[k])
		}
		e.Close()
	}
	e.Str("confine", string(r.Confine))
	e.StrOmit("require", string(r.Require))
	e.BoolOmit("expected", r.Expected)
	e.StringsOmit("layers", r.Layers)
	jsonenc.Each(e, "faults", true, r.Faults, func(f *receipt.FaultOp) {
		e.Open()
		e.Str("op", f.Op)
		e.Str("target", f.Target)
		e.Close()
	})
	e.IntOmit("max_memory_mb", int64(r.MaxMemoryMB))
	e.Str("temp_dir", r.TempDir)
	if r.Policy != nil {
		e.Name("policy")
		e.B = appendPolicy(e.B, r.Policy)
	}
	e.StrOmit("policy_sha256", r.PolicySHA256)
	e.BoolOmit("pool", r.Pool)
	if len(r.Source) > 0 {
		e.Bytes("source", r.Source)
	}
	e.IntOmit("procs", int64(r.Procs))
	e.IntOmit("deadline_ns", r.Deadline)
	jsonenc.Each(e, "relayed", true, r.Relayed, func(f *lang.FileID) {
		e.Open()
		e.Uint("dev", f.Dev)
		e.Uint("ino", f.Ino)
		e.Close()
	})
	e.Close()
	return append(e.B, '\n')
}

// requestSize is about the length of r written (AppendRequest), no less
// for text that needs no escaping: the buffer is made once. Grown as it
// was written, a request of 21 KB (a guard of some 30 locations) took
// 0.58 ms of a new process's time, its buffer made ten times over and
// each new page faulted in, against 0.17 ms made once (bench/phases).
func requestSize(r *Request) int {
	n := 512 + len(r.Program) + len(r.Cwd) + len(r.TempDir) + len(r.PolicySHA256) +
		(len(r.Source)+2)/3*4 + 48*(len(r.Faults)+len(r.Relayed))
	for _, s := range slices.Concat(r.Args, r.Layers) {
		n += len(s) + 3
	}
	for _, it := range r.Budget.Items {
		n += 112 + len(it.Path) + len(it.Host) + len(it.Module)
	}
	for k, v := range r.Admitted {
		n += len(k) + len(v) + 6
	}
	for _, f := range r.Faults {
		n += len(f.Op) + len(f.Target)
	}
	if g := r.Guard; g != nil {
		for _, l := range g.Locations {
			n += 64 + len(l.Path) + len(l.Holds) + len(strings.Join(l.Allowed, "")) +
				3*len(l.Allowed)
		}
		for _, c := range g.CarveOuts {
			n += 64 + len(c.Path) + len(strings.Join(c.Allowed, "")) + 3*len(c.Allowed)
		}
		for _, h := range g.Homes {
			n += len(h) + 3
		}
	}
	if p := r.Policy; p != nil {
		n += 256
		for _, s := range slices.Concat(p.Read.Paths, p.Write.Paths, p.Read.Named, p.Write.Named,
			p.Interpreter) {
			n += len(s) + 3
		}
		n += 64 * (len(p.Network.Hosts) + len(p.Network.UDP) + len(p.WidenedBy))
		for _, h := range slices.Concat(p.Network.Hosts, p.Network.UDP) {
			n += len(h.Host)
		}
	}
	return n
}

// appendGuard writes the guard's set as its worker reads it: null for
// none.
func appendGuard(e *jsonenc.Encoder, w *guard.Wire) {
	if w == nil {
		e.B = append(e.B, "null"...)
		return
	}
	e.Open()
	jsonenc.Each(e, "locations", false, w.Locations, func(l *guard.Location) {
		e.Open()
		e.Str("path", l.Path)
		e.Str("kind", string(l.Kind))
		e.Str("holds", l.Holds)
		e.StringsOmit("allowed", l.Allowed)
		e.BoolOmit("lent", l.Lent)
		e.IntOmit("owner", int64(l.Owner))
		e.Close()
	})
	e.Strings("homes", w.Homes)
	jsonenc.Each(e, "carve_outs", false, w.CarveOuts, func(c *guard.CarveOut) {
		e.Open()
		e.Str("path", c.Path)
		e.StringsOmit("allowed", c.Allowed)
		e.BoolOmit("named", c.Named)
		e.BoolOmit("expand", c.Expand)
		e.BoolOmit("dots", c.Dots)
		e.Close()
	})
	e.Close()
}

// AppendJob appends j as one JSON line, the bytes encoding/json writes
// for it (TestAppendJobEveryField).
func AppendJob(b []byte, j *Job) []byte {
	e := &jsonenc.Encoder{B: b}
	e.Open()
	e.Str("program", j.Program)
	e.Bytes("source", j.Source)
	e.Str("root", j.Root)
	e.Strings("args", j.Args)
	if len(j.Stdin) > 0 {
		e.Bytes("stdin", j.Stdin)
	}
	e.Name("budget")
	e.Budget(&j.Budget)
	e.Str("cwd", j.Cwd)
	e.BoolOmit("keep", j.Keep)
	e.Close()
	return append(e.B, '\n')
}

// AppendJobResult appends r as one JSON line, as AppendRecord appends a
// record.
func AppendJobResult(b []byte, r *JobResult) ([]byte, error) {
	e := &jsonenc.Encoder{B: b}
	e.Open()
	ended(e, &r.Outcome, r.Files, r.Effects)
	if len(r.Stdout) > 0 {
		e.Bytes("stdout", r.Stdout)
	}
	e.BoolOmit("clipped", r.Clipped)
	e.IntOmit("stdout_bytes", r.StdoutBytes)
	timings(e, &r.Timings)
	e.Close()
	if e.Err != nil {
		return b, fmt.Errorf("encode result: %w", e.Err)
	}
	return append(e.B, '\n'), nil
}

// appendPolicy appends p's canonical document, the bytes of
// core.Policy.JSON (TestAppendPolicy), without reflection.
func appendPolicy(b []byte, p *core.Policy) []byte {
	e := &jsonenc.Encoder{B: b}
	direction := func(d *core.Direction) {
		e.Open()
		e.Bool("unrestricted", d.Unrestricted)
		e.Strings("paths", d.Paths)
		e.StringsOmit("named", d.Named)
		e.Close()
	}
	endpoint := func(ep *core.Endpoint) {
		e.Open()
		e.Str("host", ep.Host)
		e.IntOmit("port", int64(ep.Port))
		e.Close()
	}
	e.Open()
	e.Str("schema", p.Schema)
	e.Bool("enforced", p.Enforced)
	e.Name("read")
	direction(&p.Read)
	e.Name("write")
	direction(&p.Write)
	e.Name("network")
	e.Open()
	e.Str("mode", p.Network.Mode)
	jsonenc.Each(e, "hosts", true, p.Network.Hosts, endpoint)
	jsonenc.Each(e, "udp", true, p.Network.UDP, endpoint)
	e.Close()
	e.Str("processes", p.Processes)
	e.Strings("interpreter", p.Interpreter)
	jsonenc.Each(e, "widened_by", false, p.WidenedBy, func(w *core.Widening) {
		e.Open()
		e.Str("module", w.Module)
		e.Str("to", string(w.To))
		e.Bool("listed", w.Listed)
		e.Close()
	})
	e.Bool("strict", p.Strict)
	e.Close()
	return e.B
}

// timings writes a worker's timings as the field "timings".
func timings(e *jsonenc.Encoder, t *receipt.WorkerTimings) {
	e.Name("timings")
	b, err := t.AppendJSON(e.B)
	if err != nil && e.Err == nil {
		e.Err = err
	}
	e.B = b
}

// ended writes the fields a record and a job result both begin with: how
// the run ended, the files it read and its effects.
func ended(e *jsonenc.Encoder, o *receipt.Outcome, files []program.FileDigest,
	effects []budget.Usage) {
	e.Name("outcome")
	e.B = o.AppendJSON(e.B)
	jsonenc.Each(e, "files", true, files, e.FileDigest)
	jsonenc.Each(e, "effects", true, effects, e.Usage)
}
