//go:build !linux

package journal

import "os"

// dataFrom says nothing of where f's data lies here: the caller reads
// on from off.
func dataFrom(f *os.File, off, end int64) (int64, bool) { return 0, false }
