// Command cuda2go writes the typed Go launch wrappers of the extern "C"
// entries of package cuda (see internal/cuda2go). gpu runs it through
// go generate.
package main

import (
	"os"

	"stencillab.dev/internal/cuda2go"
)

func main() { os.Exit(cuda2go.Run(os.Args[1:], os.Stdout, os.Stderr)) }
