package seccomp

// The tables of both ABIs, as the tests read them: built once when the
// test binary starts, where the package itself builds each on first use.
var (
	archAMD64 = amd64Arch()
	archARM64 = arm64Arch()
)
