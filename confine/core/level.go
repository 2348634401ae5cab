package core

import (
	"errors"
	"strconv"
)

// Level is how much of a run's budget the kernel holds.
type Level string

// The levels, from most to least held.
const (
	// Full: every file, network and process limit of the run's budget is
	// held by the kernel.
	Full Level = "full"
	// Partial: some limits are held; the reason names each that is not.
	Partial Level = "partial"
	// None: nothing is held.
	None Level = "none"
)

// Rank orders levels: Full 2, Partial 1, None 0, anything else -1.
func (l Level) Rank() int {
	switch l {
	case Full:
		return 2
	case Partial:
		return 1
	case None:
		return 0
	}
	return -1
}

// ParseLevel reads a level name as --require-confinement takes it.
func ParseLevel(s string) (Level, error) {
	l := Level(s)
	if l.Rank() < 0 {
		return "", errors.New("a confinement level is full, partial or none")
	}
	return l, nil
}

// Result is what a run's confinement held: the level, the reason, the
// layers the kernel accepted, and the gaps the level and the reason are
// made from. It is what receipts record. Make one with ResultOf, as each
// system's assessment and confine.Predict do, and add to it with With; the
// level and the reason are never set apart from the gaps.
type Result struct {
	Level  Level    `json:"level"`
	Reason string   `json:"reason"`
	Layers []string `json:"layers"`
	Gaps   []Gap    `json:"gaps,omitempty"`
}

// Layer names, as receipts and the ENFORCES table spell them.
const (
	LayerSeccomp        = "seccomp"
	LayerCapabilities   = "capabilities-dropped"
	LayerSandboxProfile = "sandbox-profile"
	LayerJobObject      = "job-object"
	LayerTokenPrivs     = "token-privileges-removed"
	LayerLowIntegrity   = "low-integrity"
	LayerAppContainer   = "appcontainer"
	LayerLanguage       = "language"
)

// LayerLandlockFamily is the Landlock layer in the ENFORCES table, where
// no ABI is named: a Result names the one applied (LayerLandlock(7) is
// "landlock-abi7").
const LayerLandlockFamily = "landlock"

// LayerLandlock names the Landlock layer at an ABI: landlock-abi7.
func LayerLandlock(abi int) string {
	return "landlock-abi" + strconv.Itoa(abi)
}

// Needs are the machine's paths for the interpreter's own needs that a
// policy names (NeedExecutable and the rest). confine.Apply gathers them;
// the pure planners take them as an argument so that tests can give fixed
// ones.
type Needs struct {
	Executable string   // the running binary
	TempDir    string   // the run's private temporary directory
	TZData     []string // time zone database directories or files
	Resolver   []string // resolver configuration files (net grants only)
	TLSRoots   []string // TLS root certificate files and directories (net grants only)
	// OperatorTLSRoots are the TLS roots the operator's environment names
	// (SSL_CERT_FILE, SSL_CERT_DIR), under a net grant only: a path no
	// grant may reach is not held for them either (NeedPath.Operator).
	OperatorTLSRoots []string
}

// ErrUnsupported is returned by confine.Apply on a system for which
// Sabline has no confinement: the run is not confined, and says so.
var ErrUnsupported = errors.New("confine: this operating system has no confinement in this build")
