package receipt

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/sabline/sabline/internal/jsonenc"
)

// AppendJSON appends r as json.Marshal writes it, without reflection
// (package jsonenc): a store writes each receipt so, reserved and again
// finished, and a pooled run's time is spared encoding/json's walk of
// its types (TestAppendJSONEveryField and FuzzAppendJSON hold it to
// json.Marshal's bytes; a nil receipt is null). It fails as
// json.Marshal does, for a time that is not a finite number or a date
// JSON's form has no room for, and then appends nothing.
func (r *Receipt) AppendJSON(b []byte) ([]byte, error) {
	if r == nil {
		return append(b, "null"...), nil
	}
	out, err := r.appendJSON(b)
	if err != nil {
		return b, fmt.Errorf("encode receipt: %w", err)
	}
	return out, nil
}

// appendJSON is AppendJSON, its error unwrapped.
func (r *Receipt) appendJSON(b []byte) ([]byte, error) {
	e := &jsonenc.Encoder{B: b}
	r.encode(e)
	if e.Err != nil {
		return b, e.Err
	}
	return e.B, nil
}

// indented is r as json.MarshalIndent writes it with no prefix and an
// indent of two spaces: a receipt file's form. json.Indent reads the
// bytes with a scanner, no reflection, as json.MarshalIndent itself
// indents what it marshalled.
func (r *Receipt) indented() ([]byte, error) {
	flat, err := r.appendJSON(make([]byte, 0, encodedRoom))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(flat) + len(flat)/2)
	if err := json.Indent(&b, flat, "", "  "); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// AppendJSON appends o as json.Marshal writes it (Receipt.AppendJSON).
func (o *Outcome) AppendJSON(b []byte) []byte {
	if o == nil {
		return append(b, "null"...)
	}
	e := &jsonenc.Encoder{B: b}
	o.encode(e)
	return e.B
}

// AppendJSON appends t as json.Marshal writes it (Receipt.AppendJSON),
// or fails as it does for a time that is not a finite number.
func (t *WorkerTimings) AppendJSON(b []byte) ([]byte, error) {
	if t == nil {
		return append(b, "null"...), nil
	}
	e := &jsonenc.Encoder{B: b}
	t.encode(e)
	if e.Err != nil {
		return b, e.Err
	}
	return e.B, nil
}

// AppendJSON appends f as json.Marshal writes it (Receipt.AppendJSON).
func (f *FaultAttempt) AppendJSON(b []byte) []byte {
	if f == nil {
		return append(b, "null"...)
	}
	e := &jsonenc.Encoder{B: b}
	f.encode(e)
	return e.B
}

// encode writes r's fields as json.Marshal does, in the order of the
// struct's fields, each by its tag; each part's encode below likewise.
func (r *Receipt) encode(e *jsonenc.Encoder) {
	e.Open()
	e.Str("schema", r.Schema)
	e.Str("run_id", r.RunID)
	e.Name("sabline")
	e.Open()
	e.Str("version", r.Sabline.Version)
	e.Bool("knockout", r.Sabline.Knockout)
	e.StrOmit("commit", r.Sabline.Commit)
	e.BoolOmit("modified", r.Sabline.Modified)
	e.Close()
	e.Name("program")
	e.Open()
	e.Str("path", r.Program.Path)
	e.StrOmit("sha256", r.Program.SHA256)
	jsonenc.Each(e, "files", true, r.Program.Files, e.FileDigest)
	e.Close()
	e.Str("budget", r.Budget)
	e.Strings("args", r.Args)
	if c := r.ArgsCut; c != nil {
		e.Name("args_cut")
		e.Open()
		e.Str("sha256", c.SHA256)
		e.Int("count", int64(c.Count))
		e.Int("bytes", c.Bytes)
		e.Int("kept_count", int64(c.KeptCount))
		e.Int("kept_bytes", c.KeptBytes)
		e.Close()
	}
	e.Name("run_parameters")
	r.RunParameters.encode(e)
	e.Name("observed")
	r.Observed.encode(e)
	if c := r.StdoutCut; c != nil {
		e.Name("stdout_cut")
		e.Open()
		e.Int("bytes", c.Bytes)
		e.Int("kept_bytes", c.KeptBytes)
		e.Close()
	}
	if p := r.Reported; p != nil {
		e.Name("reported")
		e.Open()
		e.Strings("fields", p.Fields)
		e.StrOmit("testimony", p.Testimony)
		e.Close()
	} else {
		e.Null("reported")
	}
	e.Name("outcome")
	r.Outcome.encode(e)
	jsonenc.Each(e, "effects", false, r.Effects, e.Usage)
	jsonenc.Each(e, "fault_injection", true, r.Faults, func(f *FaultAttempt) { f.encode(e) })
	e.Name("timings")
	e.Open()
	e.Time("started", r.Timings.Started)
	e.Float("wall_ms", r.Timings.WallMS)
	e.Name("worker")
	r.Timings.Worker.encode(e)
	e.Close()
	e.Name("platform")
	e.Open()
	e.Str("os", r.Platform.OS)
	e.Str("arch", r.Platform.Arch)
	e.StrOmit("kernel", r.Platform.Kernel)
	e.Str("go", r.Platform.Go)
	e.Close()
	e.StrOmit("crash_report", r.CrashReport)
	e.StringsOmit("cut", r.Cut)
	e.StrOmit("tenant", r.Tenant)
	e.Close()
}

