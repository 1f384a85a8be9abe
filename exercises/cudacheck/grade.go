package cudacheck

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"stencillab.dev/exercises/grading"
)

// Config configures the grading of one CUDA submission.
type Config struct {
	// Command is the child: a program and its first arguments, to which
	// -id is added (the grader: its own binary and "-cuda-child"), run
	// with Env added to this process's environment. Launch, when set,
	// replaces both.
	Command []string
	// Env is added to the child's environment.
	Env []string
	// Launch makes the child's command: the grader's puts it in the
	// sandbox.
	Launch Launcher
	// Seed seeds the checks; 0 draws one. The timed run's grid and
	// coefficients are drawn fresh whatever the seed.
	Seed uint64
	// Timeout bounds each request to the child (a compilation, a launch,
	// the timed run): past it the process group is killed and the check
	// it was in is reported. 0 means 120 s.
	Timeout time.Duration
	// Sanitizer is the compute-sanitizer program; when set, memcheck and
	// racecheck run on the submission and two checks score them.
	Sanitizer string
	// PerfN is the side around which the timed grid is drawn; 0 means
	// PerfN.
	PerfN int
	// Fresh draws the timed run's seeds; nil means grading.NewSeed.
	Fresh func() uint64
	// Lock is held while the child of a submission runs: the lock of its
	// GPU. Nil is the package's own, which makes the submissions one at a
	// time in this process; a caller that gives each child a device of
	// its own (the grader's -gpus) passes that device's.
	Lock sync.Locker
}

func (cfg *Config) defaults() {
	if cfg.Seed == 0 {
		cfg.Seed = grading.NewSeed()
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 120 * time.Second
	}
	if cfg.PerfN <= 0 {
		cfg.PerfN = PerfN
	}
	if cfg.Fresh == nil {
		cfg.Fresh = grading.NewSeed
	}
	if cfg.Launch == nil {
		cfg.Launch = defaultLauncher(cfg.Command, cfg.Env)
	}
	if cfg.Lock == nil {
		cfg.Lock = &gpuMu
	}
}

// gpuMu makes the grading of CUDA submissions one at a time where the
// caller gives no lock of its own (Config.Lock): the GPU is shared, and
// the timings would disturb each other.
var gpuMu sync.Mutex

// Grade grades source, the student's file of exercise spec, and returns
// the result. The source is refused before it reaches a compiler when it
// uses a directive outside the allow-list (CheckDirectives). A child
// compiles and launches the kernel; the checks run here, on the outputs
// and times it answers. A kernel that faults or hangs, or a child that
// dies or breaks the channel's rules, scores 0 for the exercise, with the
// check it was in; Grade itself never fails.
func Grade(cfg Config, spec Spec, source []byte) grading.ExerciseResult {
	cfg.defaults()
	ex := spec.Exercise(nil, cfg.Sanitizer != "")
	if len(source) > maxSource {
		return grading.Fail(ex, grading.Rejected, fmt.Sprintf("%s has %d bytes, over the limit of %d", spec.File, len(source), maxSource), cfg.Seed)
	}
	if err := CheckDirectives(spec.File, string(source)); err != nil {
		return grading.Fail(ex, grading.Rejected, fmt.Sprintf("refused before compilation: the file must hold everything it needs, and only the allowed directives (%s):\n%v", DirectivesAllowed, err), cfg.Seed)
	}
	cfg.Lock.Lock()
	defer cfg.Lock.Unlock()
	start := time.Now()
	r, err := startRemote(cfg.Launch, spec.ID, cfg.Timeout, nil)
	if err != nil {
		return grading.Fail(ex, grading.NotAvailable, err.Error(), cfg.Seed)
	}
	res, env := gradeWith(cfg, spec, string(source), r.call, r.log)
	r.close()
	if res.Status == grading.Graded && cfg.Sanitizer != "" {
		for _, tool := range []string{"memcheck", "racecheck"} {
			res.Checks = append(res.Checks, sanitize(cfg, env, string(source), tool))
		}
		res.MaxPoints, res.Points = 0, 0
		for _, c := range res.Checks {
			res.MaxPoints += c.MaxPoints
			res.Points += c.Points
		}
	}
	if res.Metrics == nil {
		res.Metrics = map[string]float64{}
	}
	res.Metrics["seconds"] = time.Since(start).Seconds()
	if err := res.Validate(); err != nil {
		return grading.Fail(ex, grading.NotAvailable, fmt.Sprintf("the GPU checks returned an inconsistent result: %v", err), cfg.Seed)
	}
	return res
}

