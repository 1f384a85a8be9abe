package run

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"

	"stencillab.dev/gpu"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// Seed is the seed of the random input grid of every run, so that a
// notebook shows the same numbers each time.
const Seed = 8

// MaxSimN bounds the side of a simulated grid: the simulator runs every
// thread of every block in Go, and a grid of 128³ already takes a while.
const MaxSimN = 128

// MaxGPUN bounds the side of a grid swept on the GPU from a notebook: the
// whole grid and the reference live in host memory too.
const MaxGPUN = 512

// Tolerance is the largest difference from the reference that counts as
// right. Both sides compute in float32 from inputs in [−1, 1) with
// coefficients of order one, so a correct kernel differs by a few units
// of float32 rounding at most, about 10⁻⁶; a wrong one by far more.
const Tolerance = 1e-5

// poisonBits is the bit pattern the output starts with: a quiet NaN whose
// payload no arithmetic produces (arithmetic on a NaN keeps its payload,
// and the canonical NaN of a 0/0 is 0x7fc00000), so a point that still
// holds it was never written.
const PoisonBits = 0x7fc5a5a5

// ProgressOutput is where a simulated launch that runs longer than
// sim.ProgressAfter reports, about once a second, how far it has got: the
// cell's standard output in a notebook, which Jupyter shows as plain text
// (standard error it shows in a red box, as an error); nil (quiet)
// outside a notebook, in tests and tools.
var ProgressOutput = progressOutput(gonbui.IsNotebook)

// progressOutput is ProgressOutput's default: standard output in a
// notebook, nil elsewhere.
func progressOutput(inNotebook bool) io.Writer {
	if inNotebook {
		return os.Stdout
	}
	return nil
}

// ErrNoSimulation is wrapped by the error of Sweep for a step that has no
// simulated kernel (fast) on a machine without a GPU.
var ErrNoSimulation = errors.New("the step runs only on a GPU")

// gpuOnlyError is the error of a GPU-only step without a GPU. It matches
// both ErrNoSimulation and gpu.ErrNoGPU, without repeating the latter's
// advice to use the simulator, which has no such kernel.
type gpuOnlyError struct{ msg string }

// Error returns the message.
func (e *gpuOnlyError) Error() string { return e.msg }

// Is matches ErrNoSimulation and gpu.ErrNoGPU.
func (e *gpuOnlyError) Is(target error) bool {
	return target == ErrNoSimulation || target == gpu.ErrNoGPU
}

// Result is one sweep of a 3D seven-point step, the lab's run (lab.Result:
// where it ran, its launch, the simulator's counters, its time and its
// output), checked against the CPU reference lab.SevenPoint on the same
// input.
type Result struct {
	lab.Result

	Note string // why it ran where it ran, e.g. "no GPU found (…): running on the CPU simulator"

	Want *lab.Grid3[float32] // the reference's output, boundary points poisoned as Out's were
	Diff lab.Diff            // lab.Compare3(Out, Want)

	// Model is the chapter's intensity for this launch, lab.IntensityN,
	// and 0 for a step outside the model (fast) or a kernel not in it.
	Model float64
}

// N returns the side of the cube the sweep ran on.
func (r Result) N() int { return r.NX }

// Tile returns the tile the sweep used: IN_TILE_DIM, or the block edge of
// a kernel whose block is free.
func (r Result) Tile() int { return r.Config.Tile }

// Where says where Sweep runs on this machine: the GPU's name, or "no GPU
// found (reason): running on the CPU simulator". An error other than a
// missing driver or device is returned.
func Where() (string, error) {
	d, note, err := device()
	if err != nil {
		return "", err
	}
	if d == nil {
		return note, nil
	}
	return note + ": " + describe(d.Props()), nil
}

// HasGPU reports whether the gpu package opened a device.
func HasGPU() bool {
	d, _, err := device()
	return err == nil && d != nil
}

