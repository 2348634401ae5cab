package budget

import (
	"strings"
	"testing"
)

// TestRefusalMessages checks what a refusal says beyond the item to add:
// the counts that ran out, and, when the net grants name only other hosts,
// that hosts match by name. A refusal of a connection still ends with the
// item to add.
func TestRefusalMessages(t *testing.T) {
	const hostWord = "never by its address"
	tests := []struct {
		name         string
		budget       string
		uses         []Effect // charged before the effect under test
		effect       Effect
		wantMsg      string // "" when the effect is granted
		wantHostWord bool
	}{
		{name: "count used up names the item and its uses", budget: "io,rand@2",
			uses: []Effect{{Kind: Rand}, {Kind: Rand}}, effect: Effect{Kind: Rand},
			wantMsg: "rand: count used up: every grant that covers it has spent its @N: rand@2 (used 2 of 2)"},
		{name: "every covering item is named", budget: "fs:read@1,fs:read:/srv@1",
			uses:    []Effect{{Kind: FS, Access: Read, Path: "/srv/a"}, {Kind: FS, Access: Read, Path: "/srv/a"}},
			effect:  Effect{Kind: FS, Access: Read, Path: "/srv/a"},
			wantMsg: "fs:read@1 (used 1 of 1), fs:read:/srv@1 (used 1 of 1)"},
		{name: "a host granted by name does not grant its address", budget: "net:localhost:8080",
			effect:       Effect{Kind: Net, Host: "127.0.0.1", Port: 8080},
			wantMsg:      "net connection to 127.0.0.1:8080: not granted (a host matches by the name written, never by its address: the budget grants net:localhost:8080): add net:127.0.0.1:8080 to the budget",
			wantHostWord: true},
		{name: "nor an address its name", budget: "net:127.0.0.1",
			effect:       Effect{Kind: Net, Host: "localhost", Port: 80},
			wantMsg:      "the budget grants net:127.0.0.1): add net:localhost:80 to the budget",
			wantHostWord: true},
		{name: "the same host on another port", budget: "net:localhost:8080",
			effect:  Effect{Kind: Net, Host: "LocalHost", Port: 9090},
			wantMsg: "net connection to LocalHost:9090: not granted: add net:localhost:9090 to the budget"},
		{name: "no net grant", budget: "io",
			effect:  Effect{Kind: Net, Host: "localhost", Port: 80},
			wantMsg: "net connection to localhost:80: not granted: add net:localhost:80 to the budget"},
		{name: "a tcp grant of the port names itself for a datagram", budget: "net:127.0.0.1:9",
			effect:  Effect{Kind: Net, UDP: true, Host: "127.0.0.1", Port: 9},
			wantMsg: "UDP datagrams to 127.0.0.1:9: not granted (net:127.0.0.1:9 grants TCP connections only: a net grant is TCP unless it says udp): add net:udp:127.0.0.1:9 to the budget"},
		{name: "a udp grant of the port names itself for a connection", budget: "net:udp",
			effect:  Effect{Kind: Net, Host: "127.0.0.1", Port: 9},
			wantMsg: "net connection to 127.0.0.1:9: not granted (net:udp grants UDP datagrams only): add net:127.0.0.1:9 to the budget"},
		{name: "udp grants of other hosts speak of names", budget: "net:udp:localhost:53,net:127.0.0.1:53",
			effect:       Effect{Kind: Net, UDP: true, Host: "127.0.0.1", Port: 53},
			wantMsg:      "(net:127.0.0.1:53 grants TCP connections only",
			wantHostWord: false},
		{name: "udp grants name only other hosts", budget: "net:udp:localhost:53",
			effect:       Effect{Kind: Net, UDP: true, Host: "127.0.0.1", Port: 53},
			wantMsg:      "the budget grants net:udp:localhost:53): add net:udp:127.0.0.1:53 to the budget",
			wantHostWord: true},
		{name: "the positive control of udp: the host as written", budget: "net:udp:localhost:53",
			effect: Effect{Kind: Net, UDP: true, Host: "localhost", Port: 53}},
		{name: "the positive control: the host as written", budget: "net:localhost:8080",
			effect: Effect{Kind: Net, Host: "localhost", Port: 8080}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMeter(MustParse("/", tt.budget), nil)
			for _, u := range tt.uses {
				if _, err := m.Use(u); err != nil {
					t.Fatalf("use %s: %v", u, err)
				}
			}
			_, err := m.Use(tt.effect)
			switch {
			case tt.wantMsg == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.wantMsg == "":
				return
			case err == nil:
				t.Fatalf("granted, want %q", tt.wantMsg)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("message %q, want it to hold %q", err, tt.wantMsg)
			}
			if got := strings.Contains(err.Error(), hostWord); got != tt.wantHostWord {
				t.Errorf("message %q: speaks of matching hosts by name %v, want %v", err, got, tt.wantHostWord)
			}
		})
	}
}
