package gpu

import (
	"fmt"

	"stencillab.dev/lab"
)

// This file is the temporally blocked step's tuning on a GPU: its tile
// shape, the planes each block covers and its launch for each grid. The lab
// describes the step (lab/temporal.go), whose tile is k, the time steps of
// one pass (TB_K); the simulated kernel's tile is the lab's.

var _ = registerTuning(temporalStep, temporalTuning{})

// temporalStep is the name of the step this file tunes.
const temporalStep = "temporal"

// temporalParams are the temporal kernel's compile-time parameters (see
// cuda/temporal.cu) and the planes per block.
type temporalParams struct {
	K         int // time steps per pass (TB_K), the step's tile
	BX, BY    int // input tile: TB_BX points (4·threads in x) × TB_BY rows
	L2PF      int // planes ahead of the bulk L2 prefetch; 0: none
	MinBlocks int // TB_MINB, for __launch_bounds__
	Stream    int // TB_STREAM: 1 writes outputs with evict-first stores
	CZ        int // output planes per block; 0: chosen per grid
	V         int // TB_V, the march: 0, 1 or 2 (see cuda/temporal.cu)

	file, entryName string // the lab's CUDA file and entry of the step
}

// temporalTable is the temporal step's parameter table: validation,
// defines (in this order) and help text; cuda/temporal.cu gives each
// define an #ifndef default.
var temporalTable = paramTable[temporalParams]{
	{Param{Name: "TB_BX", Lo: 4, Hi: 128, Help: "input points of a block's tile along x, 4 a thread: 4, 8, 16, 32, 64 or 128"},
		func(p *temporalParams) *int { return &p.BX }, nil},
	{Param{Name: "TB_BY", Lo: 1, Hi: 1024, Help: "input rows of a block's tile, one thread row each"},
		func(p *temporalParams) *int { return &p.BY }, nil},
	{Param{Name: "TB_L2PF", Lo: 0, Hi: 16, Help: "planes ahead of the bulk L2 prefetch of the input (0: none)"},
		func(p *temporalParams) *int { return &p.L2PF }, nil},
	{Param{Name: "TB_MINB", Lo: 1, Hi: 32, Help: "the fewest resident blocks per multiprocessor the compiler must allow (__launch_bounds__); default 2 for k ≤ 4, else 1", Tried: []int{2, 1}},
		func(p *temporalParams) *int { return &p.MinBlocks }, nil},
	{Param{Name: "TB_STREAM", Lo: 0, Hi: 1, Help: "1: outputs are written with streaming (evict-first) stores"},
		func(p *temporalParams) *int { return &p.Stream }, nil},
	{Param{Name: "TB_V", Lo: 0, Hi: 3, Help: "the march: 0 two shared planes a level, registers copied each plane; 1 three shared planes and register slots a level, unrolled by three so that no register is copied (the default for k ≤ 4); 2 as 1 with two of each, copied, unrolled by two (the default above); 3 as 1 with two rows a thread (TB_BX/4 × TB_BY/2 threads, TB_MINB by default such that 128 registers a thread fit)", Tried: []int{1, 2}},
		func(p *temporalParams) *int { return &p.V }, nil},
	{Param{Name: "TB_CZ", Lo: 0, Hi: 1 << 16, Help: "output planes per block (0: chosen per grid to fill the GPU in whole waves)", Launch: true},
		func(p *temporalParams) *int { return &p.CZ }, nil},
}

// temporalDefaults is the default tile of the temporal kernel: 64×32
// input points, 512 threads, (64−2·hx)×(32−2k) outputs. The march (TB_V)
// and TB_MINB are set per k by temporalMarch and temporalMinBlocks.
var temporalDefaults = temporalParams{BX: 64, BY: 32}

// temporalMarch is the default march for k time steps a pass: march 1
// (three register slots and shared planes a level, no register copied)
// for k ≤ 4, where two blocks of it still fit a multiprocessor's shared
// memory and it measured faster than march 2 at k = 4 on an H200 and an
// H100 at N = 512 and 1024 (bench/perf-final.sh, docs/gpu.md); march 2
// above, whose two planes a level leave room for more levels.
func temporalMarch(k int) int {
	if k <= 4 {
		return 1
	}
	return 2
}

// temporalMinBlocks is the default TB_MINB for k time steps a pass: two
// resident blocks of 512 threads (at most 64 registers each) for k ≤ 4,
// which measured fastest at k = 4 for marches 0, 1 and 2 on an H100
// (docs/gpu.md); one above, where the registers each thread holds across
// the march would spill.
func temporalMinBlocks(k int) int {
	if k <= 4 {
		return 2
	}
	return 1
}

// sharedFloats returns the floats of shared memory the march keeps per
// time level: two planes of the tile for march 0, three for marches 1 and
// 3 and two for march 2, whose planes have a row of padding above and below.
func (p temporalParams) sharedFloats() int {
	switch p.V {
	case 0:
		return 2 * p.BX * p.BY
	case 1, 3:
		return 3 * p.BX * (p.BY + 2)
	}
	return 2 * p.BX * (p.BY + 2)
}

