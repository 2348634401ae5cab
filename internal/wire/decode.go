package wire

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// MaxRequestBytes bounds the request line a worker reads: a program's
// text in base64 and room for the rest (a guard of thousands of
// locations is well under a mebibyte).
const MaxRequestBytes = (program.MaxBytes+2)/3*4 + 32<<20

// MaxJobBytes bounds a job line a pool worker reads: a program's text
// and its standard input in base64, and room for the rest.
const MaxJobBytes = (program.MaxBytes+2)/3*4 + (MaxPoolInputBytes+2)/3*4 + 1<<20

// DecodeRequest reads the request a worker is sent: one JSON object, as
// encoding/json writes a [Request], with nothing after it but white
// space. It reads without reflection, for a worker decodes one request
// in a process where encoding/json has met no type yet, and that first
// meeting costs more than the bytes (bench/README.md, "The worker's
// request without reflection").
//
// It is stricter than encoding/json: a field it does not know, a field
// named twice, a name in other letter case, a number where a string
// belongs, a lone surrogate or invalid UTF-8 is refused, not taken or
// mended. What it takes, encoding/json decodes to the same value
// (FuzzDecodeRequest), and every field of a Request, nested ones too, is
// read back as written (TestDecodeRequestEveryField).
func DecodeRequest(line []byte) (Request, error) {
	return decodeLine(line, MaxRequestBytes, "request", (*decoder).request)
}

// DecodeJob reads a job line a pool worker is sent, as DecodeRequest
// reads the request.
func DecodeJob(line []byte) (Job, error) {
	return decodeLine(line, MaxJobBytes, "job", (*decoder).job)
}

// decodeLine reads one object of what from line, at most limit bytes,
// with nothing after it but white space.
func decodeLine[T any](line []byte, limit int, what string, read func(*decoder, *T)) (T, error) {
	var v T
	if len(line) > limit {
		return v, fmt.Errorf("%w: a %s of %d bytes, more than %d",
			ErrRecordTooLong, what, len(line), limit)
	}
	d := &decoder{b: line}
	if d.null() {
		d.fail("a %s that is null", what)
	}
	read(d, &v)
	d.space()
	if d.err == nil && d.i < len(d.b) {
		d.fail("something after the %s", what)
	}
	if d.err != nil {
		var zero T
		return zero, fmt.Errorf("decode %s: %w", what, d.err)
	}
	return v, nil
}

// decoder reads JSON from b without reflection. The first error stops it:
// every read after it returns a zero value and reads nothing.
type decoder struct {
	b   []byte
	i   int
	err error
}

// fail records the first error, with the offset it was found at.
func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("at byte %d: %s", d.i, fmt.Sprintf(format, args...))
	}
	d.i = len(d.b)
}

