// Package sediment runs the sediment-transport case study (lab/sediment)
// on a device of package gpu: each variant of the paper and ours, its
// kernels registered values (Ghost, H, S, Fused) whose launchers are
// generated from the entries of cuda/sediment_*.cu, and its bench.
package sediment

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"time"
	"unsafe"

	"stencillab.dev/gpu"
	"stencillab.dev/lab/sediment"
)

// Options configures the sediment kernels of one variant.
type Options struct {
	// RY is about the number of rows each warp of the best variant walks
	// (the launcher adjusts it so that the warps come in whole waves of
	// what the device holds at once), and Warps its warps per block; 0
	// means 32 and 4.
	RY, Warps int
	// MinBlocks > 0 asks the compiler for at least that many resident
	// blocks a multiprocessor (the second argument of __launch_bounds__),
	// capping the best variant's registers.
	MinBlocks int
	// FastDiv makes the best variant divide by the hardware's approximate
	// reciprocal refined by Newton steps instead of IEEE division.
	FastDiv bool
	// Split makes the best variant's Run launch its h- and s-kernels one
	// after the other instead of the fused one.
	Split bool
}

// Sediment is the sediment-transport case study on a device: the basin's
// four fields (α, β, and two buffers each of h and s) in device memory and
// one variant's kernels, compiled for the basin's mesh and constants.
type Sediment struct {
	d       *gpu.Device
	variant string
	v       sedimentVariant
	opts    Options
	nx, ny  int
	mod     *gpu.Module

	alpha, beta, rate *gpu.Buffer
	h, s              [2]*gpu.Buffer // h[cur], s[cur] hold the current state
	cur               int
	steps             int

	sms    int                 // the device's multiprocessors
	limits gpu.OccupancyLimits // of the device, for Occupancy and the best variant's rows
	rows   map[*Kernel]int     // rows per warp of each kernel of a variant whose warps walk rows
}

// sedimentDefines returns the defines that fix a basin's mesh and constants
// in the kernels. Values are written in exponent form, so that every
// constant is a double literal that round-trips exactly.
func sedimentDefines(b *sediment.Basin) []gpu.Define {
	f := func(name string, v float64) gpu.Define {
		return gpu.Define{Name: name, Value: strconv.FormatFloat(v, 'e', -1, 64)}
	}
	p := b.P
	return []gpu.Define{
		{Name: "NX", Value: strconv.Itoa(b.Nx)}, {Name: "NY", Value: strconv.Itoa(b.Ny)},
		f("SED_DT", p.Dt), f("SED_RX", 1/(p.Dx*p.Dx)), f("SED_RY", 1/(p.Dy*p.Dy)),
		f("SED_DX", p.Dx), f("SED_DY", p.Dy), f("SED_ICS", 1/p.Cs), f("SED_ICM", 1/p.Cm),
		f("SED_HCS", 0.5/p.Cs), f("SED_HCM", 0.5/p.Cm), f("SED_A", p.A),
	}
}

// sedimentVariant is how one variant of the case study runs on the
// device: the defines it compiles with, the launch of its h- and
// s-kernels, and whether its warps walk rows of the mesh (the best
// variant: its kernels then take the rows each warp walks, it has a fused
// h+s kernel, and the bench tunes it).
type sedimentVariant struct {
	defines   func(o Options) []gpu.Define // nil: none beyond the basin's
	launch    func(r *Sediment, k *Kernel) gpu.Geometry
	walksRows bool
}

// sedimentVariants are the registered variants, by the names of
// sediment.Variants.
var sedimentVariants = map[string]sedimentVariant{}

// registerSedimentVariant registers a variant; this file calls it at
// start-up, once for each of sediment.Variants.
func registerSedimentVariant(name string, v sedimentVariant) {
	if _, dup := sedimentVariants[name]; dup {
		panic("gpu: a second sediment variant " + name)
	}
	sedimentVariants[name] = v
}

