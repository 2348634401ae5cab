package run

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"unicode/utf8"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/guard"
)

// Guard resolves, now, what no grant of a run reaches: the tables, the
// home of the user running Sabline (HOME's, and the user database's where
// HOME names another place), the operator's SABLINE_CREDENTIALS,
// Sabline's own files (sabline: the receipts directory and what was made
// for it, a server's token; and always the runs' private temporary
// directories, runsDir; and every location the register of this machine
// names, other Sablines' among them, registered), with the credential
// locations lend names lent,
// and the kernel's file systems mounted anywhere, as the mount table says
// (a table past its bounds adds none; the worker reads it again to hold
// device nodes, and a run with a file grant it cannot then judge is
// partial; each grant's own file system is checked when it is pinned).
func Guard(sabline, lend []string) *guard.Set { return guardMatched(sabline, nil, lend) }

// guardMatched is Guard with more of Sabline's own locations, matched, each
// named by a pattern in its last component (guard.Inputs.SablineMatched):
// eval's expected outputs, and the other programs it grades.
func guardMatched(sabline, matched, lend []string) *guard.Set {
	home, _ := os.UserHomeDir()
	mounts, _ := guard.ReadMounts()
	if runs, err := runsDir(); err == nil {
		sabline = append(slices.Clip(sabline), runs)
	}
	reg, owned := registered() // every Sabline's on this machine
	sabline = append(slices.Clip(sabline), reg...)
	return guard.Build(guard.Inputs{
		Home:           home,
		AccountHome:    guard.AccountHome(),
		Sabline:        sabline,
		SablineMatched: matched,
		Owned:          owned,
		Credentials:    guard.OperatorCredentials(),
		Lent:           lend,
		Mounts:         mounts,
	}, guard.OS())
}

// resolve is a path as the kernel resolves it, now (guard.Resolved).
func resolve(p string) string { return guard.Resolved(p) }

// Admit refuses a budget with an item that names a location no grant
// reaches (E329), and every budget while the operator's list of
// credential locations holds an entry that is not an absolute path
// (E301, guard.CheckOperatorCredentials): nothing runs. In a knock-out
// build, whose budget checks all pass, it admits every budget the
// operator's list does not refuse.
func Admit(g *guard.Set, b budget.Budget) error { return admitAs(g, b, nil) }

// admitAs is Admit judging each granted path as adm says it resolved
// (admitted), and any other as it resolves now: what is admitted is then
// what the worker is told was (wire.Request.Admitted).
func admitAs(g *guard.Set, b budget.Budget, adm map[string]string) error {
	if err := guard.CheckOperatorCredentials(); err != nil {
		return err
	}
	at := func(p string) string {
		if r, ok := adm[p]; ok {
			return r
		}
		return resolve(p)
	}
	if err := resolvedUTF8(b, at); err != nil {
		return err
	}
	if err := guardedUTF8(g, b, at); err != nil {
		return err
	}
	if err := admits(g, b, at); err != nil {
		return codes.Errorf(codes.E329, "%v: nothing ran", err)
	}
	return nil
}

// resolvedUTF8 refuses (E301) a budget with a granted path that resolves,
// as at says, to a path that is not UTF-8: a grant of a link whose target
// is. The worker is handed where each grant resolved in a JSON string,
// which holds only UTF-8, and such a byte reached it as U+FFFD: it found
// the grant resolving elsewhere, withheld it from the kernel's ruleset
// and said "a link was made on its way after the run was admitted",
// which no one had made (the program's writes there were then E319).
// Under a net grant, so is a budget with a TLS root of the operator's
// (tlsRoots) whose path, or where it resolves, is not UTF-8: the worker
// reads the root from its environment as it is, and its admitted
// resolution from the JSON, so that SSL_CERT_FILE naming a link to
// c\xe9rt.pem was withheld, "a link was made on its way", and a root
// named c\xe9rts matched no admitted path, and was held wherever it led
// when a worker started (a link swapped in for it after a pool began
// followed).
func resolvedUTF8(b budget.Budget, at func(string) string) error {
	for _, it := range b.Of(budget.FS) {
		if it.Path == "" {
			continue
		}
		if r := at(it.Path); !utf8.ValidString(r) {
			return codes.Errorf(codes.E301, "the grant %q leads to %q, a path that is not UTF-8, "+
				"which the worker cannot be handed as it is: grant a directory above it whose "+
				"path is UTF-8, or rename it; nothing ran", it.String(), r)
		}
	}
	for _, p := range tlsRoots(b) {
		how := "is a path"
		if r := at(p); utf8.ValidString(p) && !utf8.ValidString(r) {
			how = fmt.Sprintf("leads to %q, a path", r)
		} else if utf8.ValidString(p) {
			continue
		}
		return codes.Errorf(codes.E301, "the TLS root %q (%s) %s that is not UTF-8, which the "+
			"worker cannot be handed as it is: name one whose path is UTF-8, or rename it; "+
			"nothing ran", p, tlsRootsNamed, how)
	}
	return nil
}

// tlsRoots are the TLS roots the operator's environment names, under a
// net grant of b (none without one), which the worker holds as grants
// are (linux.OperatorTLSRoots).
func tlsRoots(b budget.Budget) []string {
	if !b.Has(budget.Net) {
		return nil
	}
	return linux.OperatorTLSRoots()
}