func (d *decoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek is the next byte after white space, 0 at the end.
func (d *decoder) peek() byte {
	d.space()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

// expect reads byte c, after white space.
func (d *decoder) expect(c byte) {
	if d.peek() != c {
		d.fail("want %q", c)
		return
	}
	d.i++
}

// word reads the literal w (null, true, false), after white space.
func (d *decoder) word(w string) bool {
	d.space()
	if len(d.b)-d.i >= len(w) && string(d.b[d.i:d.i+len(w)]) == w {
		d.i += len(w)
		return true
	}
	return false
}

// null reads a null if one is next. encoding/json leaves a field
// untouched for null, which for a fresh value is its zero.
func (d *decoder) null() bool {
	return d.peek() == 'n' && d.word("null")
}

// object reads an object, calling field for each name with the decoder
// at its value; a name given twice is refused. A null reads as nothing
// and object reports false.
func (d *decoder) object(field func(name string)) bool {
	if d.null() {
		return false
	}
	d.expect('{')
	if d.peek() == '}' {
		d.i++
		return d.err == nil
	}
	var names [24]string
	seen := names[:0]
	for d.err == nil {
		if d.peek() != '"' {
			d.fail("want a field's name")
			break
		}
		name := d.str()
		if slices.Contains(seen, name) {
			d.fail("field %q twice", name)
			break
		}
		seen = append(seen, name)
		d.expect(':')
		if d.err == nil {
			field(name)
		}
		if d.peek() == ',' {
			d.i++
			continue
		}
		d.expect('}')
		break
	}
	return d.err == nil
}

// unknown refuses a field the type does not have.
func (d *decoder) unknown(name string) {
	d.fail("no field %q", name)
}

// array reads an array, calling elem for each element. A null reads as
// nothing and array reports false: the slice stays nil, as
// encoding/json leaves it; [] is an empty slice that is not nil.
func (d *decoder) array(elem func()) bool {
	if d.null() {
		return false
	}
	d.expect('[')
	if d.peek() == ']' {
		d.i++
		return d.err == nil
	}
	for d.err == nil {
		elem()
		if d.peek() == ',' {
			d.i++
			continue
		}
		d.expect(']')
		break
	}
	return d.err == nil
}

// list reads an array of T, each element by elem.
func list[T any](d *decoder, elem func(*T)) []T {
	var out []T
	if d.array(func() {
		var v T
		elem(&v)
		out = append(out, v)
	}) && out == nil {
		out = []T{}
	}
	return out
}

func (d *decoder) strings() []string {
	return list(d, func(s *string) { *s = d.str() })
}

func (d *decoder) boolean() bool {
	switch {
	case d.null():
	case d.word("true"):
		return true
	case d.word("false"):
	default:
		d.fail("want a boolean")
	}
	return false
}

// wholePart reads the sign and the whole part of a JSON number, after white
// space: a leading zero only alone.
func (d *decoder) wholePart() {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	first := d.i
	d.digitRun("a number")
	if d.err == nil && d.b[first] == '0' && d.i-first > 1 {
		d.fail("a number with a leading zero")
	}
}

// digitRun reads one digit or more, which what must have.
func (d *decoder) digitRun(what string) {
	first := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	if d.i == first {
		d.fail("want the digits of %s", what)
	}
}

// digits reads a JSON number that is a whole number: no fraction and no
// exponent, which encoding/json refuses for an integer field too.
func (d *decoder) digits() string {
	d.space()
	start := d.i
	d.wholePart()
	if d.i < len(d.b) && (d.b[d.i] == '.' || d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.fail("want a whole number")
	}
	return string(d.b[start:d.i])
}

// integer reads a whole number that fits in bits.
func (d *decoder) integer(bits int) int64 {
	if d.null() {
		return 0
	}
	s := d.digits()
	if d.err != nil {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		d.fail("number %s does not fit", s)
	}
	return n
}

func (d *decoder) natural() uint64 {
	if d.null() {
		return 0
	}
	s := d.digits()
	if d.err != nil {
		return 0
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		d.fail("number %s is not a natural number that fits", s)
	}
	return n
}

func (d *decoder) num() int { return int(d.integer(strconv.IntSize)) }

// str reads a string.
func (d *decoder) str() string { return string(d.text()) }

// text reads a string's bytes, nil for null: the input's own bytes when
// they need no unescaping, the common case (base64 among them: bytes
// decodes them without a copy), and unescaped into a slice of their own
// otherwise.
func (d *decoder) text() []byte {
	if d.null() {
		return nil
	}
	d.expect('"')
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return d.b[start : d.i-1]
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return d.escaped(start)
		}
		d.i++
	}
	d.fail("a string without its end")
	return nil
}

// escaped reads the rest of a string that began at start and holds an
// escape, a byte that is not ASCII, or a control byte (refused).
func (d *decoder) escaped(start int) []byte {
	out := append([]byte(nil), d.b[start:d.i]...)
	for d.err == nil && d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return out
		case c < 0x20:
			d.fail("a control byte in a string")
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && n == 1 {
				d.fail("a string that is not UTF-8")
				break
			}
			out = append(out, d.b[d.i:d.i+n]...)
			d.i += n
		case c != '\\':
			out = append(out, c)
			d.i++
		default:
			out = d.escape(out)
		}
	}
	d.fail("a string without its end")
	return nil
}

// simpleEscapes are the escapes of one letter JSON has.
var simpleEscapes = [256]byte{
	'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t',
}

// escape reads one escape at d.i (its backslash) and appends what it
// stands for.
func (d *decoder) escape(out []byte) []byte {
	if d.i+1 >= len(d.b) {
		d.fail("a string without its end")
		return out
	}
	if c := simpleEscapes[d.b[d.i+1]]; c != 0 {
		d.i += 2
		return append(out, c)
	}
	r := d.hex4()
	if utf16.IsSurrogate(r) {
		if r2 := d.hex4(); d.err == nil {
			if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
				d.fail("a surrogate that is not one of a pair")
			}
		}
	}
	return utf8.AppendRune(out, r)
}

// hex4 reads \uXXXX.
func (d *decoder) hex4() rune {
	if d.err != nil || len(d.b)-d.i < 6 || d.b[d.i] != '\\' || d.b[d.i+1] != 'u' {
		d.fail("want \\u and four hexadecimal digits")
		return 0
	}
	var r rune
	for _, c := range d.b[d.i+2 : d.i+6] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			d.fail("want four hexadecimal digits")
			return 0
		}
	}
	d.i += 6
	return r
}

