package wire

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// AppendRecord appends r as one JSON line, the bytes encoding/json's
// Encoder writes for it (TestAppendRecordEveryField, FuzzAppendRecord),
// without reflection: a worker sends its first record in a process
// where encoding/json has met no type yet. It fails as encoding/json
// does for a time that is not a finite number, and then appends nothing.
func AppendRecord(b []byte, r *Record) ([]byte, error) {
	e := &encoder{b: b}
	e.record(r)
	if e.err != nil {
		return b, fmt.Errorf("encode record: %w", e.err)
	}
	return append(e.b, '\n'), nil
}

// AppendJob appends j as one JSON line, the bytes encoding/json writes
// for it (TestAppendJobEveryField).
func AppendJob(b []byte, j *Job) []byte {
	e := &encoder{b: b}
	e.open()
	e.str("program", j.Program)
	e.bytes("source", j.Source)
	e.str("root", j.Root)
	e.strings("args", j.Args)
	if len(j.Stdin) > 0 {
		e.bytes("stdin", j.Stdin)
	}
	e.name("budget")
	e.budget(&j.Budget)
	e.str("cwd", j.Cwd)
	if j.Keep {
		e.boolean("keep", true)
	}
	e.close()
	return append(e.b, '\n')
}

// AppendJobResult appends r as one JSON line, as AppendRecord appends a
// record.
func AppendJobResult(b []byte, r *JobResult) ([]byte, error) {
	e := &encoder{b: b}
	e.open()
	e.name("outcome")
	e.outcome(&r.Outcome)
	each(e, "files", true, r.Files, e.fileDigest)
	each(e, "effects", true, r.Effects, e.usage)
	if len(r.Stdout) > 0 {
		e.bytes("stdout", r.Stdout)
	}
	if r.Clipped {
		e.boolean("clipped", true)
	}
	e.name("timings")
	e.timings(&r.Timings)
	e.close()
	if e.err != nil {
		return b, fmt.Errorf("encode result: %w", e.err)
	}
	return append(e.b, '\n'), nil
}

// appendPolicy appends p's canonical document, the bytes of
// core.Policy.JSON (TestAppendPolicy), without reflection.
func appendPolicy(b []byte, p *core.Policy) []byte {
	e := &encoder{b: b}
	direction := func(d *core.Direction) {
		e.open()
		e.boolean("unrestricted", d.Unrestricted)
		e.strings("paths", d.Paths)
		e.close()
	}
	endpoint := func(ep *core.Endpoint) {
		e.open()
		e.str("host", ep.Host)
		e.numOmit("port", ep.Port)
		e.close()
	}
	e.open()
	e.str("schema", p.Schema)
	e.boolean("enforced", p.Enforced)
	e.name("read")
	direction(&p.Read)
	e.name("write")
	direction(&p.Write)
	e.name("network")
	e.open()
	e.str("mode", p.Network.Mode)
	each(e, "hosts", true, p.Network.Hosts, endpoint)
	each(e, "udp", true, p.Network.UDP, endpoint)
	e.close()
	e.str("processes", p.Processes)
	e.strings("interpreter", p.Interpreter)
	each(e, "widened_by", false, p.WidenedBy, func(w *core.Widening) {
		e.open()
		e.str("module", w.Module)
		e.str("to", string(w.To))
		e.boolean("listed", w.Listed)
		e.close()
	})
	e.boolean("strict", p.Strict)
	e.close()
	return e.b
}

// encoder appends JSON to b as encoding/json writes it: fields in their
// order, each omitempty field left out when it is empty, strings escaped
// as its HTML-safe escaping does.
type encoder struct {
	b     []byte
	comma bool // a field was written in the object open now
	err   error
}

func (e *encoder) open() {
	e.b = append(e.b, '{')
	e.comma = false
}

func (e *encoder) close() {
	e.b = append(e.b, '}')
	e.comma = true
}

// name writes a field's name and its colon.
func (e *encoder) name(n string) {
	if e.comma {
		e.b = append(e.b, ',')
	}
	e.b = append(e.b, '"')
	e.b = append(e.b, n...)
	e.b = append(e.b, '"', ':')
	e.comma = true
}

func (e *encoder) str(n, s string) {
	e.name(n)
	e.b = appendString(e.b, s)
}

// strOmit is a string field with omitempty.
func (e *encoder) strOmit(n, s string) {
	if s != "" {
		e.str(n, s)
	}
}

func (e *encoder) num(n string, v int) {
	e.name(n)
	e.b = strconv.AppendInt(e.b, int64(v), 10)
}

func (e *encoder) numOmit(n string, v int) {
	if v != 0 {
		e.num(n, v)
	}
}

func (e *encoder) boolean(n string, v bool) {
	e.name(n)
	e.b = strconv.AppendBool(e.b, v)
}

