package run

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// TestParseJobResult: a result line is taken whole or not at all.
func TestParseJobResult(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		wantErr string // "" when it is taken
	}{
		{name: "ok", line: `{"outcome":{"status":"ok","exit_status":0},"stdout":"aGVsbG8K"}`},
		{name: "no status", line: `{"outcome":{}}`, wantErr: "without a status"},
		{name: "unknown code", line: `{"outcome":{"status":"failed","code":"E999","exit_status":1}}`, wantErr: "E999"},
		{name: "exit status out of range", line: `{"outcome":{"status":"ok","exit_status":300}}`, wantErr: "300"},
		{name: "two records", line: `{"outcome":{"status":"ok"}} {"outcome":{"status":"ok"}}`, wantErr: "more than one record"},
		{name: "not JSON", line: `hello`, wantErr: "invalid"},
		{name: "an unknown status", line: `{"outcome":{"status":"great"}}`, wantErr: "unknown status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseJobResult([]byte(tt.line))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("parseJobResult: %v, want it taken", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("parseJobResult: %v, want an error naming %q", err, tt.wantErr)
			}
		})
	}
}

// TestReadLineBound: a line longer than the bound is refused, one at the
// bound is read.
func TestReadLineBound(t *testing.T) {
	for _, tt := range []struct {
		name    string
		n       int
		wantErr bool
	}{{name: "at the bound", n: 100}, {name: "past it", n: 101, wantErr: true}} {
		t.Run(tt.name, func(t *testing.T) {
			line := strings.Repeat("x", tt.n-1) + "\n"
			got, err := readLine(bufio.NewReaderSize(strings.NewReader(line), 16), 100)
			if (err != nil) != tt.wantErr || (err == nil && string(got) != line) {
				t.Errorf("readLine: %q, %v; want error %v", got, err, tt.wantErr)
			}
		})
	}
}

// FuzzJobResult: whatever a worker writes on its result pipe, the
// supervisor reads at most the bound of a line and takes only a result
// that passes its check.
func FuzzJobResult(f *testing.F) {
	for _, seed := range []string{
		`{"outcome":{"status":"ok","exit_status":0},"files":[{"path":"/p.vel","sha256":"aa"}],"stdout":"aGVsbG8K"}` + "\n",
		`{"outcome":{"status":"failed","code":"E302","message":"m","exit_status":1},"effects":[]}` + "\n",
		`{"outcome":{"status":"ok"},"stdout":"!!!"}` + "\n",
		`{"outcome":{"status":"timeout","code":"E307","exit_status":124},"clipped":true}` + "\n",
		"\n", "{", `{"outcome":{"status":"ok"}}{"x":1}` + "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		line, err := readLine(bufio.NewReader(bytes.NewReader(raw)), 4096)
		if err != nil {
			return
		}
		if len(line) > 4096 {
			t.Fatalf("readLine returned %d bytes past its bound", len(line))
		}
		r, err := parseJobResult(line)
		if err != nil {
			return
		}
		if err := r.check(); err != nil {
			t.Fatalf("parseJobResult took a result that fails its check: %v", err)
		}
	})
}
