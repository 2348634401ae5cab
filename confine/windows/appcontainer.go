package windows

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
)

// This file holds the decisions of a Windows run's AppContainer as data
// and functions that run on any system: which ACE each granted path gets,
// the protocol that grants and takes them back under a machine-wide lock
// with a record a killed run's successor sweeps, the record's format, and
// what the short-name probe's answers decide. appcontainer_windows.go
// gives them the system's lock, ACL editor and record store.

// Access rights of an ACE, as winnt.h defines them. The read rights are
// FILE_GENERIC_READ | FILE_GENERIC_EXECUTE (a directory is traversed with
// execute, and the worker maps the binary it runs); read-write adds
// FILE_GENERIC_WRITE and DELETE, which the language's fs.remove needs.
const (
	aceMaskRead      uint32 = 0x00120089 | 0x001200A0
	aceMaskReadWrite uint32 = aceMaskRead | 0x00120116 | 0x00010000
)

// Inheritance flags of an ACE (winnt.h): a directory's ACE reaches the
// files and directories beneath it; a file's is its own.
const (
	aceInheritObject    uint32 = 0x1 // OBJECT_INHERIT_ACE
	aceInheritContainer uint32 = 0x2 // CONTAINER_INHERIT_ACE
)

// aceGrant is one ACE a run's AppContainer is given: its SID may use Mask
// on Path, and beneath it when Inherit says so.
type aceGrant struct {
	SID     string
	Path    string
	Mask    uint32
	Inherit uint32
}

// acePlan turns the ACEs of a Plan into the grants for the
// container sid: one per granted file and directory, read or read-write
// as the plan says, inherited beneath a directory. isDir says whether a
// path is a directory, and fails for a path that does not exist: a
// container reaches only what holds its ACE, so a granted path that does
// not exist yet cannot be held, and the error says so for the receipt.
func acePlan(aces []windowsACE, sid string,
	isDir func(path string) (bool, error)) ([]aceGrant, error) {
	out := make([]aceGrant, 0, len(aces))
	for _, a := range aces {
		dir, err := isDir(a.Path)
		if err != nil {
			return nil, fmt.Errorf("the grant %s cannot be given an ACE: %w", a.Path, err)
		}
		g := aceGrant{SID: sid, Path: a.Path, Mask: aceMaskRead}
		if a.Access == aceReadWrite {
			g.Mask = aceMaskReadWrite
		}
		if dir {
			g.Inherit = aceInheritObject | aceInheritContainer
		}
		out = append(out, g)
	}
	return out, nil
}

// aceLock is the machine-wide lock held around each ACE write: the write
// reads a path's rights, adds to them and writes them back, and two runs
// doing that at once would lose one's ACE.
type aceLock interface {
	// Lock waits at most wait for the lock; errACELockWait when the
	// turn did not come.
	Lock(wait time.Duration) error
	// Unlock releases it.
	Unlock() error
}

// errACELockWait says the machine-wide ACE lock was not free in time.
var errACELockWait = errors.New("the machine-wide ACE lock was not free in time")

// aclEditor changes one path's rights.
type aclEditor interface {
	// Grant adds g's ACE to g.Path's rights, keeping the others.
	Grant(g aceGrant) error
	// Revoke removes every ACE for sid from path's rights, keeping the
	// others. A path that holds none is not an error.
	Revoke(sid, path string) error
}

// recordStore keeps, in a machine-wide directory, the record of each run
// that has ACEs out. A record is held open by its run while the ACEs are
// out; the system closes it when the run dies, however it dies, and only
// then can another run claim it.
type recordStore interface {
	// Hold writes a new record under name and holds it open.
	Hold(name string, data []byte) (heldRecord, error)
	// Claim returns the records no run holds open any more, each now
	// held by the caller.
	Claim() ([]claimedRecord, error)
}

// heldRecord is a record its run holds open.
type heldRecord interface {
	// Release closes the record, and removes it when remove is true.
	Release(remove bool) error
}

