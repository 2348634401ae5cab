//go:build !sabline_knockout

package program

// Knockout is true in a binary built with -tags sabline_knockout, in which
// every budget check passes and only the operating system holds a run.
const Knockout = false
