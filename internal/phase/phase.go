// Package phase marks the points a command-line run passes, by name and
// time, in both of its processes, so that bench/phases can say where the
// run's milliseconds go. Marks are kept only by a binary built with -tags
// sabline_phases, and written when its process ends (Flush) to the file
// its SABLINE_PHASES variable names; in any other build Mark and Flush do
// nothing and are compiled away.
//
//	go build -tags sabline_phases -o /tmp/sabline ./cmd/sabline
//	SABLINE_PHASES=/tmp/marks /tmp/sabline --allow io examples/hello.vel
//	cat /tmp/marks    # UNIXNANO PID NAME, one line per mark
package phase
