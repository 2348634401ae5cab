// Package run is a run of a program in a worker process: the supervisor
// (Supervise) reads the program once, derives the operating system's
// policy from the budget once, reserves the receipt, starts the worker (the
// same binary, started again with wire.WorkerArg), holds the clock, the memory
// and the bounds on everything the worker hands back, and finishes the
// receipt however the run ends. The worker applies the policy it is sent
// to itself before the program's first statement, then runs the program
// as every run does (package internal/job). The wire between them (a
// request, then result records) is this package's own; nothing the worker
// sends is trusted. A Pool (StartPool) keeps workers confined once and
// sends them one program after another, each with its receipt.
//
// The library (package sabline), the doors and the command line reach it;
// nothing outside this module does. Fault injection (internal/fault), the
// confinement probe (internal/probe) and eval (internal/eval) are
// packages of their own above it.
//
//	rec := run.Supervise(run.Run{Program: "hello.vel", Cwd: dir, Budget: b,
//		Confine: core.ModeDefault, Timeout: 10 * time.Second, Receipts: dir})
//	fmt.Println(rec.Outcome.Status, rec.RunParameters.Confinement)
package run
