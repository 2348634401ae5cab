package bounded

import (
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		limit    int64
		want     string
		wantOver bool
	}{
		{name: "shorter", in: "abc", limit: 4, want: "abc"},
		{name: "exactly the bound", in: "abcd", limit: 4, want: "abcd"},
		{name: "one past the bound", in: "abcde", limit: 4, want: "abcd", wantOver: true},
		{name: "empty", in: "", limit: 4, want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, over := Read(strings.NewReader(tc.in), tc.limit)
			if string(got) != tc.want || over != tc.wantOver {
				t.Errorf("Read(%q, %d) = %q, %v; want %q, %v", tc.in, tc.limit, got, over, tc.want, tc.wantOver)
			}
		})
	}
}
