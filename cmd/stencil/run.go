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

	"stencillab.dev/gpu"
	"stencillab.dev/lab"
	"stencillab.dev/lab/halo" // registers the split of cpu and sim over goroutine ranks
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
	ranks := fs.Int("ranks", 0, "split the run over this many goroutine ranks on cpu or sim (z-slabs; pencils with -py); 0 or 1: one domain")
	py := fs.Int("py", 0, "ranks (or GPUs) along y for a pencil split; the rest lie along z (0 or 1: z-slabs)")
	gpus := fs.String("gpus", "", "split the run over GPUs: a count (4: GPUs 0 to 3) or ordinals (0,2); implies -backend gpu")
	overlap := fs.String("overlap", "", "how a split overlaps its exchange with its sweep (the gpu backend's variants; cpu and sim: none)")
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
	if !slices.Contains([]string{lab.CPU, lab.Sim, lab.GPU}, *backend) {
		return 2, fmt.Errorf("-backend %q: want cpu, sim or gpu", *backend)
	}
	split, err := splitFlags(fs, *backend, *ranks, *py, *gpus, *overlap)
	if err != nil {
		return 2, err
	}
	*backend = split.backend
	splits := split.Splits(*backend)
	// The one lookup, resolve and validation of the run: the plan travels
	// from here to the launch.
	plan, err := lab.Resolve(*kernel, *backend, lab.Config{Tile: *tile, Block: blockDim})
	switch {
	case err == nil && plan.Kernel == nil:
	case plan.Step.Name == "" || plan.Kernel != nil: // a broken kernel is `stencil sim`'s
		return 2, notA3DStep("-kernel", *kernel, err)
	case blockDim != (sim.Dim3{}) && !plan.Step.BlockShape:
		return 2, fmt.Errorf("-block %s: %s's block follows from its tile; only a step whose block is free (%s) takes -block",
			*block, plan.Step.Name, strings.Join(lab.Names3(func(s lab.Step3) bool { return s.BlockShape }), ", "))
	default:
		return 1, split.noGPU(err)
	}
	step := plan.Step.Step
	plan.Name = step.Name // the summary and the JSON name a step by its own name, not an alias
	run := lab.Run{Plan: plan, NZ: *n, NY: *n, NX: *n, Seed: *seed, C: lab.DistinctCoeffs(), Reps: *reps, Steps: *steps,
		Progress: sim.PrintProgress(stderr), Split: split.Split}
	// Every host grid of the run and of the check, counted before any is
	// allocated; the GPU checks its own memory.
	grids := run.HostGrids(*backend == lab.GPU)
	if *check {
		grids += lab.CheckGrids(*steps)
	}
	if splits {
		grids += split.hostGrids(*check)
	}
	if err := lab.CheckMemory(fmt.Sprintf("-n %d: %s", *n, lab.RunWhat(grids, *n, *n, *n)),
		uint64(grids)*4*uint64(*n)*uint64(*n)*uint64(*n), lab.CubeFit(grids)); err != nil {
		return 1, err
	}
	res, err := lab.Execute(run)
	if err != nil {
		err = split.noGPU(err)
		if res.Out == nil {
			return 1, err
		}
		return 1, fmt.Errorf("%s on %s: %w", step.Name, *backend, err)
	}
	src, dst := res.Src, res.Out
	// The split's check runs the single domain from src, before the
	// float64 check below overwrites it.
	var splitExtra []field
	var splitErr error
	if splits {
		splitExtra = splitFields(res)
		if *check {
			f, err := checkSplit(run, res)
			splitExtra = append(splitExtra, f...)
			splitErr = err
		}
	}
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
	extra := append(launchFields(res), splitExtra...)
	if *asJSON {
		if err := writeJSON(stdout, out, extra); err != nil {
			return 1, fmt.Errorf("-json: %w", err)
		}
	} else {
		printSummary(stdout, out, step, extra)
	}
	if out.MaxAbsErr != nil {
		if err := checkTolerance(lab.Diff{MaxAbs: *out.MaxAbsErr, RelL2: *out.RelL2Err}, res.Steps, lab.LargestFinite(dst.Data)); err != nil {
			return 1, fmt.Errorf("-check: %s on %s: %w", step.Name, *backend, err)
		}
	}
	if splitErr != nil {
		return 1, fmt.Errorf("-check: %s on %s: %w", step.Name, *backend, splitErr)
	}
	return 0, nil
}

// splitFlag is what -ranks, -py, -gpus and -overlap ask for.
type splitFlag struct {
	lab.Split
	backend string // the backend, gpu when -gpus is given
}

