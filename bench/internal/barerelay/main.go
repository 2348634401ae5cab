// Command barerelay is the floor the HTTP door is measured against: the
// door's process model and nothing of Sabline's. It listens on loopback,
// takes a POST with a bearer token, hands its body to one of two child
// processes over a pipe (each child answers every line with a result
// line), and replies with a JSON body the size of the door's reply to
// hello.vel. No program is read, compiled or run, no receipt is kept,
// nothing is confined.
//
//	barerelay TOKEN
//
// It says "listening on ADDRESS" on standard error once it listens, as
// sabline serve does. Its children are started with the worker's hidden
// argument (wire.WorkerArg), so that a benchmark finds and times them as
// it does a server's workers.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"

	"github.com/sabline/sabline/internal/wire"
)

// children is how many child processes the relay hands requests to, as
// many as the door's benchmark gives its server workers.
const children = 2

// replyBytes is the size of the door's reply to a hello.vel run (2,849
// bytes at 259706e): the relay's reply is as long.
const replyBytes = 2849

// maxLine bounds a request's body and a child's result line.
const maxLine = 64 << 10

// result is what a child answers each line with: a worker's result line
// of a hello.vel run, in shape.
const result = `{"outcome":{"status":"ok","exit_status":0},"stdout":"hello, world\n",` +
	`"timings":{"compile_ms":0.003,"run_ms":0.005}}` + "\n"

func main() {
	if len(os.Args) > 1 && os.Args[1] == wire.WorkerArg {
		child()
		return
	}
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: barerelay TOKEN")
		os.Exit(2)
	}
	if err := serve("Bearer " + os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "barerelay:", err)
		os.Exit(1)
	}
}

// child answers each line on standard input with result, until its end.
func child() {
	in := bufio.NewReaderSize(os.Stdin, maxLine)
	for {
		if _, err := in.ReadSlice('\n'); err != nil {
			return
		}
		if _, err := io.WriteString(os.Stdout, result); err != nil {
			return
		}
	}
}

// relay is one child, as the server holds it: the pipes to and from it.
type relay struct {
	to   io.Writer
	from *bufio.Reader
}

// serve starts the children and serves until the process is killed.
func serve(auth string) error {
	free := make(chan *relay, children)
	for range children {
		cmd := exec.Command(os.Args[0], wire.WorkerArg)
		to, err := cmd.StdinPipe()
		if err != nil {
			return err
		}
		from, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			return err
		}
		free <- &relay{to: to, from: bufio.NewReaderSize(from, maxLine)}
	}
	reply := []byte(`{"status":"ok","stdout":"hello, world\n","padding":"`)
	reply = append(reply, strings.Repeat("x", replyBytes-len(reply)-2)...)
	reply = append(reply, `"}`...)
	http.HandleFunc("POST /v1/run", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != auth {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxLine))
		if err != nil || bytes.IndexByte(body, '\n') >= 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		c := <-free
		_, err = c.to.Write(append(body, '\n'))
		if err == nil {
			_, err = c.from.ReadSlice('\n')
		}
		free <- c
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(reply)
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "barerelay: listening on", l.Addr())
	return http.Serve(l, nil)
}