// device opens the default GPU. Without one it returns a nil device and
// the note a notebook prints; other failures are errors.
func device() (*gpu.Device, string, error) {
	d, err := gpu.Default()
	if err == nil {
		return d, "running on the GPU", nil
	}
	if errors.Is(err, gpu.ErrNoGPU) {
		why := strings.TrimPrefix(err.Error(), "gpu: ")
		why = strings.TrimSuffix(why, ": run on the CPU simulator")
		return nil, fmt.Sprintf("no GPU found (%s): running on the CPU simulator", why), nil
	}
	return nil, "", fmt.Errorf("nbrun: open the GPU: %w", err)
}

func describe(p gpu.Props) string {
	return fmt.Sprintf("%s (%s, %d SMs, %.0f GB)", p.Name, p.Arch(), p.SMs, float64(p.TotalMem)/1e9)
}

// Sweep runs a 3D step of the lab that runs on a GPU once on a random
// n×n×n grid with the given tile (0 for the step's default) and compares
// the output with lab.SevenPoint. It runs on the GPU when one opens, else
// on the simulator with Note saying so. A step without a simulated kernel
// (fast) fails without a GPU with an error wrapping ErrNoSimulation and
// gpu.ErrNoGPU.
func Sweep(step string, n, tile int) (Result, error) {
	s, err := lab.LookupStep3(step)
	if err != nil || !lab.OnGPU(s) {
		return Result{}, fmt.Errorf("nbrun: step %q is not a 3D seven-point kernel%s (those are %s): %w",
			step, lab.DidYouMean(step, gpu.Steps3()), strings.Join(gpu.Steps3(), ", "), lab.ErrUnknown)
	}
	if s.TimeSteps != nil {
		return Result{}, fmt.Errorf("nbrun: %s advances several time steps a pass, not one sweep (the sweeps are %s; run it with lab.Execute and Run.Steps): %w",
			s.Name, strings.Join(gpu.Sweeps3(), ", "), lab.ErrUnknown)
	}
	d, note, err := device()
	if err != nil {
		return Result{}, err
	}
	if d == nil {
		if !lab.Simulated(s) {
			why := strings.TrimSuffix(note, ": running on the CPU simulator")
			return Result{}, &gpuOnlyError{msg: fmt.Sprintf("nbrun: %s: %s, and the %s step runs only on a GPU: it has no simulated kernel", s.Name, why, s.Name)}
		}
		r, err := Simulate(s.Name, n, tile)
		r.Note = note
		return r, err
	}
	if n < 3 || n > MaxGPUN {
		return Result{}, fmt.Errorf("nbrun: %s: grid side %d must be 3 to %d: %w", s.Name, n, MaxGPUN, lab.ErrSize)
	}
	r, err := sweep(lab.Run{Step: s.Name, Backend: lab.GPU, Config: lab.Config{Tile: tile}}, n)
	r.Note = "running on the GPU: " + describe(d.Props())
	return r, err
}

// Simulate runs a step of the lab that has a simulated kernel, or a broken
// kernel of one (lab.BrokenKernels) by its name, on the simulator, even
// when there is a GPU, so that its counters can be read in Stats.
func Simulate(step string, n, tile int) (Result, error) {
	if _, _, err := lab.LookupKernel(step); err != nil {
		s, err2 := lab.LookupStep3(step)
		if err2 != nil || !lab.Simulated(s) {
			return Result{}, fmt.Errorf("nbrun: %w", err)
		}
		step = s.Name
	}
	return simulate(lab.Run{Step: step, Backend: lab.Sim, Config: lab.Config{Tile: tile}}, n)
}

// SimulateKernel runs any seven-point kernel, a student's for instance, on
// the simulator under the name given. When the kernel fails (its launch
// refused, a hazard, a fault) the error is returned and the Result still
// holds what the launch did: its counters, its hazard reports and whatever
// it wrote.
func SimulateKernel(name string, k lab.StencilKernel, n, tile int) (Result, error) {
	if k == nil {
		return Result{}, fmt.Errorf("nbrun: %s: no kernel", name)
	}
	return simulate(lab.Run{Step: name, Kernel: k, Backend: lab.Sim, Config: lab.Config{Tile: tile}}, n)
}

