package grader

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/handin"
)

// Child runs this program as one of the grader's children when args (the
// program's arguments, without its name) ask for one, and returns its exit
// status and true; otherwise it returns false. The grader starts its own
// binary again as these children: with -config, the grader built with the
// hidden checks (trusted.go); with -cuda-child, the child that compiles and
// launches one CUDA submission (cuda.go). Every program that grades (the
// command, a test binary's TestMain) calls it first in main.
func Child(args []string, stdin io.Reader, stdout, stderr *os.File) (int, bool) {
	if len(args) == 2 && args[0] == "-config" {
		// The grader with the hidden checks, started by one without them.
		return gradeFromConfig(args[1], stdout, stderr), true
	}
	if len(args) > 0 && args[0] == cudaChildFlag {
		// The child that runs the GPU checks of one CUDA submission.
		return cudacheck.ChildMain(args[1:], stdin, stdout), true
	}
	return 0, false
}

// Run is the grade command: args are its arguments (without the
// program's name), its report goes to stdout and its notes and errors to
// stderr; it returns the exit status (0 when grading ran, 1 when it could
// not, 2 for a bad flag). The command's flags are documented in cmd/grade.
// A program that calls Run must call Child first in its main.
func Run(args []string, stdout, stderr io.Writer) int {
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
		timeout    = fs.Duration("timeout", defaultTimeout, "time limit of one exercise")
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
