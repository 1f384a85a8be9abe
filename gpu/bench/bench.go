// Package bench is the engine of `stencil bench` and of a notebook's live
// bench: it times configurations of the 3D steps on one GPU against a
// float4 copy of the same grid, checks each output, and returns the
// records of lab/benchfile. The command line and the notebooks build the
// configurations at their edge (lab.Resolve, once) and share this loop.
package bench

import (
	"errors"
	"fmt"
	"io"

	"stencillab.dev/gpu"
	"stencillab.dev/lab"
	"stencillab.dev/lab/benchfile"
)

// Config is one configuration of a 3D step to time.
type Config struct {
	// Label names it in reports: the step, or the step with its settings
	// ("fast[FAST_BY=16]").
	Label string
	// Plan is the step and its tile and block, resolved once on the gpu
	// backend (lab.Resolve).
	Plan lab.Plan
	// Defines are the step's tuning parameters (gpu.Params).
	Defines []gpu.Define
	// Tune runs the step with the setting of its timed choice at each N
	// (gpu.Device.Choose, as Spec.Tune says) instead of its registered
	// default; for a configuration that sets nothing itself.
	Tune bool
}

// Spec says how the configurations are timed.
type Spec struct {
	Sizes  []int // cube sides N, in order
	Steps  int   // time steps each timed run advances (1: a sweep)
	Warmup int   // untimed runs before the timed ones
	Reps   int   // timed runs
	// Seed is the seed of the random input of side n.
	Seed func(n int) uint64
	// Check compares each output with the lab's reference: three planes of
	// a sweep (within Tolerance, no boundary point written), or the whole
	// grid of a run of several time steps (within StepsTolerance per time
	// step, scaled by the values' magnitude). A thirteen-point step
	// (lab.Step3.Radius 2) is always checked whole, against
	// lab.Advance13.
	Check          bool
	Tolerance      float64
	StepsTolerance float64
	// Interior also times the copy of the interior points, each run's
	// second yardstick (benchfile.Run.PctInterior).
	Interior bool
	// Log hears what is being timed; nil: nothing.
	Log io.Writer
	// Each hears every run once it is measured and checked, a wrong one
	// too, before Run returns its error.
	Each func(benchfile.Run)
	// Tune is the mode of the timed choice of the configurations that
	// ask for it (Config.Tune), and TuneDir where the choices are cached
	// ("": not cached).
	Tune    gpu.TuneMode
	TuneDir string
	// Choices hears every timed or cached choice.
	Choices func(gpu.Choice)
}

// ErrSteps is matched (errors.Is) by the error of time steps that are not
// a multiple of what a configuration advances a pass: a usage error.
var ErrSteps = errors.New("time steps not a multiple of a pass")

// stepsError is Compile's refusal of the time steps: its message, matching
// ErrSteps.
type stepsError struct{ msg string }

func (e stepsError) Error() string        { return e.msg }
func (e stepsError) Is(target error) bool { return target == ErrSteps }

// Bench is a set of configurations compiled for one device.
type Bench struct {
	d       *gpu.Device
	configs []Config
	kernels []*gpu.Stencil3
}

// Compile compiles every configuration for d first, so that a bad one
// fails before any grid is allocated, and checks that each advances steps
// time steps in whole passes.
func Compile(d *gpu.Device, configs []Config, steps int) (*Bench, error) {
	b := &Bench{d: d, configs: configs, kernels: make([]*gpu.Stencil3, len(configs))}
	for i, c := range configs {
		k, err := d.Compile(c.Plan, c.Defines)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Label, err)
		}
		if per := k.StepsPerPass(); steps%per != 0 {
			return nil, stepsError{fmt.Sprintf("-steps %d: %s advances %d time steps a pass; give a multiple", steps, c.Label, per)}
		}
		b.kernels[i] = k
	}
	return b, nil
}

// Result is what Run measured: the copies and the runs, in the order of
// the sizes, the copies first, then each configuration.
type Result struct {
	Copies   []benchfile.Copy
	Interior []benchfile.Copy
	Runs     []benchfile.Run
}