// claimedRecord is a record left by a run that is gone, held by the run
// that claimed it.
type claimedRecord interface {
	Name() string
	Data() []byte
	// Release closes the record, and removes it when remove is true.
	Release(remove bool) error
}

// aceHost is what the ACE protocol runs against: the system's, or a
// test's fake.
type aceHost struct {
	Lock    aceLock
	ACL     aclEditor
	Records recordStore
	// DeleteProfile deletes a swept run's AppContainer profile.
	DeleteProfile func(name string) error
	// LockWait is how long one write waits for the lock.
	LockWait time.Duration
}

// locked runs one ACE write under the machine-wide lock.
func (h aceHost) locked(write func() error) error {
	if err := h.Lock.Lock(h.LockWait); err != nil {
		return err
	}
	werr := write()
	if err := h.Lock.Unlock(); err != nil && werr == nil {
		werr = fmt.Errorf("release the ACE lock: %w", err)
	}
	return werr
}

// grantedACEs are a run's ACEs out, with the record that names them.
type grantedACEs struct {
	host   aceHost
	rec    aceRecord
	held   heldRecord
	grants []aceGrant
}

// grantACEs gives a run's container its ACEs: it first sweeps what runs
// that are gone left out (what it cannot clear stays for the next), then writes
// the record naming the run's SID, profile and every path (before the
// first grant, so that a run killed halfway is swept too), then grants
// each ACE under the lock, one write at a time. When a grant fails, the
// ones made are taken back and the error says which failed: the container
// is then left off.
func grantACEs(h aceHost, profile string, grants []aceGrant) (*grantedACEs, error) {
	_, _ = sweepACEs(h) // what it could not clear stays recorded for the next run's sweep
	if len(grants) == 0 {
		return nil, errors.New("grant ACEs: no path to grant")
	}
	rec := aceRecord{SID: grants[0].SID, Profile: profile}
	for _, g := range grants {
		if g.SID != rec.SID {
			return nil, errors.New("grant ACEs: the grants name more than one SID")
		}
		rec.Paths = append(rec.Paths, g.Path)
	}
	data, err := rec.Encode()
	if err != nil {
		return nil, fmt.Errorf("grant ACEs: %w", err)
	}
	held, err := h.Records.Hold(recordName(rec.SID), data)
	if err != nil {
		return nil, fmt.Errorf("write the ACE record: %w", err)
	}
	out := &grantedACEs{host: h, rec: rec, held: held}
	for _, g := range grants {
		if err := h.locked(func() error { return h.ACL.Grant(g) }); err != nil {
			// The path may hold the ACE even so: take it back too.
			out.grants = append(out.grants, g)
			if rerr := out.Revoke(); rerr != nil {
				return nil, fmt.Errorf("grant the ACE on %s: %w (and taking back the others: %v)", g.Path, err,
					rerr)
			}
			return nil, fmt.Errorf("grant the ACE on %s: %w", g.Path, err)
		}
		out.grants = append(out.grants, g)
	}
	return out, nil
}

// Revoke takes every ACE of the run back, each under the lock, and
// removes the record when all were; a revoke that failed leaves the
// record, closed, for the next run's sweep. It returns the revokes that
// failed.
func (g *grantedACEs) Revoke() error {
	errs := revokeAll(g.host, g.rec.SID, g.rec.Paths)
	if err := g.held.Release(errs == nil); err != nil {
		errs = errors.Join(errs, fmt.Errorf("release the ACE record: %w", err))
	}
	return errs
}

