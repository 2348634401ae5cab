package door

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sabline/sabline/codes"
)

// The words a reply to a client puts in place of a fact of the operator's
// machine (hostFacts).
const (
	// RedactedImportRoot stands for the import root itself; a file
	// beneath it is named relative to it, as a client names it.
	RedactedImportRoot = "<import-root>"
	// RedactedReceipts stands for the server's receipts directory.
	RedactedReceipts = "<receipts>"
	// RedactedCgroup stands for a path of the host's cgroup hierarchy.
	RedactedCgroup = "<cgroup>"
)

// hostFacts are what of the operator's machine a client is not told: the
// absolute import root (as the operator gave it and as it resolves), the
// receipts directory, and the host's cgroup layout, which a run's
// confinement reason names when no cgroup holds its memory. The receipt
// the server keeps (and ships) names them, for its operator; a reply to
// a client, its copy of the receipt among it, has them redacted.
type hostFacts struct {
	roots    []string // longest first
	receipts []string
	// inStrings says every fact is found only inside a JSON string
	// (inStringsOnly), so that a receipt's redaction as one text keeps
	// its JSON valid.
	inStrings bool
}

// newHostFacts are the facts of a server reading programs under root and
// keeping its receipts in receipts (either "" for none).
func newHostFacts(root, receipts string) hostFacts {
	var h hostFacts
	h.roots = forms(root)
	h.receipts = forms(receipts)
	h.inStrings = h.inStringsOnly()
	return h
}

// jsonOutside are the bytes JSON holding no escape has outside its
// strings: white space, punctuation, numbers, true, false and null.
const jsonOutside = " \t\n\r{}[]:,+-.0123456789eEtrufalsn"

// inStringsOnly reports whether each fact, and each cgroup lead, is found
// in valid JSON holding no escape only inside one of its strings: it holds
// no quote (a place that crosses a string's end holds one) and some byte
// found nowhere else (a place outside every string holds only
// jsonOutside). The words put in their place and a cgroup path's end (a
// quote among cgroupPathEnds) then keep it inside that string, and the
// JSON valid (TestRedactionInStrings).
func (h hostFacts) inStringsOnly() bool {
	only := func(s string) bool {
		return !strings.Contains(s, `"`) &&
			strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune(jsonOutside, r) }) >= 0
	}
	return !slices.ContainsFunc(h.roots, func(s string) bool { return !only(s) }) &&
		!slices.ContainsFunc(h.receipts, func(s string) bool { return !only(s) }) &&
		!slices.ContainsFunc(cgroupLeads[:], func(s string) bool { return !only(s) })
}

