//go:build windows

package lang

import (
	"os"

	"golang.org/x/sys/windows"
)

// FileIDOf is the identity of the file f is open on: its volume's serial
// number and its file index. ok is false when it cannot be read.
func FileIDOf(f *os.File) (id FileID, ok bool) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return FileID{}, false
	}
	return FileID{
		Dev: uint64(info.VolumeSerialNumber),
		Ino: uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow),
	}, true
}
