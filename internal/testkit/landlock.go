package testkit

// StackedExecEnv, set in a test binary's environment, names a binary
// that the test binary executes in its place (StackedExec), with its own
// arguments, once it holds as many Landlock domains as the kernel stacks.
const StackedExecEnv = "SABLINE_TEST_STACKED_EXEC"
