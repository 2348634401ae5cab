package budget

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Effect is one attempt of a program to touch something outside itself.
type Effect struct {
	Kind   Kind
	Access Access // fs: Read or Write
	Path   string // fs: absolute, cleaned, and resolved by the caller
	UDP    bool   // net: a datagram over UDP; a TCP connection otherwise
	Host   string // net
	Port   int    // net
	Module string // ffi
}

// String describes the effect for messages.
func (e Effect) String() string {
	switch e.Kind {
	case FS:
		return fmt.Sprintf("fs %s of %s", e.Access, e.Path)
	case Net:
		what := "net connection"
		if e.UDP {
			what = "UDP datagrams"
		}
		return fmt.Sprintf("%s to %s", what, hostPort(strings.Trim(e.Host, "[]"), e.Port))
	case FFI:
		return "ffi module " + e.Module
	}
	return string(e.Kind)
}

func hostPort(h string, p int) string {
	if p == 0 {
		return hostForm(h)
	}
	return hostForm(h) + ":" + strconv.Itoa(p)
}

// Need is the narrowest item that would grant the effect: what a refusal
// tells the operator to add.
func (e Effect) Need() Item {
	switch e.Kind {
	case FS:
		return Item{Kind: FS, Access: e.Access, Path: e.Path}
	case Net:
		return Item{
			Kind: Net,
			UDP:  e.UDP,
			Host: strings.ToLower(strings.Trim(e.Host, "[]")),
			Port: e.Port,
		}
	case FFI:
		return Item{Kind: FFI, Module: e.Module}
	}
	return Item{Kind: e.Kind}
}

// Covers reports whether the item grants the effect, counts aside.
func (it Item) Covers(e Effect) bool {
	if it.Kind != e.Kind {
		return false
	}
	switch it.Kind {
	case FS:
		if it.Access != Any && it.Access != e.Access {
			return false
		}
		return it.Path == "" || Within(e.Path, it.Path)
	case Net:
		if it.UDP != e.UDP {
			return false
		}
		if it.Host == "" {
			return true
		}
		return SameHost(it.Host, strings.Trim(e.Host, "[]")) &&
			(it.Port == 0 || it.Port == e.Port)
	case FFI:
		return it.Module == "" || it.Module == e.Module
	}
	return true
}

