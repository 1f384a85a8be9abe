package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"stencillab.dev/gpu"
	"stencillab.dev/gpu/bench"
	"stencillab.dev/lab"
	"stencillab.dev/lab/benchfile"
	"stencillab.dev/lab/sim"
)

func init() {
	commands["bench"] = command{
		summary: "time the 3D seven-point steps on the GPU against a float4 copy",
		run:     benchCmd,
	}
}

// benchConfig is one kernel configuration to time: a step with its tile,
// block and defines.
type benchConfig struct {
	label string // e.g. fast or fast[FAST_BY=16]
	step  string
	opts  gpu.Options // as given: the tile 0 when left to the step
	plan  lab.Plan    // the step, tile and block resolved once on the gpu backend
}

// engine is the configuration as the bench engine takes it.
func (c benchConfig) engine() bench.Config {
	return bench.Config{Label: c.label, Plan: c.plan, Defines: c.opts.Defines, Tune: c.own()}
}

// own reports whether the configuration sets nothing itself (no tile,
// block or define): the step as registered, which the timed choice may
// tune (-tune).
func (c benchConfig) own() bool {
	return c.opts.Tile == 0 && c.opts.Block == [3]int{} && len(c.opts.Defines) == 0
}

// resolve resolves the configuration's tile and block against its step.
func (c *benchConfig) resolve() error {
	cfg := lab.Config{Tile: c.opts.Tile}
	if c.opts.Block != [3]int{} {
		cfg.Block = sim.Dim3{X: c.opts.Block[0], Y: c.opts.Block[1], Z: c.opts.Block[2]}
	}
	p, err := c.plan.Configure(cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", c.label, err)
	}
	c.plan = p
	return nil
}

// parseVariant parses KERNEL[:key=value,...]: tile=T and block=XxYxZ
// (basic) set the launch, other keys are preprocessor defines.
func parseVariant(s string) (benchConfig, error) {
	name, rest, _ := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	// The one lookup of the step; its tile and block are resolved once
	// they are known (resolve).
	plan, err := lab.Resolve(name, lab.GPU, lab.Config{})
	switch {
	case plan.Step.Name == "":
		if _, lerr := lab.LookupStep(name); lerr == nil {
			return benchConfig{}, fmt.Errorf("-variant %q: %s does not run on the GPU (the 3D steps are %s)", s, name, strings.Join(gpu.Steps3(), ", "))
		}
		return benchConfig{}, fmt.Errorf("-kernels %q is not a step: %w", name, err)
	case err != nil || plan.Kernel != nil:
		return benchConfig{}, fmt.Errorf("-variant %q: %s does not run on the GPU (the 3D steps are %s)", s, plan.Step.Name, strings.Join(gpu.Steps3(), ", "))
	}
	step := plan.Step
	c := benchConfig{label: step.Name, step: step.Name, plan: plan}
	if rest == "" {
		return c, nil
	}
	for _, kv := range strings.Split(rest, ",") {
		key, val, ok := strings.Cut(kv, "=")
		switch {
		case ok && strings.EqualFold(key, "tile"):
			t, err := strconv.Atoi(val)
			if err != nil || t < 1 {
				return benchConfig{}, fmt.Errorf("-variant %q: tile %q must be a positive integer", s, val)
			}
			c.opts.Tile = t
		case ok && strings.EqualFold(key, "block"):
			var b [3]int
			parts := strings.Split(strings.ReplaceAll(val, "×", "x"), "x")
			if len(parts) != 3 {
				return benchConfig{}, fmt.Errorf("-variant %q: block %q must be XxYxZ", s, val)
			}
			for i, p := range parts {
				if b[i], err = strconv.Atoi(p); err != nil || b[i] < 1 {
					return benchConfig{}, fmt.Errorf("-variant %q: block %q must be three positive integers XxYxZ", s, val)
				}
			}
			c.opts.Block = b
		default:
			d, err := gpu.ParseDefine(kv)
			if err != nil {
				return benchConfig{}, fmt.Errorf("-variant %q: %v", s, err)
			}
			c.opts.Defines = append(c.opts.Defines, d)
		}
	}
	c.label = step.Name + "[" + rest + "]"
	return c, nil
}

