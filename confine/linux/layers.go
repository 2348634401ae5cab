package linux

// LayersOnlyEnv names the variable that, in a knock-out build (built with
// -tags sabline_knockout) and only there, makes Apply install one Linux
// layer alone: "landlock", "seccomp" or "capabilities". The escape checks
// use it to learn which layers stop a target on their own. The Result says
// which layers were left out. Any other build never reads it.
const LayersOnlyEnv = "SABLINE_LAYERS_ONLY"

// The layers LayersOnlyEnv names, and the memory limit, which this package's
// own tests make the kernel refuse.
const (
	layerLandlockOnly     = "landlock"
	layerSeccompOnly      = "seccomp"
	layerCapabilitiesOnly = "capabilities"
	layerMemory           = "memory"
)