// simulate checks the size of a simulated run and runs it.
func simulate(run lab.Run, n int) (Result, error) {
	if n < 3 || n > MaxSimN {
		return Result{}, fmt.Errorf("nbrun: %s: simulated grid side %d must be 3 to %d: %w", run.Step, n, MaxSimN, lab.ErrSize)
	}
	r, err := sweep(run, n)
	r.Note = "running on the CPU simulator"
	return r, err
}

// sweep runs one sweep of run on a random n×n×n grid with a poisoned
// output, and compares it with the reference.
func sweep(run lab.Run, n int) (Result, error) {
	if run.Config.Tile < 0 {
		return Result{}, fmt.Errorf("nbrun: %s: tile %d is negative", run.Step, run.Config.Tile)
	}
	src, out, want, err := grids(n)
	if err != nil {
		return Result{}, fmt.Errorf("nbrun: %s: %w", run.Step, err)
	}
	run.Src, run.Dst, run.C = src, out, lab.DistinctCoeffs()
	run.Progress = sim.PrintProgress(ProgressOutput)
	res, err := lab.Execute(run)
	if res.Out == nil {
		if !errors.Is(err, sim.ErrLimit) {
			return Result{}, fmt.Errorf("nbrun: %w", err) // a bad step, tile or grid
		}
		// A launch over the limits, refused before it ran: nothing was
		// written, and the result shows it.
		res = lab.Result{Step: run.Step, Backend: run.Backend, Device: "CPU simulator", NZ: n, NY: n, NX: n,
			Config: run.Config, Src: src, Out: out, Err: err}
	}
	r := Result{Result: res, Want: want}
	if m, merr := lab.IntensityN(r.Step, n, r.Config.Tile); merr == nil {
		r.Model = m
	}
	var derr error
	if r.Diff, derr = lab.Compare3(r.Out, want); derr != nil {
		return r, fmt.Errorf("nbrun: %s: %w", r.Step, derr)
	}
	if err != nil {
		return r, fmt.Errorf("nbrun: %w", err)
	}
	return r, nil
}

// grids returns the random input, the poisoned output and the reference
// output (boundary poisoned, interior from lab.SevenPoint).
func grids(n int) (src, out, want *lab.Grid3[float32], err error) {
	if src, err = lab.NewCube[float32](n); err != nil {
		return nil, nil, nil, err
	}
	src.FillRandom(Seed)
	out = src.Clone()
	poison(out)
	want = out.Clone()
	if err := lab.SevenPoint(want, src, lab.DistinctCoeffs()); err != nil {
		return nil, nil, nil, err
	}
	return src, out, want, nil
}

func poison(g *lab.Grid3[float32]) {
	p := math.Float32frombits(PoisonBits)
	for i := range g.Data {
		g.Data[i] = p
	}
}

// Written reports whether v was written by a kernel, that is, whether it
// differs from the poison the output started with.
func Written(v float32) bool { return math.Float32bits(v) != PoisonBits }

// OK reports whether the sweep ran without error and matches the
// reference everywhere within Tolerance, boundary left alone.
func (r Result) OK() bool {
	if r.Err != nil {
		return false
	}
	c, err := r.Count()
	return err == nil && c.clean()
}

