package receipt

import (
	"encoding/binary"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// lookout returns a channel that receives when an entry is made in dir or
// moved into it, as the kernel tells (inotify(7)), so that a store waits
// for a SealRequestFile without waking while none is made: an idle
// process that holds a store wakes for nothing. Every store of the
// process is watched through one inotify instance (lookouts), whatever
// the number of receipts directories it opens: the instances are few
// (fs.inotify.max_user_instances, 128 by default) and shared by every
// process of the user. Where inotify cannot watch dir, or stops reading,
// it looks every sealEvery instead.
func lookout(dir string) <-chan struct{} {
	c := make(chan struct{}, 1)
	if !lookouts.watch(dir, c) {
		go tick(c)
	}
	return c
}

// lookouts is the process's one inotify instance, made at the first
// lookout, and the channel each of its watches tells.
var lookouts inotify

// inotify is an inotify instance and the channel of each of its watches
// (by watch descriptor), read by one goroutine in the poller.
type inotify struct {
	once   sync.Once
	fd     int   // -1 where the instance could not be made
	err    error // why it could not be made
	mu     sync.Mutex
	failed bool                    // the read failed: every watch now ticks
	chans  map[int32]chan struct{} // by watch descriptor
}

// watch adds a watch of dir that notifies c, and reports whether it did.
func (in *inotify) watch(dir string, c chan struct{}) bool {
	in.once.Do(in.start)
	if in.fd < 0 {
		return false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.failed {
		return false
	}
	wd, err := unix.InotifyAddWatch(in.fd, dir, unix.IN_CREATE|unix.IN_MOVED_TO)
	if err != nil {
		return false
	}
	in.chans[int32(wd)] = c
	return true
}

// start makes the instance and the goroutine that reads it.
func (in *inotify) start() {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		in.fd, in.err = -1, err
		return
	}
	in.fd, in.chans = fd, map[int32]chan struct{}{}
	go in.read(os.NewFile(uintptr(fd), "inotify")) // non-blocking: read in the poller
}

// lookoutErr is why the process has no inotify instance to watch its
// stores' directories through (the user's are all in use: EMFILE), nil
// when it has one. It makes the instance if no lookout has yet.
func lookoutErr() error {
	lookouts.once.Do(lookouts.start)
	return lookouts.err
}

// read tells each event's watch, until a read fails; then every watch
// falls back to the clock's look.
func (in *inotify) read(events *os.File) {
	buf := make([]byte, 64<<10)
	for {
		n, err := events.Read(buf)
		if err != nil {
			in.mu.Lock()
			in.failed = true
			for _, c := range in.chans {
				go tick(c)
			}
			in.mu.Unlock()
			return
		}
		in.mu.Lock()
		for _, wd := range watchesOf(buf[:n]) {
			if c := in.chans[wd]; c != nil {
				notify(c)
			}
		}
		in.mu.Unlock()
	}
}

// watchesOf is the watch descriptor of each event in what one read of an
// inotify instance gave: struct inotify_event, a 16-byte head (wd, mask,
// cookie, len) and len bytes of name. An event cut short ends the list.
func watchesOf(events []byte) []int32 {
	var wds []int32
	for len(events) >= unix.SizeofInotifyEvent {
		wds = append(wds, int32(binary.NativeEndian.Uint32(events[0:4])))
		name := uint64(binary.NativeEndian.Uint32(events[12:16]))
		if name > uint64(len(events)-unix.SizeofInotifyEvent) {
			break
		}
		events = events[unix.SizeofInotifyEvent+int(name):]
	}
	return wds
}