// parseTiles parses -tile: one tile for every kernel ("16") or per kernel
// ("basic=8,coarsened=16").
func parseTiles(s string) (all int, per map[string]int, err error) {
	per = map[string]int{}
	if s == "" {
		return 0, per, nil
	}
	if t, err := strconv.Atoi(s); err == nil {
		if t < 1 {
			return 0, nil, fmt.Errorf("-tile %d: the tile must be positive", t)
		}
		return t, per, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		t, err := strconv.Atoi(v)
		if !ok || err != nil || t < 1 {
			return 0, nil, fmt.Errorf("-tile %q: want a positive integer or KERNEL=T,KERNEL=T", s)
		}
		step, err := lookupStep("-tile", k)
		if err != nil {
			return 0, nil, err
		}
		per[step.Name] = t
	}
	return 0, per, nil
}

func parseSizes(s string) ([]int, error) {
	var ns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 3 {
			return nil, fmt.Errorf("-n %q: each size must be an integer N ≥ 3", s)
		}
		if float64(n)*float64(n)*float64(n) > lab.MaxPoints {
			return nil, fmt.Errorf("-n %q: %d³ points exceeds the limit of %d points", s, n, int64(lab.MaxPoints))
		}
		ns = append(ns, n)
	}
	return ns, nil
}

// benchConfigs resolves -kernels, -variant and -tile into the
// configurations to time: the kernels first, each with its -tile unless
// it names a tile itself, then the variants as given.
func benchConfigs(kernels string, variants []string, tiles string) ([]benchConfig, error) {
	all, per, err := parseTiles(tiles)
	if err != nil {
		return nil, err
	}
	var configs []benchConfig
	if kernels != "" {
		for _, k := range strings.Split(kernels, ",") {
			c, err := parseVariant(strings.TrimSpace(k))
			if err != nil {
				return nil, err
			}
			if c.opts.Tile == 0 {
				c.opts.Tile = all
				if t, ok := per[c.step]; ok {
					c.opts.Tile = t
				}
			}
			configs = append(configs, c)
		}
	}
	for _, v := range variants {
		c, err := parseVariant(v)
		if err != nil {
			return nil, err
		}
		configs = append(configs, c)
	}
	for i := range configs {
		if err := configs[i].resolve(); err != nil {
			return nil, err
		}
	}
	if len(configs) == 0 {
		return nil, errors.New("no kernel to time: give -kernels or -variant")
	}
	return configs, nil
}

type listFlag []string

// String returns the values given so far.
func (l *listFlag) String() string { return strings.Join(*l, " ") }

// Set adds one value; the flag may be repeated.
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func benchCmd(args []string, stdout, stderr io.Writer) int {
	code, err := benchMain(args, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "stencil bench: %v\n", strings.TrimPrefix(err.Error(), "usage: "))
	}
	return code
}

