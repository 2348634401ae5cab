//go:build unix

package receipt

import "os"

// syncDir flushes the directory dir, so that a name made in it by a
// rename reaches the device.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
