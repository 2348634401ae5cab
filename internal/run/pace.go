package run

import "time"

// measureShare bounds the share of a processor that the measure of one
// worker's private temporary directory (tempDirWithin) takes in its
// supervisor: a measure that took d is made again no sooner than
// measureShare times d after it began, at the watch's first tick from
// then. A run's few files take some µs to measure, and are measured at
// every tick (BoundsWatchEvery). A program can make the measure dear:
// 9,990 empty directories took 250 ms a measure here, a chain of
// directories as deep as PATH_MAX lets the walk go 600 ms, 4,000 held
// descriptors 25 ms; measured at every tick, each such run cost its
// supervisor a whole processor, or a quarter of one, while its program
// slept, and three beside one another in a door took 650 to 860 ms of
// its processor time a second and made another tenant's hello two to
// seven times slower. Paced, such a run costs at most a tenth of a
// processor (the door's three, 80 to 210 ms a second), and is
// measured less often: its bounds are the same, but it is stopped later
// past them, by at most ten times what one measure of it takes.
const measureShare = 10

// pace makes a measure no more often than measureShare allows. It is
// used by one goroutine at a time (a worker's watch of its bounds).
type pace struct {
	next time.Time        // the earliest the next measure is made; the zero Time: at once
	now  func() time.Time // time.Now, but in tests
}

// measure runs m, and returns its error, unless the last measure was too
// recent for what it took (then nil: nothing was measured).
func (p *pace) measure(m func() error) error {
	clock := p.now
	if clock == nil {
		clock = time.Now
	}
	began := clock()
	if began.Before(p.next) {
		return nil
	}
	err := m()
	p.next = began.Add(measureShare * clock().Sub(began))
	return err
}
