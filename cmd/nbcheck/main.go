// Command nbcheck checks notebooks that have been executed: that no cell
// failed, that every non-empty code cell ran, and that the notebook shows at
// least the number of images it declares, none of them blank.
//
// Usage:
//
//	nbcheck [-min N] NOTEBOOK.ipynb...
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
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: nbcheck [-min N] NOTEBOOK.ipynb...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	passed, failed := 0, 0
	for _, path := range fs.Args() {
		r := CheckFile(path, *minImages)
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