func benchMain(args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("stencil bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	kernels := fs.String("kernels", strings.Join(gpu.Steps3(), ","), "3D steps to time, comma-separated (may be empty with -variant); by default every seven-point step whose default pass divides -steps; the thirteen-point steps ("+strings.Join(gpu.Steps13(), ", ")+") when named, checked whole against lab.Advance13")
	sizes := fs.String("n", "256,512,1024", "grid sides N, comma-separated (N×N×N grids)")
	reps := fs.Int("reps", 100, "timed launches per kernel; the table gives the median")
	warmup := fs.Int("warmup", 5, "untimed launches before timing")
	tiles := fs.String("tile", "", "tile for every kernel (T) or per kernel (basic=8,tiled=8)")
	seed := fs.Uint64("seed", 1, "seed of the random input, filled on the device")
	check := fs.Bool("check", true, "compare each output with the lab's reference: three planes of a seven-point sweep, the whole grid of several time steps or of a thirteen-point step")
	steps := fs.Int("steps", 1, "time steps each timed run advances, the passes ping-ponging on the device (a multiple of each kernel's steps per pass)")
	jsonFile := fs.String("json", "", "write every measurement to this file as JSON")
	ordinal := fs.Int("device", 0, "GPU to use")
	gpus := fs.String("gpus", "", "time each kernel split over these numbers of GPUs, comma-separated (1,2,4: GPUs 0 to G−1 each), with its efficiency against the fewest")
	weak := fs.Bool("weak", false, "with -gpus: weak scaling, an N×N×(N·G) grid on G GPUs (efficiency t_base/t_G); without: strong scaling of the N³ grid (efficiency G_base·t_base/(G·t_G))")
	py := fs.Int("py", 0, "with -gpus: GPUs along y for a pencil split (each count above 1 a multiple of it); 0 or 1: z-slabs")
	overlap := fs.String("overlap", "", "with -gpus: the overlap variant of the split (the gpu backend's names); empty: its default")
	tuneDefault, tuneErr := gpu.DefaultTuneMode()
	tune := fs.String("tune", tuneDefault.String(), "the timed choice of a step given without settings: cache (time each step's candidate settings at the first run on this device and size class, keep the fastest that matched the reference, cache it), fresh (time again), off (the registered defaults); $"+gpu.EnvTune+" sets the default, $"+gpu.EnvTuneDir+" the cache's folder")
	var variants listFlag
	fs.Var(&variants, "variant", "another configuration, KERNEL:key=value,... (tile=T, block=XxYxZ, or a define such as FAST_BY=16); repeatable")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.PrintDefaults()
		}
		return 2, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return 2, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := checkRepsFlag(*reps); err != nil {
		return 2, err
	}
	if tuneErr != nil && !flagSet(fs, "tune") {
		return 2, tuneErr
	}
	tuneMode, err := gpu.ParseTuneMode(*tune)
	if err != nil {
		return 2, fmt.Errorf("-tune: %w", err)
	}
	tuneDir := ""
	if tuneMode != gpu.TuneOff {
		if tuneDir, err = gpu.ChoiceDir(); err != nil {
			fmt.Fprintf(stderr, "bench: %v; the choices are timed and not cached\n", err)
			tuneDir = ""
		}
	}
	if *warmup < 0 || *warmup > lab.MaxReps {
		return 2, fmt.Errorf("-warmup %d: must be 0 to %d", *warmup, lab.MaxReps)
	}
	if err := checkStepsFlag(*steps, 1); err != nil {
		return 2, err
	}
	ns, err := parseSizes(*sizes)
	if err != nil {
		return 2, err
	}
	if !flagSet(fs, "kernels") {
		*kernels = strings.Join(defaultBenchSteps(*steps), ",")
	}
	configs, err := benchConfigs(*kernels, variants, *tiles)
	if err != nil {
		return 2, err
	}
	var counts []int
	switch {
	case *gpus != "":
		if counts, err = parseGPUCounts(*gpus, *py); err != nil {
			return 2, err
		}
		if flagSet(fs, "device") {
			return 2, fmt.Errorf("-device %d: -gpus takes GPUs 0 to G−1; hide others with CUDA_VISIBLE_DEVICES", *ordinal)
		}
	case *weak || *py != 0 || *overlap != "":
		return 2, errors.New("-weak, -py and -overlap time a split: give -gpus as well")
	}
	if *jsonFile != "" {
		// Before the GPU's minutes, not after them.
		if err := checkWritable(*jsonFile); err != nil {
			return 1, fmt.Errorf("-json: %w", err)
		}
	}

	d, err := gpu.Open(*ordinal)
	if err != nil {
		return 1, benchNoGPU(err)
	}
	if counts != nil {
		p := d.Props()
		d.Close()
		sb := scaleBench{backend: lab.GPU, args: args, props: p, configs: configs, sizes: ns, counts: counts, weak: *weak, py: *py, overlap: *overlap,
			steps: *steps, warmup: *warmup, reps: *reps, seed: *seed, check: *check, jsonFile: *jsonFile}
		return sb.run(stdout, stderr)
	}
	defer d.Close()
	p := d.Props()
	coeffs := lab.DistinctCoeffs()
	report := benchfile.File{
		Command: "stencil bench " + strings.Join(args, " "),
		Date:    time.Now().UTC().Format(time.RFC3339),
		Device:  p.Name,
		DeviceInfo: &benchfile.Device{Name: p.Name, Arch: p.Arch(), SMs: p.SMs, L2Bytes: p.L2Bytes, MemBytes: p.TotalMem,
			Driver: p.DriverVersion},
		Reps: *reps, Warmup: *warmup, Seed: *seed, Coeffs: coeffs,
	}
	fmt.Fprintf(stderr, "bench: %s (%s, %d SMs, %.0f GB), driver %d\n", p.Name, p.Arch(), p.SMs, float64(p.TotalMem)/1e9, p.DriverVersion)

	// Compile everything first, so that a bad configuration fails before
	// any grid is allocated.
	engine := make([]bench.Config, len(configs))
	for i, c := range configs {
		engine[i] = c.engine()
	}
	b, err := bench.Compile(d, engine, *steps)
	if errors.Is(err, bench.ErrSteps) {
		return 2, err
	}
	if err != nil {
		return 1, err
	}
	res, err := b.Run(bench.Spec{Sizes: ns, Steps: *steps, Warmup: *warmup, Reps: *reps,
		Seed:  func(n int) uint64 { return *seed + uint64(n) },
		Check: *check, Tolerance: 1e-5, StepsTolerance: CheckTolerance, Interior: true, Log: stderr,
		Each: func(r benchfile.Run) { printRun(stdout, r, p) },
		Tune: tuneMode, TuneDir: tuneDir,
		Choices: func(c gpu.Choice) {
			how := "timed now"
			if c.Cached {
				how = "cached"
			}
			fmt.Fprintf(stdout, "timed choice: %s at N=%d (size class %d, %d steps): %s, %.4f ms, %s\n",
				c.Key.Step, c.N, c.Key.Class, c.Key.Steps, c.Setting, c.Ms, how)
		}})
	if err != nil {
		return 1, err
	}
	report.Copies, report.Interior, report.Results = res.Copies, res.Interior, res.Runs
	for _, c := range engine {
		if c.Thirteen() {
			c13 := lab.DistinctCoeffs13()
			report.Coeffs13 = &c13
			break
		}
	}
	printTable(stdout, report)
	if *jsonFile != "" {
		b, err := json.MarshalIndent(report, "", " ")
		if err != nil {
			return 1, err
		}
		if err := os.WriteFile(*jsonFile, append(b, '\n'), 0o644); err != nil {
			return 1, fmt.Errorf("-json: %w", err)
		}
		fmt.Fprintf(stderr, "bench: wrote %s\n", *jsonFile)
	}
	return 0, nil
}