// bytes reads a []byte as encoding/json writes it: a base64 string.
func (d *decoder) bytes() []byte {
	if d.null() {
		return nil
	}
	s := d.text()
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(b, s)
	if err != nil {
		d.fail("bytes that are not base64: %v", err)
		return nil
	}
	return b[:n]
}

func (d *decoder) request(r *Request) {
	d.object(func(name string) {
		switch name {
		case "program":
			r.Program = d.str()
		case "sha256":
			r.SHA256 = d.str()
		case "piped":
			r.Piped = d.boolean()
		case "args":
			r.Args = d.strings()
		case "budget":
			d.budget(&r.Budget)
		case "cwd":
			r.Cwd = d.str()
		case "guard":
			r.Guard = pointer(d, d.guard)
		case "admitted":
			r.Admitted = d.admitted()
		case "confine":
			r.Confine = core.Mode(d.str())
		case "require":
			r.Require = core.Level(d.str())
		case "expected":
			r.Expected = d.boolean()
		case "layers":
			r.Layers = d.strings()
		case "faults":
			r.Faults = list(d, d.faultOp)
		case "max_memory_mb":
			r.MaxMemoryMB = d.num()
		case "temp_dir":
			r.TempDir = d.str()
		case "policy":
			r.Policy = pointer(d, d.policy)
		case "policy_sha256":
			r.PolicySHA256 = d.str()
		case "pool":
			r.Pool = d.boolean()
		case "source":
			r.Source = d.bytes()
		case "procs":
			r.Procs = d.num()
		case "deadline_ns":
			r.Deadline = d.integer(64)
		case "relayed":
			r.Relayed = list(d, d.fileID)
		default:
			d.unknown(name)
		}
	})
}

// pointer reads a *T: nil for null, else a new T read by read.
func pointer[T any](d *decoder, read func(*T)) *T {
	if d.null() {
		return nil
	}
	v := new(T)
	read(v)
	return v
}

func (d *decoder) admitted() map[string]string {
	var m map[string]string
	if d.object(func(name string) {
		if m == nil {
			m = map[string]string{}
		}
		m[name] = d.str()
	}) && m == nil {
		m = map[string]string{}
	}
	return m
}

func (d *decoder) budget(b *budget.Budget) {
	d.object(func(name string) {
		if name != "Items" {
			d.unknown(name)
			return
		}
		b.Items = list(d, d.item)
	})
}

func (d *decoder) item(it *budget.Item) {
	d.object(func(name string) {
		switch name {
		case "Kind":
			it.Kind = budget.Kind(d.str())
		case "Access":
			it.Access = budget.Access(d.str())
		case "Path":
			it.Path = d.str()
		case "UDP":
			it.UDP = d.boolean()
		case "Host":
			it.Host = d.str()
		case "Port":
			it.Port = d.num()
		case "Module":
			it.Module = d.str()
		case "Limit":
			it.Limit = d.num()
		default:
			d.unknown(name)
		}
	})
}

func (d *decoder) guard(w *guard.Wire) {
	d.object(func(name string) {
		switch name {
		case "locations":
			w.Locations = list(d, d.location)
		case "homes":
			w.Homes = d.strings()
		case "carve_outs":
			w.CarveOuts = list(d, d.carveOut)
		default:
			d.unknown(name)
		}
	})
}

func (d *decoder) location(l *guard.Location) {
	d.object(func(name string) {
		switch name {
		case "path":
			l.Path = d.str()
		case "kind":
			l.Kind = guard.Kind(d.str())
		case "holds":
			l.Holds = d.str()
		case "allowed":
			l.Allowed = d.strings()
		case "lent":
			l.Lent = d.boolean()
		case "owner":
			l.Owner = d.num()
		default:
			d.unknown(name)
		}
	})
}

func (d *decoder) carveOut(c *guard.CarveOut) {
	d.object(func(name string) {
		switch name {
		case "path":
			c.Path = d.str()
		case "allowed":
			c.Allowed = d.strings()
		case "named":
			c.Named = d.boolean()
		case "expand":
			c.Expand = d.boolean()
		case "dots":
			c.Dots = d.boolean()
		default:
			d.unknown(name)
		}
	})
}

func (d *decoder) faultOp(f *receipt.FaultOp) {
	d.object(func(name string) {
		switch name {
		case "op":
			f.Op = d.str()
		case "target":
			f.Target = d.str()
		default:
			d.unknown(name)
		}
	})
}

func (d *decoder) fileID(f *lang.FileID) {
	d.object(func(name string) {
		switch name {
		case "dev":
			f.Dev = d.natural()
		case "ino":
			f.Ino = d.natural()
		default:
			d.unknown(name)
		}
	})
}

