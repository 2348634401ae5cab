package core

// MemoryHold is what of the supervisor's side holds a worker's memory
// limit, beside the worker's own limits.
type MemoryHold struct {
	By  string // what holds it: "" when nothing of the supervisor's side does
	Why string // why nothing does, where something could have
}