// forms are dir as given and as it resolves, longest first; none for ""
// or the file system's root, beneath which everything lies.
func forms(dir string) []string {
	if dir == "" {
		return nil
	}
	out := []string{filepath.Clean(dir)}
	if r, err := filepath.EvalSymlinks(dir); err == nil && !slices.Contains(out, r) {
		out = append(out, r)
	}
	out = slices.DeleteFunc(out, func(d string) bool { return filepath.Dir(d) == d })
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// cgroupLeads begin every path of the host's cgroup hierarchy as a
// memory gap's reason names it (confine/linux's planCgroup): beneath a
// cgroup2 mount, and the cgroup of the server's own process. Such a path
// is its lead and every byte after it up to the first of cgroupPathEnds;
// no two leads match at one place. Each holds a slash (TestCgroupLeads),
// where redactCgroups finds it.
var cgroupLeads = [...]string{"/sys/fs/cgroup", "this process's cgroup /", "the children of /",
	"hierarchy at /", "hierarchy mounted at /"}

// cgroupPathEnds end a cgroup path that follows its lead: white space as
// a regular expression's \s is, and punctuation.
const cgroupPathEnds = "\t\n\f\r ,;:\"'()"

// redactCgroups is s with every cgroup path (cgroupLeads) redacted, from
// the left: the words of its lead before the path are kept, and the path
// becomes RedactedCgroup. The leads are looked for at the slashes of s
// alone, each with its first slash there: a slash is rarer in the words
// of a receipt than a lead's first letter, and a lead found at a slash
// begins before any found at a later one, since the bytes of a lead
// before its first slash hold none.
func redactCgroups(s string) string {
	var b strings.Builder
	done := 0 // s before it is written to b, or is a path redacted
	for from := 0; ; {
		i := strings.IndexByte(s[from:], '/')
		if i < 0 {
			break
		}
		slash := from + i
		from = slash + 1
		start, lead := -1, ""
		for _, l := range cgroupLeads {
			at := slash - strings.IndexByte(l, '/')
			if at >= done && (start < 0 || at < start) && strings.HasPrefix(s[at:], l) {
				start, lead = at, l
			}
		}
		if start < 0 {
			continue
		}
		end := start + len(lead)
		if n := strings.IndexAny(s[end:], cgroupPathEnds); n >= 0 {
			end += n
		} else {
			end = len(s)
		}
		if done == 0 {
			b.Grow(len(s) + len(RedactedCgroup)) // one copy: a path is most often longer
		}
		b.WriteString(s[done:start])
		b.WriteString(lead[:strings.IndexByte(lead, '/')])
		b.WriteString(RedactedCgroup)
		done, from = end, end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// text is s with the facts redacted.
func (h hostFacts) text(s string) string {
	for _, r := range h.roots {
		s = replaceDir(s, r, "", RedactedImportRoot)
	}
	for _, r := range h.receipts {
		s = replaceDir(s, r, RedactedReceipts+string(filepath.Separator), RedactedReceipts)
	}
	return redactCgroups(s)
}

// replaceDir replaces dir in s where it is a whole path or the start of
// one: dir followed by a separator (and what lies beneath it) becomes
// beneath followed by the rest; dir alone, self. A longer name that
// begins with dir's (dir + "x"), or a path that ends in it, is left.
func replaceDir(s, dir, beneath, self string) string {
	i := strings.Index(s, dir)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(self)) // one copy: dir is most often longer than what replaces it
	for ; i >= 0; i = strings.Index(s, dir) {
		after := s[i+len(dir):]
		switch {
		case i > 0 && pathByte(s[i-1]):
			b.WriteString(s[:i+len(dir)])
		case strings.HasPrefix(after, string(filepath.Separator)):
			b.WriteString(s[:i])
			b.WriteString(beneath)
			after = after[1:]
		case after == "" || !pathByte(after[0]):
			b.WriteString(s[:i])
			b.WriteString(self)
		default:
			b.WriteString(s[:i+len(dir)])
		}
		s = after
	}
	b.WriteString(s)
	return b.String()
}

// pathByte reports whether c could continue a file's name.
func pathByte(c byte) bool {
	return c == '/' || c == '\\' || c == '.' || c == '-' || c == '_' || c == '~' ||
		c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// reply is r as a client is sent it: its messages, position, stack,
// standard error and receipt with the facts redacted. Its standard
// output is the program's own, and is sent as the program wrote it.
func (h hostFacts) reply(r RunReply) (RunReply, error) {
	r.Reason, r.Message, r.Position = h.text(r.Reason), h.text(r.Message), h.text(r.Position)
	r.Stderr = h.text(r.Stderr)
	if r.Stack != nil {
		stack := make([]string, len(r.Stack))
		for i, f := range r.Stack {
			stack[i] = h.text(f)
		}
		r.Stack = stack
	}
	if r.Receipt != nil {
		raw, err := h.receipt(r.Receipt)
		if err != nil {
			return RunReply{}, err
		}
		r.Receipt, r.redacted = raw, raw
	}
	return r, nil
}

// err is err as a client is told it: a *codes.Error with its message
// redacted (what it wraps is kept, for errors.Is); any other error is
// returned as it is.
func (h hostFacts) err(err error) error {
	var e *codes.Error
	if !errors.As(err, &e) {
		return err
	}
	out := *e
	out.Msg, out.Pos = h.text(e.Msg), h.text(e.Pos)
	return &out
}

// receipt is the client's copy of a receipt encoded as JSON: every
// string in it with the facts redacted, its fields in their order. It
// reads only what the server itself encoded, valid JSON, and writes valid
// JSON.
func (h hostFacts) receipt(raw json.RawMessage) (json.RawMessage, error) {
	if bytes.IndexByte(raw, '\\') < 0 {
		// No escape: every string reads as its bytes are written, a
		// quote ends a name as the end of a string does, and the facts
		// are redacted in the text as a whole, at the cost of one pass.
		// Where every fact is found only inside a string, the JSON stays
		// valid (inStringsOnly), and is not read again.
		if out := h.text(string(raw)); h.inStrings || json.Valid([]byte(out)) {
			return json.RawMessage(out), nil
		}
	}
	return h.rewrite(raw)
}

// rewrite is receipt, string by string.
func (h hostFacts) rewrite(raw json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out bytes.Buffer
	type level struct {
		object bool
		n      int // tokens written in it
	}
	var stack []level
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, codes.Errorf(codes.E327, "redact the receipt: %w", err)
		}
		closing := tok == json.Delim('}') || tok == json.Delim(']')
		if n := len(stack); n > 0 && !closing {
			l := &stack[n-1]
			switch {
			case l.object && l.n%2 == 1:
				out.WriteByte(':')
			case l.n > 0:
				out.WriteByte(',')
			}
			l.n++
		}
		switch v := tok.(type) {
		case json.Delim:
			out.WriteByte(byte(v))
			if closing {
				stack = stack[:len(stack)-1]
			} else {
				stack = append(stack, level{object: v == '{'})
			}
		case string:
			data, _ := json.Marshal(h.text(v)) // a string always encodes
			out.Write(data)
		case json.Number:
			out.WriteString(v.String())
		case bool:
			fmt.Fprint(&out, v)
		case nil:
			out.WriteString("null")
		}
	}
	return out.Bytes(), nil
}
