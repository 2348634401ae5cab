package ship

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sabline/sabline/receipt"
)

// LocatorPrefix begins the key of every locator: an empty object, written
// beside an object of receipts, whose key names that object, the process
// that made some of its run ids, the window of time they were made in,
// and the first and last of those times:
//
//	locators/ORIGIN/WINDOW/FIRST-LAST/OBJECT-KEY
//
// ORIGIN is the 8 digits of a run id that name its process, WINDOW the
// time's first 8 of 12 hexadecimal digits (a window is 65.536 s), FIRST
// and LAST 12 digits each (milliseconds since 1970), and OBJECT-KEY the
// object's key (under Prefix or LegacyPrefix). A Shipper writes one for
// each process and window its object's run ids come from: one, most
// often; two when they straddle a window, or a long run finished in it.
// A lookup of a run id lists the locators of its process and window (one
// call, as many keys as that one process shipped objects in 65.5 s), and
// reads the index of each object whose times hold the id's: however
// many replicas share the bucket, and however long they have.
const LocatorPrefix = "locators/"

// windowShift: a window is 1<<windowShift milliseconds.
const windowShift = 16

// maxCandidates bounds the objects a lookup reads the index of: the
// locators of one process and window whose times hold the run id's.
const maxCandidates = 16

// placed reports whether id names its process and time (the form
// receipt.RunIDOrigin reads): such a receipt is found by its locators.
func placed(id string) bool {
	_, _, ok := receipt.RunIDOrigin(id)
	return ok
}

// windowOf is the WINDOW of a locator's key for a run id made at ms.
func windowOf(ms int64) string { return fmt.Sprintf("%08x", ms>>windowShift) }

// locatorsOf is the prefix of the locators of the run id made by origin at
// ms: one list of it names every object that may hold it.
func locatorsOf(origin string, ms int64) string {
	return LocatorPrefix + origin + "/" + windowOf(ms) + "/"
}

// locatorKeys are the keys of the locators of the object key whose index
// is idx: one for each process and window its run ids name, in order.
func locatorKeys(key string, idx indexJSON) []string {
	type span struct{ first, last int64 }
	spans := map[string]*span{} // by locatorsOf
	for _, e := range idx.Receipts {
		id, ok := receipt.RunIDOfKey(e.Key)
		if !ok {
			continue
		}
		origin, ms, ok := receipt.RunIDOrigin(id)
		if !ok {
			continue
		}
		p := locatorsOf(origin, ms)
		if sp := spans[p]; sp != nil {
			sp.first, sp.last = min(sp.first, ms), max(sp.last, ms)
		} else {
			spans[p] = &span{ms, ms}
		}
	}
	var keys []string
	for p, sp := range spans {
		keys = append(keys, fmt.Sprintf("%s%012x-%012x/%s", p, sp.first, sp.last, key))
	}
	slices.Sort(keys)
	return keys
}

// locator is what a locator's key says after its prefix (locatorsOf).
type locator struct {
	first, last int64  // the times of the first and last run ids it names
	object      string // the key of the object that holds them
}

// parseLocator reads a locator's key after its prefix: FIRST-LAST/ and
// the key of an object a Shipper writes (a replica id, a journal id, a
// segment). The keys are the bucket's: anything else is refused, and no
// locator sends a read elsewhere in the bucket.
func parseLocator(rest string) (locator, bool) {
	span, object, ok := strings.Cut(rest, "/")
	if !ok || len(span) != 25 || span[12] != '-' {
		return locator{}, false
	}
	first, ok1 := millis(span[:12])
	last, ok2 := millis(span[13:])
	if !ok1 || !ok2 || first > last {
		return locator{}, false
	}
	if !objectKeyOK(object) {
		return locator{}, false
	}
	return locator{first: first, last: last, object: object}, true
}

// objectKeyOK reports whether key is one a Shipper writes:
// PREFIX/REPLICA/JOURNAL/NNNNNNNN.journal, PREFIX Prefix or LegacyPrefix.
func objectKeyOK(key string) bool {
	rest, ok := strings.CutPrefix(key, Prefix)
	if !ok {
		if rest, ok = strings.CutPrefix(key, LegacyPrefix); !ok {
			return false
		}
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 || !ValidReplica(parts[0]) || len(parts[1]) != 16 ||
		!receipt.ValidRunID(parts[1]) {
		return false
	}
	n, ok := segmentOfKey(parts[2])
	return ok && n >= 1 && fmt.Sprintf("%08d.journal", n) == parts[2]
}

// millis reads 12 lower-case hexadecimal digits, as a locator's times are
// written.
func millis(digits string) (int64, bool) {
	if len(digits) != 12 || !receipt.ValidRunID(digits) {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 16, 64)
	return n, err == nil
}
