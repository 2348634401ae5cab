package cmdline

import (
	"strings"
	"testing"
	"time"
)

// flagValues are where TestValueRefusals's flags put their values.
type flagValues struct {
	json         bool
	workers      int
	every, limit time.Duration
}

// TestValueRefusals checks what a refused value says, beside its
// positive control (the same flag given a value it takes): a bool and a
// number are named by what they take, never by their usage's placeholder
// ("not a VALUE", "not a N"), and only a run's --timeout (Limit), which
// bounds nothing when left out, tells the reader to leave it out for no
// limit; a Duration left out keeps its command's bound (eval's 10 s, a
// door's 30 s, --ship-every's 1 s).
func TestValueRefusals(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    string // the refusal's words; "" for a value taken
		wantNot string
	}{
		{name: "a bool given a word", args: []string{"--json=maybe"},
			want: `--json "maybe": want true or false (the flag alone is true)`},
		{name: "a bool given false", args: []string{"--json=false"}},
		{name: "a number given a word", args: []string{"--workers", "lots"},
			want: `--workers "lots": not a whole number`},
		{name: "a number given a number", args: []string{"--workers", "3"}},
		{name: "a duration of zero", args: []string{"--ship-every", "0s"},
			want: `--ship-every "0s": want a duration above zero`, wantNot: "no limit"},
		{name: "a duration above zero", args: []string{"--ship-every", "2s"}},
		{name: "a run's timeout of zero", args: []string{"--timeout", "0s"},
			want: `--timeout "0s": want a duration above zero (leave the flag out for no limit)`},
		{name: "a run's timeout below zero", args: []string{"--timeout=-5s"},
			want: `--timeout "-5s": want a duration above zero (leave the flag out for no limit)`},
		{name: "a run's timeout that is no duration", args: []string{"--timeout", "abc"},
			want: `--timeout "abc": not a duration: write it as 10s, 2m or 1h30m`},
		{name: "a run's timeout above zero", args: []string{"--timeout", "5s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v flagValues
			fs := NewFlagSet("test")
			fs.BoolVar(&v.json, "json", false, "print JSON")
			fs.IntVar(&v.workers, "workers", 1, "`N` runs at once")
			fs.Var((*Duration)(&v.every), "ship-every", "ship every `duration`")
			fs.Var((*Limit)(&v.limit), "timeout", "stop the run after this `duration`")
			_, _, err := ParseInterspersed(fs, tt.args)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("ParseInterspersed(%q): %v, want the value taken", tt.args, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("ParseInterspersed(%q) took the value, want %q", tt.args, tt.want)
			}
			msg := err.Error()
			if !strings.Contains(msg, "E301") || !strings.HasSuffix(msg, tt.want) {
				t.Errorf("ParseInterspersed(%q) = %q, want E301 ending %q", tt.args, msg, tt.want)
			}
			if tt.wantNot != "" && strings.Contains(msg, tt.wantNot) {
				t.Errorf("ParseInterspersed(%q) = %q, which says %q", tt.args, msg, tt.wantNot)
			}
		})
	}
}
