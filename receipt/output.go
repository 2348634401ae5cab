package receipt

import "fmt"

// StdoutCut says what a run's standard output kept for its caller left
// out: set when the caller was given only the first of what the program
// printed (a pooled run's result holds at most 1 MiB of it, and so does a
// library run's Result, sabline.Run with no Stdout), nil when it was
// given all of it, or took the output as it came (the command line's).
type StdoutCut struct {
	// Bytes is what the program printed on its standard output in all.
	Bytes int64 `json:"bytes"`
	// KeptBytes is what the caller was given: the first KeptBytes of it.
	KeptBytes int64 `json:"kept_bytes"`
}

// CutStdout is the StdoutCut of a run that printed printed bytes, of
// which its caller was given the first kept; nil when that is all of them.
func CutStdout(printed, kept int64) *StdoutCut {
	if printed <= kept {
		return nil
	}
	return &StdoutCut{Bytes: printed, KeptBytes: kept}
}

// StdoutLine says, in one line for the operator (a run's messages, and
// sabline receipts show), what the caller was given of the run's
// standard output when it was not all of it; "" when it was.
func (rec *Receipt) StdoutLine() string {
	c := rec.StdoutCut
	if c == nil {
		return ""
	}
	return fmt.Sprintf("stdout: CUT: the program printed %d bytes; the caller was given the first "+
		"%d, and the other %d were dropped (the receipt's stdout_cut)", c.Bytes, c.KeptBytes,
		c.Bytes-c.KeptBytes)
}