func init() {
	paper := func(r *Sediment, _ *Kernel) gpu.Geometry {
		return gpu.Geometry{Grid: [3]int{ceilDiv(r.nx, 32), ceilDiv(r.ny, 4), 1}, Block: [3]int{32, 4, 1}}
	}
	tile := func(Options) []gpu.Define { return []gpu.Define{{Name: "BX", Value: "32"}, {Name: "BY", Value: "4"}} }
	registerSedimentVariant("baseline", sedimentVariant{launch: paper})
	registerSedimentVariant("opt1", sedimentVariant{launch: paper})
	registerSedimentVariant("opt2", sedimentVariant{defines: tile, launch: paper})
	registerSedimentVariant("opt3", sedimentVariant{defines: tile, launch: func(r *Sediment, _ *Kernel) gpu.Geometry {
		// A 32×4 tile of outputs with its halo: 34×6 threads.
		return gpu.Geometry{Grid: [3]int{ceilDiv(r.nx, 32), ceilDiv(r.ny, 4), 1}, Block: [3]int{34, 6, 1}}
	}})
	registerSedimentVariant("best", sedimentVariant{defines: bestDefines, launch: rowsLaunch, walksRows: true})
}

// bestDefines are the best variant's defines: its warps per block, its
// bound on resident blocks and its division.
func bestDefines(o Options) []gpu.Define {
	fast := "0"
	if o.FastDiv {
		fast = "1"
	}
	return []gpu.Define{{Name: "WARPS", Value: strconv.Itoa(o.Warps)}, {Name: "SED_MINB", Value: strconv.Itoa(o.MinBlocks)}, {Name: "SED_FASTDIV", Value: fast}}
}

// rowsLaunch is the launch of a kernel whose warps each walk rows of the
// mesh, 62 columns wide (a warp of 32 with a halo of one computes 62
// outputs in two passes).
func rowsLaunch(r *Sediment, k *Kernel) gpu.Geometry {
	rows := r.rows[k]
	if rows == 0 {
		rows = r.opts.RY
	}
	segs := ceilDiv(r.ny, rows)
	return gpu.Geometry{Grid: [3]int{ceilDiv(r.nx, 62), ceilDiv(segs, r.opts.Warps), 1}, Block: [3]int{32, r.opts.Warps, 1}}
}

// sedimentModule compiles cuda/sediment_common.cu followed by the
// variant's own file as one program, or returns it from the device's
// cache.
func sedimentModule(d *gpu.Device, variant string, defines []gpu.Define) (*gpu.Module, error) {
	return d.ModuleOf([]string{"sediment_common", "sediment_" + variant}, defines)
}

// checkSedimentOptions fills in the defaults and checks the limits.
func checkSedimentOptions(variant string, o Options) (Options, error) {
	if err := sediment.CheckVariant(variant); err != nil {
		return o, fmt.Errorf("gpu: %w", err)
	}
	if o.RY == 0 {
		o.RY = 32
	}
	if o.Warps == 0 {
		o.Warps = 4
	}
	if o.RY < 1 || o.RY > 1<<20 {
		return o, fmt.Errorf("gpu: sediment: RY = %d rows per warp must be between 1 and %d", o.RY, 1<<20)
	}
	if o.Warps < 1 || o.Warps > 32 {
		return o, fmt.Errorf("gpu: sediment: %d warps per block must be between 1 and 32 (1024 threads)", o.Warps)
	}
	if o.MinBlocks < 0 || o.MinBlocks > 64 {
		return o, fmt.Errorf("gpu: sediment: %d resident blocks a multiprocessor must be between 0 (no bound) and 64", o.MinBlocks)
	}
	return o, nil
}

