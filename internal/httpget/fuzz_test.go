package httpget

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

// FuzzReadResponse feeds ReadResponse bytes as a server might write them.
// Whatever the bytes, it returns without panicking, within its bounds, an
// error wrapping one of its own sentinels or io.ErrUnexpectedEOF, and the
// same result whatever the reader's buffer size. The seed corpus is in
// testdata/fuzz/FuzzReadResponse.
func FuzzReadResponse(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nT: v\r\n\r\n"))
	f.Add([]byte("HTTP/1.0 200 OK\r\n\r\nto the end"))
	f.Add([]byte("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"))
	const max = 64
	f.Fuzz(func(t *testing.T, data []byte) {
		resp, err := ReadResponse(bufio.NewReaderSize(bytes.NewReader(data), 16), max)
		again, err2 := ReadResponse(bufio.NewReaderSize(bytes.NewReader(data), 4096), max)
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("buffer sizes disagree: %v and %v", err, err2)
		}
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("error wraps no known cause: %v", err)
			}
			return
		}
		if !reflect.DeepEqual(resp, again) {
			t.Fatalf("buffer sizes disagree: %+v and %+v", resp, again)
		}
		if resp.StatusCode < 200 || resp.StatusCode > 599 {
			t.Fatalf("status %d accepted", resp.StatusCode)
		}
		if resp.Proto != "HTTP/1.0" && resp.Proto != "HTTP/1.1" {
			t.Fatalf("proto %q accepted", resp.Proto)
		}
		if len(resp.Body) > max || (resp.Truncated && len(resp.Body) != max) {
			t.Fatalf("body of %d bytes, truncated %v, bound %d", len(resp.Body), resp.Truncated, max)
		}
		if len(resp.Header) > MaxFields || len(resp.Trailer) > MaxFields {
			t.Fatalf("%d fields and %d trailer fields", len(resp.Header), len(resp.Trailer))
		}
		for _, fs := range [][]Field{resp.Header, resp.Trailer} {
			for _, fl := range fs {
				if fl.Name == "" {
					t.Fatalf("empty field name")
				}
				for i := 0; i < len(fl.Name); i++ {
					if !tokenByte(fl.Name[i]) {
						t.Fatalf("field name %q accepted", fl.Name)
					}
				}
				for i := 0; i < len(fl.Value); i++ {
					if !fieldByte(fl.Value[i]) {
						t.Fatalf("field value %q accepted", fl.Value)
					}
				}
			}
		}
		if cl, ok := resp.Value("Content-Length"); ok && !resp.Truncated && resp.StatusCode != 204 && resp.StatusCode != 304 {
			if n, err := decimal(cl); err == nil && int64(len(resp.Body)) != n {
				t.Fatalf("Content-Length %s, body of %d bytes", cl, len(resp.Body))
			}
		}
	})
}