// bytes writes a []byte as encoding/json does: base64, or null when nil.
func (e *encoder) bytes(n string, v []byte) {
	e.name(n)
	if v == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '"')
	e.b = base64.StdEncoding.AppendEncode(e.b, v)
	e.b = append(e.b, '"')
}

// float writes v as encoding/json does: the shortest decimal, with an
// exponent only below 1e-6 or from 1e21, the exponent's zero dropped.
func (e *encoder) float(n string, v float64) {
	e.name(n)
	if math.IsInf(v, 0) || math.IsNaN(v) {
		if e.err == nil {
			e.err = fmt.Errorf("field %s: %v is not a number JSON has", n, v)
		}
		return
	}
	f := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		f = 'e'
	}
	e.b = strconv.AppendFloat(e.b, v, f, -1, 64)
	if k := len(e.b); f == 'e' && k >= 4 && e.b[k-4] == 'e' && e.b[k-3] == '-' && e.b[k-2] == '0' {
		e.b[k-2] = e.b[k-1]
		e.b = e.b[:k-1]
	}
}

// strings writes a list of strings: null when nil.
func (e *encoder) strings(n string, ss []string) {
	e.name(n)
	if ss == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	for i, s := range ss {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = appendString(e.b, s)
	}
	e.b = append(e.b, ']')
}

// each writes a list of T, each element by elem; an omitempty list is
// left out when it is empty, another is null when nil.
func each[T any](e *encoder, n string, omit bool, vs []T, elem func(*T)) {
	if omit && len(vs) == 0 {
		return
	}
	e.name(n)
	if vs == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	for i := range vs {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		elem(&vs[i])
	}
	e.b = append(e.b, ']')
}

func (e *encoder) record(r *Record) {
	e.open()
	e.name("outcome")
	e.outcome(&r.Outcome)
	each(e, "files", true, r.Files, e.fileDigest)
	each(e, "effects", true, r.Effects, e.usage)
	e.name("confinement")
	e.result(&r.Confinement)
	each(e, "faults", true, r.Faults, e.faultAttempt)
	e.name("timings")
	e.timings(&r.Timings)
	e.numOmit("memory_limit_held_mb", r.MemoryLimitHeld)
	e.close()
}

func (e *encoder) timings(t *receipt.WorkerTimings) {
	e.open()
	e.float("compile_ms", t.CompileMS)
	e.float("confine_ms", t.ConfineMS)
	e.float("run_ms", t.RunMS)
	e.close()
}

func (e *encoder) budget(b *budget.Budget) {
	e.open()
	each(e, "Items", false, b.Items, func(it *budget.Item) {
		e.open()
		e.str("Kind", string(it.Kind))
		e.str("Access", string(it.Access))
		e.str("Path", it.Path)
		e.boolean("UDP", it.UDP)
		e.str("Host", it.Host)
		e.num("Port", it.Port)
		e.str("Module", it.Module)
		e.num("Limit", it.Limit)
		e.close()
	})
	e.close()
}

func (e *encoder) outcome(o *receipt.Outcome) {
	e.open()
	e.str("status", o.Status)
	e.strOmit("code", string(o.Code))
	e.strOmit("message", o.Message)
	e.strOmit("position", o.Position)
	e.num("exit_status", o.ExitStatus)
	if len(o.Stack) > 0 {
		e.strings("stack", o.Stack)
	}
	e.close()
}

func (e *encoder) fileDigest(f *program.FileDigest) {
	e.open()
	e.str("path", f.Path)
	e.str("sha256", f.SHA256)
	e.close()
}

func (e *encoder) usage(u *budget.Usage) {
	e.open()
	e.str("grant", u.Grant)
	e.num("uses", u.Uses)
	e.numOmit("limit", u.Limit)
	e.close()
}

func (e *encoder) result(r *core.Result) {
	e.open()
	e.str("level", string(r.Level))
	e.str("reason", r.Reason)
	e.strings("layers", r.Layers)
	each(e, "gaps", true, r.Gaps, func(g *core.Gap) {
		e.open()
		e.str("layer", g.Layer)
		e.str("kind", string(g.Kind))
		e.str("text", g.Text)
		e.close()
	})
	e.close()
}

func (e *encoder) faultAttempt(f *receipt.FaultAttempt) {
	e.open()
	e.str("op", f.Op)
	e.str("target", f.Target)
	e.str("result", f.Result)
	e.strOmit("errno", f.Errno)
	e.strOmit("error", f.Error)
	if len(f.Layers) > 0 {
		e.strings("layers", f.Layers)
	}
	e.close()
}

// htmlSafe are the ASCII bytes encoding/json writes as they are in a
// string: not a control byte, a quote, a backslash, or <, > and &.
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendString appends s quoted as encoding/json writes it: invalid
// UTF-8 as U+FFFD, and U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if htmlSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += n
			continue
		}
		i += n
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