// Sediment prepares the basin (checking its inputs and Δt, see
// sediment.Basin.Prepare), compiles the variant's kernels for its mesh and
// constants, and copies its fields to the device. Free releases the
// device memory.
func New(d *gpu.Device, b *sediment.Basin, variant string, o Options) (*Sediment, error) {
	o, err := checkSedimentOptions(variant, o)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, fmt.Errorf("gpu: sediment: nil basin")
	}
	if err := b.Prepare(); err != nil {
		return nil, fmt.Errorf("gpu: sediment: %w", err)
	}
	v := sedimentVariants[variant]
	defs := sedimentDefines(b)
	if v.defines != nil {
		defs = append(defs, v.defines(o)...)
	}
	r := &Sediment{d: d, variant: variant, v: v, opts: o, nx: b.Nx, ny: b.Ny, rows: map[*Kernel]int{}, sms: d.Props().SMs}
	// The launches do not depend on the data: check them before
	// compiling or allocating.
	for _, k := range r.kernels() {
		if err := gpu.CheckGeometry(r.geometry(k), d.Props(), 0, 0); err != nil {
			return nil, fmt.Errorf("gpu: sediment %s on a %d×%d mesh: %w", variant, b.Nx, b.Ny, err)
		}
	}
	n := len(b.H.Data)
	if err := d.CheckFree(fmt.Sprintf("the %d×%d sediment basin (6 fields of %d doubles)", b.Nx, b.Ny, n), uint64(6*n+2*(b.Nx+b.Ny))*8); err != nil {
		return nil, err
	}
	if r.mod, err = sedimentModule(d, variant, defs); err != nil {
		return nil, err
	}
	if r.limits, err = d.OccupancyLimits(); err != nil {
		return nil, err
	}
	for _, k := range append(r.kernels(), Ghost) {
		f, err := r.function(k)
		if err != nil {
			return nil, err
		}
		if v.walksRows && k.launch == nil {
			r.rows[k] = r.bestRows(f)
		}
	}
	ok := false
	defer func() {
		if !ok {
			r.Free()
		}
	}()
	alloc := func(dst **gpu.Buffer, src []float64) error {
		var err error
		if *dst, err = d.Alloc(2 * len(src)); err != nil {
			return err
		}
		return (*dst).Upload(0, float32View(src))
	}
	for _, f := range []struct {
		dst **gpu.Buffer
		src []float64
	}{
		{&r.alpha, b.Alpha.Data}, {&r.beta, b.Beta.Data}, {&r.rate, boundaryRates(b)},
		{&r.h[0], b.H.Data}, {&r.h[1], b.H.Data}, {&r.s[0], b.S.Data}, {&r.s[1], b.S.Data},
	} {
		if err := alloc(f.dst, f.src); err != nil {
			return nil, fmt.Errorf("gpu: sediment: %w", err)
		}
	}
	r.steps = b.Steps
	ok = true
	return r, nil
}

// float32View returns the memory of v as twice as many float32, for the
// float32 buffers of the package.
func float32View(v []float64) []float32 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(v))), 2*len(v))
}

// boundaryRates returns the inflow rate of every boundary face in the
// order of sed_ghost_h: west j = 1..Ny, east, south i = 1..Nx, north.
func boundaryRates(b *sediment.Basin) []float64 {
	r := make([]float64, 0, 2*(b.Nx+b.Ny))
	for _, side := range []struct {
		in []sediment.Inflow
		n  int
	}{{b.Bound.West, b.Ny}, {b.Bound.East, b.Ny}, {b.Bound.South, b.Nx}, {b.Bound.North, b.Nx}} {
		for k := range side.n {
			if side.in != nil {
				r = append(r, side.in[k].Rate)
			} else {
				r = append(r, 0)
			}
		}
	}
	return r
}

// Variant returns the variant's name.
func (r *Sediment) Variant() string { return r.variant }

// Options returns the options in use, defaults filled in.
func (r *Sediment) Options() Options { return r.opts }

// Module returns the compiled module.
func (r *Sediment) Module() *gpu.Module { return r.mod }

// Steps returns the number of steps the basin has taken, on the CPU before
// upload and here.
func (r *Sediment) Steps() int { return r.steps }

