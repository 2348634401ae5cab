//go:build linux

package doorcmd

import (
	"fmt"

	"github.com/sabline/sabline/confine/linux"
)

// confineServer restricts every thread of the process to d, for good,
// with the one Landlock apply a worker uses (linux.ApplyLandlock: the
// ruleset was planned at this kernel's ABI), and says at which ABI. It
// sets no_new_privs. A failure is errServerNotConfined and the reason.
// Nothing is carved: the server reads and writes the receipts, which
// each worker's own domain, nested inside this one, carves out.
func confineServer(d serverDomain) (string, error) {
	applied, err := linux.ApplyLandlock(d.LandlockRuleset, nil, nil)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errServerNotConfined, err)
	}
	held := fmt.Sprintf("Landlock ABI %d", applied.ABI)
	if d.HandledNet == 0 {
		held += ", without its network rights"
	}
	return held, nil
}
