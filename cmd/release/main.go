// Command release writes the student version of the repository.
//
// Usage:
//
//	release -out DIR [-C REPO] [-scan] [-git=false]
//
// It copies the files git tracks in the repository, and no other, into
// DIR, which must not exist or be empty, except that:
//
//   - in Go files, each block between "// BEGIN SOLUTION" and
//     "// END SOLUTION" is replaced by the stub that follows it between
//     "// BEGIN STUB" and "// END STUB", marked "// STUB: …"; imports the
//     solution alone used are removed and the file is gofmt-ed;
//   - notebooks get the same treatment in their code cells, and lose their
//     outputs; every notebook loses the outputs of the code cells between
//     a Check-yourself question and its check (questions.go);
//   - Go files built with the tag "hidden" (the instructor-only checks) are
//     left out;
//   - a CUDA source (.cu, .cuh) whose opening comment has a line
//     "// release: instructor only — REASON" (a lab kernel that answers an
//     exercise) is written as a placeholder: its extern "C" signatures byte
//     for byte, its define defaults and an #error that stops NVRTC with
//     the reason (release.Placeholder); a line that reads as that marker
//     anywhere else stops the release, naming the file and line.
//
// An untracked file, ignored or not, is never copied: the roster, the
// gradebook, the overrides and the hand-ins of a term graded inside the
// checkout stay there (keep them in a folder outside it). Before the
// release is committed, every file of DIR is checked for course data by
// its content and shape (release.CourseData, release.ScanCourseData: a
// table of people or of grades, a gradebook or a part of one, overrides,
// feedback, the leaderboard, a hand-in's layout, an e-mail address of a
// real domain, a kind of file a release does not hold) and against the
// files the repository tracks; a finding is printed with its file and
// the release is left uncommitted, with exit status 1. A tracked file
// that is course data stops the release, naming it.
//
// DIR is then made a git repository with one commit holding the whole
// release (turn it off with -git=false), so that a student can reset a
// notebook or a file with `git checkout -- FILE`.
//
// With -scan it then searches every file it wrote for every solution,
// hidden check, notebook answer and withheld kernel of the repository, by their lines and
// by their token fingerprints with identifiers renamed
// (release.CollectSecrets, release.Scan), prints each finding with the
// file and line that holds it, and exits with status 1 when there is one.
//
// See exercises/README.md for how the release and the instructor's
// repository fit together.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

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
	initGit := fs.Bool("git", true, "make the release a git repository with one commit")
	scan := fs.Bool("scan", false, "search the release for the repository's solutions, hidden checks and answers; exit 1 when one is found")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: release -out DIR [-C REPO] [-scan] [-git=false]")
		return 2
	}
	sum, err := release.Tree(*root, *out)
	if err != nil {
		fmt.Fprintln(stderr, err) // the package's errors start with "release:"
		return 1
	}
	fmt.Fprintf(stdout, "release: wrote %s: %d files copied, %d with solutions replaced by stubs, %d instructor-only files left out, %d kernels withheld\n",
		*out, sum.Copied, len(sum.Stripped), len(sum.Left), len(sum.Withheld))
	for _, f := range sum.Stripped {
		fmt.Fprintf(stdout, "  stubbed  %s\n", f)
	}
	for _, f := range sum.Left {
		fmt.Fprintf(stdout, "  left out %s\n", f)
	}
	for _, f := range sum.Withheld {
		fmt.Fprintf(stdout, "  withheld %s (its signatures kept, its body an #error)\n", f)
	}
	cleared, err := stripQuestionOutputs(*out)
	if err != nil {
		fmt.Fprintf(stderr, "release: %v\n", err)
		return 1
	}
	for _, f := range cleared {
		fmt.Fprintf(stdout, "  outputs between a question and its check cleared in %s\n", f)
	}
	if n, err := checkCourseData(*root, *out, stdout); err != nil || n > 0 {
		if err != nil {
			fmt.Fprintf(stderr, "release: %v\n", err)
		}
		fmt.Fprintf(stderr, "release: %s holds course data or files the repository does not track; it is not committed: do not publish it\n", *out)
		return 1
	}
	if *initGit {
		if err := commitRelease(*out); err != nil {
			fmt.Fprintf(stderr, "release: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "release: %s is a git repository with one commit; `git checkout -- FILE` there resets a file\n", *out)
	}
	if !*scan {
		return 0
	}
	secrets, err := release.CollectSecrets(*root)
	if err != nil {
		fmt.Fprintf(stderr, "release: scan: %v\n", err)
		return 1
	}
	found, err := release.Scan(*out, secrets)
	if err != nil {
		fmt.Fprintf(stderr, "release: scan: %v\n", err)
		return 1
	}
	for _, f := range found {
		fmt.Fprintf(stdout, "  FOUND    %s\n", f)
	}
	fmt.Fprintf(stdout, "release: scanned %s for %d secrets: %d findings\n", *out, len(secrets), len(found))
	if len(found) > 0 {
		return 1
	}
	return 0
}

// checkCourseData checks every file of the release out for course data
// and against the files the repository at root tracks, prints each finding
// and returns how many there are.
func checkCourseData(root, out string, stdout io.Writer) (int, error) {
	files, err := release.TrackedFiles(root)
	if err != nil {
		return 0, err
	}
	tracked := make(map[string]bool, len(files))
	for _, f := range files {
		tracked[filepath.ToSlash(f)] = true
	}
	found, err := release.ScanCourseData(out, tracked)
	if err != nil {
		return 0, err
	}
	for _, f := range found {
		fmt.Fprintf(stdout, "  COURSE   %s\n", f)
	}
	fmt.Fprintf(stdout, "release: checked %s for course data: %d findings\n", out, len(found))
	return len(found), nil
}

// releaseMessage is the message of the release's one commit.
const releaseMessage = "Stencil Lab, student release"

// commitRelease makes dir a git repository whose one commit, on the
// branch main, holds every file of dir. The commit's author is the
// release itself, so that no instructor's name or address goes with it.
func commitRelease(dir string) error {
	git, err := exec.LookPath("git")
	if err != nil {
		return fmt.Errorf("git is not on the PATH, so the release cannot be made a repository (pass -git=false to write the files alone): %w", err)
	}
	base := []string{"-C", dir, "-c", "user.name=Stencil Lab", "-c", "user.email=release@stencillab.invalid",
		"-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"}
	for _, args := range [][]string{
		{"init", "-q", "--initial-branch=main"},
		{"add", "-A"},
		{"commit", "-q", "--no-verify", "-m", releaseMessage},
	} {
		cmd := exec.Command(git, append(base, args...)...)
		// The instructor's environment must not steer the new repository
		// (GIT_DIR, GIT_INDEX_FILE, GIT_WORK_TREE of a hook or a shell).
		cmd.Env = release.GitEnv(os.Environ())
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("git %s in %s: %w: %s", args[0], dir, err, strings.TrimSpace(out.String()))
		}
	}
	return nil
}
