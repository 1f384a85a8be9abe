package gpu

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"time"
	"unsafe"

	"stencillab.dev/lab/sediment"
)

// SedimentOptions configures the sediment kernels of one variant.
type SedimentOptions struct {
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
	d       *Device
	variant string
	v       sedimentVariant
	opts    SedimentOptions
	nx, ny  int
	mod     *Module

	alpha, beta, rate *Buffer
	h, s              [2]*Buffer // h[cur], s[cur] hold the current state
	cur               int
	steps             int

	limits OccupancyLimits // of the device, for Occupancy and the best variant's rows
	rows   map[string]int  // rows per warp of each best kernel
}

// Attributes of the device that the occupancy calculation reads
// (CUdevice_attribute values).
const (
	attrRegistersPerSM     = 82
	attrMaxBlocksPerSM     = 106
	attrReservedSharedPerB = 111
)

// sedimentDefines returns the defines that fix a basin's mesh and constants
// in the kernels. Values are written in exponent form, so that every
// constant is a double literal that round-trips exactly.
func sedimentDefines(b *sediment.Basin) []Define {
	f := func(name string, v float64) Define {
		return Define{Name: name, Value: strconv.FormatFloat(v, 'e', -1, 64)}
	}
	p := b.P
	return []Define{
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
	defines   func(o SedimentOptions) []Define // nil: none beyond the basin's
	launch    func(r *Sediment, kernel string) Geometry
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
	paper := func(r *Sediment, _ string) Geometry {
		return Geometry{Grid: [3]int{ceilDiv(r.nx, 32), ceilDiv(r.ny, 4), 1}, Block: [3]int{32, 4, 1}}
	}
	tile := func(SedimentOptions) []Define { return []Define{{"BX", "32"}, {"BY", "4"}} }
	registerSedimentVariant("baseline", sedimentVariant{launch: paper})
	registerSedimentVariant("opt1", sedimentVariant{launch: paper})
	registerSedimentVariant("opt2", sedimentVariant{defines: tile, launch: paper})
	registerSedimentVariant("opt3", sedimentVariant{defines: tile, launch: func(r *Sediment, _ string) Geometry {
		// A 32×4 tile of outputs with its halo: 34×6 threads.
		return Geometry{Grid: [3]int{ceilDiv(r.nx, 32), ceilDiv(r.ny, 4), 1}, Block: [3]int{34, 6, 1}}
	}})
	registerSedimentVariant("best", sedimentVariant{defines: bestDefines, launch: rowsLaunch, walksRows: true})
}

// bestDefines are the best variant's defines: its warps per block, its
// bound on resident blocks and its division.
func bestDefines(o SedimentOptions) []Define {
	fast := "0"
	if o.FastDiv {
		fast = "1"
	}
	return []Define{{"WARPS", strconv.Itoa(o.Warps)}, {"SED_MINB", strconv.Itoa(o.MinBlocks)}, {"SED_FASTDIV", fast}}
}

// rowsLaunch is the launch of a kernel whose warps each walk rows of the
// mesh, 62 columns wide (a warp of 32 with a halo of one computes 62
// outputs in two passes).
func rowsLaunch(r *Sediment, kernel string) Geometry {
	rows := r.rows[kernel]
	if rows == 0 {
		rows = r.opts.RY
	}
	segs := ceilDiv(r.ny, rows)
	return Geometry{Grid: [3]int{ceilDiv(r.nx, 62), ceilDiv(segs, r.opts.Warps), 1}, Block: [3]int{32, r.opts.Warps, 1}}
}

// sedimentModule compiles cuda/sediment_common.cu followed by the
// variant's own file as one program, or returns it from the device's
// cache.
func (d *Device) sedimentModule(variant string, defines []Define) (*Module, error) {
	return d.moduleOf([]string{"sediment_common", "sediment_" + variant}, defines)
}

// checkSedimentOptions fills in the defaults and checks the limits.
func checkSedimentOptions(variant string, o SedimentOptions) (SedimentOptions, error) {
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
func (d *Device) Sediment(b *sediment.Basin, variant string, o SedimentOptions) (*Sediment, error) {
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
	r := &Sediment{d: d, variant: variant, v: v, opts: o, nx: b.Nx, ny: b.Ny, rows: map[string]int{}}
	// The launches do not depend on the data: check them before
	// compiling or allocating.
	for _, k := range r.kernels() {
		if err := checkGeometry(r.geometry(k), d.props, 0, 0); err != nil {
			return nil, fmt.Errorf("gpu: sediment %s on a %d×%d mesh: %w", variant, b.Nx, b.Ny, err)
		}
	}
	n := len(b.H.Data)
	if err := d.CheckFree(fmt.Sprintf("the %d×%d sediment basin (6 fields of %d doubles)", b.Nx, b.Ny, n), uint64(6*n+2*(b.Nx+b.Ny))*8); err != nil {
		return nil, err
	}
	if r.mod, err = d.sedimentModule(variant, defs); err != nil {
		return nil, err
	}
	if r.limits, err = d.occupancyLimits(); err != nil {
		return nil, err
	}
	for _, k := range append(r.kernels(), "ghost") {
		f, err := r.function(k)
		if err != nil {
			return nil, err
		}
		if v.walksRows && k != "ghost" {
			r.rows[k] = r.bestRows(f)
		}
	}
	ok := false
	defer func() {
		if !ok {
			r.Free()
		}
	}()
	alloc := func(dst **Buffer, src []float64) error {
		var err error
		if *dst, err = d.Alloc(2 * len(src)); err != nil {
			return err
		}
		return (*dst).Upload(0, float32View(src))
	}
	for _, f := range []struct {
		dst **Buffer
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
func (r *Sediment) Options() SedimentOptions { return r.opts }

// Module returns the compiled module.
func (r *Sediment) Module() *Module { return r.mod }

// Steps returns the number of steps the basin has taken, on the CPU before
// upload and here.
func (r *Sediment) Steps() int { return r.steps }

// kernels returns the kernels of the variant that the bench measures:
// h and s, and for the best variant also the fused one.
func (r *Sediment) kernels() []string {
	if r.v.walksRows {
		return []string{sediment.KernelH, sediment.KernelS, sediment.KernelFused}
	}
	return []string{sediment.KernelH, sediment.KernelS}
}

func entry(kernel string) (string, error) {
	switch kernel {
	case sediment.KernelH:
		return "sed_h", nil
	case sediment.KernelS:
		return "sed_s", nil
	case sediment.KernelFused:
		return "sed_hs", nil
	case "ghost":
		return "sed_ghost_h", nil
	}
	return "", fmt.Errorf("gpu: sediment: no kernel %q (want h, s or h+s)", kernel)
}

func (r *Sediment) function(kernel string) (*Function, error) {
	name, err := entry(kernel)
	if err != nil {
		return nil, err
	}
	if kernel == sediment.KernelFused && !r.v.walksRows {
		return nil, fmt.Errorf("gpu: sediment %s has no fused kernel; only best has", r.variant)
	}
	return r.mod.Function(name)
}

// geometry returns the launch of a kernel on the mesh.
func (r *Sediment) geometry(kernel string) Geometry {
	if kernel == "ghost" {
		return Geometry{Grid: [3]int{ceilDiv(2*(r.nx+r.ny), 128), 1, 1}, Block: [3]int{128, 1, 1}}
	}
	return r.v.launch(r, kernel)
}

// Block describes the thread block of the variant's h- and s-kernels as
// the paper's tables do, e.g. "32×4" or "34×6".
func (r *Sediment) Block() string {
	g := r.geometry(sediment.KernelH)
	return fmt.Sprintf("%d×%d", g.Block[0], g.Block[1])
}

// Config describes how the best variant runs a kernel: the rows each warp
// walks and the warps per block; empty for the paper's variants.
func (r *Sediment) Config(kernel string) string {
	if !r.v.walksRows {
		return ""
	}
	c := fmt.Sprintf("rows=%d warps=%d", r.rows[kernel], r.opts.Warps)
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
func (r *Sediment) bestRows(f *Function) int {
	w := r.opts.Warps
	perSM := r.limits.Blocks(32*w, f.Registers, f.StaticShared)
	if perSM <= 0 {
		return r.opts.RY
	}
	chunks := ceilDiv(r.nx, 62)
	resident := perSM * r.d.props.SMs
	blocks := chunks * ceilDiv(ceilDiv(r.ny, r.opts.RY), w)
	waves := max(1, int(math.Round(float64(blocks)/float64(resident))))
	perChunk := max(1, waves*resident/chunks) // blocks in y
	return max(1, ceilDiv(r.ny, perChunk*w))
}

// Kernel returns a kernel ("h", "s", or "h+s" for the best variant) and
// its launch, with the shared memory its compiled code declares.
func (r *Sediment) Kernel(kernel string) (*Function, Geometry, error) {
	f, err := r.function(kernel)
	if err != nil {
		return nil, Geometry{}, err
	}
	g := r.geometry(kernel)
	g.SharedBytes = f.StaticShared
	if err := checkGeometry(g, r.d.props, f.MaxThreads, f.Registers); err != nil {
		return nil, Geometry{}, fmt.Errorf("gpu: sediment %s %s-kernel: %w", r.variant, kernel, err)
	}
	return f, g, nil
}

func (r *Sediment) live() error {
	if r == nil || r.alpha == nil || r.alpha.ptr == 0 {
		return fmt.Errorf("gpu: sediment: the basin is not on the device (nil or freed)")
	}
	return nil
}

// args returns the arguments of a kernel reading the current state and
// writing the other buffers.
func (r *Sediment) args(kernel string) *args {
	c, o := r.cur, 1-r.cur
	alpha, beta, s, h := r.alpha.ptr, r.beta.ptr, r.s[c].ptr, r.h[c].ptr
	rows := int32(r.rows[kernel])
	best := r.v.walksRows
	switch {
	case kernel == "ghost":
		return sedGhostHArgs(alpha, beta, s, h, r.rate.ptr)
	case kernel == sediment.KernelFused:
		return sedHsArgs(alpha, beta, s, h, r.h[o].ptr, r.s[o].ptr, rows)
	case kernel == sediment.KernelH && best:
		return sedHRowsArgs(alpha, beta, s, h, r.h[o].ptr, rows)
	case kernel == sediment.KernelH:
		return sedHArgs(alpha, beta, s, h, r.h[o].ptr)
	case best:
		return sedSRowsArgs(alpha, beta, s, h, r.s[o].ptr, rows)
	}
	return sedSArgs(alpha, beta, s, h, r.s[o].ptr)
}

func (r *Sediment) launch(kernel string, timed bool) (float64, error) {
	f, g, err := r.Kernel(kernel)
	if err != nil {
		return 0, err
	}
	return r.d.launch(f, g, r.args(kernel), timed)
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
	kernels := []string{"ghost", sediment.KernelH, sediment.KernelS}
	if r.v.walksRows && !r.opts.Split {
		kernels = []string{"ghost", sediment.KernelFused}
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
	for _, b := range []*Buffer{r.alpha, r.beta, r.rate, r.h[0], r.h[1], r.s[0], r.s[1]} {
		if b == nil {
			continue
		}
		if err := b.Free(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Measure launches a kernel ("h", "s" or "h+s") warmup times, then reps
// timed times, on the current state; the outputs go to the other buffers
// and the state does not advance.
func (r *Sediment) Measure(kernel string, warmup, reps int) (Measurement, error) {
	if err := r.live(); err != nil {
		return Measurement{}, err
	}
	f, g, err := r.Kernel(kernel)
	if err != nil {
		return Measurement{}, err
	}
	m, err := r.d.measure(f, g, r.args(kernel), warmup, reps)
	runtime.KeepAlive(r)
	return m, err
}

// Occupancy returns the occupancy of a kernel: the warps of the blocks
// that fit on one multiprocessor over the most it can hold. It is
// calculated from the compiled kernel's registers and shared memory and
// the device's limits by the rules of CUDA's occupancy calculator
// (OccupancyLimits); −1 where the device does not report a limit it needs.
func (r *Sediment) Occupancy(kernel string) (float64, error) {
	f, g, err := r.Kernel(kernel)
	if err != nil {
		return 0, err
	}
	return r.limits.Occupancy(g.Threads(), f.Registers, f.StaticShared), nil
}

// occupancyLimits reads the device's limits for the occupancy rules; a
// limit the driver does not report stays zero.
func (d *Device) occupancyLimits() (OccupancyLimits, error) {
	var l OccupancyLimits
	err := d.do(func() error {
		for _, a := range []struct {
			id  int
			dst *int
		}{{attrRegistersPerSM, &l.RegsPerSM}, {attrMaxBlocksPerSM, &l.MaxBlocks}, {attrReservedSharedPerB, &l.ReservedShared}} {
			if v, code := drv.DeviceGetAttribute(a.id, d.dev); code == 0 {
				*a.dst = v
			}
		}
		return nil
	})
	if err != nil {
		return l, fmt.Errorf("gpu: occupancy limits: %w", err)
	}
	p := d.props
	l.MaxThreads, l.SharedPerSM = p.MaxThreadsPerSM, p.SharedPerSM
	l.RegUnit, l.SharedUnit, l.Partitions = 256, 128, 4
	if p.Major < 8 {
		l.SharedUnit = 256
	}
	return l, nil
}

// OccupancyLimits are the limits of one multiprocessor that decide how
// many blocks of a kernel it holds at once.
type OccupancyLimits struct {
	MaxThreads     int // resident threads
	RegsPerSM      int // 32-bit registers
	MaxBlocks      int // resident blocks
	SharedPerSM    int // shared memory, bytes
	ReservedShared int // shared memory the system reserves per block, bytes
	RegUnit        int // registers are given to a warp in multiples of this
	SharedUnit     int // shared memory is given to a block in multiples of this
	Partitions     int // warp schedulers, each with its share of the registers
}

// Occupancy applies the occupancy calculator's rules to a block of threads
// whose threads use regs registers and which declares shared bytes: a warp
// gets regs·32 registers rounded up to RegUnit, each of the Partitions
// schedulers holds as many warps as its share of the registers allows, a
// block gets shared + ReservedShared bytes rounded up to SharedUnit, and no
// more than MaxBlocks blocks and MaxThreads threads fit. It returns the
// resident warps over MaxThreads/32, or −1 when a limit is unknown (zero).
func (l OccupancyLimits) Occupancy(threads, regs, shared int) float64 {
	blocks := l.Blocks(threads, regs, shared)
	if blocks < 0 {
		return -1
	}
	return float64(blocks*ceilDiv(threads, 32)) / float64(l.MaxThreads/32)
}

// Blocks returns how many blocks of the kernel one multiprocessor holds
// at once by the rules of Occupancy, or −1 when a limit is unknown.
func (l OccupancyLimits) Blocks(threads, regs, shared int) int {
	if threads <= 0 || l.MaxThreads <= 0 || l.RegsPerSM <= 0 || l.MaxBlocks <= 0 || l.SharedPerSM <= 0 ||
		l.RegUnit <= 0 || l.SharedUnit <= 0 || l.Partitions <= 0 {
		return -1
	}
	maxWarps := l.MaxThreads / 32
	wpb := ceilDiv(threads, 32)
	blocks := min(l.MaxBlocks, maxWarps/wpb)
	if regs > 0 {
		perWarp := ceilDiv(regs*32, l.RegUnit) * l.RegUnit
		warps := (l.RegsPerSM / l.Partitions / perWarp) * l.Partitions
		blocks = min(blocks, warps/wpb)
	}
	if perBlock := ceilDiv(shared+l.ReservedShared, l.SharedUnit) * l.SharedUnit; perBlock > 0 {
		blocks = min(blocks, l.SharedPerSM/perBlock)
	}
	return blocks
}

// SedimentBench measures every variant's kernels on a random nx×ny basin
// (sediment.Random with seed), each kernel warmup times untimed and reps
// times timed, against the package's 16-byte copy kernel measured in the
// same run on buffers as large as two fields. The best variant is timed
// with each of tune's options and reported with the fastest for its fused
// kernel; an empty tune means the defaults.
func (d *Device) SedimentBench(nx, ny int, seed uint64, warmup, reps int, tune []SedimentOptions) (*sediment.BenchReport, error) {
	if reps < 1 || warmup < 0 {
		return nil, fmt.Errorf("gpu: sediment bench: %d warm-up and %d timed launches: need at least 0 and 1", warmup, reps)
	}
	b, err := sediment.Random(nx, ny, seed)
	if err != nil {
		return nil, fmt.Errorf("gpu: sediment bench: %w", err)
	}
	p := d.props
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
		var m Measurement
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
	row := func(r *Sediment, kernel string) (sediment.BenchRow, error) {
		m, err := r.Measure(kernel, warmup, reps)
		if err != nil {
			return sediment.BenchRow{}, err
		}
		f, _, _ := r.Kernel(kernel)
		occ, err := r.Occupancy(kernel)
		if err != nil {
			return sediment.BenchRow{}, err
		}
		flops, bytes := sediment.KernelCost(kernel)
		gbs := float64(bytes) * points / (m.Median * 1e6)
		return sediment.BenchRow{
			Kernel: kernel, Variant: r.variant, Block: r.Block(), Config: r.Config(kernel), Ms: m.Median,
			GFLOPs: float64(flops) * points / (m.Median * 1e6), Regs: f.Registers, SharedBytes: f.StaticShared,
			Occupancy: occ, BytesPerPoint: bytes, GBs: gbs, CopyShare: gbs / rep.CopyGBs,
		}, nil
	}
	for _, v := range sediment.Variants {
		opts := []SedimentOptions{{}}
		if sedimentVariants[v].walksRows && len(tune) > 0 {
			opts = tune
		}
		var best []sediment.BenchRow
		for _, o := range opts {
			r, err := d.Sediment(b, v, o)
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
