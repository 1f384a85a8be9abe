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
// check's verdicts and the results the same inputs repeat (verdicts.go),
// so that a second run of an unchanged class with the same seed grades
// nothing again. The exit status is 0
// when grading ran, whatever the score; 1 when it could not run; 2 for a
// bad flag.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/handin"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "-config" {
		// The grader with the hidden checks, started by one without them.
		os.Exit(gradeFromConfig(os.Args[2], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == cudaChildFlag {
		// The child that runs the GPU checks of one CUDA submission.
		os.Exit(cudacheck.ChildMain(os.Args[2:], os.Stdin, os.Stdout))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "merge":
			return runMerge(args[1:], stdout, stderr)
		case "export":
			return runExport(args[1:], stdout, stderr)
		case "similarity":
			return runSimilarity(args[1:], stdout, stderr)
		case "bundle":
			return runBundle(args[1:], stdout, stderr)
		case "collect", "return":
			return runCollectOrReturn(args, stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("grade", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		asJSON     = fs.Bool("json", false, "write the report as JSON")
		seed       = fs.Uint64("seed", 0, "seed of the random inputs (0: a fresh one)")
		timeout    = fs.Duration("timeout", 60*time.Second, "time limit of one exercise")
		mem        = fs.String("mem", "1GiB", "memory limit of one exercise, e.g. 1GiB or 512MiB")
		hidden     = fs.Bool("hidden", true, "run the instructor-only checks when present")
		submission = fs.String("submission", "", "grade the student files found in this copy of the repository")
		list       = fs.Bool("list", false, "list the exercises and their checks, and stop")
		root       = fs.String("C", "", "the repository to grade (default: the one containing the working directory)")
		verbose    = fs.Bool("v", false, "log each step to standard error")
		noSandbox  = fs.Bool("unsafe-no-sandbox", false, "run submitted code without the bubblewrap sandbox")
		cacheDir   = fs.String("cache", "", "keep the test binaries in this folder (default: the user cache folder)")
		class      = fs.String("class", "", "grade a class: one folder per student in this folder (needs -out)")
		out        = fs.String("out", "", "with -class: write gradebook.csv, gradebook.json and feedback/ here, merging into a gradebook already there")
		jobs       = fs.Int("j", 2, "with -class: students graded at once")
		overrides  = fs.String("overrides", "", "with -class: a CSV of student, exercise, points, reason that replaces the grader's points: the whole set (a line removed withdraws its override)")
		extra      = fs.Bool("extra-credit", false, "with -overrides: allow points above an exercise's maximum")
		roster     = fs.String("roster", "", "with -class: a CSV mapping hand-in folders to people (id, then name, email, sis_id, section in any order)")
		shardFlag  = fs.String("shard", "", "with -class: grade part i of n of the class (i/n, from 0; needs -seed)")
		gpus       = fs.String("gpus", "", "the GPUs that grade CUDA submissions, one child each at a time: a list such as 0,1,2,3, or all (every GPU the driver reports); default: one at a time on the default GPU")
		allowRepo  = fs.Bool(allowInRepoFlag, false, allowInRepoUsage)
		sanitize   = fs.Bool("sanitize", false, "run compute-sanitizer memcheck and racecheck on the CUDA exercises (when it is on the PATH): a check each")
	)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: grade [-json] [-seed N] [-timeout D] [-mem SIZE] [-hidden=false] [-submission DIR] [-unsafe-no-sandbox] [-sanitize] [-gpus LIST] [-list] [-v] [-C DIR] [exercise...]")
		fmt.Fprintln(stderr, "       grade -class DIR -out DIR [-j N] [-gpus LIST] [-seed N] [-overrides FILE [-extra-credit]] [-roster FILE] [-shard i/n] [-cache DIR] [-allow-in-repo] [-unsafe-no-sandbox] [-sanitize] [exercise...]")
		fmt.Fprintln(stderr, "       grade merge -out DIR [-overrides FILE [-extra-credit]] [-allow-in-repo] PART...")
		fmt.Fprintln(stderr, "       grade export -format canvas|moodle|csv [-roster FILE] [-canvas-columns FILE] [-o FILE] [-allow-in-repo] DIR")
		fmt.Fprintln(stderr, "       grade similarity [-threshold F] [-o FILE] [-allow-in-repo] CLASS [exercise...]")
		fmt.Fprintln(stderr, "       grade bundle -out DIR")
		fmt.Fprintln(stderr, "       "+collectUsage+"\n       "+returnUsage)
		fs.PrintDefaults()
	}
	// Flags may come before or after the exercises' names.
	var names []string
	for {
		if err := fs.Parse(args); err != nil {
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		args = fs.Args()[1:]
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	// A flag that needs another is refused without it, never ignored.
	for _, need := range []struct{ flag, needs, why string }{
		{"extra-credit", "overrides", "it allows points above the maximum in the overrides file"},
		{"j", "class", "it bounds the students graded at once"},
		{allowInRepoFlag, "class", "it lets the class's course data lie in a git checkout"},
	} {
		if set[need.flag] && !set[need.needs] {
			fmt.Fprintf(stderr, "grade: -%s needs -%s: %s\n", need.flag, need.needs, need.why)
			return 2
		}
	}
	limit, err := parseSize(*mem)
	if err != nil {
		fmt.Fprintf(stderr, "grade: -mem %s: %v\n", *mem, err)
		return 2
	}
	if *timeout <= 0 {
		fmt.Fprintf(stderr, "grade: -timeout %v: must be positive\n", *timeout)
		return 2
	}
	if _, err := parseGPUs(*gpus); err != nil {
		fmt.Fprintf(stderr, "grade: -gpus %s: %v\n", *gpus, err)
		return 2
	}
	if *submission != "" {
		if st, err := os.Stat(*submission); err != nil || !st.IsDir() {
			fmt.Fprintf(stderr, "grade: -submission %s: not a folder that can be read\n", *submission)
			return 2
		}
	}
	cfg := Config{
		Root:       *root,
		Seed:       *seed,
		Timeout:    *timeout,
		MemBytes:   limit,
		Hidden:     *hidden,
		Submission: *submission,
		Only:       names,
		NoSandbox:  *noSandbox,
		Notice:     stderr,
		CacheDir:   *cacheDir,
		GPUs:       *gpus,
	}
	if *sanitize {
		cfg.Sanitizer = findSanitizer(stderr)
	}
	if *verbose {
		cfg.Log = stderr
	}
	exs, err := selectExercises(catalogueWith(cfg.Sanitizer != ""), names)
	if err != nil {
		fmt.Fprintf(stderr, "grade: %v\n", err)
		return 2
	}
	if *class != "" || *out != "" {
		if *class == "" || *out == "" || *submission != "" || *asJSON || *list {
			fmt.Fprintln(stderr, "grade: -class needs -out, and goes with neither -submission, -json nor -list")
			return 2
		}
		if *jobs < 1 {
			fmt.Fprintf(stderr, "grade: -j %d: must be at least 1\n", *jobs)
			return 2
		}
		if insideDir(*class, *out) {
			fmt.Fprintf(stderr, "grade: -out %s lies inside -class %s, where it would be taken for a student's folder: write the gradebook elsewhere\n", *out, *class)
			return 2
		}
		if err := refuseInRepo(*allowRepo, coursePath{"-class", *class}, coursePath{"-out", *out},
			coursePath{"-roster", *roster}, coursePath{"-overrides", *overrides}); err != nil {
			fmt.Fprintf(stderr, "grade: %v\n", err)
			return 2
		}
		var shard gradebook.Shard
		if *shardFlag != "" {
			if shard, err = gradebook.ParseShard(*shardFlag); err != nil {
				fmt.Fprintf(stderr, "grade: -shard: %v\n", err)
				return 2
			}
			if *seed == 0 {
				fmt.Fprintln(stderr, "grade: -shard needs -seed, the same for every part, so that the parts merge into one run")
				return 2
			}
		}
		book, err := GradeClass(ClassConfig{Grade: cfg, Class: *class, Out: *out, Jobs: *jobs, Overrides: *overrides,
			ExtraCredit: *extra, Roster: *roster, Shard: shard, Progress: stderr, Summary: stdout})
		switch {
		case err != nil && book != nil:
			// Graded and written, but not everything: say what is missing.
			fmt.Fprintf(stderr, "grade: the gradebook in %s is written, but: %v\n", *out, err)
			return 1
		case err != nil:
			fmt.Fprintf(stderr, "grade: %v\n", err)
			return 1
		}
		return 0
	}
	if *roster != "" || *shardFlag != "" || *overrides != "" || *extra {
		fmt.Fprintln(stderr, "grade: -roster, -shard, -overrides and -extra-credit go with -class")
		return 2
	}
	if *list {
		return listWithHidden(cfg, exs, names, stdout, stderr)
	}
	var lines handin.NotebookLines
	if *submission != "" {
		cleanup, err := notebookSubmission(&cfg, exs, &lines)
		if err != nil {
			fmt.Fprintf(stderr, "grade: %v\n", err)
			return 1
		}
		defer cleanup()
	}
	rep, err := Grade(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "grade: %v\n", err)
		return 1
	}
	for i := range rep.Exercises {
		lines.RewriteResult(&rep.Exercises[i]) // a notebook's messages name its cells and lines
	}
	if *asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "grade: %v\n", err)
		return 1
	}
	return 0
}

func listExercises(exs []grading.Exercise, stdout io.Writer) {
	for _, e := range exs {
		fmt.Fprintf(stdout, "%s  %s  (%d points; you edit %s)\n", e.ID, e.Title, e.MaxPoints(), strings.Join(e.Files, ", "))
		for _, c := range e.Checks {
			fmt.Fprintf(stdout, "  %-14s %2d  %s\n", c.ID, c.Points, c.Title)
		}
	}
}

// parseSize reads a size such as 2GiB, 512MiB, 1G or 1000000 (bytes).
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}
	mult := int64(1)
	num := strings.TrimSpace(s)
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	var v float64
	if _, err := fmt.Sscanf(num, "%g", &v); err != nil || !(v > 0) {
		return 0, fmt.Errorf("not a positive size (use e.g. 2GiB or 512MiB)")
	}
	b := int64(v * float64(mult))
	if b < 64<<20 {
		return 0, fmt.Errorf("%d bytes is below 64 MiB, too little to start a Go program", b)
	}
	return b, nil
}

// formatSize writes a byte count for a message, e.g. "2 GiB".
func formatSize(b int64) string {
	switch {
	case b%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", b>>30)
	case b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	}
	return fmt.Sprintf("%d bytes", b)
}