// revokeAll takes sid's ACEs off paths, each under the lock, going on
// past a failure.
func revokeAll(h aceHost, sid string, paths []string) error {
	var errs []error
	for _, p := range paths {
		if err := h.locked(func() error { return h.ACL.Revoke(sid, p) }); err != nil {
			errs = append(errs, fmt.Errorf("take back the ACE on %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

// sweepACEs takes back the ACEs of every run that is gone but left its
// record, deletes its profile, and removes the record once every revoke
// succeeded. A record that does not parse is removed: it names nothing
// that could be taken back. It returns how many records it removed.
func sweepACEs(h aceHost) (int, error) {
	claimed, err := h.Records.Claim()
	if err != nil {
		return 0, err
	}
	swept := 0
	var errs []error
	for _, c := range claimed {
		rec, perr := parseACERecord(c.Data())
		if perr == nil {
			perr = revokeAll(h, rec.SID, rec.Paths)
			if perr == nil && rec.Profile != "" && h.DeleteProfile != nil {
				_ = h.DeleteProfile(rec.Profile) // a profile already gone is fine
			}
			if perr != nil {
				errs = append(errs, fmt.Errorf("record %s: %w", c.Name(), perr))
			}
		}
		remove := perr == nil || errors.Is(perr, errBadRecord)
		if err := c.Release(remove); err != nil {
			errs = append(errs, fmt.Errorf("record %s: %w", c.Name(), err))
		} else if remove {
			swept++
		}
	}
	return swept, errors.Join(errs...)
}

// recordName is the file name of a run's record.
func recordName(sid string) string { return sid + ".ace" }

// aceRecord is what a run with ACEs out writes, so that the run after a
// killed one can take them back: the container's SID, its profile and
// every path given an ACE.
type aceRecord struct {
	SID     string
	Profile string
	Paths   []string
}

// Bounds of an ACE record: it is a file in a shared directory, and
// another process could have written it.
const (
	maxRecordBytes = 1 << 20
	maxRecordPaths = 4096
	maxRecordLine  = 4 * 32768 // a Windows path is at most 32,767 UTF-16 units
	recordHeader   = "sabline-ace-record 1"
)

var errBadRecord = errors.New("not an ACE record")

// Encode writes the record: a header line, then one "key value" line
// each. It fails for what parseACERecord would refuse.
func (r aceRecord) Encode() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(recordHeader + "\n")
	b.WriteString("sid " + r.SID + "\n")
	if r.Profile != "" {
		b.WriteString("profile " + r.Profile + "\n")
	}
	for _, p := range r.Paths {
		b.WriteString("path " + p + "\n")
	}
	got, err := parseACERecord(b.Bytes())
	if err != nil {
		return nil, err
	}
	if got.SID != r.SID || got.Profile != r.Profile || len(got.Paths) != len(r.Paths) {
		return nil, fmt.Errorf("%w: the record does not read back as written", errBadRecord)
	}
	return b.Bytes(), nil
}

// parseACERecord reads a record. It is bounded (1 MiB, 4,096 paths) and
// strict where a mistake would take an ACE off something else: the SID
// must be an AppContainer's (S-1-15-2-...), never a user's or a group's,
// and each path absolute with no control character. Lines with a key it
// does not know are skipped, so a later version may add some.
func parseACERecord(data []byte) (aceRecord, error) {
	var r aceRecord
	if len(data) > maxRecordBytes {
		return r, fmt.Errorf("%w: larger than %d bytes", errBadRecord, maxRecordBytes)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxRecordLine)
	if !sc.Scan() || strings.TrimSuffix(sc.Text(), "\r") != recordHeader {
		return r, fmt.Errorf("%w: no %q header", errBadRecord, recordHeader)
	}
	for sc.Scan() {
		key, val, _ := strings.Cut(strings.TrimSuffix(sc.Text(), "\r"), " ")
		switch key {
		case "sid":
			if r.SID != "" {
				return r, fmt.Errorf("%w: two sid lines", errBadRecord)
			}
			if !appContainerSID(val) {
				return r, fmt.Errorf("%w: %q is not an AppContainer SID", errBadRecord, val)
			}
			r.SID = val
		case "profile":
			if r.Profile != "" || !validProfileName(val) {
				return r, fmt.Errorf("%w: bad profile line", errBadRecord)
			}
			r.Profile = val
		case "path":
			if !absWindowsPath(val) {
				return r, fmt.Errorf("%w: %q is not an absolute path", errBadRecord, val)
			}
			if len(r.Paths) == maxRecordPaths {
				return r, fmt.Errorf("%w: more than %d paths", errBadRecord, maxRecordPaths)
			}
			r.Paths = append(r.Paths, val)
		}
	}
	if err := sc.Err(); err != nil {
		return r, fmt.Errorf("%w: %v", errBadRecord, err)
	}
	if r.SID == "" {
		return r, fmt.Errorf("%w: no sid line", errBadRecord)
	}
	return r, nil
}

// appContainerSID reports whether s is an AppContainer SID in string form:
// S-1-15-2- then decimal sub-authorities.
func appContainerSID(s string) bool {
	rest, ok := strings.CutPrefix(s, "S-1-15-2-")
	if !ok || len(s) > 184 {
		return false
	}
	for _, part := range strings.Split(rest, "-") {
		if part == "" || len(part) > 10 || strings.Trim(part, "0123456789") != "" {
			return false
		}
	}
	return true
}

// validProfileName is CreateAppContainerProfile's rule for a name: at most
// 64 characters of [-_. A-Za-z0-9].
func validProfileName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c == '-' || c == '_' || c == '.' || c == ' ' || c >= 'A' && c <= 'Z' ||
			c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// profileName is the AppContainer profile name of run runID.
func profileName(runID string) string {
	name := "sabline-run-" + runID
	if !validProfileName(name) {
		return ""
	}
	return name
}

// absWindowsPath reports whether p is an absolute Windows path (C:\...,
// \\server\share\...) or, for tests, a slash-rooted one, with no control
// character.
func absWindowsPath(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] < 0x20 || p[i] == 0x7f {
			return false
		}
	}
	switch {
	case len(p) >= 3 && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') && p[1] == ':' && (p[2] == '\\' ||
		p[2] == '/'):
		return true
	case strings.HasPrefix(p, `\\`) && len(p) > 2:
		return true
	}
	return strings.HasPrefix(p, "/")
}

// probeAnswer is one question of the short-name probe: a granted path,
// its short (8.3) spelling, "" when the volume keeps none, and what a
// process inside the container resolved that spelling to, or why it
// could not.
type probeAnswer struct {
	Path     string
	Short    string
	Resolved string
	Err      string
}

// probeVerdict is what the probe decides: whether the container may be
// trusted, whether the answer is to be remembered for this build, and
// the reason a receipt shows when it may not.
type probeVerdict struct {
	Trusted  bool
	Remember bool
	Reason   string
}

// decideProbe decides from the probe's answers whether this system's
// containers resolve a path as their parent does. A no remembered for
// this build is a no without asking; a no the containers gave is
// remembered; a yes never is, since it would outlive its measurement. A
// probe with nothing to ask (no granted path has a short spelling) is a
// no, not remembered: what cannot be asked is not claimed. So is a
// question the probe could not put.
func decideProbe(rememberedNo bool, answers []probeAnswer) probeVerdict {
	const off = "the container was not trusted: "
	if rememberedNo {
		return probeVerdict{Reason: off + "this system's containers resolved a short (8.3) path name " +
			"differently from their parent before, as remembered for this build"}
	}
	asked := 0
	for _, a := range answers {
		if a.Short == "" {
			continue
		}
		asked++
		if a.Err != "" {
			return probeVerdict{Reason: off + "the short-name probe could not ask about " + a.Path + ": " +
				a.Err}
		}
		if !strings.EqualFold(a.Resolved, a.Path) {
			return probeVerdict{Remember: true, Reason: off + "a process in the container resolved the " +
				"short name of " + a.Path + " to " + a.Resolved}
		}
	}
	if asked == 0 {
		return probeVerdict{Reason: off + "no granted path has a short (8.3) name to probe the " +
			"container with"}
	}
	return probeVerdict{Trusted: true}
}

// probeMemoryName is the name of the file whose presence remembers that
// this build's probe said no on this machine.
func probeMemoryName(version string) string {
	clean := strings.Map(func(c rune) rune {
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' {
			return c
		}
		return '_'
	}, version)
	if clean == "" {
		clean = "unknown"
	}
	return "probe-no-" + clean
}
