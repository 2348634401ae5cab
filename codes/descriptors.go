package codes

import (
	"errors"
	"syscall"
)

// OutOfDescriptors reports whether err is the system's refusal of a file
// descriptor: the process's limit reached (EMFILE) or the system's
// (ENFILE). Neither is a fault of Sabline's nor of what the caller named,
// so an error carrying it says what to do about the limit (DescriptorsDo)
// and not what its code's general advice says.
func OutOfDescriptors(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// DescriptorsDo is what to do when this process ran out of file
// descriptors while doing what the phrase doing names ("starting the
// worker", "reserving the run's receipt").
func DescriptorsDo(doing string) string {
	return "This process ran out of file descriptors " + doing + ": its limit (ulimit -n), " +
		"or the system's, is too low for a run, which takes some 20 beside those the process " +
		"holds. Raise the limit (ulimit -n 1024, a unit's LimitNOFILE) or close what the " +
		"caller holds open, and run it again."
}
