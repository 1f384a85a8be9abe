// Command figures draws every figure of Stencil Lab and writes an SVG and
// a PNG of each, plus README.md, the list of figures with the function that
// draws each and the chapter figure it follows.
//
// Usage, from anywhere inside the module:
//
//	go run ./figures [-out DIR] [-only NAME[,NAME…]] [-bench FILE] [-list]
//
// By default the files go into the figures folder of the module, next to
// this file, where they are committed; running the command twice writes the
// same bytes. The drawing functions live in the package
// stencillab.dev/figures/fig, which notebooks import; a folder holds a
// single package and go run needs package main, hence the split.
//
// The bandwidth chart is drawn from the module's figures/data/bench_h200.json
// (see fig.ReadBench for its format), whatever -out says, or from the file
// -bench names; the command prints which file it drew from. Without either
// it draws the model, and says so on standard error.
//
// The thread figure of the tiled thirteen-point kernel (fig.Star13) traces
// an exercise's answer, built only with the tag "hidden": `go run -tags
// hidden ./figures` also rewrites the record of that launch,
// figures/fig/threads_star13.json, from which a build without the tag
// (the students' copy, the notebooks) draws the same figure.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"stencillab.dev/figures/fig"
)

// benchFile is the GPU measurement the bandwidth chart is drawn from,
// relative to the figures folder.
const benchFile = "data/bench_h200.json"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("figures", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "folder to write the figures into (default: the module's figures folder)")
	only := fs.String("only", "", "comma-separated names of the figures to draw (default: all)")
	bench := fs.String("bench", "", "bench results to draw the bandwidth chart from (default: figures/"+benchFile+" if present)")
	list := fs.Bool("list", false, "list the figures and exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "figures: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *list {
		for _, f := range fig.All() {
			fmt.Fprintf(stdout, "%-18s fig.%-16s %-5s %s\n", f.Name, f.Func, f.Chapter, f.About)
		}
		return 0
	}
	figs, err := selectFigures(*only)
	if err != nil {
		fmt.Fprintln(stderr, "figures:", err)
		return 2
	}
	// The data live in the module's figures folder, wherever the figures go.
	figDir, modErr := defaultDir()
	dir := *out
	if dir == "" {
		if modErr != nil {
			fmt.Fprintln(stderr, "figures:", modErr)
			return 1
		}
		dir = figDir
	}
	in, source, err := loadInputs(*bench, figDir)
	if err != nil {
		fmt.Fprintln(stderr, "figures:", err)
		return 1
	}
	if source == "" {
		fmt.Fprintf(stderr, "figures: no bench file (figures/%s is missing and -bench names none): the bandwidth chart draws the MODEL, NOT MEASURED\n", benchFile)
	} else {
		fmt.Fprintf(stdout, "bandwidth chart drawn from %s\n", source)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(stderr, "figures:", err)
		return 1
	}
	for _, f := range figs {
		files, err := render(f, in)
		if err != nil {
			fmt.Fprintf(stderr, "figures: %s: %v\n", f.Name, err)
			return 1
		}
		for _, file := range files {
			if err := writeIfChanged(filepath.Join(dir, file.name), file.data); err != nil {
				fmt.Fprintln(stderr, "figures:", err)
				return 1
			}
		}
		fmt.Fprintf(stdout, "%s.svg %s.png\n", f.Name, f.Name)
	}
	if slices.ContainsFunc(figs, func(f fig.Figure) bool { return f.Name == star13Figure }) {
		if err := recordThreads(dir, figDir, stdout); err != nil {
			fmt.Fprintln(stderr, "figures:", err)
			return 1
		}
	}
	if err := writeIfChanged(filepath.Join(dir, "README.md"), readme(source)); err != nil {
		fmt.Fprintln(stderr, "figures:", err)
		return 1
	}
	return 0
}

// star13Figure is the thread figure of the tiled thirteen-point kernel,
// whose launch is recorded in figures/fig (fig.Star13RecordFile).
const star13Figure = "threads_" + fig.Star13

// recordThreads rewrites the committed record of the launch the Star13
// thread figure traces, figures/fig/threads_star13.json, from a fresh trace
// when this build holds the kernel (go run -tags hidden ./figures) and the
// figures go into the module's figures folder figDir. A build without the
// tag draws that figure from the record and leaves it alone.
func recordThreads(dir, figDir string, stdout io.Writer) error {
	if !fig.Star13Traceable() {
		fmt.Fprintf(stdout, "%s drawn from the committed record fig/%s (go run -tags hidden ./figures rewrites it)\n", star13Figure, fig.Star13RecordFile)
		return nil
	}
	if figDir == "" || !sameDir(dir, figDir) {
		fmt.Fprintf(stdout, "fig/%s not rewritten: the figures go outside the module's figures folder\n", fig.Star13RecordFile)
		return nil
	}
	b, err := fig.RecordStar13()
	if err != nil {
		return err
	}
	if err := writeIfChanged(filepath.Join(figDir, "fig", fig.Star13RecordFile), b); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "fig/%s recorded from a fresh trace\n", fig.Star13RecordFile)
	return nil
}

// sameDir reports whether a and b name the same folder.
func sameDir(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}

func selectFigures(only string) ([]fig.Figure, error) {
	if only == "" {
		return fig.All(), nil
	}
	var figs []fig.Figure
	for _, name := range strings.Split(only, ",") {
		f, err := fig.Lookup(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(figs, func(g fig.Figure) bool { return g.Name == f.Name }) {
			figs = append(figs, f)
		}
	}
	return figs, nil
}

// defaultDir returns the figures folder of the module that contains the
// working directory.
func defaultDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the module: %w", err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		mod, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && bytes.HasPrefix(bytes.TrimSpace(mod), []byte("module stencillab.dev")) {
			return filepath.Join(d, "figures"), nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("not inside the stencillab.dev module: run from the repository or pass -out")
		}
	}
}

