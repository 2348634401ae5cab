package budget_test

import (
	"errors"
	"fmt"

	"github.com/sabline/sabline/budget"
)

func ExampleParse() {
	// Two --allow values, as an operator might write them.
	b, err := budget.Parse([]string{"net:Example.org:443,io,rand@2", "fs:read:data/,io"}, "/home/ana/job")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b)
	// Output: io,rand@2,fs:read:/home/ana/job/data,net:example.org:443
}

func ExampleParse_malformed() {
	_, err := budget.Parse([]string{"io,fs:/data"}, "/home/ana/job")
	var ie *budget.ItemError
	if errors.As(err, &ie) {
		fmt.Println(ie.Item)
	}
	fmt.Println(err)
	// Output:
	// fs:/data
	// budget item "fs:/data": fs is narrowed by read or write first (write fs:read:/data or fs:write:/data)
}

func ExampleMeter_Use() {
	b := budget.MustParse("/home/ana/job", "fs:read:data", "rand@1")
	m := budget.NewMeter(b, nil)

	g, err := m.Use(budget.Effect{Kind: budget.FS, Access: budget.Read, Path: "/home/ana/job/data/x.csv"})
	fmt.Println(g, err)

	g, err = m.Use(budget.Effect{Kind: budget.Rand})
	fmt.Println(g, err)

	_, err = m.Use(budget.Effect{Kind: budget.Rand})
	fmt.Println(errors.Is(err, budget.ErrUsedUp), err)

	_, err = m.Use(budget.Effect{Kind: budget.Net, Host: "example.org", Port: 443})
	fmt.Println(errors.Is(err, budget.ErrNotGranted), err)

	for _, u := range m.Usage() {
		fmt.Printf("%s: %d use(s)\n", u.Grant, u.Uses)
	}
	// Output:
	// fs:read:/home/ana/job/data <nil>
	// rand@1 <nil>
	// true rand: count used up: every grant that covers it has spent its @N: rand@1 (used 1 of 1)
	// true net connection to example.org:443: not granted: add net:example.org:443 to the budget
	// rand@1: 1 use(s)
	// fs:read:/home/ana/job/data: 1 use(s)
}
