// Command nbcheck checks notebooks that have been executed: that no cell
// failed, that every non-empty code cell ran, and that the notebook shows at
// least the number of images it declares, none of them blank.
//
// Usage:
//
//	nbcheck [-min N] [-committed DIR] NOTEBOOK.ipynb...
//	nbcheck -stamp NOTEBOOK.ipynb...
//
// A notebook declares how many images it must show in its metadata:
//
//	"metadata": {"stencillab": {"min_images": 3}}
//
// and -min overrides that declaration for every notebook given. An image is
// an output with image/png, image/jpeg or image/svg+xml data, or an <img>
// or <svg> element in a text/html output (so an animation that rewrites one
// HTML output counts by the frame it ends on). A raster image is blank when
// all its pixels have one colour; an SVG drawing is blank when it holds
// fewer than two shapes, since a lone shape is at most a background.
//
// With -committed DIR, each executed notebook is also compared with the
// committed notebook of the same name in DIR, which carries the outputs of
// an earlier run: the committed outputs must have been made by the code as
// it stands (metadata stencillab.outputs_of holds the hash of its code
// cells), and each code cell's outputs must be of the same kinds (output
// types, MIME types, streams) with as many images as in the fresh run.
// Their text and pixels may differ. A picture inside text/html fails there,
// since GitHub's notebook view may not show it.
//
// With -stamp, nbcheck checks nothing: it records the hash of each given
// notebook's code cells in its metadata (make notebooks does this before an
// executed notebook replaces the committed one).
//
// nbcheck prints one line per notebook and a final "N passed, N failed"
// line, and exits with status 1 when any notebook fails, 2 on bad usage.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("nbcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	minImages := fs.Int("min", -1, "images each notebook must show; -1 reads metadata.stencillab.min_images")
	committed := fs.String("committed", "", "folder of the committed notebooks to compare the executed ones with")
	stamp := fs.Bool("stamp", false, "record the hash of each notebook's code cells in its metadata, and check nothing")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: nbcheck [-min N] [-committed DIR] NOTEBOOK.ipynb...\n       nbcheck -stamp NOTEBOOK.ipynb...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	if *stamp {
		for _, path := range fs.Args() {
			if err := Stamp(path); err != nil {
				fmt.Fprintln(stderr, "nbcheck:", err)
				return 1
			}
		}
		return 0
	}
	passed, failed := 0, 0
	for _, path := range fs.Args() {
		r := CheckFile(path, *minImages)
		if *committed != "" {
			CheckCommitted(&r, *committed, path)
		}
		fmt.Fprintln(stdout, r)
		if r.OK() {
			passed++
		} else {
			failed++
		}
	}
	fmt.Fprintf(stdout, "%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		return 1
	}
	return 0
}
