package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"stencillab.dev/gpu"
	"stencillab.dev/lab"
	"stencillab.dev/lab/benchfile"
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
	opts  gpu.Options
}

// parseVariant parses KERNEL[:key=value,...]: tile=T and block=XxYxZ
// (basic) set the launch, other keys are preprocessor defines.
func parseVariant(s string) (benchConfig, error) {
	name, rest, _ := strings.Cut(s, ":")
	step, err := lookupStep("-kernels", strings.TrimSpace(name))
	if err != nil {
		return benchConfig{}, err
	}
	if !slices.Contains(gpu.Steps3(), step.Name) {
		return benchConfig{}, fmt.Errorf("-variant %q: %s does not run on the GPU (the 3D steps are %s)", s, step.Name, strings.Join(gpu.Steps3(), ", "))
	}
	c := benchConfig{label: step.Name, step: step.Name}
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

// maxBenchPoints bounds a bench grid: 2³⁶ points, 256 GiB of float32,
// above any GPU's memory, which the device's own check then decides on
// (N = 2048 has 2³³ points, more than the host's lab.MaxPoints, and runs
// on the GPU with -check=false).
const maxBenchPoints = 1 << 36

func parseSizes(s string) ([]int, error) {
	var ns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 3 {
			return nil, fmt.Errorf("-n %q: each size must be an integer N ≥ 3", s)
		}
		if float64(n)*float64(n)*float64(n) > maxBenchPoints {
			return nil, fmt.Errorf("-n %q: %d³ points exceeds the limit of %d points", s, n, int64(maxBenchPoints))
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

// copyRecord is the record of a copy of an N³ grid that moved bytes in
// measurement m.
func copyRecord(n int, bytes float64, m gpu.Measurement) benchfile.Copy {
	return benchfile.Copy{N: n, Bytes: bytes, MedianMs: m.Median, MinMs: m.Min, GBps: bytes / (m.Median * 1e6),
		Grid: m.Geometry.Grid, Block: m.Geometry.Block, TimesMs: m.Millis}
}

// against sets the run's shares of the float4 copy and of the interior
// copy measured for the same N.
func against(r *benchfile.Run, full, inner benchfile.Copy) {
	r.CopyGBps, r.PctCopy = full.GBps, 100*r.GBps/full.GBps
	r.InteriorGBps, r.PctInterior = inner.GBps, 100*r.GBps/inner.GBps
}

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
	kernels := fs.String("kernels", strings.Join(gpu.Steps3(), ","), "3D steps to time, comma-separated (may be empty with -variant); by default every step whose default pass divides -steps")
	sizes := fs.String("n", "256,512,1024", "grid sides N, comma-separated (N×N×N grids)")
	reps := fs.Int("reps", 100, "timed launches per kernel; the table gives the median")
	warmup := fs.Int("warmup", 5, "untimed launches before timing")
	tiles := fs.String("tile", "", "tile for every kernel (T) or per kernel (basic=8,tiled=8)")
	seed := fs.Uint64("seed", 1, "seed of the random input, filled on the device")
	check := fs.Bool("check", true, "compare three planes of each output with lab.SevenPoint")
	steps := fs.Int("steps", 1, "time steps each timed run advances, the passes ping-ponging on the device (a multiple of each kernel's steps per pass)")
	jsonFile := fs.String("json", "", "write every measurement to this file as JSON")
	ordinal := fs.Int("device", 0, "GPU to use")
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
	plans := make([]*gpu.Stencil3, len(configs))
	for i, c := range configs {
		if plans[i], err = d.Stencil3(c.step, c.opts); err != nil {
			return 1, fmt.Errorf("%s: %w", c.label, err)
		}
		if per := plans[i].StepsPerPass(); *steps%per != 0 {
			return 2, fmt.Errorf("-steps %d: %s advances %d time steps a pass; give a multiple", *steps, c.label, per)
		}
	}

	for _, n := range ns {
		total := n * n * n
		grids := 2
		if *steps > 1 {
			grids = 3 // the input, and two buffers to ping-pong between
		}
		if err := d.CheckFree(fmt.Sprintf("%d grids of %d×%d×%d", grids, n, n, n), uint64(grids)*uint64(total)*4); err != nil {
			return 1, err
		}
		src, err := d.Alloc(total)
		if err != nil {
			return 1, err
		}
		dst, err := d.Alloc(total)
		if err != nil {
			src.Free()
			return 1, err
		}
		if err := src.FillRandom(*seed + uint64(n)); err != nil {
			return 1, err
		}
		fmt.Fprintf(stderr, "bench: N=%d: float4 copy\n", n)
		cp, err := d.MeasureCopy(dst, src, *warmup, *reps)
		if err != nil {
			return 1, err
		}
		full := copyRecord(n, 8*float64(total), cp)
		report.Copies = append(report.Copies, full)
		interior := float64((n - 2) * (n - 2) * (n - 2))
		fmt.Fprintf(stderr, "bench: N=%d: interior copy\n", n)
		if err := dst.Poison(); err != nil {
			return 1, err
		}
		ic, err := d.MeasureCopyInterior(dst, src, n, n, n, *warmup, *reps)
		if err != nil {
			return 1, err
		}
		inner := copyRecord(n, 8*interior, ic)
		report.Interior = append(report.Interior, inner)
		for i, c := range configs {
			k := plans[i]
			fmt.Fprintf(stderr, "bench: N=%d: %s\n", n, c.label)
			if err := dst.Poison(); err != nil {
				return 1, err
			}
			m, out, err := measureRun(k, dst, src, n, coeffs, *steps, *warmup, *reps)
			if err != nil {
				return 1, fmt.Errorf("%s at N=%d: %w", c.label, n, err)
			}
			f, _ := k.Function(n)
			r := benchfile.Run{Kernel: c.step, Label: c.label, N: n, Tile: k.Tile(), TileShape: k.TileShape(n, m.Geometry),
				Planes: m.Geometry.Planes,
				Grid:   m.Geometry.Grid, Block: m.Geometry.Block, SharedBytes: m.Geometry.SharedBytes,
				Registers: f.Registers, LocalBytes: f.LocalBytes, Target: k.Module().Target,
				CompileMs: float64(k.Module().CompileTime.Microseconds()) / 1e3,
				MedianMs:  m.Median, MinMs: m.Min, MaxMs: m.Max,
				GBps: 8 * interior * float64(*steps) / (m.Median * 1e6), GFlops: lab.Flops7 * interior * float64(*steps) / (m.Median * 1e6),
				TimesMs: m.Millis}
			if *steps > 1 {
				r.Steps = *steps
			}
			against(&r, full, inner)
			for _, def := range k.Defines() {
				r.Defines = append(r.Defines, def.String())
			}
			if *check && *steps > 1 {
				e, pts, err := checkSteps(d, out, src, n, coeffs, *steps)
				if err != nil {
					return 1, err
				}
				r.MaxAbsErr, r.CheckedPoints = &e, pts
				if e > 1e-5*float64(*steps) {
					printRun(stdout, r, p)
					return 1, fmt.Errorf("%s at N=%d over %d time steps is wrong: max |gpu − lab.Advance| = %g", c.label, n, *steps, e)
				}
			} else if *check {
				pc, err := d.CheckPlanes(dst, src, n, n, n, coeffs, []int{1, n / 2, n - 2})
				if err != nil {
					return 1, err
				}
				e := pc.Diff.MaxAbs
				r.MaxAbsErr, r.CheckedPoints = &e, pc.Points
				if e > 1e-5 || pc.Boundary > 0 {
					printRun(stdout, r, p)
					return 1, fmt.Errorf("%s at N=%d is wrong: max |gpu − lab.SevenPoint| = %g over %d points, %d boundary points written",
						c.label, n, e, pc.Points, pc.Boundary)
				}
			}
			printRun(stdout, r, p)
			report.Results = append(report.Results, r)
		}
		src.Free()
		dst.Free()
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

// measureRun times a kernel: single sweeps from src into dst, or with
// steps > 1 runs of that many time steps, each from a fresh copy of src in
// dst and a third buffer. It returns the buffer that holds the last output.
func measureRun(k *gpu.Stencil3, dst, src *gpu.Buffer, n int, c lab.Coeffs, steps, warmup, reps int) (gpu.Measurement, *gpu.Buffer, error) {
	if steps == 1 {
		m, err := k.Measure(dst, src, n, n, n, c, warmup, reps)
		return m, dst, err
	}
	d := dst.Device()
	other, err := d.Alloc(n * n * n)
	if err != nil {
		return gpu.Measurement{}, nil, err
	}
	defer other.Free()
	m, err := k.MeasureSteps(src, dst, other, n, n, n, c, steps, warmup, reps)
	if err != nil {
		return m, nil, err
	}
	// The last run's result: passes ping-pong from dst, so an even number
	// of passes ends in dst; copy it there otherwise.
	if (steps/k.StepsPerPass())%2 == 1 {
		if _, err := d.Copy(dst, other); err != nil {
			return m, nil, err
		}
	}
	return m, dst, nil
}

// checkSteps compares the whole output of a run of steps time steps with
// lab.Advance on the host; it returns the largest difference and the
// points compared.
func checkSteps(d *gpu.Device, out, src *gpu.Buffer, n int, c lab.Coeffs, steps int) (float64, int, error) {
	// in, got, want and the two grids lab.Advance ping-pongs between,
	// counted before the first is allocated.
	const grids = 5
	if err := lab.CheckMemory(fmt.Sprintf("the host check of N = %d: %s", n, lab.RunWhat(grids, n, n, n)),
		grids*4*uint64(n)*uint64(n)*uint64(n), lab.CubeFit(grids)); err != nil {
		return 0, 0, err
	}
	in, err := lab.NewCube[float32](n)
	if err != nil {
		return 0, 0, err
	}
	if err := src.Download(0, in.Data); err != nil {
		return 0, 0, err
	}
	got := in.Clone()
	if err := out.Download(0, got.Data); err != nil {
		return 0, 0, err
	}
	want := in.Clone()
	if err := lab.Advance(lab.SevenPoint[float32], want, in, c, steps); err != nil {
		return 0, 0, err
	}
	diff, err := lab.Compare3(got, want)
	if err != nil {
		return 0, 0, err
	}
	return diff.MaxAbs, in.Interior(), nil
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
		return lab.OnGPU(s) && !lab.Simulated(s) && !lab.InModel(s) && s.TimeSteps == nil
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
