package lang_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/lang"
)

func ExampleNewInterp() {
	in := lang.NewInterp(lang.Config{
		Budget: budget.MustParse("/", "io@5"),
		Stdin:  strings.NewReader(""),
		Stdout: os.Stdout,
	})
	pre := in.Predeclared()
	prog, err := in.Compile("testdata/hello.vel", pre)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := in.Exec(prog, pre); err != nil {
		fmt.Println(err)
		return
	}
	for _, u := range in.Usage() {
		fmt.Printf("%s: %d of %d uses\n", u.Grant, u.Uses, u.Limit)
	}
	// Output:
	// hello, world
	// io@5: 1 of 5 uses
}

func ExampleInterp_Compile() {
	// Compile reads the program and every .vel file it loads, relative to the
	// file that loads it; nothing is read from disk after it returns.
	in := lang.NewInterp(lang.Config{})
	prog, err := in.Compile("testdata/greet/main.vel", in.Predeclared())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range prog.Order {
		rel, _ := filepath.Rel(filepath.Dir(prog.Main), f.Path)
		fmt.Println(filepath.ToSlash(rel), len(f.SHA256))
	}
	// Output:
	// main.vel 64
	// lib/name.vel 64
}

func ExampleInterp_Exec() {
	// The budget grants io but not clock: the program runs up to its
	// clock.now() call, which is refused with E302.
	in := lang.NewInterp(lang.Config{
		Budget: budget.MustParse("/", "io"),
		Stdin:  strings.NewReader(""),
		Stdout: os.Stdout,
	})
	pre := in.Predeclared()
	prog, err := in.Compile("testdata/clock.vel", pre)
	if err != nil {
		fmt.Println(err)
		return
	}
	err = in.Exec(prog, pre)
	var e *codes.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Msg)
		fmt.Println(filepath.Base(e.Pos))
		fmt.Println(e.Hint())
	}
	// Output:
	// before
	// E302 clock: not granted: add clock to the budget
	// clock.vel:3:16
	// If the program should be allowed this, add the item the message names to the budget (--allow, Options.Budget). Where it names none, no grant reaches the path as written: a way through /proc or /dev/fd (read the run's own streams with io), or a link or .. out of the grants (name the file where it lies).
}
