// Package budget is Sabline's grant language: what a run may touch.
//
// A budget is a list of items given on the operator's command line with
// --allow. Each item is one of the words io, env, clock, rand, declassify,
// tool, fs, net or ffi, optionally narrowed, optionally counted:
//
//	io                     the descriptors the process started with
//	fs                     any path, read and write
//	fs:read                any path, read only
//	fs:write:/srv/out      writes beneath /srv/out
//	net:localhost:8080     TCP connections to localhost, port 8080
//	net:example.org        TCP connections to example.org, any port
//	net:udp:10.0.0.2:514   UDP datagrams to 10.0.0.2, port 514
//	ffi:json               the host module json
//	rand@3                 at most three uses
//
// Parse turns the command line's text into a Budget; Budget.String prints it
// back in canonical form (sorted, duplicates dropped), so that two spellings
// of one budget print, and digest, the same. A Meter matches an attempted
// Effect against the grants and counts @N uses.
//
// The package reads nothing of the machine but the working directory it is
// given for relative paths, so the runtime that enforces a budget and the
// confine package that derives an OS policy from it read the same thing.
//
//	b, err := budget.Parse([]string{"io,fs:read:data", "rand@2"}, "/home/ana/job")
//	if err != nil {
//		// err is an *ItemError naming the item and what is wrong with it
//	}
//	m := budget.NewMeter(b, nil)
//	e := budget.Effect{Kind: budget.FS, Access: budget.Read, Path: "/home/ana/job/data/x.csv"}
//	g, err := m.Use(e)
//	// g is the grant fs:read:/home/ana/job/data; err is nil
package budget

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is the first word of a budget item.
type Kind string

// The kinds of budget item, in canonical order.
const (
	IO         Kind = "io"
	Env        Kind = "env"
	Clock      Kind = "clock"
	Rand       Kind = "rand"
	Declassify Kind = "declassify"
	Tool       Kind = "tool"
	FS         Kind = "fs"
	Net        Kind = "net"
	FFI        Kind = "ffi"
)

// Kinds lists every kind in canonical order.
var Kinds = []Kind{IO, Env, Clock, Rand, Declassify, Tool, FS, Net, FFI}

func (k Kind) rank() int {
	for i, x := range Kinds {
		if x == k {
			return i
		}
	}
	return len(Kinds)
}

// Access is the direction of a file grant or effect.
type Access string

// File access directions. Any is the direction of a plain fs grant.
const (
	Any   Access = ""
	Read  Access = "read"
	Write Access = "write"
)

// MaxLimit is the largest count an item's @N may carry.
const MaxLimit = 1_000_000_000

// MaxItems and MaxBytes bound a budget: its items, and its canonical text
// (Budget.String). A run's receipt lists every item with its uses, as its
// worker reports them within a bound of its own: a budget past these is
// refused before anything runs, where one of 5,000 items, or of 300 paths
// of 4 KiB, ran and then ended as a crash of its worker (E310).
const (
	MaxItems = 4096
	MaxBytes = 64 << 10
)

// The longest path a grant may name, and the longest name in it: on Linux
// one past them can never be opened (ENAMETOOLONG), so a grant of it could
// never be held, in the language or by the kernel, beneath it or above.
// Other systems' bounds differ (macOS's PATH_MAX is 1,024): a grant within
// these that such a system cannot open is held as a path that is not there.
const (
	maxPathBytes = 4095 // PATH_MAX less its NUL
	maxNameBytes = 255  // NAME_MAX
)

// neverThere is the hint of a grant of a path that can never exist.
const neverThere = "no file or directory can have that path: grant the directory it would be in"

// Item is one grant of a budget.
type Item struct {
	Kind   Kind
	Access Access // fs only: Any, Read or Write
	Path   string // fs only: absolute and cleaned; "" means any path
	UDP    bool   // net only: datagrams over UDP; a net item is TCP unless it says udp
	Host   string // net only: lower case, without brackets; "" means any host
	Port   int    // net only: 0 means any port
	Module string // ffi only: "" means any module
	Limit  int    // @N; 0 means no limit
}