// gradeWith runs the checks of spec on source, whose kernel call compiles
// and launches; log returns what the child printed (for messages).
func gradeWith(cfg Config, spec Spec, source string, graded func(request, int) (response, []float32, error), log func() string) (grading.ExerciseResult, *Env) {
	listing := spec.Exercise(nil, false)
	// Every request is recorded, so that compute-sanitizer watches the
	// very launches the grade came from, in their order (sanitize).
	var sent []sentRequest
	call := func(req request, want int) (response, []float32, error) {
		sent = append(sent, sentRequest{req, want})
		return graded(req, want)
	}
	h, _, err := call(request{Op: opInit, ID: spec.ID, Source: source}, -1)
	if err != nil {
		return failure(listing, cfg, err, "", log), nil
	}
	env := newEnv(spec, source, call, cfg.PerfN, cfg.Fresh)
	defer func() { env.sent = sent }()
	env.Device, env.FreeBefore = h.Device, h.Free
	if err := env.Kernel(0); err != nil {
		return failure(listing, cfg, err, "", log), env
	}
	var started time.Time
	res := grading.Run(spec.Exercise(env, false), grading.Options{Seed: cfg.Seed, CheckTimeout: 6*cfg.Timeout + 10*time.Minute,
		OnStart: func(c string) { env.current, started = c, time.Now() },
		OnResult: func(c grading.CheckResult) {
			env.Passed[c.ID] = c.Passed
			env.Metrics["seconds:"+c.ID] = time.Since(started).Seconds()
		}})
	if env.fatal == nil && env.ptx == "" && cfg.Sanitizer != "" && env.correct() {
		// The PTX the sanitizer's points are judged on (clockReads), for
		// an exercise without a method check: a request of the graded run,
		// replayed as the others are.
		env.fetchPTX()
	}
	if env.fatal != nil {
		return failure(listing, cfg, env.fatal, env.fatalIn, log), env
	}
	env.Metrics["correct"] = 0
	if env.correct() && env.perf != nil && env.perf.err == nil {
		env.Metrics["correct"] = 1
	}
	res.Metrics = env.Metrics
	if len(env.Notes) > 0 {
		res.Message = strings.TrimSpace(res.Message + "\n" + strings.Join(env.Notes, "\n"))
	}
	return res, env
}

// failure is the result of an exercise that ended with err during check
// (or before any): it scores 0, with why.
func failure(ex grading.Exercise, cfg Config, err error, check string, log func() string) grading.ExerciseResult {
	where := ""
	if check != "" {
		where = fmt.Sprintf(" during check %q", check)
	}
	printed := ""
	if s := log(); s != "" {
		printed = "\nWhat the kernel and the child printed (cut): " + s
	}
	var he *hungError
	var fe *faultError
	var de *diedError
	var ce *childError
	switch {
	case errors.As(err, &he) && (he.op == opCompile || he.op == opInit):
		return grading.Fail(ex, grading.TimedOut, fmt.Sprintf("the compilation of %s did not finish within %v%s (macros or templates that expand without end?). The process was killed; the exercise scores 0.%s", ex.Files[0], he.timeout, where, printed), cfg.Seed)
	case errors.As(err, &he):
		return grading.Fail(ex, grading.TimedOut, fmt.Sprintf("the GPU checks did not finish within %v: the kernel hung%s (a loop that never ends, or a barrier that not every thread reaches?). The process was killed; the GPU is free for the next exercise. The exercise scores 0.%s", he.timeout, where, printed), cfg.Seed)
	case errors.As(err, &fe):
		return grading.Fail(ex, grading.Crashed, fmt.Sprintf("the kernel faulted%s: %s. An access outside the arrays (check the bounds of every index) ends the launch; the exercise scores 0.%s", where, fe.msg, printed), cfg.Seed)
	case errors.As(err, &de):
		return grading.Fail(ex, grading.Crashed, fmt.Sprintf("%s%s; the exercise scores 0.%s", de.msg, where, printed), cfg.Seed)
	case errors.As(err, &ce) && ce.kind == errKindNoGPU:
		return grading.Fail(ex, grading.NeedsGPU, NeedsGPUMessage(ex.ID, errors.New(ce.msg)), cfg.Seed)
	case errors.As(err, &ce) && ce.kind == errKindCompile:
		return grading.Fail(ex, grading.BuildFailed, ce.msg, cfg.Seed)
	}
	return grading.Fail(ex, grading.NotAvailable, fmt.Sprintf("the GPU checks could not run%s: %v", where, err), cfg.Seed)
}

