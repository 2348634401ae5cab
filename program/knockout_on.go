//go:build sabline_knockout

package program

// Knockout is true in a binary built with -tags sabline_knockout, in which
// every budget check passes and only the operating system holds a run.
// Such a binary exists to measure what the kernel stops on its own; it says
// so on every run, in --version and in every receipt.
const Knockout = true
