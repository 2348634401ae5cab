//go:build linux

package guard

import (
	"fmt"
	"io"
	"os"
)

// ReadMounts reads this process's mount table, /proc/self/mountinfo,
// within maxMountInfoBytes (ParseMountInfo). A table it read in part comes
// with the error that says why.
func ReadMounts() ([]Mount, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("read the mount table: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMountInfoBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read the mount table: %w", err)
	}
	return ParseMountInfo(data)
}