// splitFlags reads the split flags of `stencil run`: -ranks on cpu or sim,
// -gpus on gpu (implied when -backend is not given), -py for pencils of
// either, -overlap passed through.
func splitFlags(fs *flag.FlagSet, backend string, ranks, py int, gpus, overlap string) (splitFlag, error) {
	sf := splitFlag{backend: backend}
	if gpus != "" {
		if !flagSet(fs, "backend") {
			sf.backend = lab.GPU
		}
		if sf.backend != lab.GPU {
			return sf, fmt.Errorf("-gpus %s: GPUs are the gpu backend's, not %s's; split a run on %s with -ranks", gpus, backend, backend)
		}
		devs, err := parseGPUs(gpus)
		if err != nil {
			return sf, err
		}
		sf.Devices = devs
	}
	switch {
	case ranks < 0 || ranks > lab.MaxRanks:
		return sf, fmt.Errorf("-ranks %d: want 0 to %d ranks", ranks, lab.MaxRanks)
	case ranks > 1 && sf.backend == lab.GPU:
		return sf, fmt.Errorf("-ranks %d: the gpu backend splits over GPUs; give -gpus %d", ranks, ranks)
	case py < 0 || py > lab.MaxRanks:
		return sf, fmt.Errorf("-py %d: want 0 to %d ranks along y", py, lab.MaxRanks)
	case overlap != "" && !flagSet(fs, "ranks") && gpus == "":
		return sf, fmt.Errorf("-overlap %s: only a split run (-ranks or -gpus) overlaps its exchange", overlap)
	}
	sf.Ranks, sf.PY, sf.Overlap = ranks, py, overlap
	if sf.backend == lab.GPU {
		sf.Ranks = 0
	}
	if py > 1 && ranks <= 1 && len(sf.Devices) == 0 {
		return sf, fmt.Errorf("-py %d: a pencil split needs -ranks (or -gpus) as well", py)
	}
	if err := sf.Check(sf.backend); err != nil {
		return sf, fmt.Errorf("-ranks %d -py %d -gpus %q: %w", ranks, py, gpus, err)
	}
	return sf, nil
}

// parseGPUs reads -gpus: a count G (the GPUs 0 to G−1) or a
// comma-separated list of distinct ordinals ("0,2"), each at most
// lab.MaxRanks.
func parseGPUs(s string) ([]int, error) {
	fields := strings.Split(s, ",")
	if len(fields) == 1 {
		g, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || g < 1 || g > lab.MaxRanks {
			return nil, fmt.Errorf("-gpus %q: want a count from 1 to %d or a list of GPU ordinals such as 0,2", s, lab.MaxRanks)
		}
		return firstGPUs(g), nil
	}
	if len(fields) > lab.MaxRanks {
		return nil, fmt.Errorf("-gpus: %d ordinals exceeds the limit of %d", len(fields), lab.MaxRanks)
	}
	var devs []int
	for _, f := range fields {
		d, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || d < 0 || d >= lab.MaxRanks {
			return nil, fmt.Errorf("-gpus %q: ordinal %q must be an integer from 0 to %d", s, f, lab.MaxRanks-1)
		}
		if slices.Contains(devs, d) {
			return nil, fmt.Errorf("-gpus %q: GPU %d named twice", s, d)
		}
		devs = append(devs, d)
	}
	return devs, nil
}

// firstGPUs returns the ordinals of the GPUs 0 to g−1.
func firstGPUs(g int) []int {
	devs := make([]int, g)
	for i := range devs {
		devs[i] = i
	}
	return devs
}

// hostGrids returns the host grids a split adds to a run's: the ranks'
// local grids, about two grids in all on cpu and sim, and the single
// domain's output and its two ping-pong grids for -check.
func (sf splitFlag) hostGrids(check bool) int {
	n := 0
	if sf.backend != lab.GPU {
		n += 2
	}
	if check {
		n += 3
	}
	return n
}

// noGPU returns the gpu backend's own error on a machine without a GPU
// in place of err, when a GPU split failed for want of one (or of the
// gpu package's splitter); other errors pass unchanged.
func (sf splitFlag) noGPU(err error) error {
	if sf.backend != lab.GPU || len(sf.Devices) == 0 || errors.Is(err, gpu.ErrNoGPU) {
		return err
	}
	d, oerr := gpu.Open(sf.Devices[0])
	if oerr != nil {
		if errors.Is(oerr, gpu.ErrNoGPU) {
			return oerr
		}
		return err
	}
	d.Close()
	return err
}