func (d *decoder) policy(p *core.Policy) {
	d.object(func(name string) {
		switch name {
		case "schema":
			p.Schema = d.str()
		case "enforced":
			p.Enforced = d.boolean()
		case "read":
			d.direction(&p.Read)
		case "write":
			d.direction(&p.Write)
		case "network":
			d.network(&p.Network)
		case "processes":
			p.Processes = d.str()
		case "interpreter":
			p.Interpreter = d.strings()
		case "widened_by":
			p.WidenedBy = list(d, d.widening)
		case "strict":
			p.Strict = d.boolean()
		default:
			d.unknown(name)
		}
	})
}

func (d *decoder) direction(r *core.Direction) {
	d.object(func(name string) {
		switch name {
		case "unrestricted":
			r.Unrestricted = d.boolean()
		case "paths":
			r.Paths = d.strings()
		case "named":
			r.Named = d.strings()
		default:
			d.unknown(name)
		}
	})
}

func (d *decoder) network(n *core.Network) {
	d.object(func(name string) {
		switch name {
		case "mode":
			n.Mode = d.str()
		case "hosts":
			n.Hosts = list(d, d.endpoint)
		case "udp":
			n.UDP = list(d, d.endpoint)
		default:
			d.unknown(name)
		}
	})
}

func (d *decoder) endpoint(e *core.Endpoint) {
	d.object(func(name string) {
		switch name {
		case "host":
			e.Host = d.str()
		case "port":
			e.Port = d.num()
		default:
			d.unknown(name)
		}
	})
}

func (d *decoder) widening(w *core.Widening) {
	d.object(func(name string) {
		switch name {
		case "module":
			w.Module = d.str()
		case "to":
			w.To = core.Widen(d.str())
		case "listed":
			w.Listed = d.boolean()
		default:
			d.unknown(name)
		}
	})
}

func (d *decoder) job(j *Job) {
	d.object(func(name string) {
		switch name {
		case "program":
			j.Program = d.str()
		case "source":
			j.Source = d.bytes()
		case "root":
			j.Root = d.str()
		case "args":
			j.Args = d.strings()
		case "stdin":
			j.Stdin = d.bytes()
		case "budget":
			d.budget(&j.Budget)
		case "cwd":
			j.Cwd = d.str()
		case "keep":
			j.Keep = d.boolean()
		default:
			d.unknown(name)
		}
	})
}

func (d *decoder) jobResult(r *JobResult) {
	d.object(func(name string) {
		switch name {
		case "outcome":
			d.outcome(&r.Outcome)
		case "files":
			r.Files = list(d, d.fileDigest)
		case "effects":
			r.Effects = list(d, d.usage)
		case "stdout":
			r.Stdout = d.bytes()
		case "clipped":
			r.Clipped = d.boolean()
		case "stdout_bytes":
			r.StdoutBytes = d.integer(64)
		case "timings":
			d.timings(&r.Timings)
		default:
			d.unknown(name)
		}
	})
}

func (d *decoder) outcome(o *receipt.Outcome) {
	d.object(func(name string) {
		switch name {
		case "status":
			o.Status = d.str()
		case "code":
			o.Code = codes.Code(d.str())
		case "message":
			o.Message = d.str()
		case "position":
			o.Position = d.str()
		case "exit_status":
			o.ExitStatus = d.num()
		case "stack":
			o.Stack = d.strings()
		default:
			d.unknown(name)
		}
	})
}

func (d *decoder) fileDigest(f *program.FileDigest) {
	d.object(func(name string) {
		switch name {
		case "path":
			f.Path = d.str()
		case "sha256":
			f.SHA256 = d.str()
		default:
			d.unknown(name)
		}
	})
}

func (d *decoder) usage(u *budget.Usage) {
	d.object(func(name string) {
		switch name {
		case "grant":
			u.Grant = d.str()
		case "uses":
			u.Uses = d.num()
		case "limit":
			u.Limit = d.num()
		default:
			d.unknown(name)
		}
	})
}

func (d *decoder) timings(t *receipt.WorkerTimings) {
	d.object(func(name string) {
		switch name {
		case "compile_ms":
			t.CompileMS = d.float()
		case "confine_ms":
			t.ConfineMS = d.float()
		case "run_ms":
			t.RunMS = d.float()
		default:
			d.unknown(name)
		}
	})
}

// float reads a JSON number into a float64, as encoding/json does: one
// past float64's range is refused.
func (d *decoder) float() float64 {
	if d.null() {
		return 0
	}
	start := d.i
	d.wholePart()
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		d.digitRun("a fraction")
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		d.digitRun("an exponent")
	}
	if d.err != nil {
		return 0
	}
	v, err := strconv.ParseFloat(string(d.b[start:d.i]), 64)
	if err != nil {
		d.fail("number %s does not fit", d.b[start:d.i])
	}
	return v
}