// threadRows returns the block's rows of threads: TB_BY, or TB_BY/2 for
// march 3, whose threads own two rows each.
func (p temporalParams) threadRows() int {
	if p.V == 3 {
		return p.BY / 2
	}
	return p.BY
}

// halo returns the x halo, k rounded up to whole float4s.
func (p temporalParams) halo() int { return (p.K + 3) / 4 * 4 }

// outputs returns the output points per row and the output rows of a block.
func (p temporalParams) outputs() (ox, oy int) { return p.BX - 2*p.halo(), p.BY - 2*p.K }

// temporalTuning is the temporally blocked step's tuning.
type temporalTuning struct{}

func (temporalTuning) params() []Param { return temporalTable.params() }

// temporalTriedTiles are the time steps a pass the timed choice tries: the
// default k and its neighbours, which came within 2 % of it at N = 512
// (docs/gpu.md).
var temporalTriedTiles = []int{0, 3, 6}

func (temporalTuning) triedTiles() []int { return temporalTriedTiles }

// configure reads the temporal kernel's defines over its defaults for k =
// tile time steps a pass.
func (temporalTuning) configure(s lab.Step3, tile int, user map[string]string) (tuned, error) {
	p := temporalDefaults
	p.K = tile
	p.file, p.entryName = s.CUDA.File, s.CUDA.Entry
	if err := temporalTable.set(s.Name, &p, user); err != nil {
		return nil, err
	}
	if _, given := user["TB_V"]; !given {
		p.V = temporalMarch(p.K)
	}
	if _, given := user["TB_MINB"]; !given {
		p.MinBlocks = temporalMinBlocks(p.K)
		if p.V == 3 {
			// March 3's slots hold 24k registers: room for 128 a thread.
			p.MinBlocks = max(1, 512/(p.BX/4*p.BY/2))
		}
	}
	if p.K > 16 {
		return nil, fmt.Errorf("gpu: %s: k = TB_K = %d time steps per pass: at most 16 (each step holds 8 to 12 registers per thread)", s.Name, p.K)
	}
	tx := p.BX / 4
	if p.BX%4 != 0 || 32%tx != 0 {
		return nil, fmt.Errorf("gpu: %s: TB_BX = %d must be 4, 8, 16, 32, 64 or 128 (4 points a thread, a row inside one warp)", s.Name, p.BX)
	}
	ox, oy := p.outputs()
	if ox < 4 || oy < 1 {
		return nil, fmt.Errorf("gpu: %s: a %d×%d tile leaves no output for k = %d: TB_BX must exceed %d and TB_BY %d",
			s.Name, p.BX, p.BY, p.K, 2*p.halo()+3, 2*p.K)
	}
	if p.V == 3 && p.BY%2 != 0 {
		return nil, fmt.Errorf("gpu: %s: march 3 (TB_V=3) takes two rows a thread: TB_BY = %d must be even", s.Name, p.BY)
	}
	if t := tx * p.threadRows(); t%32 != 0 || t > 1024 {
		return nil, fmt.Errorf("gpu: %s: block %d×%d = %d threads: need whole warps and at most 1024", s.Name, tx, p.threadRows(), t)
	}
	return &p, nil
}

func (p *temporalParams) defines() []Define { return temporalTable.defines(p) }

func (p *temporalParams) sources() []string { return []string{p.file} }

func (p *temporalParams) entry(int) string { return p.entryName }

func (p *temporalParams) chunks() (open bool, halo int) { return p.CZ == 0, 2 * p.K }

func (p *temporalParams) check(int, Props) error { return nil }

func (p *temporalParams) args(src, dst uint64, nz, ny, nx int, c coefs, g Geometry) *Args {
	return chunkArgs(src, dst, nz, ny, nx, c, g)
}

// geometry is the temporal kernel's launch on an nz×ny×nx grid
// with cz output planes per block (when its configuration leaves them
// open): blocks of TB_BX/4 × TB_BY threads (TB_BY/2 for march 3), one per
// output tile and chunk of planes, and 2k shared planes of the tile (3k for
// marches 1 and 3), dynamic.
func (tp *temporalParams) geometry(nz, ny, nx, cz int) Geometry {
	p := *tp
	if p.CZ > 0 {
		cz = p.CZ
	}
	if cz <= 0 {
		cz = nz - 2 // one chunk: the whole column of planes
	}
	cz = max(min(cz, nz-2), 1)
	ox, oy := p.outputs()
	dyn := 4 * p.K * p.sharedFloats()
	return Geometry{Block: [3]int{p.BX / 4, p.threadRows(), 1},
		Grid:        [3]int{ceilDiv(nx-1, ox), ceilDiv(ny-2, oy), ceilDiv(nz-2, cz)},
		SharedBytes: dyn, DynamicShared: dyn, Planes: cz}
}

// describe writes the temporal kernel's tile: k, then input points × rows
// × output planes per block.
func (p *temporalParams) describe(_, cz int) string {
	return fmt.Sprintf("k%d:%dx%dx%d", p.K, p.BX, p.BY, cz)
}