// splitFields are the summary lines and JSON fields of a split run: its
// ranks, what they sent each other, and their surface to volume.
func splitFields(res lab.Result) []field {
	s := res.Comm
	if s == nil {
		return nil
	}
	layout := fmt.Sprintf("%d z-slabs", s.Ranks)
	if s.PY > 1 {
		layout = fmt.Sprintf("%d pencils, %d along z × %d along y", s.Ranks, s.PZ, s.PY)
	}
	every := "every time step"
	if s.StepsPerExchange > 1 {
		every = fmt.Sprintf("every %d time steps", s.StepsPerExchange)
	}
	fields := []field{
		{Key: "ranks", Label: "Ranks", Value: s.Ranks, Text: fmt.Sprintf("%s, halo %d deep, exchanged %s", layout, s.Halo, every)},
		{Key: "pz", Value: s.PZ}, {Key: "py", Value: s.PY}, {Key: "halo", Value: s.Halo},
		{Key: "steps_per_exchange", Value: s.StepsPerExchange},
		{Key: "messages_per_step", Label: "Messages", Value: s.MessagesPerStep(),
			Text: fmt.Sprintf("%g per time step (%d per exchange, all ranks)", s.MessagesPerStep(), s.TotalMessages())},
		{Key: "halo_bytes_per_step", Label: "Halo bytes", Value: s.BytesPerStep(),
			Text: fmt.Sprintf("%s per time step (%d B per exchange, all ranks)", byteSize(s.BytesPerStep()), s.TotalBytes())},
		{Key: "messages_per_rank", Value: s.Messages}, {Key: "halo_bytes_per_rank", Value: s.Bytes},
	}
	if parts, err := halo.Decompose(res.NZ, res.NY, res.NX, s.Ranks, s.PY, s.Halo); err == nil {
		var in, h int64
		for _, v := range halo.Volume(parts) {
			in += v.Interior
			h += v.Halo
		}
		if in > 0 {
			ratio := float64(h) / float64(in)
			fields = append(fields, field{Key: "surface_to_volume", Label: "Surface to volume", Value: ratio,
				Text: fmt.Sprintf("%.4f (%d halo points the ranks receive per exchange / the %d points they own)", ratio, h, in)})
		}
	}
	if res.Backend == lab.Sim {
		fields = append(fields, field{Key: "counters_of", Label: "Counters above", Value: "rank 0",
			Text: "rank 0's last pass over its local grid, halo planes included"})
	}
	if n := len(res.RankTimes); n > 0 {
		last := res.RankTimes[n-1]
		text := ""
		for r, t := range last {
			if r > 0 {
				text += ", "
			}
			text += fmt.Sprintf("%d: %.2f + %.2f", r, t.Compute, t.Exchange)
		}
		fields = append(fields, field{Key: "rank_times_ms", Label: "Rank compute + exchange", Value: last, Text: text + " ms (last repetition)"})
	}
	return fields
}

// byteSize writes a byte count with a binary prefix.
func byteSize(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.2f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.2f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}

// checkSplit runs the single-domain twin of a split run (on the split's
// first GPU on gpu) from the same input and compares the outputs bit for
// bit. On a GPU that the single domain does not fit, it says so and leaves
// the check to the float64 reference.
func checkSplit(run lab.Run, res lab.Result) ([]field, error) {
	one := run
	one.Split = lab.Split{}
	if run.Backend == lab.GPU {
		one.Split = lab.Split{Devices: run.Split.Devices[:1], Overlap: run.Split.Overlap}
	}
	one.Src, one.Dst, one.Reps, one.Progress = res.Src, nil, 1, nil
	want, err := lab.Execute(one)
	if err != nil {
		if run.Backend == lab.GPU && errors.Is(err, lab.ErrMemory) {
			return []field{{Key: "split_check", Label: "Split check", Value: "single domain does not fit",
				Text: "the single domain does not fit one GPU: checked against the float64 reference only"}}, nil
		}
		return nil, fmt.Errorf("the single-domain run to compare with: %w", err)
	}
	differ, first := bitsDiffer(res.Out, want.Out)
	if differ > 0 {
		g := res.Out
		z, y, x := first/(g.NY*g.NX), first/g.NX%g.NY, first%g.NX
		return []field{{Key: "split_check", Label: "Split check", Value: fmt.Sprintf("%d points differ", differ),
				Text: fmt.Sprintf("%d points differ from the single domain", differ)}},
			fmt.Errorf("the split differs from the single domain at %d points, the first (%d, %d, %d): %g against %g",
				differ, z, y, x, g.Data[first], want.Out.Data[first])
	}
	return []field{{Key: "split_check", Label: "Split check", Value: "bit for bit",
		Text: fmt.Sprintf("equal to the single domain bit for bit (%d points)", len(res.Out.Data))}}, nil
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
