//go:build !unix

package receipt

// inPlaceFlags: no flag on this system refuses a link at the name.
const inPlaceFlags = 0
