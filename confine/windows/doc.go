// Package windows holds a Windows worker to its policy with a job object,
// its token, its integrity level and an AppContainer. It imports
// golang.org/x/sys/windows under the same name: in this package,
// windows.X is always the system's API.
//
// # Build
//
// PlanFor builds the plan from the policy: the job's limits, the
// privileges kept, the integrity level, and whether the run gets an
// AppContainer and with which ACEs. It is a pure function, run on any
// system, that tests read and golden files keep (testdata/windows), as
// are the ACE bookkeeping (appcontainer.go) and Assess.
//
// # Install
//
// On Windows only, the supervisor's PrepareWorker makes the job object and
// the AppContainer, since a process joins a job from outside and enters a
// container only at its creation; the worker's Apply removes its
// privileges, lowers its integrity, and claims each layer only as it
// finds it held. Assess turns what was held into a core.Result, and
// Predict is the level where every layer is applied, for an audit made on
// any system.
package windows
