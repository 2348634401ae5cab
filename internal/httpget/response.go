package httpget

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sabline/sabline/codes"
)

// Bounds on what ReadResponse reads besides the body.
const (
	// MaxFields is the most fields a response head (an interim 1xx one or
	// the final one) or a chunked body's trailer section may have.
	MaxFields = 100
	// MaxHeadBytes is the most bytes a response head or a trailer section
	// may take, its status line and line ends included.
	MaxHeadBytes = 64 << 10
	// MaxChunkLine bounds a chunk-size line with its extensions.
	MaxChunkLine = 4096
	// MaxInterim is how many interim (1xx) responses are skipped before
	// the final one; more are refused.
	MaxInterim = 5
)

// ErrMalformed is wrapped by every error ReadResponse returns for bytes
// that are not a response it accepts: a bad status line, field, framing
// or chunk, and anything it does not support.
var ErrMalformed = errors.New("malformed HTTP response")

// ErrTooLarge is wrapped by the errors for a response head or chunk line
// past its bound (MaxFields, MaxHeadBytes, MaxChunkLine).
var ErrTooLarge = errors.New("HTTP response past its bound")

// Field is one header or trailer field as received: the name as sent and
// the value without its surrounding spaces.
type Field struct {
	Name  string
	Value string
}

// Response is a final HTTP response, read whole.
type Response struct {
	Proto      string // "HTTP/1.0" or "HTTP/1.1"
	StatusCode int    // 200 to 599: interim 1xx responses are skipped
	Reason     string // the reason phrase, possibly empty
	Header     []Field
	Trailer    []Field // fields after a chunked body
	Body       []byte
	// Truncated is true when the body went on past the reader's maximum:
	// Body holds its first bytes and the rest was not read.
	Truncated bool
}

// Value returns the value of the first field of the header named name,
// compared without regard to case, and whether there is one.
func (r *Response) Value(name string) (string, bool) {
	for _, f := range r.Header {
		if strings.EqualFold(f.Name, name) {
			return f.Value, true
		}
	}
	return "", false
}

// ReadResponse reads one response to a GET from br: interim 1xx
// responses are skipped (at most MaxInterim), then the final response's
// status line, header fields and body, whose framing is, in this order of
// precedence, none for 204 and 304, chunked transfer coding, a
// Content-Length, or the rest of the stream. Only HTTP/1.0 and HTTP/1.1
// are accepted, and only the chunked transfer coding; a response with
// both Transfer-Encoding and Content-Length is refused (RFC 9112, 6.3,
// allows a recipient to treat it as an error, which this reader does),
// as are Content-Length fields that disagree, obsolete line folding, and
// any control byte in a field. Lines end in CRLF or a bare LF. At most
// maxBody bytes of body are read: past them Truncated is set and reading
// stops. Errors wrap ErrMalformed, ErrTooLarge, io.ErrUnexpectedEOF or
// the reader's own error.
func ReadResponse(br *bufio.Reader, maxBody int64) (*Response, error) {
	if maxBody < 0 {
		return nil, fmt.Errorf("read response: negative body bound %d", maxBody)
	}
	for interim := 0; ; interim++ {
		resp, err := readHead(br)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == 101 {
			return nil, fmt.Errorf("read response: %w: 101 Switching Protocols to a request that asked "+
				"for none", ErrMalformed)
		}
		if resp.StatusCode >= 200 {
			if err := readBody(br, resp, maxBody); err != nil {
				return nil, err
			}
			return resp, nil
		}
		if interim == MaxInterim {
			return nil, fmt.Errorf("read response: %w: more than %d interim responses", ErrTooLarge,
				MaxInterim)
		}
	}
}

// head is the budget of one response head or trailer section.
type head struct {
	br      *bufio.Reader
	left    int // bytes
	nfields int
	what    string // "header" or "trailer", for errors
}

