package receipt

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"unicode/utf8"

	"github.com/sabline/sabline/codes"
)

// MaxArgsBytes bounds the program arguments a receipt keeps: their bytes
// in all, counted before the JSON encoding (which may write a control
// character in six). Arguments past it are kept by their digest, count
// and size (ArgsCut), after the first MaxArgsBytes of them.
const MaxArgsBytes = 64 << 10

// MaxArgsKept bounds how many arguments a receipt lists, so that many
// empty ones are bounded too; a door refuses a request with more
// (door.decodeRunRequest).
const MaxArgsKept = 4096

// ArgsDigestForm says how ArgsCut.SHA256 is taken, for a client that
// checks it against the arguments it sent.
const ArgsDigestForm = "SHA-256 of each argument in order, as its length in bytes " +
	"(8 bytes, big-endian) then its bytes"

// ArgsCut says what a receipt's Args leave out of the run's arguments:
// set when Args does not hold them whole. A finished receipt leaves out
// those past MaxArgsBytes or MaxArgsKept; the skeleton a store reserves
// keeps none of them, only this, as the finished receipt keeps them.
type ArgsCut struct {
	// SHA256 is the digest of every argument (ArgsDigestForm).
	SHA256 string `json:"sha256"`
	// Count and Bytes are how many arguments the run had and their bytes
	// in all.
	Count int   `json:"count"`
	Bytes int64 `json:"bytes"`
	// KeptCount and KeptBytes are how many of them Args holds and their
	// bytes; the last one kept may be only the beginning of its argument
	// (cut at a character's boundary).
	KeptCount int   `json:"kept_count"`
	KeptBytes int64 `json:"kept_bytes"`
}

// argsDigest is the digest, count and size of args, keeping none.
func argsDigest(args []string) ArgsCut {
	h := sha256.New()
	var n [8]byte
	var total int64
	for _, a := range args {
		binary.BigEndian.PutUint64(n[:], uint64(len(a)))
		h.Write(n[:])
		h.Write([]byte(a))
		total += int64(len(a))
	}
	return ArgsCut{SHA256: hex.EncodeToString(h.Sum(nil)), Count: len(args), Bytes: total}
}

// ArgsBytes is the size of args in all, as MaxArgsBytes counts it.
func ArgsBytes(args []string) int64 {
	var total int64
	for _, a := range args {
		total += int64(len(a))
	}
	return total
}

// ArgsFit reports whether a receipt keeps args whole: at most
// MaxArgsKept of them, MaxArgsBytes in all.
func ArgsFit(args []string) bool {
	return len(args) <= MaxArgsKept && ArgsBytes(args) <= MaxArgsBytes
}

// keepArgs is what a receipt keeps of args: all of them when they fit
// (ArgsFit), with no ArgsCut; else the first MaxArgsBytes of them (at
// most MaxArgsKept arguments) and what was cut. The list returned is
// never nil and never args itself, which the caller may change.
func keepArgs(args []string) ([]string, *ArgsCut) {
	if ArgsFit(args) {
		return append([]string{}, args...), nil
	}
	cut := argsDigest(args)
	kept := []string{}
	left := int64(MaxArgsBytes)
	for _, a := range args {
		if len(kept) == MaxArgsKept {
			break
		}
		if int64(len(a)) > left {
			// The argument that crosses the bound keeps its beginning,
			// and none after it is kept.
			if p := prefix(a, int(left)); p != "" {
				kept = append(kept, p)
				cut.KeptBytes += int64(len(p))
			}
			break
		}
		kept = append(kept, a)
		left -= int64(len(a))
		cut.KeptBytes += int64(len(a))
	}
	cut.KeptCount = len(kept)
	return kept, &cut
}

// prefix is the first n bytes of s (n < len(s)) at most, cut back to a
// character's boundary when s is UTF-8: a JSON encoder writes a broken
// character as U+FFFD, which the argument did not hold.
func prefix(s string, n int) string {
	if utf8.ValidString(s) {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
	}
	return s[:n]
}

// ArgsWhole reports whether the receipt holds the run's arguments whole:
// false when it keeps only their beginning, or only their digest (a
// skeleton's), and ArgsCut says what.
func (rec *Receipt) ArgsWhole() bool { return rec.ArgsCut == nil }

// ArgsLine says, in one line for the operator, what the receipt keeps of
// the run's arguments when it does not keep them whole; "" when it does.
func (rec *Receipt) ArgsLine() string {
	c := rec.ArgsCut
	if c == nil {
		return ""
	}
	return fmt.Sprintf("args: CUT: the receipt keeps %d of the %d arguments, %d of their %d bytes "+
		"(the last kept may be cut too); all of them have sha256 %s (%s)", c.KeptCount, c.Count,
		c.KeptBytes, c.Bytes, codes.Clip(c.SHA256, 64), ArgsDigestForm)
}
