package receipt

import (
	"os"

	"golang.org/x/sys/unix"
)

// lookout returns a channel that receives when an entry is made in dir or
// moved into it, as the kernel tells (inotify(7)), so that a store waits
// for a SealRequestFile without waking while none is made: an idle
// process that holds a store wakes for nothing. Where inotify cannot
// watch dir, or stops reading, it looks every sealEvery instead.
func lookout(dir string) <-chan struct{} {
	c := make(chan struct{}, 1)
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		go tick(c)
		return c
	}
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_CREATE|unix.IN_MOVED_TO); err != nil {
		unix.Close(fd)
		go tick(c)
		return c
	}
	events := os.NewFile(uintptr(fd), "inotify "+dir) // non-blocking: read in the poller
	go func() {
		defer events.Close()
		buf := make([]byte, 4096)
		for {
			if _, err := events.Read(buf); err != nil {
				tick(c)
				return
			}
			notify(c)
		}
	}()
	return c
}