// SameHost reports whether a and b name one host: the same bytes but for
// the case of ASCII letters. Unicode's folding is not a host's (it takes
// ſ for s and the Kelvin sign for k), and a name a grant admits must be
// the name the connection looks up.
func SameHost(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Within reports whether path is dir or lies beneath it. Both must be
// absolute and cleaned; no link is followed.
func Within(path, dir string) bool {
	if path == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(path, dir)
}

// specificity ranks a grant: a narrower grant is charged before a wider one.
func (it Item) specificity() int {
	switch it.Kind {
	case FS:
		n := 0
		if it.Access != Any {
			n = 1
		}
		if it.Path != "" {
			n += 2 + len(it.Path)
		}
		return n
	case Net:
		n := 0
		if it.Host != "" {
			n = 2
		}
		if it.Port != 0 {
			n++
		}
		return n
	case FFI:
		if it.Module != "" {
			return 1
		}
	}
	return 0
}

// ErrNotGranted is returned by Meter.Use when no item covers the effect.
var ErrNotGranted = errors.New("not granted")

// ErrUsedUp is returned by Meter.Use when every item that covers the effect
// has spent its @N count.
var ErrUsedUp = errors.New("count used up")

// Meter matches effects against a budget and counts the uses of each item.
// A Meter is not safe for concurrent use.
type Meter struct {
	b     Budget
	match []Item // b's items with their paths resolved
	used  []int
}

// NewMeter returns a Meter for b with every count at zero. When resolve is
// not nil, each fs grant's path is passed through it once, here, and
// effects are matched against the result: the runtime resolves the links
// in granted directories at the start of a run, so that a directory
// swapped for a link later does not carry the grant elsewhere. Usage still
// names the grants as the operator wrote them.
func NewMeter(b Budget, resolve func(string) string) *Meter {
	match := append([]Item(nil), b.Items...)
	if resolve != nil {
		for i, it := range match {
			if it.Kind == FS && it.Path != "" {
				match[i].Path = resolve(it.Path)
			}
		}
	}
	return &Meter{b: b, match: match, used: make([]int, len(b.Items))}
}

// Budget returns the budget the meter counts against.
func (m *Meter) Budget() Budget { return m.b }

// Find returns the index of the item that would be charged for e, without
// charging it: the most specific covering item with uses left. The error is
// ErrNotGranted or ErrUsedUp, wrapped with the effect and the item to add.
func (m *Meter) Find(e Effect) (int, error) {
	best, covered := -1, false
	for i, it := range m.match {
		if !it.Covers(e) {
			continue
		}
		covered = true
		if it.Limit > 0 && m.used[i] >= it.Limit {
			continue
		}
		if best < 0 || it.specificity() > m.match[best].specificity() {
			best = i
		}
	}
	switch {
	case best >= 0:
		return best, nil
	case covered:
		return -1, fmt.Errorf("%s: %w: every grant that covers it has spent its @N: %s", e, ErrUsedUp,
			m.spent(e))
	default:
		return -1, fmt.Errorf("%s: %w%s: add %s to the budget", e, ErrNotGranted, m.netHint(e), e.Need())
	}
}

// spent names the items that cover e, each with its uses: the counts that
// ran out.
func (m *Meter) spent(e Effect) string {
	var parts []string
	for i, it := range m.match {
		if it.Covers(e) {
			parts = append(parts, fmt.Sprintf("%s (used %d of %d)", m.b.Items[i], m.used[i], it.Limit))
		}
	}
	return strings.Join(parts, ", ")
}

// netHint says what a refused connection or datagram may have missed:
// that a net grant is TCP unless it says udp, when a grant of the other
// protocol covers it; or, when the net grants of its protocol name only
// other hosts, that hosts match by the name written: net:localhost does
// not grant a connection to 127.0.0.1, nor the reverse. "" otherwise (a
// grant of the same host on another port needs no word).
func (m *Meter) netHint(e Effect) string {
	if e.Kind != Net {
		return ""
	}
	other := e
	other.UDP = !e.UDP
	for _, it := range m.b.Items {
		switch {
		case !it.Covers(other):
		case it.UDP:
			return fmt.Sprintf(" (%s grants UDP datagrams only)", it)
		default:
			return fmt.Sprintf(" (%s grants TCP connections only: a net grant is TCP unless it says udp)",
				it)
		}
	}
	var named []string
	for _, it := range m.b.Items {
		if it.Kind != Net || it.UDP != e.UDP || it.Host == "" {
			continue
		}
		if SameHost(it.Host, strings.Trim(e.Host, "[]")) {
			return ""
		}
		named = append(named, it.String())
	}
	if len(named) == 0 {
		return ""
	}
	return fmt.Sprintf(" (a host matches by the name written, never by its address: the budget "+
		"grants %s)", strings.Join(named, ", "))
}

// Charge counts one use of item i, as returned by Find.
func (m *Meter) Charge(i int) Item {
	m.used[i]++
	return m.b.Items[i]
}

// Use finds the item for e and charges it.
func (m *Meter) Use(e Effect) (Item, error) {
	i, err := m.Find(e)
	if err != nil {
		return Item{}, err
	}
	return m.Charge(i), nil
}

// Usage is how often one item was used.
type Usage struct {
	Grant string `json:"grant"`
	Uses  int    `json:"uses"`
	Limit int    `json:"limit,omitempty"`
}

// Usage lists every item with its count of uses, in canonical order.
func (m *Meter) Usage() []Usage {
	out := make([]Usage, len(m.b.Items))
	for i, it := range m.b.Items {
		out[i] = Usage{Grant: it.String(), Uses: m.used[i], Limit: it.Limit}
	}
	return out
}

// Matched returns item i as it is matched, its path resolved.
func (m *Meter) Matched(i int) Item { return m.match[i] }
