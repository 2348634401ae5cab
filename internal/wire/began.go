package wire

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// Began is the count of jobs a pool worker has begun, kept on a page of
// memory its supervisor shares with it (Linux; see NewBegan). The worker
// adds one as it begins a job: after the job's read returned and before
// anything of the job is done. Once the worker has died, the supervisor
// reads the count to learn whether the last job it sent had begun: a job
// the count never reached did nothing, whatever became of its bytes (a
// thread woken by a kill can read a job out of the pipe and die before
// it returns from the read), and can go to another worker.
//
// The worker can write any count: one too low at most has a job it ran
// run once more on another worker (a pool sends a job again once, and
// never one whose program may make raw system calls, which can write the
// page too), one too high ends a run killed that had not begun, as
// without the page.
//
// A nil *Began, or one closed, is no page: Count says so, and Add does
// nothing.
type Began struct {
	mu  sync.Mutex // Count and Close in the supervisor, never Add
	mem []byte     // the page, nil once closed
}

// Add counts one more job begun (the worker's side).
func (b *Began) Add() {
	if b != nil && b.mem != nil {
		atomic.AddUint64(b.word(), 1)
	}
}

// Count is the count of jobs begun (the supervisor's side), and false
// where there is no page to read.
func (b *Began) Count() (uint64, bool) {
	if b == nil {
		return 0, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mem == nil {
		return 0, false
	}
	return atomic.LoadUint64(b.word()), true
}

// Close unmaps the page; Count then says there is none.
func (b *Began) Close() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	mem := b.mem
	b.mem = nil
	if mem == nil {
		return nil
	}
	return unmap(mem)
}

// word is the count: the page's first 8 bytes (a page is aligned).
func (b *Began) word() *uint64 { return (*uint64)(unsafe.Pointer(&b.mem[0])) }