// kernels returns the kernels of the variant that the bench measures:
// h and s, and for a variant whose warps walk rows also the fused one.
func (r *Sediment) kernels() []*Kernel {
	if r.v.walksRows {
		return []*Kernel{H, S, Fused}
	}
	return []*Kernel{H, S}
}

func (r *Sediment) function(k *Kernel) (*gpu.Function, error) {
	if k == nil {
		return nil, fmt.Errorf("gpu: sediment: no kernel (nil)")
	}
	if k.rowsOnly && !r.v.walksRows {
		return nil, fmt.Errorf("gpu: sediment %s has no %s kernel; only the variants whose warps walk rows (best) have it", r.variant, k)
	}
	return r.mod.Function(k.entry)
}

// geometry returns the launch of a kernel on the mesh.
func (r *Sediment) geometry(k *Kernel) gpu.Geometry {
	if k.launch != nil {
		return k.launch(r)
	}
	return r.v.launch(r, k)
}

// Block describes the thread block of the variant's h- and s-kernels as
// the paper's tables do, e.g. "32×4" or "34×6".
func (r *Sediment) Block() string {
	g := r.geometry(H)
	return fmt.Sprintf("%d×%d", g.Block[0], g.Block[1])
}

// Config describes how the best variant runs a kernel: the rows each warp
// walks and the warps per block; empty for the paper's variants.
func (r *Sediment) Config(k *Kernel) string {
	if !r.v.walksRows {
		return ""
	}
	c := fmt.Sprintf("rows=%d warps=%d", r.rows[k], r.opts.Warps)
	if r.opts.MinBlocks > 0 {
		c += fmt.Sprintf(" minblocks=%d", r.opts.MinBlocks)
	}
	if r.opts.FastDiv {
		c += " fastdiv"
	}
	return c
}

// bestRows picks the rows each warp of a best kernel walks: near RY, so
// that the blocks come in whole waves of what the device holds at once
// (blocks per multiprocessor by the occupancy rules, times its
// multiprocessors). A last, nearly empty wave would leave most of the GPU
// idle for as long as a full one.
func (r *Sediment) bestRows(f *gpu.Function) int {
	w := r.opts.Warps
	perSM := r.limits.Blocks(32*w, f.Registers, f.StaticShared)
	if perSM <= 0 {
		return r.opts.RY
	}
	chunks := ceilDiv(r.nx, 62)
	resident := perSM * r.sms
	blocks := chunks * ceilDiv(ceilDiv(r.ny, r.opts.RY), w)
	waves := max(1, int(math.Round(float64(blocks)/float64(resident))))
	perChunk := max(1, waves*resident/chunks) // blocks in y
	return max(1, ceilDiv(r.ny, perChunk*w))
}

// Kernel returns a kernel (H, S, Ghost, or Fused for the best variant)
// compiled, and its launch, with the shared memory its compiled code
// declares.
func (r *Sediment) Kernel(k *Kernel) (*gpu.Function, gpu.Geometry, error) {
	f, err := r.function(k)
	if err != nil {
		return nil, gpu.Geometry{}, err
	}
	g := r.geometry(k)
	g.SharedBytes = f.StaticShared
	if err := gpu.CheckGeometry(g, r.d.Props(), f.MaxThreads, f.Registers); err != nil {
		return nil, gpu.Geometry{}, fmt.Errorf("gpu: sediment %s %s-kernel: %w", r.variant, k, err)
	}
	return f, g, nil
}

func (r *Sediment) live() error {
	if r == nil || r.alpha == nil || r.alpha.Ptr() == 0 {
		return fmt.Errorf("gpu: sediment: the basin is not on the device (nil or freed)")
	}
	return nil
}

func (r *Sediment) launch(k *Kernel, timed bool) (float64, error) {
	f, g, err := r.Kernel(k)
	if err != nil {
		return 0, err
	}
	return r.d.LaunchArgs(f, g, r.args(k), timed)
}

