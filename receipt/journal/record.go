package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"
)

// The record format, version 1, little-endian:
//
//	offset size field
//	0      4    magic: 0xFF 'S' 'b' 'J'
//	4      1    format version (1)
//	5      1    flags (0; any other value is refused)
//	6      2    key length K (1..MaxKeyBytes)
//	8      4    payload length P (0..MaxPayloadBytes)
//	12     4    CRC-32C (Castagnoli) of the key then the payload
//	16     4    CRC-32C of bytes 0..15 (the header check)
//	20     K    key
//	20+K   P    payload
//
// The magic begins with 0xFF, a byte that never occurs in UTF-8: inside a
// JSON payload no record can seem to begin, so a reader looking for the
// next record after damaged bytes never starts inside a receipt.
const (
	headerSize    = 20
	formatVersion = 1
)

var magic = [4]byte{0xFF, 'S', 'b', 'J'}

// MaxPayloadBytes bounds a record's payload: the size of the largest
// receipt Sabline reads. A record claiming more is damage, and Append
// refuses a larger payload.
const MaxPayloadBytes = 8 << 20

// MaxKeyBytes bounds a record's key.
const MaxKeyBytes = 256

// castagnoli is the CRC-32C table, made on first use: a process that keeps
// no receipt in a journal (a worker, say) never pays for it.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// ErrKey is the error Append returns for a key that is empty, longer than
// MaxKeyBytes, or holds a byte outside printable ASCII (space and the
// characters 0x21..0x7E).
var ErrKey = errors.New("journal: invalid key")

// ErrTooLarge is the error Append returns for a payload over
// MaxPayloadBytes.
var ErrTooLarge = errors.New("journal: payload larger than MaxPayloadBytes")

// validKey reports whether key is one a record may carry: 1..MaxKeyBytes
// bytes of printable ASCII. An allow-list: a reader refuses any other key
// as damage.
func validKey[T string | []byte](key T) bool {
	if len(key) == 0 || len(key) > MaxKeyBytes {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7E {
			return false
		}
	}
	return true
}

// checkRecord returns why key and payload cannot be a record, or nil.
func checkRecord(key string, payload []byte) error {
	if !validKey(key) {
		return fmt.Errorf("%w: %q", ErrKey, truncate(key))
	}
	if len(payload) > MaxPayloadBytes {
		return fmt.Errorf("%w: %d bytes", ErrTooLarge, len(payload))
	}
	return nil
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// AppendRecord appends the record of key and payload to dst, in the
// format of a segment, and returns it: a segment copied elsewhere can be
// made of records this way and read with ScanBytes.
func AppendRecord(dst []byte, key string, payload []byte) ([]byte, error) {
	if err := checkRecord(key, payload); err != nil {
		return dst, fmt.Errorf("journal record: %w", err)
	}
	return encodeRecord(dst, key, payload), nil
}

// encodeRecord appends the record of key and payload to dst and returns
// it. The caller has checked them (checkRecord).
func encodeRecord(dst []byte, key string, payload []byte) []byte {
	start := len(dst)
	dst = append(dst, magic[:]...)
	dst = append(dst, formatVersion, 0)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(key)))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(payload)))
	crc := crc32.Update(0, castagnoli(), []byte(key))
	crc = crc32.Update(crc, castagnoli(), payload)
	dst = binary.LittleEndian.AppendUint32(dst, crc)
	dst = binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:start+16], castagnoli()))
	dst = append(dst, key...)
	return append(dst, payload...)
}

// header is a record header that passed its checks.
type header struct {
	keyLen, payloadLen int
	crc                uint32
}

// parseHeader checks the headerSize bytes of b: magic, version, flags,
// header check, and the bounds of both lengths. It returns why they are
// not a header, or "".
func parseHeader(b []byte) (header, string) {
	if [4]byte(b[0:4]) != magic {
		return header{}, "no record magic"
	}
	if crc32.Checksum(b[:16], castagnoli()) != binary.LittleEndian.Uint32(b[16:20]) {
		return header{}, "header checksum mismatch"
	}
	if b[4] != formatVersion {
		return header{}, fmt.Sprintf("unknown format version %d", b[4])
	}
	if b[5] != 0 {
		return header{}, fmt.Sprintf("unknown flags %#x", b[5])
	}
	h := header{
		keyLen:     int(binary.LittleEndian.Uint16(b[6:8])),
		payloadLen: int(binary.LittleEndian.Uint32(b[8:12])),
		crc:        binary.LittleEndian.Uint32(b[12:16]),
	}
	if h.keyLen == 0 || h.keyLen > MaxKeyBytes {
		return header{}, fmt.Sprintf("key length %d out of bounds", h.keyLen)
	}
	if uint32(h.payloadLen) > MaxPayloadBytes {
		return header{}, fmt.Sprintf("payload length %d over %d", uint32(h.payloadLen), MaxPayloadBytes)
	}
	return h, ""
}
