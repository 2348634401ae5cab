// Package journal is an append-only store of records for Sabline's
// receipts: a directory of segment files (00000001.journal, ...) holding
// records of a key and a payload, each with a CRC-32C, written by Append
// with one write(2) on a file opened with O_APPEND (or, in a journal one
// process owns, Options.Exclusive, in place over zeros laid ahead of the
// records, so that a sync need not commit a new file size) and synced by
// a committer goroutine that shares one fdatasync among every record
// appended since the last (group commit). A record whose Append returned
// survives a crash of the process (kill -9) at once, and a power cut once
// it is synced: within Options.CommitInterval plus one fdatasync, or when
// AppendSync or Sync returns. A record is read whole or not at all: Scan
// and Find check every record and pass over damaged bytes (a record cut by
// a power cut, garbage written into a segment), reporting them, and read
// the records after them. Several processes may append to one directory
// on Linux and other Unix systems; on Windows one process at a time.
// TryLock is the lock an owner holds to keep a journal its own; Remove
// removes a segment the owner has moved past, never the newest; an Index
// finds a record again and again by a name drawn from its key, reading
// each segment once. The
// package imports no other Sabline package; README.md gives the format,
// the promises and the measured speed.
package journal
