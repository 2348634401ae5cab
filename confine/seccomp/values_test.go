package seccomp

// Linux values the tests pass to the socket calls, which the filter
// refuses whatever their arguments but getsockopt's: kernel_linux_test.go
// checks each against golang.org/x/sys/unix.
const (
	afInet       = 2
	afInet6      = 10
	sockStream   = 1
	sockDgram    = 2
	sockTypeMask = 0xf // the socket type without SOCK_NONBLOCK and SOCK_CLOEXEC
	ipprotoTCP   = 6
	ipprotoUDP   = 17
	ipprotoMPTCP = 262
	ipprotoIPv6  = 41

	soError      = 4  // SO_ERROR
	soBroadcast  = 6  // SO_BROADCAST
	soKeepalive  = 9  // SO_KEEPALIVE
	tcpNodelay   = 1  // TCP_NODELAY
	tcpKeepidle  = 4  // TCP_KEEPIDLE
	tcpKeepintvl = 5  // TCP_KEEPINTVL
	tcpKeepcnt   = 6  // TCP_KEEPCNT
	ipv6V6only   = 26 // IPV6_V6ONLY
)
