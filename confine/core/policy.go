package core

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/sabline/sabline/budget"
)

// Options are the operator's choices that change the derivation.
type Options struct {
	// Mode is how the run asks to be held: ModeStrict takes the policy
	// from the budget alone, a granted ffi module widening nothing
	// (--confine strict). "" is ModeDefault.
	Mode Mode
}

// Mode is how much of its budget a run asks the operating system to
// hold: the one type of the confine mode, from the command line's
// --confine and --no-confine to the worker's request.
type Mode string

// The confine modes.
const (
	ModeDefault Mode = "default" // the budget's policy, widened by granted modules
	ModeStrict  Mode = "strict"  // the budget alone: granted modules widen nothing
	ModeOff     Mode = "off"     // ask the operating system for nothing (--no-confine)
)

// Direction is what the policy allows for reads or for writes.
type Direction struct {
	// Unrestricted is true when the budget (or a widening) allows this
	// direction everywhere.
	Unrestricted bool `json:"unrestricted"`
	// Paths are the granted directories and files, absolute, cleaned and
	// sorted, none beneath another. Empty when Unrestricted.
	Paths []string `json:"paths"`
	// Named are the granted paths that Paths, or Unrestricted, cover,
	// sorted: each is a rule of its own for the kernel too. A grant
	// above a location that only a grant naming it reaches (a home's
	// dot-entry, a lent credential) is held as the entries around that
	// location (the guard's carving on Linux), so that fs:read:~ with
	// fs:read:~/.config, or a widening to every path with it, reads
	// ~/.config by this grant alone.
	Named []string `json:"named,omitempty"`
}

// Endpoint is a host and port a net grant names. Port 0 is any port.
type Endpoint struct {
	Host string `json:"host"`
	Port int    `json:"port,omitempty"`
}

// Network modes: what the policy allows of TCP, and whether the worker
// makes sockets at all.
const (
	NetClosed = "closed" // no socket at all: neither TCP nor UDP is granted
	NetOpen   = "open"   // TCP to any host
	NetHosts  = "hosts"  // TCP to the named hosts (none when only UDP is), held by the language
)

// Network is what the policy allows of the network. A net grant is TCP
// unless it says udp: Hosts are the TCP grants, UDP the UDP ones.
type Network struct {
	Mode  string     `json:"mode"`
	Hosts []Endpoint `json:"hosts,omitempty"`
	// UDP are the hosts and ports datagrams may go to, held by the
	// language; Host "" is any host. Empty: the worker makes no
	// datagram socket.
	UDP []Endpoint `json:"udp,omitempty"`
}

// HostsWidened reports whether a granted module widened p to every host:
// its own connections go wherever it asks, whatever the net grants say.
func (p Policy) HostsWidened() bool {
	for _, w := range p.WidenedBy {
		if w.To.hosts() {
			return true
		}
	}
	return false
}

// Widening records that a granted module widened the policy.
type Widening struct {
	Module string `json:"module"` // "" for plain ffi
	To     Widen  `json:"to"`
	Listed bool   `json:"listed"` // whether FFIWidens names the module
}

// Reason is the sentence the operator reads for this widening.
func (w Widening) Reason() string {
	switch {
	case w.Module == "":
		return "plain ffi grants any module"
	case !w.Listed:
		return "ffi:" + w.Module + " is not in the confinement table"
	default:
		return "ffi:" + w.Module + " is granted"
	}
}

// The interpreter's own needs, named. confine.Apply resolves each to paths
// on the machine; the policy only names them, so it stays the same
// everywhere.
const (
	NeedExecutable = "executable"   // the sabline binary itself
	NeedDevNull    = "/dev/null"    // read and write
	NeedURandom    = "/dev/urandom" // read
	NeedTZData     = "tzdata"       // the time zone database, read
	NeedTemp       = "private-tmp"  // a private temporary directory, read and write
	NeedResolver   = "resolver"     // resolver configuration, under a net grant only
	NeedTLSRoots   = "tls-roots"    // TLS root certificates, under a net grant only
)

// policySchema names the policy document's format.
const policySchema = "sabline.os-policy/1"

// Policy is the operating-system policy a budget derives. Its JSON form is
// canonical: the same policy always marshals to the same bytes.
type Policy struct {
	Schema string `json:"schema"`
	// Enforced is false when a granted module widened the policy to
	// nothing enforced: the operating system layer is off for the run.
	Enforced bool      `json:"enforced"`
	Read     Direction `json:"read"`
	Write    Direction `json:"write"`
	Network  Network   `json:"network"`
	// Processes is "none": a confined run starts no process.
	Processes   string     `json:"processes"`
	Interpreter []string   `json:"interpreter"`
	WidenedBy   []Widening `json:"widened_by"`
	Strict      bool       `json:"strict"`
}

