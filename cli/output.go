package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// printJSON writes v as indented JSON with snake_case keys (each type
// printed has its json tags). Every value the commands print marshals; a
// write that fails (a closed standard output) is exit 1.
func printJSON(w io.Writer, v any) int {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return 1
	}
	return writeJSON(w, append(data, '\n'))
}

// writeJSON writes a JSON document with every rune a terminal could take
// for a command escaped as \uNNNN. encoding/json escapes the C0 controls
// already, but not DEL, the C1 controls or the bidirectional overrides a
// program's text can hold; outside strings a document holds only spaces
// and the newlines of its indentation, which are kept. The document means
// the same after as before.
func writeJSON(w io.Writer, data []byte) int {
	var b bytes.Buffer
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == '\n' || (r != utf8.RuneError && unicode.IsPrint(r)) {
			b.Write(data[i : i+n])
		} else if r1, r2 := utf16.EncodeRune(r); r1 != unicode.ReplacementChar {
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		} else {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return 1
	}
	return 0
}
