// Package receipt is the record every run leaves, refused and failed runs
// too: what ran (the program's digests), under what budget and policy, at
// what confinement level and why, how it ended, and what it touched. It
// writes a receipt atomically (reserved before the run starts, so that a
// run whose supervisor dies still leaves one that says so), reads receipt
// files as untrusted bytes (bounded, checked against the schema), and
// lists, finds and compares stored receipts. A Store keeps a pool's
// receipts in a journal of its own process, journal/proc-ID in the
// receipts directory, locked for the process's life; readers read every
// journal there (JournalDirs). A receipt keeps the run's arguments once,
// bounded (MaxArgsBytes; past it their digest, ArgsCut), and a store's
// journal lets segments go as its retention says (Store.Retain, Prune):
// a lookup of a receipt no longer kept is E337.
//
//	runs, err := receipt.List(dir)
//	last, err := receipt.Pick(runs, receipt.LastRun)
//	for _, c := range receipt.DiffLevels(runs) {
//		fmt.Println(c) // a run whose level no earlier run of its program had
//	}
package receipt