// OSPolicy derives the OS policy of a budget. It is the only place a budget
// becomes an OS policy, and it reads nothing of the machine.
func OSPolicy(b budget.Budget, o Options) Policy {
	p := Policy{
		Schema:    policySchema,
		Enforced:  true,
		Network:   Network{Mode: NetClosed},
		Processes: "none",
		WidenedBy: []Widening{},
		Strict:    o.Mode == ModeStrict,
	}
	var reads, writes []string
	for _, it := range b.Of(budget.FS) {
		r := it.Access == budget.Any || it.Access == budget.Read
		w := it.Access == budget.Any || it.Access == budget.Write
		switch {
		case it.Path == "":
			p.Read.Unrestricted = p.Read.Unrestricted || r
			p.Write.Unrestricted = p.Write.Unrestricted || w
		default:
			if r {
				reads = append(reads, it.Path)
			}
			if w {
				writes = append(writes, it.Path)
			}
		}
	}
	hosts, udp := map[Endpoint]bool{}, map[Endpoint]bool{}
	for _, it := range b.Of(budget.Net) {
		switch {
		case it.UDP:
			udp[Endpoint{Host: it.Host, Port: it.Port}] = true
		case it.Host == "":
			p.Network.Mode = NetOpen
		default:
			hosts[Endpoint{Host: it.Host, Port: it.Port}] = true
		}
	}
	if o.Mode != ModeStrict {
		seen := map[string]bool{}
		for _, it := range b.Of(budget.FFI) {
			if seen[it.Module] {
				continue
			}
			seen[it.Module] = true
			w, listed := WidensTo(it.Module)
			if w == widenNothing {
				continue
			}
			p.WidenedBy = append(p.WidenedBy, Widening{Module: it.Module, To: w, Listed: listed})
			if w == WidenNothingEnforced {
				p.Enforced = false
			}
			if w.paths() {
				p.Read.Unrestricted, p.Write.Unrestricted = true, true
			}
			if w.hosts() {
				p.Network.Mode = NetOpen
			}
		}
	}
	if p.Network.Mode != NetOpen && len(hosts)+len(udp) > 0 {
		p.Network.Mode = NetHosts
		p.Network.Hosts = sortedEndpoints(hosts)
	}
	p.Network.UDP = sortedEndpoints(udp)
	p.Read.Paths = outermost(reads, p.Read.Unrestricted)
	p.Write.Paths = outermost(writes, p.Write.Unrestricted)
	p.Read.Named = covered(reads, p.Read.Paths)
	p.Write.Named = covered(writes, p.Write.Paths)
	p.Interpreter = []string{NeedExecutable, NeedDevNull, NeedURandom, NeedTZData, NeedTemp}
	if p.Network.Mode != NetClosed {
		p.Interpreter = append(p.Interpreter, NeedResolver, NeedTLSRoots)
	}
	return p
}

// sortedEndpoints returns the set's endpoints by host, then port; nil
// for none.
func sortedEndpoints(set map[Endpoint]bool) []Endpoint {
	var out []Endpoint
	for e := range set {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Host != out[j].Host {
			return out[i].Host < out[j].Host
		}
		return out[i].Port < out[j].Port
	})
	return out
}

// outermost sorts paths and drops any beneath another; none when the
// direction is unrestricted.
func outermost(paths []string, unrestricted bool) []string {
	out := []string{}
	if unrestricted {
		return out
	}
	sort.Strings(paths)
	for _, p := range paths {
		covered := false
		for _, q := range out {
			if budget.Within(p, q) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, p)
		}
	}
	return out
}

// covered is paths less those in outer, sorted, each once; nil for none.
func covered(paths, outer []string) []string {
	var out []string
	for _, p := range paths {
		if !slices.Contains(outer, p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// JSON returns the canonical document: compact, fields in a fixed order,
// lists sorted.
func (p Policy) JSON() []byte {
	b, err := json.Marshal(p)
	if err != nil {
		panic("confine: marshal policy: " + err.Error()) // every field is marshalable
	}
	return b
}

// Indented returns the document for people to read. Its digest is still
// that of JSON.
func (p Policy) Indented() []byte {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		panic("confine: marshal policy: " + err.Error())
	}
	return append(b, '\n')
}

// SHA256 is the hex digest of the canonical document, as receipts record it.
func (p Policy) SHA256() string {
	sum := sha256.Sum256(p.JSON())
	return hex.EncodeToString(sum[:])
}

// OffReason is the one line said when the policy enforces nothing because
// of the budget's grants, naming every module that turned it off; "" when
// the policy is enforced.
func (p Policy) OffReason() string {
	if p.Enforced {
		return ""
	}
	var parts []string
	for _, w := range p.WidenedBy {
		if w.To == WidenNothingEnforced {
			parts = append(parts, w.Reason())
		}
	}
	return strings.Join(parts,
		", ") + ", so the operating system layer is off for this run: the budget is the only boundary"
}

// widenedSentences are what the reason of a run whose policy a module
// widened says of it, one sentence for each module, on a system where
// guardedHeld says whether the kernel holds the guarded locations out of
// a widening to any path: the module, that the language does not judge
// its own I/O, and what the policy then allows.
func (p Policy) widenedSentences(guardedHeld bool) []string {
	var parts []string
	for _, w := range p.WidenedBy {
		if w.To == WidenNothingEnforced {
			continue
		}
		what := "reaches " + string(w.To)
		if w.To.paths() {
			if guardedHeld {
				what += ", which the kernel holds to every path but the guarded locations"
			} else {
				what += ", the guarded locations among them"
			}
		}
		parts = append(parts,
			"The module "+w.Reason()+": its own I/O, which the language does not judge, "+what)
	}
	return parts
}
