package lang

import "strings"

// Refusal names what of the operating system refused an effect, for a
// run held by it: the name of err's errno (the system's own, such as
// "EACCES" or "ERROR_ACCESS_DENIED"), and the layers of applied (the
// layers the kernel holds under the run, named as confinement names them)
// that may have refused with it; none when err is no such refusal. The
// language knows no layer: its caller, which applied them, hands it one
// (see Config.Refusal).
type Refusal func(err error, applied []string) (errno string, layers []string)

// LayerList names the layers a Refusal returned, as a message says them
// after "refused by": the layer, or "one of A, B; the errno does not tell
// which" when it does not.
func LayerList(layers []string) string {
	if len(layers) > 1 {
		return "one of " + strings.Join(layers, ", ") + "; the errno does not tell which"
	}
	return strings.Join(layers, ", ")
}
