// Command release writes the student version of the repository.
//
// Usage:
//
//	release -out DIR [-C REPO]
//
// It copies every file of the repository (those git tracks, and untracked
// files that are not ignored) into DIR, which must not exist or be empty,
// except that:
//
//   - in Go files, each block between "// BEGIN SOLUTION" and
//     "// END SOLUTION" is replaced by the stub that follows it between
//     "// BEGIN STUB" and "// END STUB", marked "// STUB: …"; imports the
//     solution alone used are removed and the file is gofmt-ed;
//   - notebooks get the same treatment in their code cells, and lose their
//     outputs;
//   - Go files built with the tag "hidden" (the instructor-only checks) are
//     left out.
//
// See exercises/README.md for how the release and the instructor's
// repository fit together.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"stencillab.dev/exercises/release"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "the folder to write the student version into (must not exist or be empty)")
	root := fs.String("C", ".", "the instructor's repository")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: release -out DIR [-C REPO]")
		return 2
	}
	sum, err := release.Tree(*root, *out)
	if err != nil {
		fmt.Fprintf(stderr, "release: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "release: wrote %s: %d files copied, %d with solutions replaced by stubs, %d instructor-only files left out\n",
		*out, sum.Copied, len(sum.Stripped), len(sum.Left))
	for _, f := range sum.Stripped {
		fmt.Fprintf(stdout, "  stubbed  %s\n", f)
	}
	for _, f := range sum.Left {
		fmt.Fprintf(stdout, "  left out %s\n", f)
	}
	return 0
}
