package run

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// TestRemovedMappingsCutShort: a maps file whose read fails before its
// end (an error other than io.EOF) is not seen whole: the removed files
// of its lines not read were not counted, and a run's disk then is not
// judged by the part. The control: the same lines read to their end are
// whole, and both count the mappings read.
func TestRemovedMappingsCutShort(t *testing.T) {
	const lines = "7f00-7f01 r--p 00000000 08:01 12 /tmp/a (deleted)\n" +
		"7f01-7f02 r--p 00000000 08:01 13 /tmp/b\n" +
		"7f02-7f03 r--p 00000000 08:01 14 /tmp/c (deleted)\n"
	for _, tt := range []struct {
		name      string
		maps      io.Reader
		wantWhole bool
	}{
		{name: "read to its end", maps: strings.NewReader(lines), wantWhole: true},
		{name: "a read cut short", maps: io.MultiReader(strings.NewReader(lines),
			iotest.ErrReader(errors.New("the process's maps: an error"))), wantWhole: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var spans []string
			whole := removedMappings(tt.maps, func(span string) { spans = append(spans, span) })
			if want := []string{"7f00-7f01", "7f02-7f03"}; !slices.Equal(spans, want) {
				t.Errorf("counted %q, want %q", spans, want)
			}
			if whole != tt.wantWhole {
				t.Errorf("whole = %v, want %v", whole, tt.wantWhole)
			}
		})
	}
}
