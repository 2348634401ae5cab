package bucket

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
)

// agentLogged is what an agentLog writes of the writes given, in order,
// and then its end.
func agentLogged(writes ...[]byte) string {
	var out bytes.Buffer
	l := &agentLog{w: &out}
	for _, p := range writes {
		if n, err := l.Write(p); n != len(p) || err != nil {
			return fmt.Sprintf("Write took %d of %d bytes: %v", n, len(p), err)
		}
	}
	l.end()
	return out.String()
}

// TestAgentLogLines: each line the agent's process writes reaches its
// caller's log as one line, begun with the agent's name, escaped, and
// kept to its bound; the agent's own lines, already so, pass as they are
// (the control).
func TestAgentLogLines(t *testing.T) {
	long := strings.Repeat("a", 100<<10)
	for _, tt := range []struct {
		name   string
		writes []string
		want   string
	}{
		{name: "the agent's own line passes as it is", writes: []string{"sabline-store: refused\n"},
			want: "sabline-store: refused\n"},
		{name: "a library's line is given the name",
			writes: []string{"SDK 2026/12/07 WARN failed to discard\n"},
			want:   "sabline-store: SDK 2026/12/07 WARN failed to discard\n"},
		{name: "a line across writes is one line", writes: []string{"sabline-", "store: a", "b\nc", "\n"},
			want: "sabline-store: ab\nsabline-store: c\n"},
		{name: "what a terminal acts on is escaped",
			writes: []string{"a\x1b[31m\u202e\rb\x9b\n"},
			want:   `sabline-store: a\x1b[31m\u202e\rb\x9b` + "\n"},
		{name: "a line the server could be taken to write is the agent's",
			writes: []string{"x\nsabline serve: listening on 0.0.0.0:80\n"},
			want:   "sabline-store: x\nsabline-store: sabline serve: listening on 0.0.0.0:80\n"},
		{name: "a last line without its end is written at the end", writes: []string{"a\npanic: x"},
			want: "sabline-store: a\nsabline-store: panic: x\n"},
		{name: "an empty line is a line", writes: []string{"\n"}, want: "sabline-store: \n"},
		{name: "nothing written is nothing", writes: nil, want: ""},
		{name: "a long line is cut, saying how much", writes: []string{long[:70000], long[70000:] + "\n"},
			want: agentPrefix + codes.Clip(long, agentLineBytes) + "\n"},
		{name: "a short line after a long one is whole", writes: []string{long + "\nb\n"},
			want: agentPrefix + codes.Clip(long, agentLineBytes) + "\n" + agentPrefix + "b\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var writes [][]byte
			for _, w := range tt.writes {
				writes = append(writes, []byte(w))
			}
			if got := agentLogged(writes...); got != tt.want {
				t.Errorf("logged %q; want %q", codes.Clip(got, 200), codes.Clip(tt.want, 200))
			}
		})
	}
}

// TestAgentLogHoldsALineToItsBound: of a line the agent's process writes
// without end, in writes of any size, no more than the line's bound
// (agentLineBytes) is held, however long the line grows: a store's
// library that writes megabytes with no newline costs the caller no
// more memory than a line it writes.
func TestAgentLogHoldsALineToItsBound(t *testing.T) {
	l := &agentLog{w: io.Discard}
	chunk := bytes.Repeat([]byte("a"), 64<<10)
	for range 64 { // 4 MiB
		if n, err := l.Write(chunk); n != len(chunk) || err != nil {
			t.Fatalf("Write took %d of %d bytes: %v", n, len(chunk), err)
		}
	}
	if len(l.head) > agentLineBytes || l.n != 64*len(chunk) {
		t.Errorf("a line of %d bytes holds %d of them, counted %d; want at most %d held, all "+
			"counted", 64*len(chunk), len(l.head), l.n, agentLineBytes)
	}
}

// FuzzAgentLog: whatever the agent's process writes, in whatever pieces,
// its caller's log gets one line for each it wrote (a last one without
// its end too), each begun with the agent's name, holding nothing a
// terminal acts on, and at most a line's bound escaped; a text that was
// already so passes unchanged.
func FuzzAgentLog(f *testing.F) {
	for _, s := range []string{"sabline-store: x\n", "SDK WARN\n", "a\x1b[2J\nb", "\n\n",
		"\xff\xfe\n", strings.Repeat("\u202e", 12000) + "\n", ""} {
		f.Add([]byte(s), uint16(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint16) {
		at := min(int(split), len(data))
		got := agentLogged(data[:at], data[at:])
		lines := bytes.Count(data, []byte{'\n'})
		if len(data) > 0 && data[len(data)-1] != '\n' {
			lines++
		}
		if n := strings.Count(got, "\n"); n != lines || (got != "" && !strings.HasSuffix(got, "\n")) {
			t.Fatalf("wrote %d lines (%q); want %d", n, codes.Clip(got, 200), lines)
		}
		for _, line := range strings.SplitAfter(got, "\n") {
			line = strings.TrimSuffix(line, "\n")
			if line == "" {
				continue // after the last line's end
			}
			if !strings.HasPrefix(line, agentPrefix) || codes.TerminalSafe(line) != line ||
				len(line) > len(agentPrefix)+4*agentLineBytes {
				t.Fatalf("wrote the line %q: want it begun with %q, escaped, bounded",
					codes.Clip(line, 200), agentPrefix)
			}
		}
		safe := len(data) < agentLineBytes
		var want strings.Builder
		for _, line := range strings.SplitAfter(string(data), "\n") {
			if line == "" {
				continue // after the last line's end
			}
			line = strings.TrimSuffix(line, "\n")
			safe = safe && codes.TerminalSafe(line) == line
			want.WriteString(ensurePrefix(line, agentPrefix) + "\n")
		}
		if safe && got != want.String() {
			t.Fatalf("a text already safe logged %q; want %q", got, want.String())
		}
	})
}
