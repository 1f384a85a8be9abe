package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

func init() {
	commands["run"] = command{
		summary: "run one 3D seven-point step once and print a summary",
		run:     runCmd,
	}
}

// field is one extra line of a run summary and one extra JSON field.
type field struct {
	Key   string // JSON key
	Label string // summary label; empty for a field of the JSON only
	Value any    // JSON value
	Text  string // summary text
}

// runResult is the JSON form of a run.
type runResult struct {
	Kernel    string   `json:"kernel"`
	Backend   string   `json:"backend"`
	N         int      `json:"n"`
	Tile      int      `json:"tile"`
	Block     string   `json:"-"` // -block, when given; the backend's fields give the launch's block
	Reps      int      `json:"reps"`
	Steps     int      `json:"steps"`
	Ms        float64  `json:"ms"`
	GBps      float64  `json:"gbps"`
	GFlops    float64  `json:"gflops"`
	MaxAbsErr *float64 `json:"max_abs_err"`
	RelL2Err  *float64 `json:"rel_l2_err,omitempty"`
}

// defaultStep is the step `stencil run` runs unless told: the first that
// runs on the CPU, the reference sweep.
func defaultStep() string {
	if cpu := lab.Names3(func(s lab.Step3) bool { return s.Sweep != nil }); len(cpu) > 0 {
		return cpu[0]
	}
	return ""
}

// errUsage marks an error in the command line: exit status 2.
var errUsage = errors.New("usage")

func runCmd(args []string, stdout, stderr io.Writer) int {
	code, err := runMain(args, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "stencil run: %v\n", strings.TrimPrefix(err.Error(), "usage: "))
	}
	return code
}

