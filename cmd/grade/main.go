// Command grade grades the lab's exercises.
//
// Usage:
//
//	grade [-json] [-seed N] [-timeout D] [-mem SIZE] [-hidden=false]
//	      [-submission DIR] [-unsafe-no-sandbox] [-cache DIR] [-gpus LIST] [-list] [-v] [-C DIR] [exercise...]
//	grade -class DIR -out DIR [-j N] [-gpus LIST] [-seed N] [-overrides FILE [-extra-credit]] [-roster FILE]
//	      [-shard i/n] [-cache DIR] [-allow-in-repo] [-unsafe-no-sandbox] [exercise...]
//	grade merge -out DIR [-overrides FILE [-extra-credit]] [-allow-in-repo] PART...
//	grade export -format canvas|moodle|csv [-roster FILE] [-canvas-columns FILE] [-o FILE] [-allow-in-repo] DIR
//	grade similarity [-threshold F] [-o FILE] [-allow-in-repo] CLASS [exercise...]
//	grade bundle -out DIR
//
// The checks run in this program; the student's functions run only in a
// child process, the exercise's test binary (built with `go test -c`), which
// answers calls: inputs in, outputs out (see exercises/grading.Serve). On
// Linux the child runs in bubblewrap, as nobody, in new namespaces, seeing
// only its own binary; with a wall-clock limit (-timeout, per exercise) and
// a memory limit (-mem: the data-segment limit RLIMIT_DATA through
// `ulimit -d`, and GOMEMLIMIT at three quarters of it). Before it is built,
// each submitted file passes a static check (type-checked against the
// module, only what its exercise allows: exercises/grading.Static). A panic, a loop
// that never ends, an allocation that runs away, an early exit, a refused
// file or code that does not compile scores 0 for that exercise, with a
// message, and the other exercises are still graded. Every check reports
// pass or fail, its points and a message; the last line is the total, e.g.
// "Total 37/50". With -json the report is JSON for a learning-management
// system.
//
// Exercises are named by folder ("03_five_point"), number ("03") or topic
// ("five_point"); none means all. Instructor-only checks, built with the tag
// "hidden", run when their files are present (-hidden=false leaves them
// out): a grade built without the tag builds itself again with it.
//
// -submission DIR grades a student's work: DIR is a copy of the repository
// (or of its exercises folder), and only the files the student edits are
// taken from it, through `go build -overlay`; the checks, the tests and the
// lab come from this repository.
//
// -class DIR grades one folder per student and writes the gradebook
// (gradebook.csv, gradebook.json, feedback/STUDENT.md) into -out, merging
// into one already there (package exercises/gradebook). No hand-in stops
// the run: what cannot be graded gets a row of zeros with the reason, and
// the gradebook is written also when the grader fails on some students
// (then the exit status is 1); see exercises/README.md. -j bounds the
// students whose Go exercises are built and run at once; the CUDA
// submissions are graded on the GPUs of -gpus (a list such as 0,1,2,3, or
// all), one child per GPU at a time, each told its device through
// CUDA_VISIBLE_DEVICES; without -gpus, one at a time on the default GPU.
//
// -roster FILE maps the hand-in folders to people (a CSV: the folder's id,
// then name, email, SIS id, section in any order); a folder may then be
// named by the student's email. -shard i/n grades part i (from 0) of n of
// the class, split by student id, into its own -out; `grade merge -out DIR
// PART...` joins the parts into the gradebook one run would have written
// (every part needs the same -seed, every part i/n is there once, and
// each carries the MAC of the instructor's key, kept outside the class
// folder: see gradebook.InstructorKey). `grade export` writes the gradebook
// as Canvas's or Moodle's grade import, or as CSV with the roster's
// columns. `grade similarity` flags pairs of hand-ins whose solution code
// is near-identical. The overrides file is the whole set of overrides: a
// line removed withdraws its override; points above an exercise's maximum
// need -extra-credit. Course data (the class folder, -out, the roster,
// the overrides, the exports) is refused inside a git checkout, this
// lab's or any, unless -allow-in-repo is given: it belongs outside any
// repository (see docs/course.md). `grade bundle -out DIR` writes what a GPU machine
// without Go needs to grade the CUDA exercises (see docs/course.md).
//
// Test binaries are kept in the user cache folder (stencillab-grade; a
// class run uses stencillab-grade/class, or -cache), so a second run
// relinks nothing that has not changed; a class run also keeps the static
// check's verdicts and the results the same inputs repeat (verdicts.go of exercises/grader),
// so that a second run of an unchanged class with the same seed grades
// nothing again. The exit status is 0
// when grading ran, whatever the score; 1 when it could not run; 2 for a
// bad flag.
package main

import (
	"os"

	"stencillab.dev/exercises/grader"
)

func main() {
	if code, ok := grader.Child(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	os.Exit(grader.Run(os.Args[1:], os.Stdout, os.Stderr))
}
