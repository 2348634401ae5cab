package run

import (
	"os"
	"sync"
)

// selfImage is the kernel's link to the image this process runs: the
// same file for as long as the process lives, whatever its path names
// since, a new binary renamed over it (a package upgrade) or nothing.
const selfImage = "/proc/self/exe"

// workerExecutable is the file a supervisor starts its workers from: on
// Linux, its own image by selfImage, so that a worker is always the
// supervisor's build, and a door, which holds itself to executing the
// executable it started from (docs/serve.md), starts one after an
// upgrade renamed another binary over that path
// (TestServeBinaryReplaced); where /proc is not mounted, the path
// os.Executable gives.
var workerExecutable = sync.OnceValues(func() (string, error) {
	if _, err := os.Stat(selfImage); err == nil {
		return selfImage, nil
	}
	return os.Executable()
})
