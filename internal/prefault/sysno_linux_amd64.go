package prefault

// The system call numbers the package makes (asm/unistd_64.h), held to
// the syscall package's and internal/sysno's by TestSystemCallNumbers.
const (
	sysMincore = 27
	sysMadvise = 28
)
