//go:build !linux

package doorcmd

import (
	"fmt"
	"runtime"
)

// confineServer: on this system a door's own process is not held; its
// workers are, each by its own policy.
func confineServer(serverDomain) (string, error) {
	return "", fmt.Errorf("%w (%s): its workers are held, each by its own policy",
		errServerNotConfined, runtime.GOOS)
}
