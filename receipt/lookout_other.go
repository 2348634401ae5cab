//go:build !linux

package receipt

import "errors"

// lookout returns a channel that receives every sealEvery: off Linux a
// store looks for a SealRequestFile by the clock.
func lookout(string) <-chan struct{} {
	c := make(chan struct{}, 1)
	go tick(c)
	return c
}

// lookoutErr says why the process watches no directory for a store: off
// Linux it has nothing to watch them with.
func lookoutErr() error { return errors.ErrUnsupported }