// args returns the arguments of a kernel reading the current state and
// writing the other buffers.
func (r *Sediment) args(k *Kernel) *gpu.Args {
	c, o := r.cur, 1-r.cur
	return k.args(r, fields{alpha: r.alpha.Ptr(), beta: r.beta.Ptr(), s: r.s[c].Ptr(), h: r.h[c].Ptr(),
		hn: r.h[o].Ptr(), sn: r.s[o].Ptr(), rate: r.rate.Ptr(), rows: int32(r.rows[k])})
}

// Run takes n steps on the device: the ghost heights, then h' and s' (one
// fused kernel for the best variant unless Split), then the new state
// becomes current. It returns the total time of the launches, measured
// with CUDA events.
func (r *Sediment) Run(n int) (time.Duration, error) {
	if err := r.live(); err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, fmt.Errorf("gpu: sediment: %d steps: the number of steps must not be negative", n)
	}
	kernels := []*Kernel{Ghost, H, S}
	if r.v.walksRows && !r.opts.Split {
		kernels = []*Kernel{Ghost, Fused}
	}
	var ms float64
	for range n {
		for _, k := range kernels {
			t, err := r.launch(k, true)
			if err != nil {
				return 0, fmt.Errorf("gpu: sediment %s step %d: %w", r.variant, r.steps+1, err)
			}
			ms += t
		}
		r.cur = 1 - r.cur
		r.steps++
	}
	runtime.KeepAlive(r)
	return time.Duration(ms * float64(time.Millisecond)), nil
}

// Download copies the current h and s, ghosts included, into the basin,
// which must have the mesh the kernels were compiled for, and sets its
// step count.
func (r *Sediment) Download(b *sediment.Basin) error {
	if err := r.live(); err != nil {
		return err
	}
	if b == nil || b.H == nil || b.S == nil || b.Nx != r.nx || b.Ny != r.ny || len(b.H.Data) != (r.nx+2)*(r.ny+2) || len(b.S.Data) != len(b.H.Data) {
		return fmt.Errorf("gpu: sediment: download into a basin that is not %d×%d", r.nx, r.ny)
	}
	if err := r.h[r.cur].Download(0, float32View(b.H.Data)); err != nil {
		return fmt.Errorf("gpu: sediment: h: %w", err)
	}
	if err := r.s[r.cur].Download(0, float32View(b.S.Data)); err != nil {
		return fmt.Errorf("gpu: sediment: s: %w", err)
	}
	b.Steps = r.steps
	return nil
}

