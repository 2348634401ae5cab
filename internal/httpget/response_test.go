package httpget

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// readCase is one response given to ReadResponse: either it is accepted
// with wantStatus, wantBody (and the rest), or refused with an error
// wrapping wantErr whose text holds wantMsg.
type readCase struct {
	name        string
	in          string
	max         int64 // 0 is 1024
	wantStatus  int
	wantProto   string
	wantReason  string
	wantBody    string
	wantTrunc   bool
	wantHeader  []Field
	wantTrailer []Field
	wantErr     error
	wantMsg     string
}

func runRead(t *testing.T, tests []readCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			max := tt.max
			if max == 0 {
				max = 1024
			}
			resp, err := ReadResponse(bufio.NewReaderSize(strings.NewReader(tt.in), 16), max)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("accepted (status %d, body %q), want an error wrapping %v", resp.StatusCode, resp.Body, tt.wantErr)
				}
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("error %v does not wrap %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantMsg) {
					t.Errorf("error %q does not say %q", err, tt.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if string(resp.Body) != tt.wantBody {
				t.Errorf("body %q, want %q", resp.Body, tt.wantBody)
			}
			if resp.Truncated != tt.wantTrunc {
				t.Errorf("truncated %v, want %v", resp.Truncated, tt.wantTrunc)
			}
			if tt.wantProto != "" && resp.Proto != tt.wantProto {
				t.Errorf("proto %q, want %q", resp.Proto, tt.wantProto)
			}
			if tt.wantReason != "" && resp.Reason != tt.wantReason {
				t.Errorf("reason %q, want %q", resp.Reason, tt.wantReason)
			}
			if tt.wantHeader != nil && !sameFields(resp.Header, tt.wantHeader) {
				t.Errorf("header %q, want %q", resp.Header, tt.wantHeader)
			}
			if tt.wantTrailer != nil && !sameFields(resp.Trailer, tt.wantTrailer) {
				t.Errorf("trailer %q, want %q", resp.Trailer, tt.wantTrailer)
			}
		})
	}
}

