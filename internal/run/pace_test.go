package run

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTempDirMeasurePaced: the measure of a worker's temporary directory,
// made at the ticks of its bounds watch over 10 s of a clock of the
// test's own, takes at most a tenth of that time however dear each
// measure is (measureShare): 250 ms a measure, what 9,990 empty
// directories took here, was a whole processor's time when each tick
// measured (the ticks a measure outlasts are dropped, as a
// time.Ticker's are): 34 measures, 8.5 s of the 10. Each is made at the
// first tick that comes ten times what the one before took after that
// one began, no sooner and no later. The controls: a measure
// of 1 ms, a run's few files, is made at every one of the 100 ticks; and
// a measure's bound, once it is made, is what the watch is told.
func TestTempDirMeasurePaced(t *testing.T) {
	const span = 10 * time.Second
	var began []time.Duration // when each measure of the last ticks began, from the epoch
	ticks := func(cost time.Duration, err error) (measures int, spent time.Duration, told int) {
		epoch := time.Unix(0, 0)
		now := epoch
		began = nil
		p := pace{now: func() time.Time { return now }}
		for at := BoundsWatchEvery; at <= span; at += BoundsWatchEvery {
			if now.After(epoch.Add(at)) {
				continue // a tick the measure before outlasted: dropped
			}
			now = epoch.Add(at)
			if p.measure(func() error {
				measures++
				spent += cost
				began = append(began, now.Sub(epoch))
				now = now.Add(cost)
				return err
			}) != nil {
				told++
			}
		}
		return measures, spent, told
	}

	measures, spent, _ := ticks(250*time.Millisecond, nil)
	if most := span/measureShare + 250*time.Millisecond; spent > most {
		t.Errorf("measures of 250 ms: %d of them took %v of %v, more than %v", measures, spent,
			span, most)
	}
	t.Logf("measures of 250 ms: %d, %v of %v", measures, spent, span)
	// Each is made at the first tick no sooner than measureShare times
	// what the one before took after it began: 2.5 s after, at its own
	// tick (2.6 s, not 2.7), never 2.3 s (nine times) nor 2.8 s (ten
	// times from its end), so that a run past its bound is stopped no
	// later than the doc says.
	for i := 1; i < len(began); i++ {
		gap, least := began[i]-began[i-1], measureShare*250*time.Millisecond
		if gap < least || gap >= least+BoundsWatchEvery {
			t.Errorf("measures of 250 ms began at %v: %v apart, want at the first tick %v "+
				"after the one before began", began, gap, least)
			break
		}
	}

	if measures, _, _ := ticks(time.Millisecond, nil); measures != int(span/BoundsWatchEvery) {
		t.Errorf("measures of 1 ms: %d made, want one at each of the %d ticks", measures,
			span/BoundsWatchEvery)
	}
	past := errors.New("past the bound")
	if measures, _, told := ticks(250*time.Millisecond, past); told != measures || told == 0 {
		t.Errorf("a measure past its bound was told %d times of the %d it was made", told, measures)
	}
}

// BenchmarkTempDirWatch: the supervisor's time measuring a worker's
// private temporary directory of 9,990 empty directories, for each second
// of the worker's run (an op: ten ticks of the watch, on a clock that
// the measures advance by what they take), measured at every tick as
// before (every-tick) and paced (paced). Run side by side, their ns/op
// are the cost cut: paced is about a tenth of every-tick, a measure made
// at the first tick and then no sooner than ten times what it took.
func BenchmarkTempDirWatch(b *testing.B) {
	dir := b.TempDir()
	for i := range 9990 {
		if err := os.Mkdir(filepath.Join(dir, fmt.Sprint(i)), 0o700); err != nil {
			b.Fatal(err)
		}
	}
	for _, paced := range []bool{false, true} {
		name := map[bool]string{false: "every-tick", true: "paced"}[paced]
		b.Run(name, func(b *testing.B) {
			now := time.Now()
			p := pace{now: func() time.Time { return now }}
			next := now
			for range b.N {
				for end := now.Add(time.Second); next.Before(end); next = next.Add(BoundsWatchEvery) {
					if now.After(next) {
						continue // a tick the measure before outlasted: dropped
					}
					now = next
					m := func() error {
						began := time.Now()
						err := tempDirWithin(dir, os.Getpid())
						now = now.Add(time.Since(began))
						return err
					}
					if paced {
						_ = p.measure(m)
					} else {
						_ = m()
					}
				}
			}
		})
	}
}