// Free releases the device memory. Freeing twice is harmless.
func (r *Sediment) Free() error {
	if r == nil {
		return nil
	}
	var first error
	for _, b := range []*gpu.Buffer{r.alpha, r.beta, r.rate, r.h[0], r.h[1], r.s[0], r.s[1]} {
		if b == nil {
			continue
		}
		if err := b.Free(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Measure launches a kernel (H, S or Fused) warmup times, then reps
// timed times, on the current state; the outputs go to the other buffers
// and the state does not advance.
func (r *Sediment) Measure(k *Kernel, warmup, reps int) (gpu.Measurement, error) {
	if err := r.live(); err != nil {
		return gpu.Measurement{}, err
	}
	f, g, err := r.Kernel(k)
	if err != nil {
		return gpu.Measurement{}, err
	}
	m, err := r.d.MeasureArgs(f, g, r.args(k), warmup, reps)
	runtime.KeepAlive(r)
	return m, err
}

// Occupancy returns the occupancy of a kernel: the warps of the blocks
// that fit on one multiprocessor over the most it can hold. It is
// calculated from the compiled kernel's registers and shared memory and
// the device's limits by the rules of CUDA's occupancy calculator
// (gpu.OccupancyLimits); −1 where the device does not report a limit it needs.
func (r *Sediment) Occupancy(k *Kernel) (float64, error) {
	f, g, err := r.Kernel(k)
	if err != nil {
		return 0, err
	}
	return r.limits.Occupancy(g.Threads(), f.Registers, f.StaticShared), nil
}

// SedimentBench measures every variant's kernels on a random nx×ny basin
// (sediment.Random with seed), each kernel warmup times untimed and reps
// times timed, against the package's 16-byte copy kernel measured in the
// same run on buffers as large as two fields. The best variant is timed
// with each of tune's options and reported with the fastest for its fused
// kernel; an empty tune means the defaults.
func Bench(d *gpu.Device, nx, ny int, seed uint64, warmup, reps int, tune []Options) (*sediment.BenchReport, error) {
	if reps < 1 || warmup < 0 {
		return nil, fmt.Errorf("gpu: sediment bench: %d warm-up and %d timed launches: need at least 0 and 1", warmup, reps)
	}
	b, err := sediment.Random(nx, ny, seed)
	if err != nil {
		return nil, fmt.Errorf("gpu: sediment bench: %w", err)
	}
	p := d.Props()
	rep := &sediment.BenchReport{Device: p.Name, Arch: p.Arch(), SMs: p.SMs, Nx: nx, Ny: ny, Reps: reps}

	n := len(b.H.Data)
	src, err := d.Alloc(4 * n)
	if err != nil {
		return nil, fmt.Errorf("gpu: sediment bench: copy buffers: %w", err)
	}
	dst, err := d.Alloc(4 * n)
	if err != nil {
		src.Free()
		return nil, fmt.Errorf("gpu: sediment bench: copy buffers: %w", err)
	}
	if err = src.FillRandom(seed); err == nil {
		var m gpu.Measurement
		if m, err = d.MeasureCopy(dst, src, warmup, reps); err == nil {
			rep.CopyGBs = 2 * float64(src.Bytes()) / (m.Median * 1e6)
		}
	}
	src.Free()
	dst.Free()
	if err != nil {
		return nil, fmt.Errorf("gpu: sediment bench: copy: %w", err)
	}

	points := float64(nx) * float64(ny)
	row := func(r *Sediment, k *Kernel) (sediment.BenchRow, error) {
		m, err := r.Measure(k, warmup, reps)
		if err != nil {
			return sediment.BenchRow{}, err
		}
		f, _, _ := r.Kernel(k)
		occ, err := r.Occupancy(k)
		if err != nil {
			return sediment.BenchRow{}, err
		}
		flops, bytes := sediment.KernelCost(k.name)
		gbs := float64(bytes) * points / (m.Median * 1e6)
		return sediment.BenchRow{
			Kernel: k.name, Variant: r.variant, Block: r.Block(), Config: r.Config(k), Ms: m.Median,
			GFLOPs: float64(flops) * points / (m.Median * 1e6), Regs: f.Registers, SharedBytes: f.StaticShared,
			Occupancy: occ, BytesPerPoint: bytes, GBs: gbs, CopyShare: gbs / rep.CopyGBs,
		}, nil
	}
	for _, v := range sediment.Variants {
		opts := []Options{{}}
		if sedimentVariants[v].walksRows && len(tune) > 0 {
			opts = tune
		}
		var best []sediment.BenchRow
		for _, o := range opts {
			r, err := New(d, b, v, o)
			if err != nil {
				return nil, fmt.Errorf("gpu: sediment bench %s: %w", v, err)
			}
			var rows []sediment.BenchRow
			for _, k := range r.kernels() {
				row, err := row(r, k)
				if err != nil {
					r.Free()
					return nil, fmt.Errorf("gpu: sediment bench %s: %w", v, err)
				}
				rows = append(rows, row)
			}
			r.Free()
			if best == nil || rows[len(rows)-1].Ms < best[len(best)-1].Ms {
				best = rows
			}
		}
		rep.Rows = append(rep.Rows, best...)
	}
	return rep, nil
}

// ceilDiv returns ⌈a/b⌉ for positive b.
func ceilDiv(a, b int) int { return (a + b - 1) / b }
