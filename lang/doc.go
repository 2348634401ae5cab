// Package lang is Sabline's language: the interpreter (a Starlark dialect
// whose files end in .vel), its effect modules (io, fs, env, clock, rand,
// net, tool, ffi) and host modules, and the budget checks every effect
// passes before it touches anything. A file effect is judged on what the
// kernel opened, walked one component at a time, never on the path's
// text. It runs a program in the calling process and holds only the
// budget; the run package starts a worker that the operating system holds
// too.
//
//	in := lang.NewInterp(lang.Config{Budget: b, Cwd: dir, Stdin: os.Stdin, Stdout: os.Stdout})
//	prog, err := in.Compile(filepath.Join(dir, "hello.vel"), lang.PredeclaredNames())
//	if err == nil {
//		// Only the modules the program names are made for its run.
//		err = in.Exec(prog, in.PredeclaredFor(prog)) // a refused effect is a *codes.Error, E302
//	}
package lang
