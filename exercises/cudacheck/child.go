package cudacheck

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/gpu"
)

// The child writes one line per event on its standard output:
//
//	start CHECK          before each check
//	fault "MESSAGE"      a kernel faulted: the child exits next
//	result {JSON}        the exercise's result: the last line
const (
	lineStart  = "start "
	lineFault  = "fault "
	lineResult = "result "
)

// maxSource bounds a submitted file.
const maxSource = 1 << 20

// NeedsGPUMessage is the message of an exercise withheld for want of a GPU.
func NeedsGPUMessage(id string, err error) string {
	return fmt.Sprintf("needs an NVIDIA GPU, and this machine has none (%v). The score is withheld, not zero: "+
		"grade it on the course's GPU machine (`grade %s` there), where `grade -class` with the same -out fills in this cell of the gradebook", err, id)
}

// ChildMain is the child's program: it reads the student's source on
// stdin, grades the exercise named by -id with -seed on the default GPU,
// writes the events and the result on stdout and returns the exit status.
// With -mode sanitize it only compiles and runs the kernel on small grids,
// for compute-sanitizer, and its exit status says whether it ran.
func ChildMain(args []string, stdin io.Reader, stdout io.Writer) int {
	fs := flag.NewFlagSet("cuda-child", flag.ContinueOnError)
	id := fs.String("id", "", "the exercise")
	seed := fs.Uint64("seed", 0, "the seed")
	mode := fs.String("mode", "grade", "grade or sanitize")
	checkTimeout := fs.Duration("check-timeout", 10*time.Minute, "bound of one check")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	spec, ok := Lookup(*id)
	if !ok {
		fmt.Fprintf(os.Stderr, "cuda-child: no CUDA exercise %q\n", *id)
		return 2
	}
	src, err := io.ReadAll(io.LimitReader(stdin, maxSource+1))
	if err != nil || len(src) > maxSource {
		fmt.Fprintf(os.Stderr, "cuda-child: the source could not be read or exceeds %d bytes\n", maxSource)
		return 2
	}
	var mu sync.Mutex
	emit := func(line string) {
		mu.Lock()
		defer mu.Unlock()
		io.WriteString(stdout, line+"\n")
	}
	if *seed == 0 {
		*seed = grading.NewSeed()
	}
	listing := spec.Exercise(nil, false)
	d, err := gpu.Default()
	if err != nil {
		if errors.Is(err, gpu.ErrNoGPU) {
			r := grading.Fail(listing, grading.NeedsGPU, NeedsGPUMessage(spec.ID, err), *seed)
			return writeResult(emit, r)
		}
		r := grading.Fail(listing, grading.NotAvailable, fmt.Sprintf("the GPU could not be opened: %v", err), *seed)
		return writeResult(emit, r)
	}
	env := NewEnv(spec, d, string(src))
	env.Fault = func(err error) {
		b, _ := json.Marshal(err.Error())
		emit(lineFault + string(b))
		os.Exit(3)
	}
	if _, err := env.Kernel(0); err != nil {
		if errors.Is(err, gpu.ErrContextLost) {
			env.Fault(err)
		}
		if *mode == "sanitize" {
			return 4
		}
		return writeResult(emit, grading.Fail(listing, grading.BuildFailed, err.Error(), *seed))
	}
	if *mode == "sanitize" {
		ex := grading.Exercise{ID: spec.ID, Title: spec.Title, Checks: []grading.Check{
			{ID: "sanitize", Title: "small grids", Points: 1, Run: func(t *grading.T) {
				for _, s := range [][3]int{{3, 3, 3}, {9, 11, 13}, {21, 19, 37}} {
					env.compare(t, 0, randomGrid(t, s[0], s[1], s[2]), randomCoeffs(t))
				}
			}},
		}}
		grading.Run(ex, grading.Options{Seed: *seed, CheckTimeout: *checkTimeout})
		return 0
	}
	ex := spec.Exercise(env, false)
	started := map[string]time.Time{}
	res := grading.Run(ex, grading.Options{Seed: *seed, CheckTimeout: *checkTimeout,
		OnStart: func(c string) {
			mu.Lock()
			started[c] = time.Now()
			mu.Unlock()
			emit(lineStart + c)
		},
		OnResult: func(c grading.CheckResult) {
			mu.Lock()
			env.Metrics["seconds:"+c.ID] = time.Since(started[c.ID]).Seconds()
			mu.Unlock()
			env.Passed[c.ID] = c.Passed
		}})
	env.Metrics["correct"] = 0
	if env.correct() {
		env.Metrics["correct"] = 1
	}
	res.Metrics = env.Metrics
	if len(env.Notes) > 0 {
		res.Message = strings.TrimSpace(res.Message + "\n" + strings.Join(env.Notes, "\n"))
	}
	return writeResult(emit, res)
}

func writeResult(emit func(string), r grading.ExerciseResult) int {
	b, err := json.Marshal(r)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cuda-child: %v\n", err)
		return 1
	}
	emit(lineResult + string(b))
	return 0
}
