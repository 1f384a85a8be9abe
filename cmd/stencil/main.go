// Command stencil runs, checks and measures the lab's stencil steps.
//
// Usage:
//
//	stencil run   -kernel NAME -backend cpu|sim|gpu -n N [-tile T] [-check] [-json]
//	stencil steps
//
// Other subcommands (bench, sediment) register themselves in their own
// files. An unknown flag or an impossible value prints one line and exits
// with status 2; a failed run, a result outside the tolerance of -check or
// output that cannot be written (a closed standard output, an unwritable
// -json file) exits with status 1.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"stencillab.dev/lab"
)

// command is one subcommand: it parses args and returns an exit status.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands maps subcommand names to their implementations; each file adds
// its own from init.
var commands = map[string]command{}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "help" {
		usage(stderr)
		return 2
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "stencil: unknown command %q%s (commands: %s)\n", args[0], lab.DidYouMean(args[0], names()), strings.Join(names(), ", "))
		return 2
	}
	out := &outWriter{w: stdout}
	code := c.run(args[1:], out, stderr)
	if out.err != nil && code == 0 {
		fmt.Fprintf(stderr, "stencil %s: cannot write the output: %v\n", args[0], out.err)
		return 1
	}
	return code
}

// outWriter passes writes to w and keeps the first error, so that a
// command whose output could not be written (a closed standard output, a
// full disk) exits non-zero however it printed.
type outWriter struct {
	w   io.Writer
	err error
}

// Write writes p to w; after a failed write it writes nothing more and
// returns the same error.
func (o *outWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	o.err = err
	return n, err
}

func names() []string {
	var ns []string
	for n := range commands {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: stencil COMMAND [flags]")
	for _, n := range names() {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
}
