package budget

import (
	"fmt"
	"strings"
	"testing"
)

// itemsOf is n items whose canonical text is size bytes: io, then net
// grants of hosts named to make up the size.
func itemsOf(t *testing.T, n, size int) []string {
	t.Helper()
	items := []string{"io"}
	for i := range n - 1 {
		items = append(items, fmt.Sprintf("net:h%04d.io", i))
	}
	pad := size - len(strings.Join(items, ","))
	if pad < 0 {
		t.Fatalf("%d items come to more than %d bytes", n, size)
	}
	for i := 1; pad > 0; i++ { // a label of at most 63 bytes in each host
		add := min(pad, 50)
		items[i] = strings.Replace(items[i], ".io", strings.Repeat("a", add)+".io", 1)
		pad -= add
	}
	return items
}

// TestParseBounds: a budget of MaxItems items whose canonical text is
// MaxBytes is read (the control); an item more, or a byte more, is
// refused, naming the bound and what to do. Before, nothing bounded a
// budget: the command line ran a program under 5,001 items, or 300
// paths of 4 KiB, and its worker's record, which lists every item with
// its uses, was refused after the run (E310, a crash).
func TestParseBounds(t *testing.T) {
	for _, tt := range []struct {
		name        string
		items, size int
		want        string // "" when read
	}{
		{"at both bounds", MaxItems, MaxBytes, ""},
		{"an item more", MaxItems + 1, MaxBytes, fmt.Sprintf("more than %d budget items", MaxItems)},
		{"a byte more", MaxItems, MaxBytes + 1, fmt.Sprintf("more than %d:", MaxBytes)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			items := itemsOf(t, tt.items, tt.size)
			b, err := Parse([]string{strings.Join(items, ",")}, "/")
			if tt.want == "" {
				if err != nil || len(b.Items) != tt.items || len(b.String()) != tt.size {
					t.Fatalf("%d items of %d bytes: %v; want them read", tt.items, tt.size, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) ||
				!strings.Contains(err.Error(), boundHint) {
				t.Fatalf("%d items of %d bytes: %v; want it refused, %q and what to do",
					tt.items, tt.size, err, tt.want)
			}
			// A budget made otherwise than read is held by Bounded.
			if err := (Budget{Items: make([]Item, MaxItems+1)}).Bounded(); err == nil {
				t.Errorf("a budget of %d items made in Go: Bounded says nothing", MaxItems+1)
			}
		})
	}
}