// tlsRootsNamed is where the operator names its TLS roots, in a refusal.
const tlsRootsNamed = "SSL_CERT_FILE or SSL_CERT_DIR"

// guardedUTF8 refuses (E301) a budget with a granted path that leads, as
// at says, to a directory holding a location no grant reaches, a home
// whose dot-entries are guarded, or a path the kernel is to hold out of a
// grant (a carve-out: an entry a pattern matched, a directory to expand),
// whose path is not UTF-8, or with a grant of every path where there is
// such a location. The worker is handed the guard's paths in JSON
// strings too, and such a byte reached it as U+FFFD: it guarded a path
// that is not there, and a run granted fs:write of the directory above a
// receipts directory named r\xe9c wrote in it, ok at full, where the same
// run beside one named rec was E318; a run granted fs:read of a directory
// where SABLINE_CREDENTIALS names *.key read k\xe9.key by raw calls, the
// kernel's carving holding out k\ufffd.key. A TLS root of the operator's
// is held as a grant is (tlsRoots): one above such a location is refused
// too (an SSL_CERT_DIR above a receipts directory named r\xe9c let raw
// calls read its receipts).
func guardedUTF8(g *guard.Set, b budget.Budget, at func(string) string) error {
	roots := tlsRoots(b)
	if !b.Has(budget.FS) && len(roots) == 0 {
		// Nothing granted holds a path: the set is not read, and one made
		// when first consulted (guard.Later: an in-process run's) is not
		// made, which cost every such run of a hello 1.2 ms.
		return nil
	}
	var odd []string
	for _, l := range g.Locations() {
		if !utf8.ValidString(l.Path) {
			odd = append(odd, l.Path)
		}
	}
	for _, h := range g.Homes() {
		if !utf8.ValidString(h) {
			odd = append(odd, h)
		}
	}
	for _, c := range g.CarveOuts() {
		if !utf8.ValidString(c.Path) {
			odd = append(odd, c.Path)
		}
	}
	if len(odd) == 0 {
		return nil
	}
	held := func(r string) (string, bool) {
		for _, p := range odd {
			if guard.Within(p, r) {
				return p, true
			}
		}
		return "", false
	}
	for _, it := range b.Of(budget.FS) {
		r := string(filepath.Separator) // a grant of every path holds them all
		if it.Path != "" {
			r = at(it.Path)
		}
		if p, ok := held(r); ok {
			return codes.Errorf(codes.E301, "the grant %q holds %q, which no grant reaches, "+
				"in a path that is not UTF-8, which the worker cannot be handed as it is to "+
				"guard: grant a directory beside it, or rename it; nothing ran",
				it.String(), p)
		}
	}
	for _, root := range roots {
		if p, ok := held(at(root)); ok {
			return codes.Errorf(codes.E301, "the TLS root %q (%s) holds %q, which no grant "+
				"reaches, in a path that is not UTF-8, which the worker cannot be handed as it "+
				"is to guard: name a TLS root beside it, or rename it; nothing ran", root,
				tlsRootsNamed, p)
		}
	}
	return nil
}

// admitted is each granted path of b as it resolves now, when the run is
// admitted, and each TLS root the operator's environment names (held as
// a grant is, under a net grant: linux.OperatorTLSRoots): its worker
// withholds one that resolves otherwise when it starts (linux.Moved): a
// root swapped for a link after a pool started, by a process that may
// write beside it, led the next worker's rule wherever the link led.
func admitted(b budget.Budget) map[string]string {
	out := map[string]string{}
	if b.Has(budget.Net) {
		for _, p := range linux.OperatorTLSRoots() {
			out[p] = resolve(p)
		}
	}
	for _, it := range b.Of(budget.FS) {
		if it.Path != "" {
			out[it.Path] = resolve(it.Path)
		}
	}
	return out
}

// CheckLend refuses (E301) credential locations to lend past a budget's
// bounds (budget.MaxItems of them, budget.MaxBytes in all), where named
// is the setting that gave them: a receipt keeps every one, so that a
// replay lends them again, and past them a receipt would grow past the
// size a receipt file may be (receipt.MaxBytes), which sabline receipts
// passes over as no receipt. Lend a directory above many instead. It
// refuses one whose path is not UTF-8 too: the receipt keeps it in a JSON
// string, where such a byte became U+FFFD, and a replay lent the path
// the receipt named, not the one lent (cr\xe9d was kept as cr\ufffdd).
func CheckLend(named string, lend []string) error {
	n := 0
	for _, p := range lend {
		n += len(p)
		if !utf8.ValidString(p) {
			return codes.Errorf(codes.E301, "%s: the credential location %q is not UTF-8, which "+
				"its receipt cannot keep as it is for a replay to lend it again: lend a "+
				"directory above it whose path is UTF-8, or rename it", named, p)
		}
	}
	if len(lend) > budget.MaxItems || n > budget.MaxBytes {
		return codes.Errorf(codes.E301, "%s: %d credential locations, %d bytes in all: more than "+
			"%d of them or %d bytes; lend a directory above many instead", named, len(lend), n,
			budget.MaxItems, budget.MaxBytes)
	}
	return nil
}