// printRun prints one run in the style of the study notes' summaries.
func printRun(w io.Writer, r benchfile.Run, p gpu.Props) {
	rule := strings.Repeat("=", 60)
	title := r.Label
	if s, err := lab.LookupStep(r.Kernel); err == nil {
		title = s.Title
		if s.Figure != "" {
			title += " (Fig. " + s.Figure + ")"
		}
	}
	fmt.Fprintln(w, rule)
	fmt.Fprintf(w, "  3D STENCIL ON %s: %s\n", strings.ToUpper(p.Name), r.Label)
	fmt.Fprintf(w, "  %s\n", title)
	fmt.Fprintln(w, rule)
	line := func(label, text string) { fmt.Fprintf(w, "%-22s %s\n", label+":", text) }
	line("Grid Size", fmt.Sprintf("%dx%dx%d", r.N, r.N, r.N))
	line("Tile Size", r.TileShape)
	line("Shared Memory/Block", fmt.Sprintf("%.1f KB (%d B)", float64(r.SharedBytes)/1024, r.SharedBytes))
	line("Registers/Thread", fmt.Sprintf("%d (%d B local)", r.Registers, r.LocalBytes))
	fmt.Fprintln(w, rule)
	fmt.Fprintln(w, "Execution Summary:")
	line("Grid Dimensions", fmt.Sprintf("%dx%dx%d", r.Grid[0], r.Grid[1], r.Grid[2]))
	line("Block Dimensions", fmt.Sprintf("%dx%dx%d", r.Block[0], r.Block[1], r.Block[2]))
	line("Median Time", fmt.Sprintf("%.4f ms (%d launches, min %.4f)", r.MedianMs, len(r.TimesMs), r.MinMs))
	line("Throughput", fmt.Sprintf("%.1f GB/s, %.1f%% of the float4 copy's %.1f GB/s", r.GBps, r.PctCopy, r.CopyGBps))
	if r.InteriorGBps > 0 {
		line("Interior Copy", fmt.Sprintf("%.1f%% of its %.1f GB/s (the boundary left untouched)", r.PctInterior, r.InteriorGBps))
	}
	line("Compute", fmt.Sprintf("%.1f GFLOP/s", r.GFlops))
	if r.MaxAbsErr != nil {
		line("Check", fmt.Sprintf("max |gpu - cpu| = %.2g over %d points of 3 planes", *r.MaxAbsErr, r.CheckedPoints))
	}
	fmt.Fprintln(w, rule)
}

