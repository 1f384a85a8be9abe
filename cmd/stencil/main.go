// Command stencil runs, checks and measures the lab's stencil steps.
//
// Usage:
//
//	stencil run   -kernel NAME -backend cpu|sim|gpu -n N [-tile T] [-check] [-json]
//	stencil steps
//
// Other subcommands (bench, sediment) register themselves in their own
// files. An unknown flag or an impossible value prints one line and exits
// with status 2.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
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
		fmt.Fprintf(stderr, "stencil: unknown command %q (commands: %s)\n", args[0], strings.Join(names(), ", "))
		return 2
	}
	return c.run(args[1:], stdout, stderr)
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
