package confine

import "testing"

func TestProcStatus(t *testing.T) {
	for _, tc := range []struct {
		name           string
		status         string
		wantMode       int
		wantNoNewPrivs bool
	}{
		{name: "a filtered process", status: "Name:\tsabline\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n",
			wantMode: 2, wantNoNewPrivs: true},
		{name: "a free process", status: "Name:\tsabline\nNoNewPrivs:\t0\nSeccomp:\t0\n"},
		{name: "empty values", status: "NoNewPrivs:\nSeccomp:\n"},
		{name: "blank values", status: "NoNewPrivs:   \nSeccomp:\t \n"},
		{name: "a value that is not a number", status: "Seccomp:\tfilter\n"},
		{name: "no field at all", status: "Name:\tsabline\n"},
		{name: "no text at all", status: ""},
		{name: "a line with no colon", status: "Seccomp\nSeccomp:\t1\n", wantMode: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mode, nnp := procStatus(tc.status)
			if mode != tc.wantMode || nnp != tc.wantNoNewPrivs {
				t.Errorf("procStatus = %d, %v; want %d, %v", mode, nnp, tc.wantMode, tc.wantNoNewPrivs)
			}
		})
	}
}
