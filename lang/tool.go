package lang

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// ToolChannel is where tool.call sends its requests and reads its answers:
// one line of JSON each way, one call at a time.
type ToolChannel struct {
	mu sync.Mutex
	w  io.Writer
	r  *bufio.Reader
	// halted is the context of the run whose call is under way (nil
	// between calls): its stop ends the wait for the answer (callReader).
	halted context.Context
	// broken is set once an answer was too long, or a stop ended the wait
	// for one: the rest of it is still on the channel, or still to come,
	// and would be read as the next answer.
	broken error
}

// NewToolChannel returns the tool channel over rw (one end of a socket
// pair, say). With rw nil the run has no tool channel: tool.call fails
// with E313, and the program's standard output is never taken for one.
// A stop of the run whose call waits for its answer ends the wait at
// once, as it ends a read of the run's standard input.
func NewToolChannel(rw io.ReadWriter) *ToolChannel {
	if rw == nil {
		return &ToolChannel{}
	}
	c := &ToolChannel{w: rw}
	c.r = bufio.NewReader(&callReader{c: c, src: rw})
	return c
}

// callReader reads the channel for the call under way: through haltable,
// so that the calling run's stop ends the read.
type callReader struct {
	c   *ToolChannel
	src io.Reader
}

func (r *callReader) Read(p []byte) (int, error) {
	if r.c.halted == nil {
		return r.src.Read(p)
	}
	return haltable(r.c.halted, r.src).Read(p)
}

// maxToolAnswerBytes is the longest answer line a tool call reads.
const maxToolAnswerBytes = 16 << 20

// call writes one request line and reads one answer line. halted is the
// calling run's (Interp.halted): once it is done, the wait for the answer
// ends, and the channel takes no more calls (the answer may still come).
func (c *ToolChannel) call(halted context.Context, line []byte) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return "", c.broken
	}
	c.halted = halted
	defer func() { c.halted = nil }()
	n, err := c.w.Write(line)
	if err == nil && n < len(line) {
		err = io.ErrShortWrite // a writer that took part and said nothing
	}
	if err != nil {
		if n > 0 {
			// Part of the request went: the host may answer it, or wait
			// for the rest; either way the channel is out of step.
			c.broken = errors.New("an earlier request was written in part: the channel is out " +
				"of step and takes no more calls")
		}
		return "", err
	}
	var answer []byte
	for {
		part, isPrefix, err := c.r.ReadLine()
		answer = append(answer, part...)
		if len(answer) > maxToolAnswerBytes {
			c.broken = fmt.Errorf("an earlier answer was longer than %d bytes: the channel is out of step "+
				"and takes no more calls", maxToolAnswerBytes)
			return "", fmt.Errorf("the answer is longer than %d bytes", maxToolAnswerBytes)
		}
		if errors.Is(err, errHalted) {
			c.broken = errors.New("an earlier call was stopped before its answer came: the channel is " +
				"out of step and takes no more calls")
			return "", err
		}
		if err != nil || !isPrefix {
			return string(answer), err
		}
	}
}

// toolChannel is the channel of this Interp's tool calls (see input),
// nil when it has no ends.
func (in *Interp) toolChannel() *ToolChannel {
	if in.ownTool {
		in.input()
	}
	if in.tool.w == nil {
		return nil
	}
	return in.tool
}
