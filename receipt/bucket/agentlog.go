package bucket

import (
	"bytes"
	"io"

	"github.com/sabline/sabline/codes"
)

// AgentName is the store agent's command (cmd/sabline-store): each line
// it writes on its standard error begins with it and a colon.
const AgentName = "sabline-store"

// agentPrefix begins each line of the agent's in its caller's log.
const agentPrefix = AgentName + ": "

// agentLineBytes bounds a line of the agent's as its caller writes it:
// the agent's own lines, a message's bound (codes.MaxMessageBytes)
// escaped (at most four bytes for one) after its name, pass whole.
const agentLineBytes = len(agentPrefix) + 4*codes.MaxMessageBytes

// agentLog writes the agent's standard error into its caller's (a
// server's log), line by line, whatever wrote it: the agent's own lines,
// and those a store's library writes there itself (an SDK's warning, a
// panic), which can quote what the store answered. Each line is kept to
// agentLineBytes (codes.ClipOf: no more of it is held), escaped as
// codes.TerminalSafe escapes it, and begun with the agent's name where
// it was not, so that nothing the agent's process writes can act on the
// operator's terminal or start a line that reads as the server's.
//
// Its Write is called by one goroutine at a time (exec.Cmd's copy of the
// pipe), and end once that is done (after exec.Cmd.Wait).
type agentLog struct {
	w    io.Writer
	head []byte // the line being read: its first agentLineBytes
	n    int    // the line's length so far
	open bool   // a line has begun and not ended
}

// Write takes what the agent wrote. It reports every byte taken, even
// when w refuses a line: an agent whose pipe is not read would stop.
func (l *agentLog) Write(p []byte) (int, error) {
	for rest := p; len(rest) > 0; {
		chunk, after, ended := bytes.Cut(rest, []byte{'\n'})
		if room := agentLineBytes - len(l.head); room > 0 {
			l.head = append(l.head, chunk[:min(room, len(chunk))]...)
		}
		l.n += len(chunk)
		l.open = true
		if !ended {
			break
		}
		l.line()
		rest = after
	}
	return len(p), nil
}

// end writes the last line, if the agent ended it without a newline.
func (l *agentLog) end() {
	if l.open {
		l.line()
	}
}

// line writes the line read and begins the next.
func (l *agentLog) line() {
	s := codes.TerminalSafe(codes.ClipOf(string(l.head), l.n, agentLineBytes))
	_, _ = io.WriteString(l.w, ensurePrefix(s, agentPrefix)+"\n")
	l.head, l.n, l.open = l.head[:0], 0, false
}