// loadInputs reads the bench results from path, or from the default bench
// file of the module's figures folder dir when path is empty and that file
// exists. It returns where the bandwidth chart's data come from, for the
// README and the command's output: "" when they come from nowhere.
func loadInputs(path, dir string) (fig.Inputs, string, error) {
	if path == "" {
		if dir == "" {
			return fig.Inputs{}, "", nil
		}
		def := filepath.Join(dir, filepath.FromSlash(benchFile))
		if _, err := os.Stat(def); err != nil {
			return fig.Inputs{}, "", nil
		}
		path = def
	}
	b, err := fig.LoadBench(path)
	if err != nil {
		return fig.Inputs{}, "", err
	}
	return fig.Inputs{Bench: b}, filepath.ToSlash(rel(dir, path)), nil
}

// rel returns path relative to the figures folder when it lies inside it,
// and its base name otherwise, so that no machine path reaches the README.
func rel(dir, path string) string {
	r, err := filepath.Rel(dir, path)
	if err != nil || strings.HasPrefix(r, "..") {
		return filepath.Base(path)
	}
	return r
}

type file struct {
	name string
	data []byte
}

func render(f fig.Figure, in fig.Inputs) ([]file, error) {
	d, err := f.Make(in)
	if err != nil {
		return nil, err
	}
	svg, err := fig.SVG(d, f.Width, f.Height)
	if err != nil {
		return nil, err
	}
	png, err := fig.PNG(d, f.Width, f.Height, fig.DPI)
	if err != nil {
		return nil, err
	}
	return []file{{f.Name + ".svg", svg}, {f.Name + ".png", png}}, nil
}

func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Base(path), err)
	}
	return nil
}

// benchFields documents the fields of fig.BenchResult for the README.
var benchFields = [][2]string{
	{"kernel", "the step's name, as `stencil steps` lists them, or `copy`"},
	{"n", "cube side N"},
	{"tile", "input tile dimension T (optional; 0 or absent: the step's default)"},
	{"median_ms", "median time of one sweep, milliseconds"},
	{"gbps", "effective bandwidth: 8 bytes per interior point ((N−2)³ points) over the median time, in 10⁹ B/s"},
	{"gflops", "13·(N−2)³ operations over the median time, in 10⁹ OP/s"},
	{"pct_copy", "`gbps` as a percentage of `copy_gbps`"},
	{"copy_gbps", "bandwidth of a device-to-device copy of N³ floats on the same GPU, 10⁹ B/s"},
}

// readme lists every figure with its function and chapter figure. source
// names the bench file the bandwidth chart was drawn from, "" for the model.
func readme(source string) []byte {
	var b bytes.Buffer
	b.WriteString("# Figures\n\n")
	b.WriteString("<!-- Generated by `go run ./figures`; edit figures/main.go or figures/fig, not this file. -->\n\n")
	b.WriteString("Every figure of the course, drawn with gonum/plot by one function of the package\n")
	b.WriteString("`stencillab.dev/figures/fig`. Notebooks call the same functions, so a notebook shows\n")
	b.WriteString("exactly what is drawn here. `go run ./figures` rewrites the SVG and PNG files and this\n")
	b.WriteString("list; running it twice gives the same bytes. `go run ./figures -only NAME` draws one\n")
	b.WriteString("figure, `-out DIR` writes elsewhere, `-list` lists the names.\n\n")
	b.WriteString("`go test ./figures/...` compares a fresh drawing of every figure with its golden image\n")
	b.WriteString("in `testdata/golden`, pixel by pixel with a small tolerance, and checks this file;\n")
	b.WriteString("`go test ./figures/... -regen` rewrites the goldens and those of the schematic drawings.\n\n")
	b.WriteString("| file | function | chapter | what it shows |\n| --- | --- | --- | --- |\n")
	for _, f := range fig.All() {
		ch := f.Chapter
		if ch == "" {
			ch = "—"
		}
		fmt.Fprintf(&b, "| [%s.svg](%s.svg), [png](%s.png) | `fig.%s` | %s | %s |\n", f.Name, f.Name, f.Name, f.Func, ch, f.About)
	}
	b.WriteString("\n")
	if source == "" {
		b.WriteString("The bandwidth chart is drawn from the model (\"model, not measured\"): no file\n")
		fmt.Fprintf(&b, "`%s` was present when the figures were generated.\n\n", benchFile)
	} else {
		fmt.Fprintf(&b, "The bandwidth chart is drawn from the measurements in `%s`.\n\n", source)
	}
	b.WriteString("### The bench file\n\n")
	fmt.Fprintf(&b, "`%s` is the output of `stencil bench -json` (read by `fig.ReadBench`): an object\n", benchFile)
	b.WriteString("`{\"device\": \"NVIDIA H200\", \"results\": [...]}`, a bare array of results, or one result object\n")
	b.WriteString("per line. Each result has these fields; for each kernel the chart uses the largest `n`.\n\n")
	b.WriteString("| field | meaning |\n| --- | --- |\n")
	for _, f := range benchFields {
		fmt.Fprintf(&b, "| `%s` | %s |\n", f[0], f[1])
	}
	b.WriteString("\n")
	for _, f := range fig.All() {
		title := f.Name
		if f.Chapter != "" {
			title += " (Fig. " + f.Chapter + ")"
		}
		fmt.Fprintf(&b, "## %s\n\n![%s](%s.png)\n\n", title, f.About, f.Name)
	}
	return b.Bytes()
}