// String prints the item in the form Parse reads.
func (it Item) String() string {
	var b strings.Builder
	b.WriteString(string(it.Kind))
	switch it.Kind {
	case FS:
		if it.Access != Any {
			b.WriteString(":" + string(it.Access))
		}
		if it.Path != "" {
			b.WriteString(":" + it.Path)
		}
	case Net:
		if it.UDP {
			b.WriteString(":" + udpWord)
		}
		if it.Host != "" {
			b.WriteString(":" + hostForm(it.Host))
			if it.Port != 0 {
				b.WriteString(":" + strconv.Itoa(it.Port))
			}
		}
	case FFI:
		if it.Module != "" {
			b.WriteString(":" + it.Module)
		}
	}
	if it.Limit > 0 {
		b.WriteString("@" + strconv.Itoa(it.Limit))
	}
	return b.String()
}

// Scope is the item without its count: what it grants, not how often.
func (it Item) Scope() Item {
	it.Limit = 0
	return it
}

// udpWord is the word after net: that makes a net item a UDP grant.
const udpWord = "udp"

func hostForm(h string) string {
	if strings.Contains(h, ":") {
		return "[" + h + "]"
	}
	return h
}

// Budget is a parsed, canonical list of grants. The zero Budget grants
// nothing.
type Budget struct {
	Items []Item
}

// String prints the budget canonically: items sorted, joined by commas.
// The empty budget prints as "".
func (b Budget) String() string {
	parts := make([]string, len(b.Items))
	for i, it := range b.Items {
		parts[i] = it.String()
	}
	return strings.Join(parts, ",")
}

// Has reports whether the budget has an item of kind k.
func (b Budget) Has(k Kind) bool {
	for _, it := range b.Items {
		if it.Kind == k {
			return true
		}
	}
	return false
}

// Of returns the budget's items of kind k, in canonical order.
func (b Budget) Of(k Kind) []Item {
	var out []Item
	for _, it := range b.Items {
		if it.Kind == k {
			out = append(out, it)
		}
	}
	return out
}

// With returns a new canonical budget with the items added.
func (b Budget) With(items ...Item) Budget {
	all := append(append([]Item(nil), b.Items...), items...)
	return canonical(all)
}

// ItemError is a malformed budget item. It names the item as written and
// says what is wrong and how to write it.
type ItemError struct {
	Item   string // the item as the operator wrote it
	Reason string // what is wrong
	Hint   string // how to write it instead; may be empty
}

// Error says which item is malformed, why, and how to write it.
func (e *ItemError) Error() string {
	msg := fmt.Sprintf("budget item %q: %s", e.Item, e.Reason)
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

// Parse reads the --allow values of a command line. Each value is a
// comma-separated list of items; blanks around an item and empty entries
// between commas are ignored.
// Relative paths are taken against cwd, which must be absolute; with cwd ""
// they are kept relative (cleaned), as an audit that must read the same on
// every machine does. The first
// malformed item ends the parse with an *ItemError.
func Parse(values []string, cwd string) (Budget, error) {
	var items []Item
	for _, v := range values {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			it, err := ParseItem(s, cwd)
			if err != nil {
				return Budget{}, err
			}
			items = append(items, it)
			if len(items) > MaxItems {
				return Budget{}, fmt.Errorf("more than %d budget items: %s", MaxItems, boundHint)
			}
		}
	}
	b := canonical(items)
	if err := b.Bounded(); err != nil {
		return Budget{}, err
	}
	return b, nil
}

// boundHint is what to do about a budget past its bounds.
const boundHint = "grant a directory above many paths, or a host on any port, in one item"

// Bounded refuses a budget of more than MaxItems items, or whose canonical
// text is longer than MaxBytes.
func (b Budget) Bounded() error {
	if len(b.Items) > MaxItems {
		return fmt.Errorf("%d budget items, more than %d: %s", len(b.Items), MaxItems, boundHint)
	}
	n := 0
	for _, it := range b.Items {
		n += len(it.String()) + 1
	}
	if n-1 > MaxBytes {
		return fmt.Errorf("the budget is %d bytes as written (%d items), more than %d: %s", n-1,
			len(b.Items), MaxBytes, boundHint)
	}
	return nil
}

// MustParse is Parse for budgets known to be well formed, as in tests and
// examples. It panics on a malformed item.
func MustParse(cwd string, values ...string) Budget {
	b, err := Parse(values, cwd)
	if err != nil {
		panic(err)
	}
	return b
}

