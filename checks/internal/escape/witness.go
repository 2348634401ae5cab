package escape

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"time"
)

// The kinds of witness a target carries: what its attempt would change
// outside the worker, read by the harness before and after every run.
const (
	// WitnessFiles: the scratch files and directories ($GRANT, $OUTSIDE,
	// $HOME), each with its content, owner, mode, times (mtime, ctime),
	// attribute flags, extended attributes, link count and inode.
	WitnessFiles = "files"
	// WitnessMqueue: whether the POSIX message queues $MQ and $MQNEW exist.
	WitnessMqueue = "mqueue"
	// WitnessSysV: whether System V objects with the key $IPCKEY exist
	// (/proc/sysvipc/shm, msg and sem).
	WitnessSysV = "sysvipc"
	// WitnessKeys: whether a key described as $KEYDESC is in /proc/keys.
	WitnessKeys = "keys"
	// WitnessVictim: the victim process: alive, its nice value, process
	// group, session and resource limits.
	WitnessVictim = "victim"
	// WitnessListener: how many connections and datagrams the listeners
	// took.
	WitnessListener = "listener"
	// WitnessReceipts: the entries of the run's receipts directory
	// ($RECEIPTS) and their content, but the receipts the runs wrote
	// themselves (named as a receipt is: its start, then its run id).
	WitnessReceipts = "receipts"
	// WitnessShared: how many of the datagrams the harness sent to
	// $SHARED its own receiver there did not get: those another socket
	// bound to the port took.
	WitnessShared = "shared-port"
	// WitnessPriority: the victim's scheduling priority (/proc/PID/stat's
	// 18th field), the lowest read while the runs are made: the victim is
	// set to nice 19 (priority 39) first, and a priority lent to it (a
	// priority-inheritance lock that names it as its owner, whose waiter
	// lends its own) lasts only while the waiter waits, so a read before
	// and after a run, as WitnessVictim's, sees nothing of it.
	WitnessPriority = "priority"
)

// WitnessKinds lists the kinds; "" is a target whose attempt changes
// nothing outside the worker even when it goes through (a read, a query,
// or a call whose arguments fail before it acts).
var WitnessKinds = []string{WitnessFiles, WitnessMqueue, WitnessSysV, WitnessKeys, WitnessVictim,
	WitnessListener, WitnessReceipts, WitnessShared, WitnessPriority}

// priorityWatch is the witness WitnessPriority of a Scratch's victim:
// the lowest priority read from its /proc/PID/stat, every priorityEvery,
// from watchPriority until Close. Once a read is below the victim's own,
// the watch makes the file $SEEN names, for which an attempt that lends
// its priority waits.
type priorityWatch struct {
	lowest atomic.Int64
	stop   chan struct{} // closed by Close
	done   chan struct{} // closed when the watch has stopped
}

// priorityEvery is how often a priorityWatch reads the victim's priority.
const priorityEvery = time.Millisecond

// runReceipt matches the name of a receipt a run writes.
var runReceipt = regexp.MustCompile(`^\d{8}T\d{6}\.\d{9}Z-[0-9a-f]{1,64}\.json$`)

// witnessPrefix is the prefix of the entries of a kind in a Witness map.
func witnessPrefix(kind string) string {
	if kind == WitnessVictim || kind == WitnessListener || kind == WitnessShared ||
		kind == WitnessPriority {
		return kind
	}
	return kind + ":"
}

// State is what the harness reads from outside the worker: one entry per
// object, named "files:grant/data.txt" (relative to the scratch world),
// "mqueue:$MQ" (by placeholder), "victim", ..., its
// value a list of "field=value" words. Two states differ where a run made,
// changed or removed something.
type State map[string]string