func runMain(args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("stencil run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	kernel := fs.String("kernel", defaultStep(), "step to run: "+strings.Join(lab.Names3(nil), ", "))
	backend := fs.String("backend", lab.CPU, "where to run it: cpu, sim or gpu")
	n := fs.Int("n", 256, "grid side N (the grid is N×N×N, N ≥ 3)")
	tile := fs.Int("tile", 0, "input tile dimension IN_TILE_DIM (0: the step's default)")
	block := fs.String("block", "", "block XxYxZ for a step whose block is free (basic); empty: T×T×T for the tile T")
	reps := fs.Int("reps", 3, "timed repetitions; the summary gives the median")
	steps := fs.Int("steps", 0, "time steps each repetition advances, the boundary fixed (a multiple of the step's steps per pass; 0: one pass)")
	seed := fs.Uint64("seed", 1, "seed of the random input")
	check := fs.Bool("check", false, "compare with a float64 reference sweep and report the max error")
	asJSON := fs.Bool("json", false, "print one JSON object instead of the summary")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.PrintDefaults()
		}
		return 2, fmt.Errorf("%w: %v", errUsage, err)
	}
	switch {
	case fs.NArg() > 0:
		return 2, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case *n < 3:
		return 2, fmt.Errorf("-n %d: the grid needs N ≥ 3 to have an interior point", *n)
	case float64(*n)*float64(*n)*float64(*n) > lab.MaxPoints:
		return 2, fmt.Errorf("-n %d: %d³ points exceeds the limit of %d points", *n, *n, int64(lab.MaxPoints))
	case *tile < 0:
		return 2, fmt.Errorf("-tile %d: the tile must be positive (or 0 for the default)", *tile)
	}
	if err := checkRepsFlag(*reps); err != nil {
		return 2, err
	}
	if err := checkStepsFlag(*steps, 0); err != nil {
		return 2, err
	}
	blockDim, err := parseBlock(*block)
	if err != nil {
		return 2, err
	}
	step, err := lookupStep("-kernel", *kernel)
	if err != nil {
		return 2, err
	}
	if step.Dim != 3 {
		return 2, fmt.Errorf("-kernel %s is a %dD step; run runs the 3D steps", step.Name, step.Dim)
	}
	if !slices.Contains([]string{lab.CPU, lab.Sim, lab.GPU}, *backend) {
		return 2, fmt.Errorf("-backend %q: want cpu, sim or gpu", *backend)
	}
	if blockDim != (sim.Dim3{}) {
		if s3, err := lab.LookupStep3(step.Name); err != nil || !s3.BlockShape {
			return 2, fmt.Errorf("-block %s: %s's block follows from its tile; only a step whose block is free (%s) takes -block",
				*block, step.Name, strings.Join(lab.Names3(func(s lab.Step3) bool { return s.BlockShape }), ", "))
		}
	}
	run := lab.Run{Step: step.Name, Backend: *backend, Config: lab.Config{Tile: *tile, Block: blockDim},
		NZ: *n, NY: *n, NX: *n, Seed: *seed, C: lab.DistinctCoeffs(), Reps: *reps, Steps: *steps,
		Progress: sim.PrintProgress(stderr)}
	// Every host grid of the run and of the check, counted before any is
	// allocated; the GPU checks its own memory.
	grids := run.HostGrids(*backend == lab.GPU)
	if *check {
		grids += lab.CheckGrids(*steps)
	}
	if err := lab.CheckMemory(fmt.Sprintf("-n %d: %s", *n, lab.RunWhat(grids, *n, *n, *n)),
		uint64(grids)*4*uint64(*n)*uint64(*n)*uint64(*n), lab.CubeFit(grids)); err != nil {
		return 1, err
	}
	res, err := lab.Execute(run)
	if err != nil {
		if res.Out == nil {
			return 1, err
		}
		return 1, fmt.Errorf("%s on %s: %w", step.Name, *backend, err)
	}
	src, dst := res.Src, res.Out
	ms := res.MedianWall()
	interior := float64(src.Interior())
	work := interior * float64(res.Steps) // point updates of one repetition
	out := runResult{
		Kernel: step.Name, Backend: *backend, N: *n, Tile: *tile, Reps: *reps, Steps: res.Steps, Ms: ms,
		Block:  *block,
		GBps:   8 * work / (ms * 1e6),
		GFlops: lab.Flops7 * work / (ms * 1e6),
	}
	if *check {
		// The reference accumulates in float64 and costs at most one
		// extra grid; src is not needed afterwards.
		d, err := lab.CheckRun(dst, src, lab.DistinctCoeffs(), res.Steps)
		if err != nil {
			return 1, fmt.Errorf("float64 reference: %w", err)
		}
		out.MaxAbsErr, out.RelL2Err = &d.MaxAbs, &d.RelL2
	}
	extra := launchFields(res)
	if *asJSON {
		if err := writeJSON(stdout, out, extra); err != nil {
			return 1, fmt.Errorf("-json: %w", err)
		}
	} else {
		printSummary(stdout, out, step, extra)
	}
	if out.MaxAbsErr != nil {
		if err := checkTolerance(lab.Diff{MaxAbs: *out.MaxAbsErr, RelL2: *out.RelL2Err}, res.Steps, largestFinite(dst.Data)); err != nil {
			return 1, fmt.Errorf("-check: %s on %s: %w", step.Name, *backend, err)
		}
	}
	return 0, nil
}

// CheckTolerance is the largest difference from the float64 reference
// that `stencil run -check` accepts per time step, relative to the
// largest value of the output (or 1, if all are smaller): float32 sweeps of
// the lab differ by a few units of rounding, about 10⁻⁷, and a wrong
// kernel by far more.
const CheckTolerance = 1e-5

// checkTolerance returns an error unless the difference d of an output
// from its reference after steps time steps is within CheckTolerance per
// time step: the largest difference relative to scale (at least 1) and
// the relative L2 difference. A NaN or a point never written fails.
func checkTolerance(d lab.Diff, steps int, scale float64) error {
	tol := CheckTolerance * float64(max(steps, 1))
	limit := tol * max(scale, 1)
	switch {
	case math.IsNaN(d.MaxAbs) || math.IsInf(d.MaxAbs, 0):
		return fmt.Errorf("some output points are NaN or were never written: outside the tolerance")
	case d.MaxAbs > limit:
		return fmt.Errorf("max |out − float64 reference| = %.3g exceeds the tolerance %.3g (%g per time step, relative to the largest value %.3g)",
			d.MaxAbs, limit, CheckTolerance, max(scale, 1))
	case !(d.RelL2 <= tol):
		return fmt.Errorf("relative L2 difference from the float64 reference %.3g exceeds the tolerance %.3g (%g per time step)",
			d.RelL2, tol, CheckTolerance)
	}
	return nil
}