// Run times the compiled configurations as sp says. On an error the result
// holds what was measured before it.
func (b *Bench) Run(sp Spec) (Result, error) {
	var res Result
	logf := func(format string, a ...any) {
		if sp.Log != nil {
			fmt.Fprintf(sp.Log, format, a...)
		}
	}
	d, coeffs := b.d, Coeffs{Seven: lab.DistinctCoeffs(), Thirteen: lab.DistinctCoeffs13()}
	steps := max(sp.Steps, 1)
	for _, n := range sp.Sizes {
		total := n * n * n
		// The timed choices first, before this size's grids are allocated:
		// each holds three grids of its own while it runs.
		kernels, err := b.choose(sp, n, steps, logf)
		if err != nil {
			return res, err
		}
		grids := 2
		if steps > 1 || b.thirteen() {
			grids = 3 // the input, and two buffers to ping-pong between
		}
		if err := d.CheckFree(fmt.Sprintf("%d grids of %d×%d×%d", grids, n, n, n), uint64(grids)*uint64(total)*4); err != nil {
			return res, err
		}
		err = func() error {
			src, err := d.Alloc(total)
			if err != nil {
				return err
			}
			defer src.Free()
			dst, err := d.Alloc(total)
			if err != nil {
				return err
			}
			defer dst.Free()
			seed := uint64(n)
			if sp.Seed != nil {
				seed = sp.Seed(n)
			}
			if err := src.FillRandom(seed); err != nil {
				return err
			}
			logf("bench: N=%d: float4 copy\n", n)
			cp, err := d.MeasureCopy(dst, src, sp.Warmup, sp.Reps)
			if err != nil {
				return err
			}
			full := CopyRecord(n, 8*float64(total), cp)
			res.Copies = append(res.Copies, full)
			interior := float64(n-2) * float64(n-2) * float64(n-2)
			var inner *benchfile.Copy
			if sp.Interior {
				logf("bench: N=%d: interior copy\n", n)
				if err := dst.Poison(); err != nil {
					return err
				}
				ic, err := d.MeasureCopyInterior(dst, src, n, n, n, sp.Warmup, sp.Reps)
				if err != nil {
					return err
				}
				r := CopyRecord(n, 8*interior, ic)
				res.Interior = append(res.Interior, r)
				inner = &r
			}
			for i := range b.configs {
				r, err := b.one(i, kernels[i], sp, dst, src, n, steps, coeffs, full, inner, logf)
				if r != nil && sp.Each != nil {
					sp.Each(*r)
				}
				if err != nil {
					return err
				}
				res.Runs = append(res.Runs, *r)
			}
			return nil
		}()
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// choose returns the kernel each configuration runs at side n: its
// compiled default, or for one that asks for it the setting of its timed
// choice (gpu.Device.Choose), compiled.
func (b *Bench) choose(sp Spec, n, steps int, logf func(string, ...any)) ([]*gpu.Stencil3, error) {
	out := append([]*gpu.Stencil3(nil), b.kernels...)
	if sp.Tune == gpu.TuneOff {
		return out, nil
	}
	seed := uint64(n)
	if sp.Seed != nil {
		seed = sp.Seed(n)
	}
	for i, c := range b.configs {
		if !c.Tune {
			continue
		}
		logf("bench: N=%d: %s: the timed choice (%s)\n", n, c.Label, sp.Tune)
		ch, err := b.d.Choose(c.Plan, gpu.ChooseSpec{N: n, Steps: steps, Warmup: 1, Reps: max(1, min(sp.Reps, 10)),
			Tolerance: sp.StepsTolerance, Mode: sp.Tune, Dir: sp.TuneDir, Seed: seed, Log: sp.Log})
		if err != nil {
			return nil, fmt.Errorf("%s at N=%d: %w", c.Label, n, err)
		}
		if sp.Choices != nil {
			sp.Choices(ch)
		}
		p, err := c.Plan.Configure(lab.Config{Tile: ch.Setting.Tile})
		if err != nil {
			return nil, fmt.Errorf("%s at N=%d: %w", c.Label, n, err)
		}
		if out[i], err = b.d.Compile(p, ch.Setting.Defines); err != nil {
			return nil, fmt.Errorf("%s at N=%d: %w", c.Label, n, err)
		}
	}
	return out, nil
}

// Coeffs are the coefficients the bench runs every step with: the
// seven-point star's, and the thirteen-point star's for the steps of
// radius 2.
type Coeffs struct {
	Seven    lab.Coeffs
	Thirteen lab.Coeffs13
}

// Thirteen reports whether a configuration computes the thirteen-point
// star (lab.Step3.Radius 2).
func (c Config) Thirteen() bool { return c.Plan.Step.StarRadius() == lab.Radius13 }

// thirteen reports whether any configuration computes the thirteen-point
// star.
func (b *Bench) thirteen() bool {
	for _, c := range b.configs {
		if c.Thirteen() {
			return true
		}
	}
	return false
}

// one times configuration i at side n and checks its output; a wrong
// output comes back with its record and an error.
func (b *Bench) one(i int, k *gpu.Stencil3, sp Spec, dst, src *gpu.Buffer, n, steps int, coeffs Coeffs, full benchfile.Copy, inner *benchfile.Copy,
	logf func(string, ...any)) (*benchfile.Run, error) {
	c, d := b.configs[i], b.d
	logf("bench: N=%d: %s\n", n, c.Label)
	if err := dst.Poison(); err != nil {
		return nil, err
	}
	thirteen := c.Thirteen()
	var m gpu.Measurement
	var out *gpu.Buffer
	var err error
	if thirteen {
		m, out, err = measureRun13(k, dst, src, n, coeffs.Thirteen, steps, sp.Warmup, sp.Reps)
	} else {
		m, out, err = measureRun(k, dst, src, n, coeffs.Seven, steps, sp.Warmup, sp.Reps)
	}
	if err != nil {
		return nil, fmt.Errorf("%s at N=%d: %w", c.Label, n, err)
	}
	// The points a time step updates: those at least the star's radius
	// from every face.
	side := float64(n - 2*c.Plan.Step.StarRadius())
	interior, flops := side*side*side, float64(lab.Flops7)
	if thirteen {
		flops = lab.Flops13
	}
	f, _ := k.Function(n)
	r := benchfile.Run{Kernel: c.Plan.Step.Name, Label: c.Label, N: n, Tile: k.Tile(), TileShape: k.TileShape(n, m.Geometry),
		Planes: m.Geometry.Planes,
		Grid:   m.Geometry.Grid, Block: m.Geometry.Block, SharedBytes: m.Geometry.SharedBytes,
		Target:    k.Module().Target,
		CompileMs: float64(k.Module().CompileTime.Microseconds()) / 1e3,
		MedianMs:  m.Median, MinMs: m.Min, MaxMs: m.Max,
		GBps: 8 * interior * float64(steps) / (m.Median * 1e6), GFlops: flops * interior * float64(steps) / (m.Median * 1e6),
		TimesMs: m.Millis}
	if f != nil {
		r.Registers, r.LocalBytes = f.Registers, f.LocalBytes
	}
	if steps > 1 {
		r.Steps = steps
	}
	if inner != nil {
		Against(&r, full, *inner)
	} else {
		r.CopyGBps, r.PctCopy = full.GBps, 100*r.GBps/full.GBps
	}
	for _, def := range k.Defines() {
		r.Defines = append(r.Defines, def.String())
	}
	switch {
	case sp.Check && (thirteen || steps > 1):
		// The whole output against the host's run over the same steps;
		// the thirteen-point record counts every point it compared, the
		// seven-point one the interior the steps update.
		ref := "lab.Advance"
		advance := func(want, in *lab.Grid3[float32]) error {
			return lab.Advance(lab.SevenPoint[float32], want, in, coeffs.Seven, steps)
		}
		if thirteen {
			ref = "lab.Advance13"
			advance = func(want, in *lab.Grid3[float32]) error { return lab.Advance13(want, in, coeffs.Thirteen, steps) }
		}
		e, scale, in, err := checkSteps(out, src, n, advance)
		if err != nil {
			return nil, err
		}
		r.MaxAbsErr, r.CheckedPoints = &e, in.Interior()
		if thirteen {
			r.CheckedPoints = len(in.Data)
		}
		// float32 rounding grows with the values, which the coefficients
		// multiply by up to their sum a step. A NaN fails too.
		if !(e <= sp.StepsTolerance*float64(steps)*max(1, scale)) {
			return &r, fmt.Errorf("%s at N=%d over %d time steps is wrong: max |gpu − %s| = %g over the whole grid", c.Label, n, steps, ref, e)
		}
	case sp.Check:
		pc, err := d.CheckPlanes(dst, src, n, n, n, coeffs.Seven, []int{1, n / 2, n - 2})
		if err != nil {
			return nil, err
		}
		e := pc.Diff.MaxAbs
		r.MaxAbsErr, r.CheckedPoints = &e, pc.Points
		if e > sp.Tolerance || pc.Boundary > 0 {
			return &r, fmt.Errorf("%s at N=%d is wrong: max |gpu − lab.SevenPoint| = %g over %d points, %d boundary points written",
				c.Label, n, e, pc.Points, pc.Boundary)
		}
	}
	return &r, nil
}

// CopyRecord is the record of a copy of an N³ grid that moved bytes in
// measurement m.
func CopyRecord(n int, bytes float64, m gpu.Measurement) benchfile.Copy {
	return benchfile.Copy{N: n, Bytes: bytes, MedianMs: m.Median, MinMs: m.Min, GBps: bytes / (m.Median * 1e6),
		Grid: m.Geometry.Grid, Block: m.Geometry.Block, TimesMs: m.Millis}
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

// measureRun13 times a thirteen-point kernel: runs of steps time steps
// (one for a sweep), each from a fresh copy of src in dst and a third
// buffer, so that the boundary shell of the output is src's. It returns
// the buffer that holds the last output.
func measureRun13(k *gpu.Stencil3, dst, src *gpu.Buffer, n int, c lab.Coeffs13, steps, warmup, reps int) (gpu.Measurement, *gpu.Buffer, error) {
	d := dst.Device()
	other, err := d.Alloc(n * n * n)
	if err != nil {
		return gpu.Measurement{}, nil, err
	}
	defer other.Free()
	m, err := k.MeasureSteps13(src, dst, other, n, n, n, c, steps, warmup, reps)
	if err != nil {
		return m, nil, err
	}
	if (steps/k.StepsPerPass())%2 == 1 {
		if _, err := d.Copy(dst, other); err != nil {
			return m, nil, err
		}
	}
	return m, dst, nil
}

// checkSteps compares the whole output of a run with the same run on the
// host, advance(want, in) (lab.Advance or lab.Advance13 over the steps);
// it returns the largest difference, the largest magnitude of the
// reference (the scale of float32 rounding) and the input grid.
func checkSteps(out, src *gpu.Buffer, n int, advance func(want, in *lab.Grid3[float32]) error) (maxAbs, scale float64, in *lab.Grid3[float32], err error) {
	// in, got, want and the two grids the host run ping-pongs between,
	// counted before the first is allocated.
	const grids = 5
	if err := lab.CheckMemory(fmt.Sprintf("the host check of N = %d: %s", n, lab.RunWhat(grids, n, n, n)),
		grids*4*uint64(n)*uint64(n)*uint64(n), lab.CubeFit(grids)); err != nil {
		return 0, 0, nil, err
	}
	in, err = lab.NewCube[float32](n)
	if err != nil {
		return 0, 0, nil, err
	}
	if err := src.Download(0, in.Data); err != nil {
		return 0, 0, nil, err
	}
	got := in.Clone()
	if err := out.Download(0, got.Data); err != nil {
		return 0, 0, nil, err
	}
	want := in.Clone()
	if err := advance(want, in); err != nil {
		return 0, 0, nil, err
	}
	diff, err := lab.Compare3(got, want)
	if err != nil {
		return 0, 0, nil, err
	}
	return diff.MaxAbs, lab.LargestFinite(want.Data), in, nil
}

// Against sets the run's shares of the float4 copy and of the interior
// copy measured for the same N.
func Against(r *benchfile.Run, full, inner benchfile.Copy) {
	r.CopyGBps, r.PctCopy = full.GBps, 100*r.GBps/full.GBps
	r.InteriorGBps, r.PctInterior = inner.GBps, 100*r.GBps/inner.GBps
}
