package grader

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/release"
)

// runBundle is `grade bundle -out DIR [-C ROOT]`: what a GPU machine
// without Go needs to grade the CUDA exercises of a class. DIR gets the
// grader built with the hidden checks (cgo on when a C compiler is
// found, so that it can load the CUDA driver), a go.mod that marks DIR as
// the grader's repository, the CUDA exercises' public files (their
// stubs, as the students' release has them: no solution) and a README
// with the one command that grades the class there. The grader compares
// each kernel with the lab's CPU reference, compiled in; no solution goes
// into the bundle.
func runBundle(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("grade bundle", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "write the bundle into this folder (new or empty)")
	root := fs.String("C", "", "the instructor's repository (default: the one containing the working directory)")
	goos := fs.String("goos", runtime.GOOS, "the GPU machine's operating system")
	goarch := fs.String("goarch", runtime.GOARCH, "the GPU machine's architecture")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: grade bundle -out DIR [-C ROOT] [-goos OS] [-goarch ARCH]")
		fs.PrintDefaults()
	}
	pos, ok := parseFlags(fs, args)
	if !ok {
		return 2
	}
	if *out == "" || len(pos) > 0 {
		fs.Usage()
		return 2
	}
	repo, err := findRoot(orDot(*root))
	if err != nil {
		fmt.Fprintf(stderr, "grade bundle: %v\n", err)
		return 1
	}
	if err := writeBundle(*out, repo, *goos, *goarch, stderr); err != nil {
		fmt.Fprintf(stderr, "grade bundle: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "grade bundle: %s is ready; its README.md says how to grade the class on the GPU machine\n", *out)
	return 0
}

// writeBundle writes the bundle of the repository root into out.
func writeBundle(out, root, goos, goarch string, log io.Writer) error {
	if !release.IsInstructorTree(root) {
		return fmt.Errorf("%s is not the instructor's repository: the bundle's grader needs the hidden checks", root)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("the bundle's folder: %w", err)
	}
	if des, err := os.ReadDir(out); err != nil || len(des) > 0 {
		return fmt.Errorf("the bundle's folder %s must be new or empty", out)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("the go command is needed to build the grader: %w", err)
	}
	cgo := cgoSetting(goos, goarch)
	if cgo == "0" {
		fmt.Fprintln(log, "grade bundle: no gcc for this target: the grader is built with cgo off, and can only withhold the CUDA exercises")
	}
	bin, err := filepath.Abs(filepath.Join(out, "grade"))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "build", "-tags", "hidden", "-trimpath", "-o", bin, "./cmd/grade")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo, "GOOS="+goos, "GOARCH="+goarch)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build the grader with the hidden checks: %v\n%s", err, firstLines(string(b), 12))
	}
	if err := os.WriteFile(filepath.Join(out, "go.mod"), []byte("module stencillab.dev\n\n// The grader's folder: only the CUDA exercises' public files.\n"), 0o644); err != nil {
		return fmt.Errorf("the bundle's go.mod: %w", err)
	}
	var ids []string
	for _, e := range cudacheck.Exercises(false) {
		ids = append(ids, e.ID)
		for _, f := range e.Files {
			rel := filepath.ToSlash(filepath.Join("exercises", e.ID, f))
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			if b, err = release.StripText(rel, b); err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			if release.HasSolution(b) {
				return fmt.Errorf("%s: a solution is left after stripping", rel)
			}
			dst := filepath.Join(out, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
		}
	}
	return os.WriteFile(filepath.Join(out, "README.md"), []byte(bundleReadme(ids, cgo == "1")), 0o644)
}

// cgoSetting is CGO_ENABLED for a build of the grader for goos/goarch:
// "1" when gcc is on the PATH and the target is this machine's (a grader
// with cgo can load the CUDA driver and grade the CUDA exercises), "0"
// otherwise. The bundle and the grader with the hidden checks that a
// grader without them builds (trusted.go) both follow it.
func cgoSetting(goos, goarch string) string {
	if goos != runtime.GOOS || goarch != runtime.GOARCH {
		return "0"
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		return "0"
	}
	return "1"
}

// bundleReadme is the bundle's README.
func bundleReadme(ids []string, cgo bool) string {
	var b bytes.Buffer
	b.WriteString("# Grading the CUDA exercises on a GPU machine\n\n")
	b.WriteString("This folder holds the grader of the Stencil Lab, built with the instructor's hidden checks, and the CUDA\n")
	b.WriteString("exercises' public files. It needs no Go, no repository and no solution: each kernel is compared with the\n")
	b.WriteString("lab's CPU reference, compiled into the grader. It needs the NVIDIA driver (libcuda) and NVRTC\n")
	b.WriteString("(libnvrtc) of the CUDA toolkit, and bubblewrap (`bwrap`) for the sandbox of the students' kernels.\n\n")
	if !cgo {
		b.WriteString("**This grader was built with cgo off: it cannot load the CUDA driver, and withholds every CUDA exercise.\n")
		b.WriteString("Build the bundle again on a machine with gcc for the GPU machine's system.**\n\n")
	}
	b.WriteString("Copy the class folder (one folder per student) next to this folder, then, in this folder:\n\n")
	fmt.Fprintf(&b, "```sh\n./grade -C . -class ../class -out ../gradebook-gpu -seed SEED -gpus all %s\n```\n\n", strings.Join(ids, " "))
	b.WriteString("Use the seed of the class's other runs. `-gpus all` grades on every GPU of the machine, one student's\n")
	b.WriteString("kernel per GPU at a time. Bring `../gradebook-gpu` back to the instructor's machine and\n")
	b.WriteString("merge it into the class's gradebook, which keeps every cell already graded and fills in the withheld ones:\n\n")
	b.WriteString("```sh\ngrade merge -out gradebook gradebook-gpu\n```\n")
	return b.String()
}
