package door

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// Bounds on a request. The body holds the program's text, so its bound is
// the program's plus room for the rest.
const (
	// MaxBodyBytes is the largest request body a door reads.
	MaxBodyBytes = 1<<20 + program.MaxBytes
	// maxArgs and maxAllow bound the lists of a request: past maxArgs
	// a receipt would not keep the arguments whole.
	maxArgs  = receipt.MaxArgsKept
	maxAllow = 256
	// MaxArgsBytes bounds a run request's arguments in all (their
	// bytes, as the receipt counts them): what a receipt keeps whole.
	// Past it the request is refused, E336, with a receipt
	// (PoolRunner.Run), and a server answers 413.
	MaxArgsBytes = receipt.MaxArgsBytes
	// maxPathBytes bounds a program path.
	maxPathBytes = 4096
	// maxFields bounds the fields of a request body a door reads: a
	// request has at most five, and a body of millions of fields (17 MiB
	// of "a":0) would hold each one, some 480 MB and 5 s of the server's,
	// before it was refused.
	maxFields = 64
)

// The fields a request body may have, and only these.
var (
	runFields   = []string{"source", "path", "args", "stdin", "allow"}
	auditFields = []string{"source", "path"}
)

// requestDo is what to do about a malformed request.
const requestDo = "Send one JSON object with the fields source or path (exactly one), and " +
	"optionally args, stdin and allow (docs/serve.md). Nothing ran."

// confinementNamed is the E301 of a request that names a field about
// confinement (%q: the field's name).
const confinementNamed = "the request names %q: confinement is the operator's setting, never a " +
	"request's; nothing ran"

// confinementDo is what to do about a request that names a confinement setting.
const confinementDo = "Leave the field out: the confinement is set by the operator when the " +
	"server starts (--confine, --require-confinement). Nothing ran."

// malformed is the E301 refusal of a request body.
func malformed(format string, args ...any) error {
	e := codes.Errorf(codes.E301, format, args...)
	e.Do = requestDo
	return e
}

// decodeRunRequest reads a run request body: one JSON object whose fields
// are exactly the snake_case names source, path, args, stdin and allow,
// each at most once, none null (nor an item of args or allow), with
// exactly one of source and path, and nothing after the object. A field
// that names a confinement setting (any key containing "confin", in any
// case) is refused first, whatever else the body holds: the confinement
// is the operator's. Every refusal is E301.
// The caller bounds data (MaxBodyBytes).
func decodeRunRequest(data []byte) (RunRequest, error) {
	var req RunRequest
	var source, path *string
	err := decodeObject(data, runFields, func(key string, raw json.RawMessage) error {
		switch key {
		case "source":
			return decodeString(key, raw, &source)
		case "path":
			return decodeString(key, raw, &path)
		case "stdin":
			var s *string
			if err := decodeString(key, raw, &s); err != nil {
				return err
			}
			req.Stdin = *s
			return nil
		case "args":
			return decodeList(key, raw, maxArgs, &req.Args)
		case "allow":
			if err := decodeList(key, raw, maxAllow, &req.Allow); err != nil {
				return err
			}
			return checkItems("allow", allowItems(req.Allow))
		}
		return nil
	})
	if err != nil {
		return RunRequest{}, err
	}
	if req.Source, req.Path, err = oneProgram(source, path); err != nil {
		return RunRequest{}, err
	}
	return req, nil
}

// itemsDo is what to do about more budget items than a door reads.
var itemsDo = fmt.Sprintf("Name at most %d budget items (a request's allow, a program's # allow: "+
	"line). Nothing ran.", maxAllow)

// allowItems counts the budget items of allow as budget.Parse splits
// them, each comma-separated entry of each string (an empty one too):
// one string may hold many items ("io,fs:read:/a"), so maxAllow bounds
// them in all, not the list's strings alone.
func allowItems(allow []string) int {
	n := 0
	for _, v := range allow {
		n += strings.Count(v, ",") + 1
	}
	return n
}

// checkItems refuses n budget items, as a request's allow or a
// program's # allow: line gives them, past maxAllow: the checks of a
// budget against a ceiling and the policy an audit derives cost time in
// the square of its items, and a door holds a turn of its runs' gate
// while they are made (E301).
func checkItems(what string, n int) error {
	if n > maxAllow {
		e := codes.Errorf(codes.E301, "%s: %d budget items in all (a comma separates items), "+
			"more than the %d a door reads", what, n, maxAllow)
		e.Do = itemsDo
		return e
	}
	return nil
}

// checkArgs refuses a run's arguments past MaxArgsBytes in all, E336,
// naming their size and digest: the receipt of the refusal keeps the
// digest, never so many bytes.
func checkArgs(args []string) error {
	if n := receipt.ArgsBytes(args); n > MaxArgsBytes {
		return codes.Errorf(codes.E336, "the request's arguments (%d) are %d bytes in all, more "+
			"than the %d a door accepts: nothing ran", len(args), n, MaxArgsBytes)
	}
	return nil
}

// namingReceipt is err, a refusal that left the receipt of run id, with
// its message naming that run, for a client that has no other way to
// learn it.
func namingReceipt(err error, id string) error {
	var e *codes.Error
	if errors.As(err, &e) && id != "" {
		e.Msg += "; its receipt is run " + id
	}
	return err
}