func (p *RunParameters) encode(e *jsonenc.Encoder) {
	e.Open()
	e.Str("confinement", string(p.Confinement))
	e.Str("confinement_reason", p.ConfinementReason)
	e.Strings("confinement_layers", p.ConfinementLayers)
	jsonenc.Each(e, "confinement_gaps", true, p.ConfinementGaps, e.Gap)
	e.Str("os_policy_sha256", p.OSPolicySHA256)
	e.Str("confine", string(p.Confine))
	e.StrOmit("require_confinement", string(p.RequireConfinement))
	e.IntOmit("timeout_ms", p.TimeoutMS)
	e.IntOmit("max_memory_mb", int64(p.MaxMemoryMB))
	e.StringsOmit("credentials_lent", p.CredentialsLent)
	e.StrOmit("durability", string(p.Durability))
	e.IntOmit("durability_window_ms", p.DurabilityWindowMS)
	e.Close()
}

func (o *Observed) encode(e *jsonenc.Encoder) {
	e.Open()
	if o.ExitStatus != nil {
		e.Int("exit_status", int64(*o.ExitStatus))
	}
	e.StrOmit("signal", o.Signal)
	e.FloatOmit("user_ms", o.UserMS)
	e.FloatOmit("system_ms", o.SystemMS)
	e.IntOmit("max_rss_kb", o.MaxRSSKB)
	if o.StdoutBytes != nil {
		e.Int("stdout_bytes", *o.StdoutBytes)
	}
	if o.StderrBytes != nil {
		e.Int("stderr_bytes", *o.StderrBytes)
	}
	e.StringsOmit("made", o.Made)
	jsonenc.Each(e, "connections", true, o.Connections, func(c *Connection) {
		e.Open()
		e.Str("network", c.Network)
		e.Str("host", c.Host)
		e.Int("port", int64(c.Port))
		e.StrOmit("grant", c.Grant)
		e.StrOmit("address", c.Address)
		if c.SentBytes != nil {
			e.Int("sent_bytes", *c.SentBytes)
		}
		if c.ReceivedBytes != nil {
			e.Int("received_bytes", *c.ReceivedBytes)
		}
		e.StrOmit("code", string(c.Code))
		e.StrOmit("refused", c.Refused)
		e.Close()
	})
	e.IntOmit("connections_unlisted", int64(o.ConnectionsUnlisted))
	e.Close()
}

func (o *Outcome) encode(e *jsonenc.Encoder) {
	e.Open()
	e.Str("status", o.Status)
	e.StrOmit("code", string(o.Code))
	e.StrOmit("message", o.Message)
	e.StrOmit("position", o.Position)
	e.Int("exit_status", int64(o.ExitStatus))
	e.StringsOmit("stack", o.Stack)
	e.Close()
}

func (t *WorkerTimings) encode(e *jsonenc.Encoder) {
	e.Open()
	e.Float("compile_ms", t.CompileMS)
	e.Float("confine_ms", t.ConfineMS)
	e.Float("run_ms", t.RunMS)
	e.Close()
}

func (f *FaultAttempt) encode(e *jsonenc.Encoder) {
	e.Open()
	e.Str("op", f.Op)
	e.Str("target", f.Target)
	e.Str("result", f.Result)
	e.StrOmit("errno", f.Errno)
	e.StrOmit("error", f.Error)
	e.StringsOmit("layers", f.Layers)
	e.Close()
}
