// Command barehello prints hello, world: the floor a Sabline run of
// examples/hello.vel is measured against.
package main

import "fmt"

func main() { fmt.Println("hello, world") }