// printTable prints the closing table: one row per run, the two copies of
// each size first. "% copy" is the share of the float4 copy of the whole
// grid, "% int" the share of the interior copy, which leaves the boundary
// untouched as the sweeps do.
func printTable(w io.Writer, rep benchfile.File) {
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-34s %5s %5s %10s %9s %8s %9s %7s %7s %7s\n", "kernel", "N", "steps", "tile", "median ms", "GB/s", "GFLOP/s", "% copy", "% int", "× fast")
	over := false
	for _, c := range rep.Copies {
		fmt.Fprintf(w, "%-34s %5d %5s %10s %9.4f %8.1f %9s %7.1f %7s %7s\n", "copy (float4)", c.N, "-", "-", c.MedianMs, c.GBps, "-", 100.0, "-", "-")
		for _, ic := range rep.Interior {
			if ic.N == c.N {
				fmt.Fprintf(w, "%-34s %5d %5s %10s %9.4f %8.1f %9s %7.1f %7.1f %7s\n", "copy (interior)", ic.N, "-", "-", ic.MedianMs, ic.GBps, "-",
					100*ic.GBps/c.GBps, 100.0, "-")
			}
		}
		for _, r := range rep.Results {
			if r.N != c.N {
				continue
			}
			speedup := "-"
			if f, ok := fastest(rep, r.N); ok {
				speedup = fmt.Sprintf("%.2f", r.PointsPerSecond()/f.PointsPerSecond())
			}
			over = over || r.PctCopy > 100
			fmt.Fprintf(w, "%-34s %5d %5d %10s %9.4f %8.1f %9.1f %7.1f %7.1f %7s\n", r.Label, r.N, r.TimeSteps(), r.TileShape, r.MedianMs, r.GBps, r.GFlops,
				r.PctCopy, r.PctInterior, speedup)
		}
	}
	fmt.Fprintln(w, "GB/s count 8 bytes per interior point and time step; × fast is the points per second against the fast single sweep's.")
	if over {
		fmt.Fprintln(w, "Shares of the copy above 100 %: a pass that does several time steps reads and writes each point less than once a step.")
	}
}

// fastest returns the run of the fast single sweep at n with its default
// configuration, the yardstick of the speed-ups: the step beyond the
// chapter, which runs on a GPU only, outside the cost model, one time step
// a pass.
func fastest(rep benchfile.File, n int) (benchfile.Run, bool) {
	ys := lab.Names3(func(s lab.Step3) bool {
		return lab.OnGPU(s) && lab.SevenPointStep(s) && !lab.Simulated(s) && !lab.InModel(s) && s.TimeSteps == nil
	})
	if len(ys) != 1 {
		return benchfile.Run{}, false
	}
	for _, r := range rep.Results {
		if r.N == n && r.Kernel == ys[0] && r.Label == r.Kernel {
			return r, true
		}
	}
	return benchfile.Run{}, false
}

