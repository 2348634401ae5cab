package bucket

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"reflect"
	"strings"
	"testing"
)

// counting is a reader that counts the bytes read through it.
type counting struct {
	r io.Reader
	n int
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// messageSeeds are messages of both directions as the protocol writes
// them, and some it refuses.
func messageSeeds(tb testing.TB) [][]byte {
	var seeds [][]byte
	for _, m := range []struct {
		v    any
		body []byte
	}{
		{request{ID: 1, Op: opCreate, Key: "receipts/a.json"}, []byte(`{"run_id":"x"}`)},
		{request{ID: 2, Op: opRead, Key: "k\n\x00", Off: 3, N: -1}, nil},
		{request{ID: 3, Op: opList, Prefix: "shipped/"}, nil},
		{request{ID: 4, Op: opRead, Key: "k", Off: 1, N: 1<<63 - 1}, nil},
		{reply{ID: 1}, []byte(`["a","b\n"]`)},
		{reply{ID: 2, Err: "read k: not there", NotExist: true}, nil},
		{reply{ID: 3, Err: "exists", Exist: true}, nil},
	} {
		var b bytes.Buffer
		if err := writeMessage(&b, m.v, m.body); err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, b.Bytes())
	}
	over := binary.BigEndian.AppendUint32(nil, maxHeaderBytes+1)
	bodyOver := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 2), 0)
	bodyOver = binary.BigEndian.AppendUint32(append(bodyOver[:4], "{}"...), MaxObjectBytes+1)
	return append(seeds, over, bodyOver, []byte{0, 0, 0, 2, '{'}, []byte{0, 0, 0, 1, '['},
		[]byte{0, 0, 0, 4, 'n', 'u', 'l', 'l', 0, 0, 0, 0}, nil)
}

// FuzzReadMessage: whatever the other end of an agent's pipe writes (the
// agent's replies, or the requests it serves), a message is taken only
// within the protocol's bounds: a part whose length is past its bound is
// refused after the four bytes of that length, none of the part read;
// nothing is read past the message; and a message read, written again,
// reads back as the same header and body.
func FuzzReadMessage(f *testing.F) {
	for _, seed := range messageSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, v := range []any{&request{}, &reply{}} {
			c := &counting{r: bytes.NewReader(data)}
			body, err := readMessage(c, v)
			hlen := -1
			if len(data) >= 4 {
				hlen = int(binary.BigEndian.Uint32(data))
			}
			if err != nil {
				if strings.Contains(err.Error(), "over the bound") {
					at := 4 // the header's length
					if hlen <= maxHeaderBytes {
						at = 4 + hlen + 4 // the body's
					}
					if c.n != at {
						t.Fatalf("a part over its bound refused after %d bytes, want %d", c.n, at)
					}
				}
				continue
			}
			if hlen > maxHeaderBytes || len(body) > MaxObjectBytes {
				t.Fatalf("a header of %d bytes and a body of %d taken", hlen, len(body))
			}
			if c.n != 8+hlen+len(body) {
				t.Fatalf("read %d bytes of a message of %d", c.n, 8+hlen+len(body))
			}
			var again bytes.Buffer
			if err := writeMessage(&again, v, body); err != nil {
				t.Fatalf("%+v and %d bytes read, and not written again: %v", v, len(body), err)
			}
			back := reflect.New(reflect.TypeOf(v).Elem()).Interface()
			gotBody, err := readMessage(&again, back)
			if err != nil || !reflect.DeepEqual(back, v) || !bytes.Equal(gotBody, body) {
				t.Fatalf("%+v and %q read back as %+v and %q (%v)", v, body, back, gotBody, err)
			}
		}
	})
}

// FuzzServeAgent: whatever requests an agent reads, it ends (nil at the
// end of its input, an error at a message it cannot read), never a
// panic, and every reply it writes is a message within the bounds that
// carries an error or a body, not both.
func FuzzServeAgent(f *testing.F) {
	for _, seed := range messageSeeds(f) {
		f.Add(seed)
	}
	var two bytes.Buffer
	writeMessage(&two, request{ID: 1, Op: opCreate, Key: "k"}, []byte("0123456789"))
	writeMessage(&two, request{ID: 2, Op: opRead, Key: "k", Off: 2, N: 3}, nil)
	f.Add(two.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		m := NewMemory()
		m.objects["k"] = []byte("0123456789")
		var out bytes.Buffer
		_ = ServeAgent(context.Background(), bytes.NewReader(data), &out, m)
		for out.Len() > 0 {
			var rep reply
			body, err := readMessage(&out, &rep)
			if err != nil {
				t.Fatalf("a reply the agent wrote does not read back: %v", err)
			}
			if rep.Err == "" && len(body) > MaxObjectBytes {
				t.Fatalf("a reply of %d bytes", len(body))
			}
			if rep.Err != "" && len(body) != 0 {
				t.Fatalf("an error %q with a body of %d bytes", rep.Err, len(body))
			}
		}
	})
}