// Witness reads everything the runs of s may change: the scratch files,
// and the kernel objects, the victim and the listeners its placeholders
// made so far.
func (s *Scratch) Witness() (State, error) {
	st := State{}
	for _, root := range []string{s.Grant, s.Outside, s.Home} {
		if err := s.snapshotTree(st, root); err != nil {
			return nil, err
		}
	}
	if err := s.kernelObjects(st); err != nil {
		return nil, err
	}
	if s.victim != nil {
		st[WitnessVictim] = s.victimState()
	}
	if s.priority != nil {
		st[WitnessPriority] = fmt.Sprintf("priority=%d", s.priority.lowest.Load())
	}
	if s.listens {
		st[WitnessListener] = fmt.Sprintf("accepted=%d", s.Accepted())
	}
	if s.receiptsWatched {
		entries, err := os.ReadDir(s.Receipts())
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		for _, e := range entries {
			if runReceipt.MatchString(e.Name()) {
				continue
			}
			desc, err := Describe(filepath.Join(s.Receipts(), e.Name()))
			if err != nil {
				return nil, err
			}
			st[witnessPrefix(WitnessReceipts)+e.Name()] = desc
		}
	}
	if s.shared != nil {
		missed, err := s.shared.missed()
		if err != nil {
			return nil, err
		}
		st[WitnessShared] = fmt.Sprintf("missed=%d", missed)
	}
	return st, nil
}

func (s *Scratch) snapshotTree(st State, root string) error {
	err := filepath.WalkDir(root, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		desc, err := Describe(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(s.Base, path)
		if err != nil {
			return err
		}
		st[WitnessFiles+":"+filepath.ToSlash(rel)] = desc
		return nil
	})
	if err != nil {
		return fmt.Errorf("witness: %w", err)
	}
	return nil
}

// Describe reads one path without following a final link: its type and
// mode, size, mtime, the sha256 of a regular file's content or a link's
// target, and where the system has them its owner, ctime, link count,
// inode, attribute flags and extended attributes (names and the sha256
// of each value). Reading it changes none of these (atime is left out).
func Describe(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	words := []string{
		"mode=" + fi.Mode().String(),
		fmt.Sprintf("size=%d", fi.Size()),
		fmt.Sprintf("mtime=%d", fi.ModTime().UnixNano()),
	}
	switch {
	case fi.Mode().IsRegular():
		sum, err := hashFile(path)
		if err != nil {
			return "", err
		}
		words = append(words, "content="+sum)
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		words = append(words, "content="+hashOf([]byte(target)))
	}
	extra, err := describeMore(path, fi)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return strings.Join(append(words, extra...), " "), nil
}

func hashFile(path string) (string, error) {
	// A FIFO made by a run must not block the read.
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:16]
}

// Diff returns one line for each entry that differs between two states,
// sorted: "NAME: made", "NAME: removed" or "NAME: FIELD FIELD..." naming
// the fields that changed.
func Diff(before, after State) []string {
	var out []string
	for name, b := range before {
		a, ok := after[name]
		switch {
		case !ok:
			out = append(out, name+": removed")
		case a != b:
			out = append(out, name+": "+strings.Join(changedFields(b, a), " "))
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			out = append(out, name+": made")
		}
	}
	sort.Strings(out)
	return out
}

// changedFields names the fields of two descriptions that differ.
func changedFields(before, after string) []string {
	fields := func(desc string) map[string]string {
		m := map[string]string{}
		for _, w := range strings.Fields(desc) {
			k, v, _ := strings.Cut(w, "=")
			m[k] = v
		}
		return m
	}
	b, a := fields(before), fields(after)
	var out []string
	for k, v := range b {
		if w, ok := a[k]; !ok || w != v {
			out = append(out, k)
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// OfKind keeps the lines of a Diff about one kind of witness.
func OfKind(diff []string, kind string) []string {
	if kind == "" {
		return nil
	}
	out := []string{}
	for _, line := range diff {
		if strings.HasPrefix(line, witnessPrefix(kind)) {
			out = append(out, line)
		}
	}
	return out
}