// defaultBenchSteps returns the GPU steps a bench of steps time steps takes
// when -kernels is not given: those whose default pass advances a divisor
// of steps (at -steps 1 the single sweeps; at -steps 8 the temporally
// blocked step too).
func defaultBenchSteps(steps int) []string {
	var ns []string
	for _, name := range gpu.Steps3() {
		s, err := lab.LookupStep3(name)
		if err != nil {
			continue
		}
		cfg, err := s.Resolve(lab.Config{})
		if err != nil || steps%s.StepsPerPass(cfg) != 0 {
			continue
		}
		ns = append(ns, name)
	}
	return ns
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// parseGPUCounts reads bench's -gpus: distinct numbers of GPUs from 1 to
// lab.MaxRanks, comma-separated; with pencils (py > 1) each count above 1
// a multiple of py.
func parseGPUCounts(s string, py int) ([]int, error) {
	if py < 0 || py > lab.MaxRanks {
		return nil, fmt.Errorf("-py %d: want 0 to %d GPUs along y", py, lab.MaxRanks)
	}
	fields := strings.Split(s, ",")
	if len(fields) > lab.MaxRanks {
		return nil, fmt.Errorf("-gpus: %d counts exceeds the limit of %d", len(fields), lab.MaxRanks)
	}
	var counts []int
	for _, f := range fields {
		g, err := strconv.Atoi(strings.TrimSpace(f))
		switch {
		case err != nil || g < 1 || g > lab.MaxRanks:
			return nil, fmt.Errorf("-gpus %q: each count must be an integer from 1 to %d", s, lab.MaxRanks)
		case slices.Contains(counts, g):
			return nil, fmt.Errorf("-gpus %q: %d GPUs given twice", s, g)
		case g > 1 && py > 1 && g%py != 0:
			return nil, fmt.Errorf("-gpus %q -py %d: %d GPUs do not split into %d along y", s, py, g, py)
		}
		counts = append(counts, g)
	}
	return counts, nil
}

// scaleBench times kernels split over several GPUs: `stencil bench -gpus`.
type scaleBench struct {
	backend             string // gpu; cpu or sim split over goroutine ranks in tests
	args                []string
	props               gpu.Props
	configs             []benchConfig
	sizes, counts       []int
	weak                bool
	py                  int
	overlap             string
	steps, warmup, reps int
	seed                uint64
	check               bool
	jsonFile            string
}

// run times every configuration at every size on every count of GPUs,
// fewest first, through lab.Execute with a split (the gpu backend's
// splitter), and prints one row each with its efficiency.
func (b scaleBench) run(stdout, stderr io.Writer) (int, error) {
	counts := slices.Clone(b.counts)
	slices.Sort(counts)
	report := benchfile.File{
		Command: "stencil bench " + strings.Join(b.args, " "),
		Date:    time.Now().UTC().Format(time.RFC3339),
		Device:  b.props.Name,
		DeviceInfo: &benchfile.Device{Name: b.props.Name, Arch: b.props.Arch(), SMs: b.props.SMs, L2Bytes: b.props.L2Bytes,
			MemBytes: b.props.TotalMem, Driver: b.props.DriverVersion},
		Reps: b.reps, Warmup: b.warmup, Seed: b.seed, Coeffs: lab.DistinctCoeffs(),
	}
	for _, c := range b.configs {
		if len(c.opts.Defines) > 0 {
			return 2, fmt.Errorf("%s: -gpus times a step with its tile and block; defines (%v) do not pass through a split", c.label, c.opts.Defines)
		}
	}
	fmt.Fprintf(stderr, "bench: %s ×%v GPUs (%s scaling)\n", b.props.Name, counts, map[bool]string{true: "weak", false: "strong"}[b.weak])
	for _, n := range b.sizes {
		// Strong scaling times every count on one input, made once.
		var src *lab.Grid3[float32]
		if !b.weak {
			if err := lab.CheckMemory(fmt.Sprintf("N=%d: %s", n, lab.RunWhat(3, n, n, n)), 3*4*uint64(n)*uint64(n)*uint64(n), lab.CubeFit(3)); err != nil {
				return 1, err
			}
			var err error
			if src, err = lab.NewCube[float32](n); err != nil {
				return 1, fmt.Errorf("N=%d: %w", n, err)
			}
			fillPlanes(src, b.seed+uint64(n))
		}
		for _, c := range b.configs {
			var base *benchfile.Scale
			var baseOut *lab.Grid3[float32]
			for _, g := range counts {
				s, out, err := b.one(stderr, c, src, n, g)
				if err != nil {
					return 1, fmt.Errorf("%s at N=%d on %d GPUs: %w", c.label, n, g, err)
				}
				if base == nil {
					base, baseOut = &s, out
				}
				s.BaseGPUs, s.BaseMs = base.GPUs, base.MedianMs
				s.Efficiency = s.EfficiencyAt(s.MedianMs)
				switch {
				case !b.check:
				case g == base.GPUs:
					s.Checked = "the base run"
				case b.weak:
					s.Checked = "not checked: weak scaling grows the grid past the base run's"
				default:
					if differ, _ := bitsDiffer(out, baseOut); differ > 0 {
						printScale(stdout, s)
						return 1, fmt.Errorf("%s at N=%d on %d GPUs differs from the run on %d at %d points", c.label, n, g, base.GPUs, differ)
					}
					s.Checked = fmt.Sprintf("bit for bit against %d GPUs", base.GPUs)
				}
				printScale(stdout, s)
				report.Scaling = append(report.Scaling, s)
			}
		}
	}
	printScaleTable(stdout, report)
	if b.jsonFile != "" {
		buf, err := json.MarshalIndent(report, "", " ")
		if err != nil {
			return 1, err
		}
		if err := os.WriteFile(b.jsonFile, append(buf, '\n'), 0o644); err != nil {
			return 1, fmt.Errorf("-json: %w", err)
		}
		fmt.Fprintf(stderr, "bench: wrote %s\n", b.jsonFile)
	}
	return 0, nil
}

// one times configuration c at side n on g GPUs, from src when it is
// given (strong scaling) or else from a random N×N×(N·g) grid (weak), and
// returns its record (efficiency still to set) and its output.
func (b scaleBench) one(stderr io.Writer, c benchConfig, src *lab.Grid3[float32], n, g int) (benchfile.Scale, *lab.Grid3[float32], error) {
	nz := n
	if b.weak {
		nz = n * g
	}
	devs := firstGPUs(g)
	split := lab.Split{Devices: devs, Overlap: b.overlap}
	if b.backend != lab.GPU {
		split = lab.Split{Ranks: g, Overlap: b.overlap}
	}
	if g > 1 {
		split.PY = b.py
	}
	if src == nil {
		// The input, the output and the base run's output kept for the
		// check; strong scaling counted them with src.
		const grids = 3
		if err := lab.CheckMemory(fmt.Sprintf("N=%d on %d GPUs: %s", n, g, lab.RunWhat(grids, nz, n, n)),
			uint64(grids)*4*uint64(nz)*uint64(n)*uint64(n), lab.CubeFit(grids)); err != nil {
			return benchfile.Scale{}, nil, err
		}
		var err error
		if src, err = lab.NewGrid3[float32](nz, n, n); err != nil {
			return benchfile.Scale{}, nil, err
		}
		fillPlanes(src, b.seed+uint64(n))
	}
	fmt.Fprintf(stderr, "bench: N=%d (nz %d): %s on %d GPUs\n", n, nz, c.label, g)
	cfg := lab.Config{Tile: c.opts.Tile}
	if c.opts.Block != [3]int{} {
		cfg.Block = sim.Dim3{X: c.opts.Block[0], Y: c.opts.Block[1], Z: c.opts.Block[2]}
	}
	res, err := lab.Execute(lab.Run{Step: c.step, Backend: b.backend, Config: cfg, NZ: nz, NY: n, NX: n, Src: src,
		C: lab.DistinctCoeffs(), Seed: b.seed + uint64(n), Steps: b.steps, Reps: b.warmup + b.reps, Split: split})
	if err != nil {
		return benchfile.Scale{}, nil, err
	}
	if len(res.Millis) <= b.warmup {
		return benchfile.Scale{}, nil, fmt.Errorf("the split returned %d times for %d runs", len(res.Millis), b.warmup+b.reps)
	}
	res.Millis = res.Millis[b.warmup:] // the timed repetitions only
	times, med := res.Millis, res.MedianMillis()
	s := benchfile.Scale{Kernel: c.step, Label: c.label, N: n, NZ: nz, Tile: c.opts.Tile, GPUs: g, Devices: devs, PY: split.PY,
		Overlap: b.overlap, Weak: b.weak, MedianMs: med, MinMs: slices.Min(times), TimesMs: times,
		PointsPerSec: float64(res.Interior()) * float64(res.Steps) / (med * 1e-3)}
	if res.Steps > 1 {
		s.Steps = res.Steps
	}
	if res.Comm != nil {
		s.MessagesPerStep, s.HaloBytesPerStep = res.Comm.MessagesPerStep(), res.Comm.BytesPerStep()
	}
	if k := len(res.RankTimes) - len(times); k >= 0 {
		for i, t := range times {
			if t == med {
				s.RankMs = res.RankTimes[k+i]
				break
			}
		}
	}
	return s, res.Out, nil
}

// bitsDiffer returns the number of points where two grids of one shape
// differ bit for bit (every point when the shapes differ) and the index of
// the first of them, −1 when none does.
func bitsDiffer(a, b *lab.Grid3[float32]) (n, first int) {
	if a == nil || b == nil || len(a.Data) != len(b.Data) {
		return max(lenData(a), lenData(b), 1), 0
	}
	first = -1
	for i, v := range a.Data {
		if math.Float32bits(v) != math.Float32bits(b.Data[i]) {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	return n, first
}

func lenData(g *lab.Grid3[float32]) int {
	if g == nil {
		return 0
	}
	return len(g.Data)
}

// printScale prints one split run on one line.
func printScale(w io.Writer, s benchfile.Scale) {
	fmt.Fprintf(w, "%s N=%d nz=%d on %d GPUs: %.4f ms, %.1f Gpts/s, efficiency %.1f %% against %d GPUs, %s halo per time step\n",
		s.Label, s.N, s.NZ, s.GPUs, s.MedianMs, s.PointsPerSec/1e9, 100*s.Efficiency, s.BaseGPUs, byteSize(s.HaloBytesPerStep))
}

// printScaleTable prints the closing table of a bench with -gpus.
func printScaleTable(w io.Writer, rep benchfile.File) {
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-26s %5s %6s %5s %4s %10s %9s %7s %12s %9s\n", "kernel", "N", "nz", "steps", "GPUs", "median ms", "Gpts/s", "eff %", "halo MB/step", "msgs/step")
	weak := false
	for _, s := range rep.Scaling {
		weak = weak || s.Weak
		fmt.Fprintf(w, "%-26s %5d %6d %5d %4d %10.4f %9.1f %7.1f %12.2f %9.2g\n", s.Label, s.N, s.NZ, max(s.Steps, 1), s.GPUs, s.MedianMs,
			s.PointsPerSec/1e9, 100*s.Efficiency, s.HaloBytesPerStep/1e6, s.MessagesPerStep)
	}
	if weak {
		fmt.Fprintln(w, "Weak scaling: N×N×(N·G) on G GPUs; efficiency = t(base) / t(G), the base the fewest GPUs timed.")
	} else {
		fmt.Fprintln(w, "Strong scaling: the N³ grid on G GPUs; efficiency = G(base)·t(base) / (G·t(G)), the base the fewest GPUs timed.")
	}
	if len(rep.Scaling) > 0 {
		fmt.Fprintf(w, "Card: %s; every figure against the run on the fewest GPUs in the same process.\n", rep.Device)
	}
}

// fillPlanes fills g with uniform values in [−1, 1), each plane from a PCG
// generator seeded with seed and its index, the planes spread over all
// cores: the same seed gives the same grid on any machine. lab's
// FillRandom, one generator for the whole grid, draws about 200 million
// points a second on one core: 5 s for 1024³, 20 s for a weak-scaling grid
// of 4 × 1024³, before the GPUs' time.
func fillPlanes(g *lab.Grid3[float32], seed uint64) {
	plane := g.NY * g.NX
	workers := min(runtime.GOMAXPROCS(0), g.NZ)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for z := w; z < g.NZ; z += workers {
				r := rand.New(rand.NewPCG(seed, uint64(z)))
				d := g.Data[z*plane : (z+1)*plane]
				for i := range d {
					d[i] = float32(2*r.Float64() - 1)
				}
			}
		})
	}
	wg.Wait()
}