// decodeAuditRequest reads an audit request body the way decodeRunRequest
// reads a run's: the fields source and path, exactly one of them.
func decodeAuditRequest(data []byte) (AuditRequest, error) {
	var source, path *string
	err := decodeObject(data, auditFields, func(key string, raw json.RawMessage) error {
		if key == "source" {
			return decodeString(key, raw, &source)
		}
		return decodeString(key, raw, &path)
	})
	if err != nil {
		return AuditRequest{}, err
	}
	var req AuditRequest
	if req.Source, req.Path, err = oneProgram(source, path); err != nil {
		return AuditRequest{}, err
	}
	return req, nil
}

// oneProgram checks that exactly one of source and path was given, and
// that the one given is not empty.
func oneProgram(source, path *string) (string, string, error) {
	switch {
	case source == nil && path == nil:
		return "", "", malformed("the request names no program: give source (the program's text) or " +
			"path (a file under the server's import root)")
	case source != nil && path != nil:
		return "", "", malformed("the request gives both source and path: give exactly one")
	case source != nil:
		if *source == "" {
			return "", "", malformed("source is empty")
		}
		return *source, "", nil
	}
	switch {
	case *path == "":
		return "", "", malformed("path is empty")
	case len(*path) > maxPathBytes:
		return "", "", malformed("path is longer than %d bytes", maxPathBytes)
	case strings.ContainsRune(*path, 0):
		return "", "", malformed("path holds a NUL byte")
	}
	return "", *path, nil
}

// decodeObject reads data as one JSON object and calls set with each of
// its fields. Before any field is set, every key is checked: a key naming
// a confinement setting, then a key not in allowed (compared exactly: the
// encoding/json habit of matching names in any case is not followed) or
// given twice, is refused. It reads at most maxFields fields, and refuses
// a body with more.
func decodeObject(data []byte, allowed []string,
	set func(key string, raw json.RawMessage) error) error {
	type field struct {
		key string
		raw json.RawMessage
	}
	if !utf8.Valid(data) {
		return malformed("the body is not UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return malformed("the body is not JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return malformed("the body is not a JSON object")
	}
	var fields []field
	tooMany := false
	for dec.More() {
		if tooMany = len(fields) == maxFields; tooMany {
			break // no further: a confinement named among those read is said first
		}
		tok, err := dec.Token()
		if err != nil {
			return malformed("the body is not JSON: %v", err)
		}
		key, ok := tok.(string)
		if !ok {
			return malformed("the body is not a JSON object")
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return malformed("the body is not JSON: %v", err)
		}
		fields = append(fields, field{key, raw})
	}
	if !tooMany {
		if _, err := dec.Token(); err != nil {
			return malformed("the body is not JSON: %v", err)
		}
		if _, err := dec.Token(); err != io.EOF {
			return malformed("the body holds more than one JSON value")
		}
	}
	for _, f := range fields {
		if strings.Contains(strings.ToLower(f.key), "confin") {
			e := codes.Errorf(codes.E301, confinementNamed,
				codes.TerminalSafe(codes.Clip(f.key, 64)))
			e.Do = confinementDo
			return e
		}
	}
	if tooMany {
		return malformed("the request has more than %d fields: the fields are %s", maxFields,
			strings.Join(allowed, ", "))
	}
	seen := map[string]bool{}
	for _, f := range fields {
		if !contains(allowed, f.key) {
			return malformed("the request has no field %q: the fields are %s",
				codes.TerminalSafe(codes.Clip(f.key, 64)), strings.Join(allowed, ", "))
		}
		if seen[f.key] {
			return malformed("the request gives %s twice", f.key)
		}
		seen[f.key] = true
		if bytes.Equal(f.raw, []byte("null")) {
			return malformed("%s is null: leave the field out instead", f.key)
		}
	}
	for _, f := range fields {
		if err := set(f.key, f.raw); err != nil {
			return err
		}
	}
	return nil
}

// decodeString decodes raw, a JSON string, into *dst.
func decodeString(key string, raw json.RawMessage, dst **string) error {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return malformed("%s: want a string", key)
	}
	*dst = &s
	return nil
}

// decodeList decodes raw, a JSON list of at most max strings, none
// null, into *dst. It stops at the first item past max: a list of millions of empty
// strings (17 MiB of "",) decoded whole would take some 360 MB and 3 s
// of the server's before it was refused.
func decodeList(key string, raw json.RawMessage, max int, dst *[]string) error {
	notList := func() error { return malformed("%s: want a list of strings", key) }
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return notList()
	}
	l := []string{}
	for dec.More() {
		if len(l) == max {
			return malformed("%s: more than %d items", key, max)
		}
		// A null item is refused, as a null field is: decoded into a
		// string, it would be "", an argument or budget item the client
		// never sent.
		var item *string
		if err := dec.Decode(&item); err != nil {
			return notList()
		}
		if item == nil {
			return malformed("%s: item %d is null: want a list of strings", key, len(l))
		}
		l = append(l, *item)
	}
	if _, err := dec.Token(); err != nil {
		return notList()
	}
	*dst = l
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
