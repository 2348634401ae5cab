package escape

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// describeMore reads the owner, ctime, link count and inode; attribute
// flags and extended attributes are read on Linux only, where the
// targets that change them can run.
func describeMore(_ string, fi fs.FileInfo) ([]string, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, errors.New("no stat_t")
	}
	return []string{
		fmt.Sprintf("uid=%d", st.Uid), fmt.Sprintf("gid=%d", st.Gid),
		fmt.Sprintf("ctime=%d", st.Ctimespec.Nano()),
		fmt.Sprintf("nlink=%d", st.Nlink), fmt.Sprintf("ino=%d", st.Ino),
	}, nil
}
