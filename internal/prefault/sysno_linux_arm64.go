package prefault

// The system call numbers the package makes (asm-generic/unistd.h), held
// to the syscall package's and internal/sysno's by TestSystemCallNumbers.
const (
	sysMincore = 232
	sysMadvise = 233
)
