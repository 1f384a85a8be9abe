package cuda2go

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"stencillab.dev/cuda"
)

// Sources returns the embedded sources of package cuda by file name.
func Sources() (map[string]string, error) {
	out := map[string]string{}
	for _, n := range cuda.Names() {
		src, err := cuda.Source(n)
		if err != nil {
			return nil, err
		}
		out[n+".cu"] = src
	}
	return out, nil
}

// Select keeps the sources whose file name matches one of the
// comma-separated patterns of files (all when files is empty) and none of
// skip's: a package's launchers wrap the entries of its own files.
func Select(srcs map[string]string, files, skip string) (map[string]string, error) {
	match := func(list, name string) (bool, error) {
		for _, p := range strings.Split(list, ",") {
			if p == "" {
				continue
			}
			ok, err := path.Match(p, name)
			if err != nil {
				return false, fmt.Errorf("cuda2go: pattern %q: %w", p, err)
			}
			if ok {
				return true, nil
			}
		}
		return false, nil
	}
	out := map[string]string{}
	for name, src := range srcs {
		in, err := match(files, name)
		if err != nil {
			return nil, err
		}
		out2, err := match(skip, name)
		if err != nil {
			return nil, err
		}
		if (files == "" || in) && !out2 {
			out[name] = src
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("cuda2go: -files %q -skip %q leave no .cu file", files, skip)
	}
	return out, nil
}

// names is a repeatable -name flag.
type names []Name

func (n *names) String() string { return fmt.Sprint(*n) }

func (n *names) Set(s string) error {
	v, err := ParseName(s)
	if err != nil {
		return err
	}
	*n = append(*n, v)
	return nil
}

// Run is the command: it writes the wrappers of package cuda's entries
// to -o, or with -check reports whether -o holds them already. It returns
// the exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cuda2go", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "the Go file to write (required)")
	pkg := fs.String("pkg", "gpu", "the package of the Go file")
	check := fs.Bool("check", false, "write nothing; fail when the file is not what would be written")
	files := fs.String("files", "", "comma-separated patterns (path.Match) of the .cu files whose entries it wraps; empty: every file")
	skip := fs.String("skip", "", "comma-separated patterns of .cu files whose entries it leaves to another package")
	qual := fs.String("qual", "", "the package that declares Args, when it is not -pkg (gpu)")
	var ns names
	fs.Var(&ns, "name", "GO=ENTRY or GO=FILE.cu:ENTRY: the wrapper's name for that entry's parameter list (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "cuda2go: usage: cuda2go -o FILE [-pkg P] [-qual Q] [-files PAT,...] [-skip PAT,...] [-name GO=SEL]... [-check]")
		return 2
	}
	srcs, err := Sources()
	if err == nil {
		srcs, err = Select(srcs, *files, *skip)
	}
	if err == nil {
		var want []byte
		if want, err = Generate(*pkg, *qual, srcs, ns); err == nil {
			if *check {
				got, rerr := os.ReadFile(*out)
				if rerr != nil || !bytes.Equal(got, want) {
					fmt.Fprintf(stderr, "cuda2go: %s is stale: run go generate\n", *out)
					return 1
				}
				fmt.Fprintf(stdout, "cuda2go: %s is fresh\n", *out)
				return 0
			}
			err = os.WriteFile(*out, want, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// Directive returns the arguments of the //go:generate line of src that
// runs cuda2go, so that a test runs the generator as go generate does.
func Directive(src string) ([]string, error) {
	for _, line := range strings.Split(src, "\n") {
		rest, ok := strings.CutPrefix(line, "//go:generate ")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		for i, w := range f {
			if strings.HasSuffix(w, "/cuda2go") {
				return f[i+1:], nil
			}
		}
	}
	return nil, fmt.Errorf("cuda2go: no //go:generate line runs cuda2go")
}
