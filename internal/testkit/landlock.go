package testkit

// MaxLandlockDomains is the most Landlock domains a Linux kernel stacks on
// a thread (LANDLOCK_MAX_NUM_LAYERS): one more is refused with E2BIG.
const MaxLandlockDomains = 16

// StackedExecEnv, set in a test binary's environment, names a binary
// that the test binary executes in its place (StackedExec), with its own
// arguments, once it holds MaxLandlockDomains Landlock domains.
const StackedExecEnv = "SABLINE_TEST_STACKED_EXEC"