// line reads one line, without its CRLF or LF, charged to the budget.
func (h *head) line() ([]byte, error) {
	l, n, err := readLine(h.br, h.left)
	h.left -= n
	if errors.Is(err, ErrTooLarge) {
		return nil, fmt.Errorf("read response %s: %w: more than %d bytes", h.what, ErrTooLarge,
			MaxHeadBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("read response %s: %w", h.what, err)
	}
	return l, nil
}

// readLine reads up to limit bytes ending in LF and returns the line
// without its LF or CRLF, and how many bytes it took. A CR anywhere else
// is refused; a stream ending inside a line is io.ErrUnexpectedEOF.
func readLine(br *bufio.Reader, limit int) ([]byte, int, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > limit {
			return nil, len(line) + len(frag), ErrTooLarge
		}
		line = append(line, frag...)
		if err == nil {
			break
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, len(line), err
	}
	n := len(line)
	line = line[:len(line)-1]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	if i := bytes.IndexByte(line, '\r'); i >= 0 {
		return nil, n, fmt.Errorf("%w: a CR inside a line", ErrMalformed)
	}
	return line, n, nil
}

func readHead(br *bufio.Reader) (*Response, error) {
	h := &head{br: br, left: MaxHeadBytes, what: "header"}
	l, err := h.line()
	if err != nil {
		return nil, err
	}
	resp, err := parseStatusLine(l)
	if err != nil {
		return nil, err
	}
	resp.Header, err = h.fields()
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// parseStatusLine accepts HTTP-version SP 3DIGIT [SP reason-phrase], the
// version HTTP/1.0 or HTTP/1.1 and the code from 100 to 599.
func parseStatusLine(l []byte) (*Response, error) {
	bad := func(why string) error {
		return fmt.Errorf("read response status line %s: %w: %s", quote(l), ErrMalformed, why)
	}
	if len(l) < 12 || l[8] != ' ' {
		return nil, bad("want HTTP/1.x, a space and three digits")
	}
	proto := string(l[:8])
	if proto != "HTTP/1.1" && proto != "HTTP/1.0" {
		return nil, bad("version not HTTP/1.0 or HTTP/1.1")
	}
	code := 0
	for _, c := range l[9:12] {
		if c < '0' || c > '9' {
			return nil, bad("status code not three digits")
		}
		code = code*10 + int(c-'0')
	}
	if code < 100 || code > 599 {
		return nil, bad("status code not from 100 to 599")
	}
	reason := l[12:]
	if len(reason) > 0 {
		if reason[0] != ' ' {
			return nil, bad("status code not three digits")
		}
		reason = reason[1:]
	}
	for _, c := range reason {
		if !fieldByte(c) {
			return nil, bad("a control byte in the reason phrase")
		}
	}
	return &Response{Proto: proto, StatusCode: code, Reason: string(reason)}, nil
}

// fields reads field lines up to the empty line that ends a section.
func (h *head) fields() ([]Field, error) {
	var fs []Field
	for {
		l, err := h.line()
		if err != nil {
			return nil, err
		}
		if len(l) == 0 {
			return fs, nil
		}
		if h.nfields == MaxFields {
			return nil, fmt.Errorf("read response %s: %w: more than %d fields", h.what, ErrTooLarge,
				MaxFields)
		}
		h.nfields++
		f, err := parseField(l)
		if err != nil {
			return nil, fmt.Errorf("read response %s: %w", h.what, err)
		}
		fs = append(fs, f)
	}
}

// parseField accepts token ":" OWS value OWS, the value of field bytes.
func parseField(l []byte) (Field, error) {
	if l[0] == ' ' || l[0] == '\t' {
		return Field{}, fmt.Errorf("field line %s: %w: obsolete line folding", quote(l), ErrMalformed)
	}
	i := bytes.IndexByte(l, ':')
	if i <= 0 {
		return Field{}, fmt.Errorf("field line %s: %w: want a name, a colon and a value", quote(l),
			ErrMalformed)
	}
	for _, c := range l[:i] {
		if !tokenByte(c) {
			return Field{}, fmt.Errorf("field line %s: %w: the name is not a token", quote(l), ErrMalformed)
		}
	}
	v := bytes.Trim(l[i+1:], " \t")
	for _, c := range v {
		if !fieldByte(c) {
			return Field{}, fmt.Errorf("field line %s: %w: a control byte in the value", quote(l),
				ErrMalformed)
		}
	}
	return Field{Name: string(l[:i]), Value: string(v)}, nil
}

// readBody reads the body of resp as its framing says.
func readBody(br *bufio.Reader, resp *Response, maxBody int64) error {
	var te, cl []string
	for _, f := range resp.Header {
		switch {
		case strings.EqualFold(f.Name, "Transfer-Encoding"):
			te = append(te, f.Value)
		case strings.EqualFold(f.Name, "Content-Length"):
			cl = append(cl, f.Value)
		}
	}
	if len(te) > 0 && len(cl) > 0 {
		return fmt.Errorf("read response framing: %w: both Transfer-Encoding and Content-Length",
			ErrMalformed)
	}
	chunked := false
	if len(te) > 0 {
		if resp.Proto == "HTTP/1.0" {
			return fmt.Errorf("read response framing: %w: Transfer-Encoding in an HTTP/1.0 response",
				ErrMalformed)
		}
		if len(te) > 1 || !strings.EqualFold(te[0], "chunked") {
			return fmt.Errorf("read response framing: %w: Transfer-Encoding %q: only chunked is supported",
				ErrMalformed, clip(strings.Join(te, ", ")))
		}
		chunked = true
	}
	length := int64(-1)
	if len(cl) > 0 {
		n, err := contentLength(cl)
		if err != nil {
			return err
		}
		length = n
	}
	if resp.StatusCode == 204 || resp.StatusCode == 304 {
		return nil
	}
	switch {
	case chunked:
		return readChunked(br, resp, maxBody)
	case length >= 0:
		return readN(br, resp, length, maxBody)
	default:
		return readToEnd(br, resp, maxBody)
	}
}

// contentLength reads Content-Length fields: one or more, each a list of
// one or more equal decimal numbers, all equal.
func contentLength(values []string) (int64, error) {
	n := int64(-1)
	for _, v := range values {
		for _, s := range strings.Split(v, ",") {
			s = strings.Trim(s, " \t")
			m, err := decimal(s)
			if err != nil {
				return 0, fmt.Errorf("read response framing: Content-Length %q: %w", clip(v), err)
			}
			if n >= 0 && m != n {
				return 0, fmt.Errorf("read response framing: %w: Content-Length values %d and %d disagree",
					ErrMalformed, n, m)
			}
			n = m
		}
	}
	return n, nil
}

// decimal parses 1 to 18 decimal digits: any length a body may have.
func decimal(s string) (int64, error) {
	if s == "" || len(s) > 18 {
		return 0, fmt.Errorf("%w: want 1 to 18 decimal digits", ErrMalformed)
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%w: want 1 to 18 decimal digits", ErrMalformed)
		}
		n = n*10 + int64(c-'0')
	}
	return n, nil
}

// readN reads a body of length bytes, or its first maxBody.
func readN(br *bufio.Reader, resp *Response, length, maxBody int64) error {
	want := length
	if want > maxBody {
		want = maxBody
		resp.Truncated = true
	}
	var buf bytes.Buffer
	_, err := io.CopyN(&buf, br, want)
	resp.Body = buf.Bytes()
	if err == io.EOF {
		return fmt.Errorf("read response body: %w: %d of %d bytes", io.ErrUnexpectedEOF, buf.Len(),
			length)
	}
	if err != nil {
		return fmt.Errorf("read response body: %w", err)
	}
	return nil
}

// readToEnd reads a body the end of the stream ends.
func readToEnd(br *bufio.Reader, resp *Response, maxBody int64) error {
	var buf bytes.Buffer
	_, err := io.Copy(&buf, io.LimitReader(br, maxBody))
	resp.Body = buf.Bytes()
	if err != nil {
		return fmt.Errorf("read response body: %w", err)
	}
	if int64(buf.Len()) == maxBody {
		if _, err := br.Peek(1); err == nil {
			resp.Truncated = true
		} else if err != io.EOF {
			return fmt.Errorf("read response body: %w", err)
		}
	}
	return nil
}

// readChunked reads a chunked body and its trailer section.
func readChunked(br *bufio.Reader, resp *Response, maxBody int64) error {
	var buf bytes.Buffer
	defer func() { resp.Body = buf.Bytes() }()
	for {
		l, _, err := readLine(br, MaxChunkLine)
		if errors.Is(err, ErrTooLarge) {
			return fmt.Errorf("read response chunk: %w: a size line of more than %d bytes", ErrTooLarge,
				MaxChunkLine)
		}
		if err != nil {
			return fmt.Errorf("read response chunk: %w", err)
		}
		size, err := chunkSize(l)
		if err != nil {
			return err
		}
		if size == 0 {
			break
		}
		left := maxBody - int64(buf.Len())
		want := size
		if want > left {
			want = left
		}
		n, err := io.CopyN(&buf, br, want)
		if err == io.EOF {
			return fmt.Errorf("read response chunk: %w: %d of %d bytes", io.ErrUnexpectedEOF, n, size)
		}
		if err != nil {
			return fmt.Errorf("read response chunk: %w", err)
		}
		if want < size {
			resp.Truncated = true
			return nil
		}
		l, _, err = readLine(br, 2)
		if errors.Is(err, ErrTooLarge) || (err == nil && len(l) != 0) {
			return fmt.Errorf("read response chunk: %w: chunk data not followed by CRLF", ErrMalformed)
		}
		if err != nil {
			return fmt.Errorf("read response chunk: %w", err)
		}
	}
	h := &head{br: br, left: MaxHeadBytes, what: "trailer"}
	var err error
	resp.Trailer, err = h.fields()
	return err
}

// chunkSize parses chunk-size [BWS ";" extensions], the size 1 to 15 hex
// digits, the extensions of field bytes (their content is ignored).
func chunkSize(l []byte) (int64, error) {
	bad := func(why string) error {
		return fmt.Errorf("read response chunk size line %s: %w: %s", quote(l), ErrMalformed, why)
	}
	i := 0
	var n int64
	for ; i < len(l); i++ {
		d, ok := unhex(l[i])
		if !ok {
			break
		}
		if i == 15 {
			return 0, bad("more than 15 hex digits")
		}
		n = n<<4 | int64(d)
	}
	if i == 0 {
		return 0, bad("want a hex size")
	}
	rest := bytes.TrimLeft(l[i:], " \t")
	if len(rest) > 0 && rest[0] != ';' {
		return 0, bad("want a hex size and optional extensions")
	}
	for _, c := range rest {
		if !fieldByte(c) {
			return 0, bad("a control byte in an extension")
		}
	}
	return n, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// tokenByte reports whether c is a tchar of RFC 9110.
func tokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// fieldByte reports whether c may appear in a field value or reason
// phrase: HTAB, SP, a visible ASCII character or obs-text.
func fieldByte(c byte) bool {
	return c == '\t' || (c >= ' ' && c != 0x7f)
}

// quote quotes untrusted bytes for an error, clipped to 64 bytes.
func quote(b []byte) string {
	return strconv.Quote(clip(string(b)))
}

// clip is s cut to 64 bytes for an error to quote, saying how much it
// left out (codes.Clip).
func clip(s string) string { return codes.Clip(s, 64) }