// largestFinite returns the largest magnitude among the finite values.
func largestFinite(v []float32) float64 {
	m := 0.0
	for _, x := range v {
		if a := math.Abs(float64(x)); a > m && !math.IsInf(a, 0) {
			m = a
		}
	}
	return m
}

// parseBlock reads a block shape XxYxZ ("32x8x1", or with "×"); the
// empty string is the zero Dim3, the tile's block.
func parseBlock(s string) (sim.Dim3, error) {
	if s == "" {
		return sim.Dim3{}, nil
	}
	parts := strings.Split(strings.ReplaceAll(s, "×", "x"), "x")
	var v [3]int
	if len(parts) != 3 {
		return sim.Dim3{}, fmt.Errorf("-block %q: want three sides XxYxZ, e.g. 32x8x1", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return sim.Dim3{}, fmt.Errorf("-block %q: side %q must be a positive integer", s, p)
		}
		v[i] = n
	}
	b := sim.Dim3{X: v[0], Y: v[1], Z: v[2]}
	if b.Size() > sim.MaxThreadsPerBlock {
		return sim.Dim3{}, fmt.Errorf("-block %s: %d threads exceeds %d threads per block", b.Shape(), b.Size(), sim.MaxThreadsPerBlock)
	}
	return b, nil
}

// launchFields are the summary lines and JSON fields a backend adds about
// the launch: the simulator's counted traffic, or the GPU's launch and
// kernel time.
func launchFields(res lab.Result) []field {
	switch {
	case res.Backend == lab.Sim:
		return simFields(res)
	case res.TimedByBackend():
		return gpuFields(res)
	}
	return nil
}

// writeJSON prints res and the extra fields as one JSON object.
func writeJSON(w io.Writer, res runResult, extra []field) error {
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	obj := map[string]any{}
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	for _, f := range extra {
		obj[f.Key] = f.Value
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(obj)
}

func printSummary(w io.Writer, r runResult, step lab.Step, extra []field) {
	rule := strings.Repeat("=", 56)
	tile := "default"
	if r.Tile > 0 {
		tile = fmt.Sprint(r.Tile)
	}
	if !step.Tiled {
		tile = "n/a"
	}
	fmt.Fprintln(w, rule)
	fmt.Fprintf(w, "  3D seven-point stencil: %s on %s\n", step.Title, r.Backend)
	fmt.Fprintln(w, rule)
	line := func(label, text string) { fmt.Fprintf(w, "%-22s %s\n", label+":", text) }
	line("Grid size", fmt.Sprintf("%d×%d×%d", r.N, r.N, r.N))
	if r.Steps > 1 {
		line("Time steps", fmt.Sprintf("%d per repetition, the boundary fixed", r.Steps))
	}
	line("Tile (IN_TILE_DIM)", tile)
	if r.Block != "" {
		line("Block (-block)", r.Block)
	}
	line("Time", fmt.Sprintf("%.3f ms (median of %d)", r.Ms, r.Reps))
	line("Throughput", fmt.Sprintf("%.2f GB/s (8 B per interior point and time step)", r.GBps))
	line("Compute", fmt.Sprintf("%.2f GFLOP/s (13 flops per point)", r.GFlops))
	if r.MaxAbsErr != nil {
		line("Max abs error", fmt.Sprintf("%.3g (rel. L2 %.3g) against a float64 sweep", *r.MaxAbsErr, *r.RelL2Err))
		if math.IsInf(*r.MaxAbsErr, 0) {
			line("Warning", "some output points were never written (NaN)")
		}
	}
	for _, f := range extra {
		if f.Label != "" { // a JSON-only field
			line(f.Label, f.Text)
		}
	}
	fmt.Fprintln(w, rule)
}
