package receipt

import "testing"

// TestTestimonyOf: a field is testimony only where the worker reported
// it: a receipt whose testimony is of its effects alone (a run the
// supervisor ended, its outcome seen) has none for its outcome or its
// files, nor has an older receipt, which says nothing of its parts. The
// control: the outcome and the files reported as testimony.
func TestTestimonyOf(t *testing.T) {
	const why = "ffi:ctypes is granted: host code ran beside the program"
	for _, tt := range []struct {
		name     string
		reported *Reported
		field    string
		want     string
	}{
		{name: "the outcome reported", field: FieldOutcome, want: why,
			reported: &Reported{Fields: []string{FieldOutcome, FieldEffects}, Testimony: why}},
		{name: "the files reported", field: FieldFiles, want: why,
			reported: &Reported{Fields: []string{FieldOutcome, FieldFiles}, Testimony: why}},
		{name: "the effects alone reported", field: FieldOutcome,
			reported: &Reported{Fields: []string{FieldEffects}, Testimony: why}},
		{name: "the outcome reported, not the files", field: FieldFiles,
			reported: &Reported{Fields: []string{FieldOutcome}, Testimony: why}},
		{name: "nothing reported", field: FieldOutcome, reported: &Reported{}},
		{name: "an older receipt", field: FieldOutcome},
	} {
		if got := (&Receipt{Reported: tt.reported}).TestimonyOf(tt.field); got != tt.want {
			t.Errorf("%s: TestimonyOf(%s) = %q, want %q", tt.name, tt.field, got, tt.want)
		}
	}
}
