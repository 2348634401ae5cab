package doorcmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// gated is a log's reader: it takes what is written, and while held it
// takes the next write only once let go, as a reader that stopped
// reading does.
type gated struct {
	mu   sync.Mutex
	cond sync.Cond // on mu: more was written
	got  bytes.Buffer

	held    chan struct{} // closed to let the writes go on
	waiting chan struct{} // receives once a write waits on held
}

func newGated(held bool) *gated {
	g := &gated{held: make(chan struct{}), waiting: make(chan struct{}, 1)}
	g.cond.L = &g.mu
	if !held {
		close(g.held)
	}
	return g
}

func (g *gated) Write(p []byte) (int, error) {
	select {
	case <-g.held:
	default:
		g.waiting <- struct{}{}
		<-g.held
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	defer g.cond.Broadcast()
	return g.got.Write(p)
}

// waitFor returns once n lines were written.
func (g *gated) waitFor(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for bytes.Count(g.got.Bytes(), []byte("\n")) < n {
		g.cond.Wait()
	}
}

func (g *gated) lines() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return strings.Split(strings.TrimSuffix(g.got.String(), "\n"), "\n")
}

// TestLogSinkKeepsEveryLineInOrder: four writers at once, a reader that
// keeps up; after Close every line is there, each writer's in its order,
// and no line says any was left out.
func TestLogSinkKeepsEveryLineInOrder(t *testing.T) {
	const writers, each = 4, 500
	g := newGated(false)
	s := newLogSink(g, textNotice("serve"))
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				fmt.Fprintf(s, "w%d %d\n", w, i)
			}
		})
	}
	wg.Wait()
	s.Close()
	next := make([]int, writers)
	for _, line := range g.lines() {
		var w, i int
		if _, err := fmt.Sscanf(line, "w%d %d", &w, &i); err != nil {
			t.Fatalf("line %q: not one of the lines written", line)
		}
		if i != next[w] {
			t.Fatalf("writer %d's line %d came where its line %d was due", w, i, next[w])
		}
		next[w]++
	}
	for w, n := range next {
		if n != each {
			t.Errorf("writer %d: %d lines written out, want %d", w, n, each)
		}
	}
}

// TestLogSinkReaderStopped: while the reader takes nothing, writes
// return all the same; what waits is bounded by maxLogQueued, the lines
// past it are counted, and once the reader reads again it gets the lines
// kept, in order, then the count. The control: the same lines to a
// reader that keeps up are all kept, and no count is said.
func TestLogSinkReaderStopped(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n"
	total := maxLogQueued/len(line) + 500 // more than may wait
	for _, tc := range []struct {
		name        string
		held        bool
		wantDropped bool
	}{
		{name: "a reader that keeps up", held: false, wantDropped: false},
		{name: "a reader that stopped", held: true, wantDropped: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGated(tc.held)
			s := newLogSink(g, textNotice("serve"))
			fmt.Fprint(s, "first\n")
			if tc.held {
				<-g.waiting // the sink's writer waits on the reader with "first"
			}
			for i := range total {
				fmt.Fprintf(s, "%05d%s", i, line[5:])
				if !tc.held && i%1000 == 999 {
					g.waitFor(i + 2) // a reader that keeps up: never a full queue
				}
			}
			if tc.held {
				close(g.held) // every write above returned without the reader
			}
			s.Close()
			lines := g.lines()
			if lines[0] != "first" {
				t.Fatalf("first line %q: want first", lines[0])
			}
			kept, dropped := 0, 0
			for _, l := range lines[1:] {
				if dropped != 0 {
					t.Fatalf("line %q after the count of lines left out", l)
				}
				if _, err := fmt.Sscanf(l, "sabline serve: "+leftOut, &dropped); err == nil {
					continue
				}
				if n, err := strconv.Atoi(l[:5]); err != nil || n != kept {
					t.Fatalf("line %q where line %05d was due", l, kept)
				}
				kept++
			}
			if kept+dropped != total {
				t.Errorf("%d lines kept and %d said left out: want %d in all", kept, dropped, total)
			}
			if got := dropped > 0; got != tc.wantDropped {
				t.Errorf("%d lines left out: want some %v", dropped, tc.wantDropped)
			}
			if tc.held && kept*len(line) > maxLogQueued {
				t.Errorf("%d lines of %d bytes kept: more than the %d bytes that may wait", kept,
					len(line), maxLogQueued)
			}
		})
	}
}

// TestLogSinkCloseWithAReaderStopped: Close returns after its wait when
// the reader never takes what waits (the control: with a reader, it
// returns once all is written, TestLogSinkKeepsEveryLineInOrder); and a
// line written after a Close that finished is written at once.
func TestLogSinkCloseWithAReaderStopped(t *testing.T) {
	g := newGated(true)
	defer close(g.held)
	s := newLogSink(g, textNotice("serve"))
	s.wait = time.Millisecond
	fmt.Fprint(s, "never read\n")
	<-g.waiting
	s.Close() // returns: the test would not end otherwise
	select {
	case <-s.done:
		t.Fatal("the sink's writer returned with its line unwritten")
	default:
	}

	g2 := newGated(false)
	s2 := newLogSink(g2, textNotice("serve"))
	s2.Close()
	fmt.Fprint(s2, "late\n")
	if got := g2.lines(); len(got) != 1 || got[0] != "late" {
		t.Errorf("after Close, the reader has %q: want the late line at once", got)
	}
}

// TestLogSinkJSONNotice: the count in a JSON log is a record of its own.
func TestLogSinkJSONNotice(t *testing.T) {
	var rec struct{ Level, Msg string }
	if err := json.Unmarshal(jsonNotice(7), &rec); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(leftOut, 7); rec.Level != "INFO" || rec.Msg != want {
		t.Errorf("notice %+v: want INFO %q", rec, want)
	}
}