// sentRequest is a request of the graded run, with the floats its answer
// was to carry.
type sentRequest struct {
	req  request
	want int
}

// sanitize runs compute-sanitizer's tool on the submission's kernel and
// returns the check named for the tool: passed when the kernel is correct
// (a kernel that writes nothing has no error to find) and the tool's exit
// status says it found nothing. The tool watches a child that is sent the
// graded run's requests again, every one in its order: the same source,
// builds, grids, seeds and coefficients, the timed chain and the counting
// run included, so that a kernel cannot tell the watched launches from
// the graded ones by their sizes or their order (and the method check
// refuses a kernel that reads the clock or the timers, which could tell
// them apart by their speed).
func sanitize(cfg Config, env *Env, source, tool string) grading.CheckResult {
	spec := env.Spec
	title := map[string]string{
		"memcheck":  "compute-sanitizer memcheck: no access outside the arrays",
		"racecheck": "compute-sanitizer racecheck: no shared-memory race",
	}[tool]
	cr := grading.CheckResult{ID: tool, Title: title, MaxPoints: 1}
	if !env.correct() {
		cr.Message = fmt.Sprintf("compute-sanitizer %s counts only for a correct kernel: %v must pass first", tool, spec.correctness())
		return cr
	}
	if p := clockReads(env); p != "" {
		cr.Message = fmt.Sprintf("compute-sanitizer %s scores only a kernel that cannot tell a watched run from a graded one: %s", tool, p)
		return cr
	}
	timeout := 4 * cfg.Timeout
	r, err := startRemote(cfg.Launch, spec.ID, timeout, []string{cfg.Sanitizer, "--tool", tool, "--error-exitcode", "86", "--print-limit", "8"})
	if err != nil {
		cr.Message = fmt.Sprintf("compute-sanitizer %s could not start (%v); the check scores 0", tool, err)
		return cr
	}
	ran := func() error {
		for _, s := range env.sent {
			if tool == "racecheck" && s.req.Op == opTime {
				// racecheck slows shared memory a thousandfold: the timed
				// chain (whose output is checked against the reference) is
				// left out; a kernel cannot count the launches it missed,
				// as it keeps no state between launches (the audit refuses
				// __device__ variables)
				continue
			}
			_, _, err := r.call(s.req, s.want)
			var ce *childError
			switch {
			case errors.As(err, &ce):
				// answered (a launch refused, memory short under the tool):
				// the next request as in the graded run
			case err != nil:
				return err
			}
		}
		return nil
	}()
	exit := r.close()
	out := r.stdout.String() + "\n" + r.stderr.String()
	var he *hungError
	switch {
	case errors.As(ran, &he):
		cr.Message = fmt.Sprintf("compute-sanitizer %s did not finish within %v; the check scores 0", tool, timeout)
	case exitCode(exit) == 86:
		cr.Message = fmt.Sprintf("compute-sanitizer %s found errors in %s:\n%s", tool, spec.File, sanitizerErrors(out))
	case ran == nil && exit == nil:
		cr.Passed, cr.Points, cr.Message = true, 1, "ok"
	default:
		why := ran
		if why == nil {
			why = exit
		}
		cr.Message = fmt.Sprintf("compute-sanitizer %s could not run the kernel (%v): %s; the check scores 0", tool, why, cut(lastLines(r.stderr.String(), 6), 1000))
	}
	return cr
}

// clockReads returns why the kernel could tell a watched run from a graded
// one, as the method check's audit found it in the PTX ("" when it
// cannot, or when no PTX was inspected).
func clockReads(env *Env) string {
	if env.ptx == "" {
		return ""
	}
	e, err := parsePTX(env.ptx, env.Spec.Entry())
	if err != nil {
		return ""
	}
	for _, p := range e.audit(true) {
		if strings.Contains(p, "special register") || strings.Contains(p, "between launches") {
			return p
		}
	}
	return ""
}

// sanitizerErrors keeps compute-sanitizer's error lines ("========= …"),
// for the message only: whether the check passes is the tool's exit
// status, which the kernel's printf cannot change.
func sanitizerErrors(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "=========") && strings.TrimSpace(strings.TrimLeft(l, "=")) != "" {
			keep = append(keep, cut(strings.TrimSpace(strings.TrimLeft(l, "= ")), 300))
		}
		if len(keep) == 12 {
			break
		}
	}
	return strings.Join(keep, "\n")
}
