package receipt

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// event is one inotify event of watch wd naming name, padded as the
// kernel pads it.
func event(wd int32, name string) []byte {
	n := (len(name) + 16) / 16 * 16
	b := make([]byte, unix.SizeofInotifyEvent+n)
	binary.NativeEndian.PutUint32(b[0:4], uint32(wd))
	binary.NativeEndian.PutUint32(b[4:8], unix.IN_CREATE)
	binary.NativeEndian.PutUint32(b[12:16], uint32(n))
	copy(b[16:], name)
	return b
}

// TestWatchesOf: the watch of each event of one read, in order; an event
// cut short ends the list, the head it has counted.
func TestWatchesOf(t *testing.T) {
	two := append(event(3, SealRequestFile), event(7, "00000002.journal")...)
	tests := []struct {
		name   string
		events []byte
		want   []int32
	}{
		{name: "two events", events: two, want: []int32{3, 7}},
		{name: "no name", events: event(5, ""), want: []int32{5}},
		{name: "the second cut short", events: two[:len(two)-4], want: []int32{3, 7}},
		{name: "a head cut short", events: two[:len(event(3, SealRequestFile))+8], want: []int32{3}},
		{name: "nothing", events: nil, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := watchesOf(tt.events)
			if len(got) != len(tt.want) {
				t.Fatalf("watchesOf = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("watchesOf = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// FuzzWatchesOf: whatever a read gave, watchesOf does not panic and finds
// at most one event in each 16 bytes.
func FuzzWatchesOf(f *testing.F) {
	f.Add(append(event(3, SealRequestFile), event(7, "x")...))
	f.Add([]byte{1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, events []byte) {
		if got := watchesOf(events); len(got) > len(events)/unix.SizeofInotifyEvent {
			t.Errorf("%d events in %d bytes", len(got), len(events))
		}
	})
}
