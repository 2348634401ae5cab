package lang

import (
	"bufio"
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
	// broken is set once an answer was too long: the rest of it is
	// still on the channel, and would be read as the next answer.
	broken error
}

// NewToolChannel returns the tool channel over rw (one end of a socket
// pair, say). With rw nil the run has no tool channel: tool.call fails
// with E313, and the program's standard output is never taken for one.
func NewToolChannel(rw io.ReadWriter) *ToolChannel {
	if rw == nil {
		return &ToolChannel{}
	}
	return &ToolChannel{w: rw, r: bufio.NewReader(rw)}
}

// maxToolAnswerBytes is the longest answer line a tool call reads.
const maxToolAnswerBytes = 16 << 20

// call writes one request line and reads one answer line.
func (c *ToolChannel) call(line []byte) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return "", c.broken
	}
	if _, err := c.w.Write(line); err != nil {
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