func sameFields(a, b []Field) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestStatusLine(t *testing.T) {
	runRead(t, []readCase{
		{name: "HTTP/1.1 with a reason", in: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi",
			wantStatus: 200, wantProto: "HTTP/1.1", wantReason: "OK", wantBody: "hi"},
		{name: "HTTP/1.0", in: "HTTP/1.0 200 OK\r\n\r\nto the end",
			wantStatus: 200, wantProto: "HTTP/1.0", wantBody: "to the end"},
		{name: "no reason, no space", in: "HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n", wantStatus: 404},
		{name: "empty reason after the space", in: "HTTP/1.1 500 \r\nContent-Length: 0\r\n\r\n", wantStatus: 500},
		{name: "a reason with spaces and obs-text", in: "HTTP/1.1 418 I'm a \xfcteapot\r\nContent-Length: 0\r\n\r\n",
			wantStatus: 418, wantReason: "I'm a \xfcteapot"},
		{name: "bare LF line ends", in: "HTTP/1.1 200 OK\nContent-Length: 1\n\nx", wantStatus: 200, wantBody: "x"},
		{name: "a redirect is returned as it is", in: "HTTP/1.1 302 Found\r\nLocation: http://elsewhere/\r\nContent-Length: 0\r\n\r\n",
			wantStatus: 302, wantHeader: []Field{{"Location", "http://elsewhere/"}, {"Content-Length", "0"}}},
		{name: "599 is the last code", in: "HTTP/1.1 599 x\r\nContent-Length: 0\r\n\r\n", wantStatus: 599},
		{name: "interim responses skipped", in: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz",
			wantStatus: 200, wantBody: "z", wantHeader: []Field{{"Content-Length", "1"}}},

		{name: "HTTP/2 refused", in: "HTTP/2 200 OK\r\n\r\n", wantErr: ErrMalformed, wantMsg: "want HTTP/1.x"},
		{name: "HTTP/2.0 refused", in: "HTTP/2.0 200 OK\r\n\r\n", wantErr: ErrMalformed, wantMsg: "version not HTTP/1.0 or HTTP/1.1"},
		{name: "HTTP/0.9 refused", in: "HTTP/0.9 200 OK\r\n\r\n", wantErr: ErrMalformed, wantMsg: "version not HTTP/1.0 or HTTP/1.1"},
		{name: "lower-case version refused", in: "http/1.1 200 OK\r\n\r\n", wantErr: ErrMalformed, wantMsg: "version not"},
		{name: "ICY refused", in: "ICY 200 OK\r\n\r\n", wantErr: ErrMalformed, wantMsg: "want HTTP/1.x"},
		{name: "two spaces", in: "HTTP/1.1  200 OK\r\n\r\n", wantErr: ErrMalformed, wantMsg: "three digits"},
		{name: "two digits", in: "HTTP/1.1 20 OK\r\n\r\n", wantErr: ErrMalformed, wantMsg: "three digits"},
		{name: "four digits", in: "HTTP/1.1 2000 OK\r\n\r\n", wantErr: ErrMalformed, wantMsg: "three digits"},
		{name: "a sign", in: "HTTP/1.1 +20 OK\r\n\r\n", wantErr: ErrMalformed, wantMsg: "three digits"},
		{name: "code 099", in: "HTTP/1.1 099 x\r\n\r\n", wantErr: ErrMalformed, wantMsg: "from 100 to 599"},
		{name: "code 600", in: "HTTP/1.1 600 x\r\n\r\n", wantErr: ErrMalformed, wantMsg: "from 100 to 599"},
		{name: "a tab for the space", in: "HTTP/1.1\t200 OK\r\n\r\n", wantErr: ErrMalformed, wantMsg: "want HTTP/1.x"},
		{name: "a control byte in the reason", in: "HTTP/1.1 200 O\x00K\r\n\r\n", wantErr: ErrMalformed, wantMsg: "control byte"},
		{name: "a CR inside the line", in: "HTTP/1.1 200 O\rK\r\n\r\n", wantErr: ErrMalformed, wantMsg: "CR inside a line"},
		{name: "101 refused", in: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", wantErr: ErrMalformed, wantMsg: "101"},
		{name: "too many interim responses", in: strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", MaxInterim+1) + "HTTP/1.1 200 OK\r\n\r\n",
			wantErr: ErrTooLarge, wantMsg: "interim"},
		{name: "MaxInterim interim responses are fine", in: strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", MaxInterim) + "HTTP/1.1 200 OK\r\n\r\n",
			wantStatus: 200},
		{name: "empty stream", in: "", wantErr: io.ErrUnexpectedEOF},
		{name: "stream ends in the status line", in: "HTTP/1.1 200", wantErr: io.ErrUnexpectedEOF},
		{name: "stream ends in the head", in: "HTTP/1.1 200 OK\r\nA: b\r\n", wantErr: io.ErrUnexpectedEOF},
	})
}

func TestHeaderFields(t *testing.T) {
	runRead(t, []readCase{
		{name: "values trimmed of spaces and tabs", in: "HTTP/1.1 200 OK\r\nX-A: \t one two \t\r\nX-B:three\r\nX-Empty:\r\nContent-Length: 0\r\n\r\n",
			wantStatus: 200, wantHeader: []Field{{"X-A", "one two"}, {"X-B", "three"}, {"X-Empty", ""}, {"Content-Length", "0"}}},
		{name: "every tchar in a name", in: "HTTP/1.1 200 OK\r\n!#$%&'*+-.^_`|~09azAZ: v\r\nContent-Length: 0\r\n\r\n",
			wantStatus: 200, wantHeader: []Field{{"!#$%&'*+-.^_`|~09azAZ", "v"}, {"Content-Length", "0"}}},
		{name: "a colon in the value", in: "HTTP/1.1 200 OK\r\nLocation: http://h:1/\r\nContent-Length: 0\r\n\r\n",
			wantStatus: 200, wantHeader: []Field{{"Location", "http://h:1/"}, {"Content-Length", "0"}}},
		{name: "obs-text in a value", in: "HTTP/1.1 200 OK\r\nX: caf\xc3\xa9\r\nContent-Length: 0\r\n\r\n",
			wantStatus: 200, wantHeader: []Field{{"X", "caf\xc3\xa9"}, {"Content-Length", "0"}}},

		{name: "obsolete line folding", in: "HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n", wantErr: ErrMalformed, wantMsg: "obsolete line folding"},
		{name: "space before the colon", in: "HTTP/1.1 200 OK\r\nX : a\r\n\r\n", wantErr: ErrMalformed, wantMsg: "not a token"},
		{name: "no colon", in: "HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n", wantErr: ErrMalformed, wantMsg: "want a name"},
		{name: "empty name", in: "HTTP/1.1 200 OK\r\n: v\r\n\r\n", wantErr: ErrMalformed, wantMsg: "want a name"},
		{name: "non-token name", in: "HTTP/1.1 200 OK\r\nX(y): v\r\n\r\n", wantErr: ErrMalformed, wantMsg: "not a token"},
		{name: "NUL in a value", in: "HTTP/1.1 200 OK\r\nX: a\x00b\r\n\r\n", wantErr: ErrMalformed, wantMsg: "control byte"},
		{name: "DEL in a value", in: "HTTP/1.1 200 OK\r\nX: a\x7fb\r\n\r\n", wantErr: ErrMalformed, wantMsg: "control byte"},
		{name: "bare CR in a value", in: "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", wantErr: ErrMalformed, wantMsg: "CR inside a line"},
	})
}

func TestBounds(t *testing.T) {
	fields := func(n int) string {
		return strings.Repeat("X: y\r\n", n)
	}
	// The status line and the end of the head take 19 bytes here, so a
	// field line padded to fill the rest makes a head of MaxHeadBytes.
	const status = "HTTP/1.1 200 OK\r\n"
	pad := func(total int) string {
		return "X: " + strings.Repeat("a", total-len(status)-2-5) + "\r\n"
	}
	runRead(t, []readCase{
		{name: "MaxFields fields", in: status + fields(MaxFields) + "\r\n", wantStatus: 200},
		{name: "one more than MaxFields", in: status + fields(MaxFields+1) + "\r\n", wantErr: ErrTooLarge, wantMsg: "more than 100 fields"},
		{name: "a head of MaxHeadBytes", in: status + pad(MaxHeadBytes) + "\r\n", wantStatus: 200},
		{name: "a head one byte over", in: status + pad(MaxHeadBytes+1) + "\r\n", wantErr: ErrTooLarge, wantMsg: "more than 65536 bytes"},
		{name: "a status line past the bound", in: "HTTP/1.1 200 " + strings.Repeat("r", MaxHeadBytes) + "\r\n\r\n", wantErr: ErrTooLarge},
		{name: "MaxFields in the trailer", in: status + "Transfer-Encoding: chunked\r\n\r\n0\r\n" + fields(MaxFields) + "\r\n", wantStatus: 200,
			wantBody: ""},
		{name: "one more than MaxFields in the trailer", in: status + "Transfer-Encoding: chunked\r\n\r\n0\r\n" + fields(MaxFields+1) + "\r\n",
			wantErr: ErrTooLarge, wantMsg: "trailer"},
		{name: "Content-Length body at the bound", in: status + "Content-Length: 4\r\n\r\nabcd", max: 4, wantStatus: 200, wantBody: "abcd"},
		{name: "Content-Length body over the bound", in: status + "Content-Length: 5\r\n\r\nabcde", max: 4, wantStatus: 200, wantBody: "abcd", wantTrunc: true},
		{name: "Content-Length larger than the stream", in: status + "Content-Length: 99999999\r\n\r\nabcde", max: 4, wantStatus: 200,
			wantBody: "abcd", wantTrunc: true},
		{name: "close-delimited body at the bound", in: status + "\r\nabcd", max: 4, wantStatus: 200, wantBody: "abcd"},
		{name: "close-delimited body over the bound", in: status + "\r\nabcde", max: 4, wantStatus: 200, wantBody: "abcd", wantTrunc: true},
		{name: "chunked body at the bound", in: status + "Transfer-Encoding: chunked\r\n\r\n2\r\nab\r\n2\r\ncd\r\n0\r\n\r\n", max: 4,
			wantStatus: 200, wantBody: "abcd"},
		{name: "chunked body over the bound, inside a chunk", in: status + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n", max: 4,
			wantStatus: 200, wantBody: "abcd", wantTrunc: true},
		{name: "chunked body over the bound, at a chunk's start", in: status + "Transfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n1\r\ne\r\n0\r\n\r\n", max: 4,
			wantStatus: 200, wantBody: "abcd", wantTrunc: true},
		{name: "a chunk size line past the bound", in: status + "Transfer-Encoding: chunked\r\n\r\n1;" + strings.Repeat("e", MaxChunkLine) + "\r\nx\r\n0\r\n\r\n",
			wantErr: ErrTooLarge, wantMsg: "size line"},
	})
}

func TestFraming(t *testing.T) {
	const status = "HTTP/1.1 200 OK\r\n"
	runRead(t, []readCase{
		{name: "Content-Length", in: status + "Content-Length: 3\r\n\r\nabcEXTRA", wantStatus: 200, wantBody: "abc"},
		{name: "Content-Length zero", in: status + "Content-Length: 0\r\n\r\nEXTRA", wantStatus: 200, wantBody: ""},
		{name: "equal Content-Length fields", in: status + "Content-Length: 3\r\ncontent-length: 3\r\n\r\nabc", wantStatus: 200, wantBody: "abc"},
		{name: "an equal Content-Length list", in: status + "Content-Length: 3, 3\r\n\r\nabc", wantStatus: 200, wantBody: "abc"},
		{name: "leading zeros", in: status + "Content-Length: 003\r\n\r\nabc", wantStatus: 200, wantBody: "abc"},
		{name: "204 has no body", in: "HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\nabc", wantStatus: 204, wantBody: ""},
		{name: "304 has no body", in: "HTTP/1.1 304 Not Modified\r\n\r\nabc", wantStatus: 304, wantBody: ""},
		{name: "no framing reads to the end", in: status + "\r\nall of it", wantStatus: 200, wantBody: "all of it"},
		{name: "HTTP/1.0 Content-Length", in: "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nab", wantStatus: 200, wantBody: "a"},

		{name: "Content-Length and Transfer-Encoding refused", in: status + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
			wantErr: ErrMalformed, wantMsg: "both Transfer-Encoding and Content-Length"},
		{name: "Transfer-Encoding then Content-Length refused", in: status + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
			wantErr: ErrMalformed, wantMsg: "both"},
		{name: "different Content-Length fields", in: status + "Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
			wantErr: ErrMalformed, wantMsg: "disagree"},
		{name: "a different Content-Length list", in: status + "Content-Length: 3, 4\r\n\r\nabcd", wantErr: ErrMalformed, wantMsg: "disagree"},
		{name: "negative Content-Length", in: status + "Content-Length: -1\r\n\r\n", wantErr: ErrMalformed, wantMsg: "decimal digits"},
		{name: "signed Content-Length", in: status + "Content-Length: +1\r\n\r\na", wantErr: ErrMalformed, wantMsg: "decimal digits"},
		{name: "hex Content-Length", in: status + "Content-Length: 0x10\r\n\r\n", wantErr: ErrMalformed, wantMsg: "decimal digits"},
		{name: "empty Content-Length", in: status + "Content-Length:\r\n\r\n", wantErr: ErrMalformed, wantMsg: "decimal digits"},
		{name: "an empty Content-Length list item", in: status + "Content-Length: 3,\r\n\r\nabc", wantErr: ErrMalformed, wantMsg: "decimal digits"},
		{name: "Content-Length past int64", in: status + "Content-Length: 99999999999999999999\r\n\r\n", wantErr: ErrMalformed, wantMsg: "decimal digits"},
		{name: "a space inside Content-Length", in: status + "Content-Length: 1 2\r\n\r\n", wantErr: ErrMalformed, wantMsg: "decimal digits"},
		{name: "body shorter than Content-Length", in: status + "Content-Length: 5\r\n\r\nabc", wantErr: io.ErrUnexpectedEOF, wantMsg: "3 of 5 bytes"},
		{name: "gzip refused", in: status + "Transfer-Encoding: gzip\r\n\r\n", wantErr: ErrMalformed, wantMsg: "only chunked"},
		{name: "gzip, chunked refused", in: status + "Transfer-Encoding: gzip, chunked\r\n\r\n", wantErr: ErrMalformed, wantMsg: "only chunked"},
		{name: "identity refused", in: status + "Transfer-Encoding: identity\r\n\r\nabc", wantErr: ErrMalformed, wantMsg: "only chunked"},
		{name: "two Transfer-Encoding fields refused", in: status + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
			wantErr: ErrMalformed, wantMsg: "only chunked"},
		{name: "Transfer-Encoding in HTTP/1.0 refused", in: "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
			wantErr: ErrMalformed, wantMsg: "HTTP/1.0"},
	})
}

func TestChunked(t *testing.T) {
	const te = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	runRead(t, []readCase{
		{name: "two chunks", in: te + "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n", wantStatus: 200, wantBody: "abcde", wantTrailer: []Field{}},
		{name: "the coding's name in any case", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n1\r\na\r\n0\r\n\r\n",
			wantStatus: 200, wantBody: "a"},
		{name: "hex sizes in both cases", in: te + "a\r\n0123456789\r\nB\r\n0123456789a\r\n0\r\n\r\n", max: 100,
			wantStatus: 200, wantBody: "01234567890123456789a"},
		{name: "leading zeros", in: te + "0003\r\nabc\r\n000\r\n\r\n", wantStatus: 200, wantBody: "abc"},
		{name: "extensions ignored", in: te + "3;name=value;flag\r\nabc\r\n0 ; last=\"yes\"\r\n\r\n", wantStatus: 200, wantBody: "abc"},
		{name: "bare LF line ends", in: te + "3\nabc\n0\n\n", wantStatus: 200, wantBody: "abc"},
		{name: "trailers", in: te + "1\r\nx\r\n0\r\nChecksum: abc\r\nX-Done: yes\r\n\r\n",
			wantStatus: 200, wantBody: "x", wantTrailer: []Field{{"Checksum", "abc"}, {"X-Done", "yes"}}},
		{name: "data after the last chunk ignored", in: te + "0\r\n\r\nHTTP/1.1 200 OK\r\n", wantStatus: 200, wantBody: ""},

		{name: "no size", in: te + "\r\nabc\r\n0\r\n\r\n", wantErr: ErrMalformed, wantMsg: "want a hex size"},
		{name: "a non-hex size", in: te + "g\r\nabc\r\n0\r\n\r\n", wantErr: ErrMalformed, wantMsg: "want a hex size"},
		{name: "a negative size", in: te + "-1\r\nabc\r\n0\r\n\r\n", wantErr: ErrMalformed, wantMsg: "want a hex size"},
		{name: "a 0x prefix", in: te + "0x3\r\nabc\r\n0\r\n\r\n", wantErr: ErrMalformed, wantMsg: "extensions"},
		{name: "a size and junk", in: te + "3 abc\r\nabc\r\n0\r\n\r\n", wantErr: ErrMalformed, wantMsg: "extensions"},
		{name: "15 hex digits are the most", in: te + "00000000000000f\r\n", wantErr: io.ErrUnexpectedEOF, wantMsg: "0 of 15 bytes"},
		{name: "a size past int64", in: te + "ffffffffffffffff1\r\nabc\r\n0\r\n\r\n", wantErr: ErrMalformed, wantMsg: "more than 15 hex digits"},
		{name: "16 hex digits of zeros refused too", in: te + "0000000000000000\r\n\r\n", wantErr: ErrMalformed, wantMsg: "more than 15 hex digits"},
		{name: "a control byte in an extension", in: te + "3;a\x01\r\nabc\r\n0\r\n\r\n", wantErr: ErrMalformed, wantMsg: "control byte"},
		{name: "chunk data longer than its size", in: te + "2\r\nabc\r\n0\r\n\r\n", wantErr: ErrMalformed, wantMsg: "not followed by CRLF"},
		{name: "chunk data without its CRLF", in: te + "3\r\nabc0\r\n\r\n", wantErr: ErrMalformed, wantMsg: "not followed by CRLF"},
		{name: "stream ends in a chunk", in: te + "5\r\nabc", wantErr: io.ErrUnexpectedEOF, wantMsg: "3 of 5 bytes"},
		{name: "stream ends before the last chunk", in: te + "3\r\nabc\r\n", wantErr: io.ErrUnexpectedEOF},
		{name: "stream ends in the trailer", in: te + "0\r\nX: y\r\n", wantErr: io.ErrUnexpectedEOF, wantMsg: "trailer"},
		{name: "a malformed trailer", in: te + "0\r\nbad trailer\r\n\r\n", wantErr: ErrMalformed, wantMsg: "trailer"},
		{name: "a folded trailer", in: te + "0\r\nX: y\r\n z\r\n\r\n", wantErr: ErrMalformed, wantMsg: "obsolete line folding"},
	})
}

// TestValue checks the header lookup ignores case and takes the first.
func TestValue(t *testing.T) {
	r := &Response{Header: []Field{{"Location", "/a"}, {"location", "/b"}}}
	if v, ok := r.Value("LOCATION"); !ok || v != "/a" {
		t.Errorf("Value(LOCATION) = %q, %v, want /a, true", v, ok)
	}
	if v, ok := r.Value("Content-Type"); ok || v != "" {
		t.Errorf("Value(Content-Type) = %q, %v, want none", v, ok)
	}
}

// TestQuoteSaysWhatItLeftOut: a response's bytes quoted in an error are
// cut to 64 bytes saying how many were left out, as every message of
// Sabline's that quotes untrusted text does; the control, 64 bytes,
// whole.
func TestQuoteSaysWhatItLeftOut(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		want string
	}{
		{name: "past the bound", in: strings.Repeat("x", 100),
			want: `"` + strings.Repeat("x", 44) + `... (56 bytes more)"`},
		{name: "at the bound", in: strings.Repeat("x", 64), want: `"` + strings.Repeat("x", 64) + `"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := quote([]byte(tt.in)); got != tt.want {
				t.Errorf("quote = %s, want %s", got, tt.want)
			}
		})
	}
}
