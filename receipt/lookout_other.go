//go:build !linux

package receipt

// lookout returns a channel that receives every sealEvery: off Linux a
// store looks for a SealRequestFile by the clock.
func lookout(string) <-chan struct{} {
	c := make(chan struct{}, 1)
	go tick(c)
	return c
}
