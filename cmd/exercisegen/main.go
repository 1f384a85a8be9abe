// Command exercisegen derives, from each exercise's declaration and files,
// what repeats them elsewhere: notebook 09's code and grade cells (a
// section for an exercise the notebook lacks, from the file's package
// documentation), the end of each code cell of notebooks 09 and 10 that
// tells its grade cell whether the cell compiled (grading.CellError), the
// table of the notebook's intro and the table of Go exercises in
// exercises/README.md.
//
// Usage:
//
//	go run -tags hidden ./cmd/exercisegen [-C REPO] [-check]
//
// With the tag hidden it knows the hidden points too; without it, it keeps
// those the README's table gives. With -check it writes nothing and exits
// with status 1, naming each file, when a generated file is stale.
// `go generate ./exercises/checks` runs it.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("exercisegen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("C", ".", "the repository's root")
	check := fs.Bool("check", false, "write nothing; exit 1 when a generated file is stale")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	files, err := Generate(*root)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	stale := 0
	for _, p := range paths {
		full := filepath.Join(*root, p)
		old, err := os.ReadFile(full)
		if err == nil && bytes.Equal(old, files[p]) {
			continue
		}
		if *check {
			fmt.Fprintf(stdout, "%s is stale: go run -tags hidden ./cmd/exercisegen\n", p)
			stale++
			continue
		}
		if err := os.WriteFile(full, files[p], 0o644); err != nil {
			fmt.Fprintln(stderr, "exercisegen:", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	if stale > 0 {
		return 1
	}
	return 0
}