// ParseItem reads one budget item. Relative paths are taken against cwd.
func ParseItem(s, cwd string) (Item, error) {
	bad := func(reason, hint string) (Item, error) {
		return Item{}, &ItemError{Item: s, Reason: reason, Hint: hint}
	}
	if strings.ContainsRune(s, 0) {
		return bad("contains a NUL byte", "no path or name can hold one")
	}
	if !utf8.ValidString(s) {
		return bad("is not UTF-8", notUTF8)
	}
	body, limit := s, 0
	if i := strings.LastIndexByte(s, '@'); i >= 0 && isDigits(s[i+1:]) && s[i+1:] != "" {
		n, err := strconv.Atoi(s[i+1:])
		if err != nil || n < 1 || n > MaxLimit {
			return bad("the count after @ must be a whole number from 1 to "+strconv.Itoa(MaxLimit), "")
		}
		body, limit = s[:i], n
	} else if i >= 0 && !strings.ContainsAny(s[:i], ":") {
		return bad("the count after @ must be a whole number", "write e.g. "+s[:i]+"@3")
	}
	word, rest, hasRest := strings.Cut(body, ":")
	kind := Kind(word)
	it := Item{Kind: kind, Limit: limit}
	switch kind {
	case IO, Env, Clock, Rand, Declassify, Tool:
		if hasRest {
			return bad(word+" takes no qualifier", "write "+word)
		}
	case FS:
		if !hasRest {
			break
		}
		mode, path, hasPath := strings.Cut(rest, ":")
		switch Access(mode) {
		case Read, Write:
			it.Access = Access(mode)
		default:
			if !hasPath {
				path = mode
			}
			return bad("fs is narrowed by read or write first", "write fs:read:"+path+" or fs:write:"+path)
		}
		if !hasPath {
			break
		}
		if path == "" {
			return bad("the path is empty", "write fs:"+mode+" for any path")
		}
		// Judged before it is joined to cwd: a path that begins with ~
		// is a home written as a shell would expand it, and joined it
		// would grant a directory named ~ in cwd (made, for a write grant)
		// without a word.
		if strings.HasPrefix(filepath.Clean(path), "~") {
			return bad("~ is not expanded in a grant", "write the home directory out in full")
		}
		if !filepath.IsAbs(path) && cwd != "" {
			if !filepath.IsAbs(cwd) {
				return bad("a relative path needs an absolute working directory", "write the path in full")
			}
			path = filepath.Join(cwd, path)
		}
		path = filepath.Clean(path)
		if i := strings.LastIndexByte(path, '@'); i >= 0 && path[i+1:] != "" && isDigits(path[i+1:]) {
			return bad("a path ending in @ and digits cannot be told from a count",
				"grant the directory above it")
		}
		// The canonical text (Budget.String) is what a receipt keeps and
		// a replay reads back with Parse, which splits it at commas and
		// trims blanks: a path that text would not give back whole (a
		// working directory /srv/q,fs joined to fs:read:., read back as
		// fs:read:/srv/q and fs) is refused, not widened on its way back.
		if strings.ContainsRune(path, ',') {
			return bad("names a path holding a comma ("+strconv.Quote(path)+
				"), which separates budget items", notSplit)
		}
		if strings.TrimRightFunc(path, unicode.IsSpace) != path {
			return bad("names a path ending in a blank ("+strconv.Quote(path)+
				"), which a budget item loses when it is read", notSplit)
		}
		if len(path) > maxPathBytes {
			return bad(fmt.Sprintf("names a path of %d bytes, past the %d a system call takes "+
				"whole", len(path), maxPathBytes), neverThere)
		}
		for _, name := range strings.Split(path, string(filepath.Separator)) {
			if len(name) > maxNameBytes {
				return bad(fmt.Sprintf("names a path with a name of %d bytes, past the %d a "+
					"file system keeps", len(name), maxNameBytes), neverThere)
			}
		}
		it.Path = path
	case Net:
		if !hasRest {
			break
		}
		first, after, more := strings.Cut(rest, ":")
		if strings.EqualFold(first, "tcp") {
			return bad("a net grant is TCP unless it says udp",
				"write net"+strings.TrimSuffix(":"+after, ":"))
		}
		if strings.EqualFold(first, udpWord) {
			if first != udpWord {
				return bad("the word udp is written in lower case",
					"write net:"+udpWord+strings.TrimSuffix(":"+after, ":"))
			}
			it.UDP = true
			if !more {
				break
			}
			rest = after
		}
		host, port, err := splitHostPort(rest)
		if host == "tcp" || host == udpWord {
			err = "tcp and udp are words of the grammar, not host names"
		}
		if err != "" {
			return bad(err, "write net:HOST, net:HOST:PORT or net:udp:HOST:PORT, e.g. net:localhost:8080, "+
				"net:[::1]:8080 or net:udp:10.0.0.2:514")
		}
		it.Host, it.Port = host, port
	case FFI:
		if !hasRest {
			break
		}
		if !validModule(rest) {
			return bad("a module name is letters, digits, _ and dots", "write e.g. ffi:json")
		}
		it.Module = rest
	case "":
		return bad("the item is empty", "")
	default:
		return bad("unknown word "+strconv.Quote(word),
			"the words are io, env, clock, rand, declassify, tool, fs, net and ffi")
	}
	if !utf8.ValidString(it.Path) {
		return bad("names a path that is not UTF-8 (the working directory's)", notUTF8)
	}
	return it, nil
}