// Summary says in a few lines where the sweep ran, how it was launched and
// how far its output is from the reference.
func (r Result) Summary() string {
	var b strings.Builder
	if strings.HasPrefix(r.Note, "no GPU found") {
		b.WriteString(r.Note + "\n")
	}
	fmt.Fprintf(&b, "%s on %s, N = %d, tile %d\n", r.Step, r.where(), r.N(), r.Tile())
	switch r.Backend {
	case lab.GPU:
		fmt.Fprintf(&b, "  launch %s, %.3f ms (one launch, CUDA events)\n", r.Launch.Geometry, r.Launch.Millis)
	case lab.Sim:
		fmt.Fprintf(&b, "  launch <<<%s, %s>>>: %d blocks of %d threads\n", r.Stats.Grid.Shape(), r.Stats.Block.Shape(),
			r.Stats.BlocksRun, r.Stats.Block.Size())
	}
	if c, err := r.Count(); r.Out != nil && err != nil {
		fmt.Fprintf(&b, "  the output cannot be compared: %v\n", err)
	} else if err == nil {
		interior := r.Interior()
		fmt.Fprintf(&b, "  largest |out − lab.SevenPoint| = %s over %d interior points", formatErr(r.Diff.MaxAbs), interior)
		if r.Err == nil && c.clean() { // r.OK(), without classifying every point again
			b.WriteString(": correct\n")
		} else {
			fmt.Fprintf(&b, "\n  %d right, %d wrong, %d never written, %d boundary points written\n",
				c[Right], c[Wrong], c[Unwritten], c[BoundaryWritten])
		}
	}
	if r.Err != nil {
		fmt.Fprintf(&b, "  error: %v\n", r.Err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (r Result) where() string {
	if r.Backend == lab.GPU {
		return "the GPU (" + r.Device + ")"
	}
	return "the CPU simulator"
}

func formatErr(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "∞ (a point is NaN in one and not the other)"
	case v == 0:
		return "0"
	}
	return fmt.Sprintf("%.2g", v)
}

// Counters formats the simulator's counters of the launch next to the
// chapter's model of the same launch, lab.CostN, where the kernel is one
// of the model's.
func (r Result) Counters() string {
	st := r.Stats
	if r.Backend != lab.Sim {
		return "counters: only the simulator counts loads and stores; this sweep ran on the GPU"
	}
	cost, err := lab.CostN(r.Step, r.N(), r.Tile())
	model := err == nil
	var b strings.Builder
	row := func(what string, counted int64, modelled int64, unit string) {
		fmt.Fprintf(&b, "%-22s %12d", what, counted)
		if model && modelled >= 0 {
			fmt.Fprintf(&b, " %12d", modelled)
		} else {
			fmt.Fprintf(&b, " %12s", "")
		}
		if unit != "" {
			fmt.Fprintf(&b, "  %s", unit)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%-22s %12s %12s\n", "", "counted", "model")
	row("blocks", st.BlocksRun, int64(cost.Blocks), "")
	row("threads per block", int64(st.Block.Size()), int64(cost.ThreadsPerBlock), "")
	row("global loads", st.GlobalLoads, cost.Loads, "elements of 4 B")
	row("global stores", st.GlobalStores, cost.Stores, "")
	row("shared loads", st.SharedLoads, -1, "")
	row("shared stores", st.SharedStores, -1, "")
	row("shared B per block", int64(st.SharedBytesPerBlock), -1, "")
	row("flops", st.Flops, cost.Ops, "13 per interior point")
	fmt.Fprintf(&b, "%-22s %12.4f", "OP/B (flops/loaded B)", st.OpPerByte())
	if r.Model > 0 {
		fmt.Fprintf(&b, " %12.4f", r.Model)
	}
	b.WriteByte('\n')
	fmt.Fprintf(&b, "%-22s %12.4f", "OP/B, stores included", st.OpPerMovedByte())
	if h := st.HazardCounts.Total(); h > 0 || st.FaultCount > 0 {
		fmt.Fprintf(&b, "\n%-22s %12d\n%-22s %12d", "hazards", h, "faults", st.FaultCount)
	}
	return b.String()
}

// Hazards formats the simulator's hazard counts by kind and the first few
// reports, at most max of them; empty when the launch had none, or when
// max is negative.
func (r Result) Hazards(max int) string {
	hc := r.Stats.HazardCounts
	if hc.Total() == 0 || max < 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d hazards: %d read after write, %d write after read, %d write after write, %d uninitialised reads",
		hc.Total(), hc.ReadAfterWrite, hc.WriteAfterRead, hc.WriteAfterWrite, hc.Uninitialised)
	if hc.DivergentBarrier > 0 {
		fmt.Fprintf(&b, ", %d divergent barriers", hc.DivergentBarrier)
	}
	b.WriteString("\n")
	for i, h := range r.Stats.Hazards {
		if i == max {
			break
		}
		fmt.Fprintf(&b, "  %s\n", h)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