// notUTF8 says what to do about an item that is not UTF-8: the OS policy
// is written as JSON, which holds only UTF-8, and a path that would be
// written otherwise could not be held by the kernel as granted.
const notUTF8 = "grant a directory above it whose path is UTF-8, or rename it"

// notSplit says what to do about a path the budget's text cannot hold
// whole: a comma separates items, and blanks around one are trimmed.
const notSplit = "grant a directory above it whose path has no comma and no blank at its end, " +
	"or rename it"

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func validModule(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// splitHostPort reads HOST, HOST:PORT, [V6] or [V6]:PORT. It returns a
// reason when the text is malformed.
func splitHostPort(s string) (host string, port int, reason string) {
	portText := ""
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", 0, "an IPv6 address opened with [ is not closed"
		}
		host = s[1:end]
		after := s[end+1:]
		if after != "" {
			if !strings.HasPrefix(after, ":") {
				return "", 0, "after ] comes :PORT or nothing"
			}
			if portText = after[1:]; portText == "" {
				return "", 0, "the port is empty"
			}
		}
		if !validV6(host) {
			return "", 0, "not an IPv6 address: " + strconv.Quote(host)
		}
	} else {
		var hasPort bool
		host, portText, hasPort = strings.Cut(s, ":")
		if hasPort && strings.Contains(portText, ":") {
			return "", 0, "an IPv6 address must be in brackets"
		}
		if hasPort && portText == "" {
			return "", 0, "the port is empty"
		}
		if !validHostName(host) {
			return "", 0, "not a host name: " + strconv.Quote(host)
		}
	}
	if portText != "" {
		n, err := strconv.Atoi(portText)
		if err != nil || !isDigits(portText) || n < 1 || n > 65535 {
			return "", 0, "the port must be a number from 1 to 65535"
		}
		port = n
	}
	return strings.ToLower(host), port, ""
}

func validHostName(h string) bool {
	if h == "" || len(h) > 253 || isDigits(h) {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') ||
				(r >= '0' && r <= '9')) {
				return false
			}
		}
	}
	return true
}

func validV6(h string) bool {
	if h == "" || !strings.Contains(h, ":") {
		return false
	}
	for _, r := range h {
		if !(r == ':' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'f') ||
			(r >= 'A' && r <= 'F')) {
			return false
		}
	}
	return true
}

// less orders items canonically: by kind, then by what they name.
func less(a, b Item) bool {
	if a.Kind != b.Kind {
		return a.Kind.rank() < b.Kind.rank()
	}
	if a.Access != b.Access {
		return a.Access < b.Access
	}
	if a.Path != b.Path {
		return a.Path < b.Path
	}
	if a.UDP != b.UDP {
		return !a.UDP
	}
	if a.Host != b.Host {
		return a.Host < b.Host
	}
	if a.Port != b.Port {
		return a.Port < b.Port
	}
	if a.Module != b.Module {
		return a.Module < b.Module
	}
	return a.Limit < b.Limit
}

func canonical(items []Item) Budget {
	sorted := append([]Item(nil), items...)
	sort.SliceStable(sorted, func(i, j int) bool { return less(sorted[i], sorted[j]) })
	out := sorted[:0]
	for i, it := range sorted {
		if i > 0 && it == sorted[i-1] {
			continue
		}
		out = append(out, it)
	}
	return Budget{Items: out}
}
