package gpu

import (
	"fmt"

	"stencillab.dev/lab"
)

// This file holds what the thirteen-point steps (lab.Step3.Radius 2:
// star13, temporal13) need beyond the seven-point path: the methods that
// take lab.Coeffs13. Their coefficients travel to the launch as a list
// checked against the step's star (coefs.go).

// Launch13 runs one sweep of a thirteen-point step (lab.Step3.Radius 2) of
// the nz×ny×nx grid in src into dst, timed with CUDA events. The boundary
// shell of dst, two points deep, is not written.
func (k *Stencil3) Launch13(dst, src *Buffer, nz, ny, nx int, c lab.Coeffs13) (Launch, error) {
	f, g, err := k.resolve(nz, ny, nx)
	if err != nil {
		return Launch{}, err
	}
	return k.launchResolved(f, g, dst, src, nz, ny, nx, thirteenCoefs(c))
}

// Measure13 is Measure for a thirteen-point step.
func (k *Stencil3) Measure13(dst, src *Buffer, nz, ny, nx int, c lab.Coeffs13, warmup, reps int) (Measurement, error) {
	return k.measure(dst, src, nz, ny, nx, thirteenCoefs(c), warmup, reps)
}

// MeasureSteps13 is MeasureSteps for a thirteen-point step.
func (k *Stencil3) MeasureSteps13(src, a, b *Buffer, nz, ny, nx int, c lab.Coeffs13, steps, warmup, reps int) (Measurement, error) {
	return k.measureSteps(src, a, b, nz, ny, nx, thirteenCoefs(c), steps, warmup, reps)
}

// Advance13 is Advance for a thirteen-point step: steps time steps of the
// grid held in a, ping-ponging between a and b, which hold the same
// boundary shell (two points deep); it returns the buffer that holds the
// result.
func (k *Stencil3) Advance13(a, b *Buffer, nz, ny, nx int, c lab.Coeffs13, steps int) (*Buffer, Launch, error) {
	passes, err := k.passes(steps)
	if err != nil {
		return nil, Launch{}, err
	}
	return k.advanceTimed(a, b, nz, ny, nx, thirteenCoefs(c), passes, true)
}

// thirteenChunkArgs are the arguments of a thirteen-point step whose
// blocks march through g.Planes planes: the grids, the sides, the thirteen
// coefficients and the planes.
func thirteenChunkArgs(src, dst uint64, nz, ny, nx int, co coefs, g Geometry) *Args {
	return thirteenPointChunkArgs(src, dst, int32(nz), int32(ny), int32(nx), co[0], co[1], co[2], co[3], co[4], co[5], co[6],
		co[7], co[8], co[9], co[10], co[11], co[12], int32(g.Planes))
}

// The single sweep of the thirteen-point star: its tile is the planes each
// block marches through (0: chosen per grid), its block S13_BX × S13_BY
// threads, one output each.

var _ = registerTuning(star13Step, star13Tuning{})

// star13Step is the name of the step the star13 tuning tunes.
const star13Step = "star13"

// star13Params are the star13 kernel's compile-time parameters (see
// cuda/star13.cu) and the planes per block.
type star13Params struct {
	BX, BY int // the block: S13_BX × S13_BY threads, one output each
	CZ     int // output planes per block, the step's tile; 0: chosen per grid

	file, entryName string
}

// star13Table is the star13 step's parameter table.
var star13Table = paramTable[star13Params]{
	{Param{Name: "S13_BX", Lo: 4, Hi: 1024, Help: "threads (output points) of a block along x"},
		func(p *star13Params) *int { return &p.BX }, nil},
	{Param{Name: "S13_BY", Lo: 2, Hi: 1024, Help: "threads (output rows) of a block along y"},
		func(p *star13Params) *int { return &p.BY }, nil},
}

// star13Defaults is star13's default block: 32 × 16 threads.
var star13Defaults = star13Params{BX: 32, BY: 16}

// star13Tuning is the star13 step's tuning.
type star13Tuning struct{}

func (star13Tuning) params() []Param { return star13Table.params() }

func (star13Tuning) configure(s lab.Step3, tile int, user map[string]string) (tuned, error) {
	p := star13Defaults
	p.file, p.entryName = s.CUDA.File, s.CUDA.Entry
	if err := star13Table.set(s.Name, &p, user); err != nil {
		return nil, err
	}
	if t := p.BX * p.BY; t%32 != 0 || t > 1024 {
		return nil, fmt.Errorf("gpu: %s: block %d×%d = %d threads: need whole warps and at most 1024", s.Name, p.BX, p.BY, t)
	}
	p.CZ = tile
	return &p, nil
}

func (p *star13Params) defines() []Define { return star13Table.defines(p) }

func (p *star13Params) sources() []string { return []string{p.file} }

func (p *star13Params) entry(int) string { return p.entryName }

// chunks: a chunk loads two planes below and two above its own.
func (p *star13Params) chunks() (open bool, halo int) { return p.CZ == 0, 2 * lab.Radius13 }

func (p *star13Params) check(int, Props) error { return nil }

func (p *star13Params) args(src, dst uint64, nz, ny, nx int, c coefs, g Geometry) *Args {
	return thirteenChunkArgs(src, dst, nz, ny, nx, c, g)
}

// geometry is star13's launch: one block per S13_BX × S13_BY outputs of
// the points two from every face and per chunk of cz planes.
func (p *star13Params) geometry(nz, ny, nx, cz int) Geometry {
	r := lab.Radius13
	if p.CZ > 0 {
		cz = p.CZ
	}
	if cz <= 0 {
		cz = nz - 2*r
	}
	cz = max(min(cz, nz-2*r), 1)
	return Geometry{Block: [3]int{p.BX, p.BY, 1},
		Grid:   [3]int{ceilDiv(nx-2*r, p.BX), ceilDiv(ny-2*r, p.BY), ceilDiv(nz-2*r, cz)},
		Planes: cz}
}

// describe writes star13's tile: points × rows × planes per block.
func (p *star13Params) describe(_, cz int) string { return fmt.Sprintf("%dx%dx%d", p.BX, p.BY, cz) }

// Temporal blocking of the thirteen-point star: its tile is k, the time
// steps of one pass (T13_K), its input tile T13_BX × T13_BY points, one a
// thread.

var _ = registerTuning(temporal13Step, temporal13Tuning{})

// temporal13Step is the name of the step the temporal13 tuning tunes.
const temporal13Step = "temporal13"

// temporal13MaxK is the most time steps a pass of temporal13: each level
// holds four registers a thread and three shared planes.
const temporal13MaxK = 6

// temporal13Params are the temporal13 kernel's parameters (see
// cuda/temporal13.cu) and the planes per block.
type temporal13Params struct {
	K         int // time steps per pass (T13_K), the step's tile
	BX, BY    int // the input tile, one point a thread
	MinBlocks int // T13_MINB, for __launch_bounds__
	CZ        int // output planes per block; 0: chosen per grid

	file, entryName string
}

// temporal13Table is the temporal13 step's parameter table.
var temporal13Table = paramTable[temporal13Params]{
	{Param{Name: "T13_BX", Lo: 8, Hi: 1024, Help: "input points of a block's tile along x, one thread each"},
		func(p *temporal13Params) *int { return &p.BX }, nil},
	{Param{Name: "T13_BY", Lo: 8, Hi: 1024, Help: "input rows of a block's tile, one thread row each"},
		func(p *temporal13Params) *int { return &p.BY }, nil},
	{Param{Name: "T13_MINB", Lo: 1, Hi: 32, Help: "the fewest resident blocks per multiprocessor the compiler must allow (__launch_bounds__)", Tried: []int{1, 2}},
		func(p *temporal13Params) *int { return &p.MinBlocks }, nil},
	{Param{Name: "T13_CZ", Lo: 0, Hi: 1 << 16, Help: "output planes per block (0: chosen per grid to fill the GPU in whole waves)", Launch: true},
		func(p *temporal13Params) *int { return &p.CZ }, nil},
}

// temporal13Defaults is temporal13's default tile: 32 × 32 input points,
// 1024 threads, (32 − 4k)² outputs.
var temporal13Defaults = temporal13Params{BX: 32, BY: 32, MinBlocks: 1}

// temporal13Tuning is the temporal13 step's tuning.
type temporal13Tuning struct{}

func (temporal13Tuning) params() []Param { return temporal13Table.params() }

// temporal13TriedTiles are the time steps a pass temporal13's timed choice
// tries: the default and k = 3.
var temporal13TriedTiles = []int{0, 3}

func (temporal13Tuning) triedTiles() []int { return temporal13TriedTiles }

func (temporal13Tuning) configure(s lab.Step3, tile int, user map[string]string) (tuned, error) {
	p := temporal13Defaults
	p.K = tile
	p.file, p.entryName = s.CUDA.File, s.CUDA.Entry
	if err := temporal13Table.set(s.Name, &p, user); err != nil {
		return nil, err
	}
	if p.K > temporal13MaxK {
		return nil, fmt.Errorf("gpu: %s: k = T13_K = %d time steps per pass: at most %d", s.Name, p.K, temporal13MaxK)
	}
	if ox, oy := p.outputs(); ox < 1 || oy < 1 {
		return nil, fmt.Errorf("gpu: %s: a %d×%d tile leaves no output for k = %d: T13_BX and T13_BY must exceed %d",
			s.Name, p.BX, p.BY, p.K, 4*p.K)
	}
	if t := p.BX * p.BY; t%32 != 0 || t > 1024 {
		return nil, fmt.Errorf("gpu: %s: block %d×%d = %d threads: need whole warps and at most 1024", s.Name, p.BX, p.BY, t)
	}
	return &p, nil
}

// outputs returns the output points per row and the output rows of a
// block: the tile less 2k on each side.
func (p temporal13Params) outputs() (ox, oy int) {
	h := 2 * lab.Radius13 * p.K
	return p.BX - h, p.BY - h
}

func (p *temporal13Params) defines() []Define { return temporal13Table.defines(p) }

func (p *temporal13Params) sources() []string { return []string{p.file} }

func (p *temporal13Params) entry(int) string { return p.entryName }

// chunks: a chunk loads 2k planes below and 2k above its own.
func (p *temporal13Params) chunks() (open bool, halo int) { return p.CZ == 0, 2 * lab.Radius13 * p.K }

func (p *temporal13Params) check(int, Props) error { return nil }

func (p *temporal13Params) args(src, dst uint64, nz, ny, nx int, c coefs, g Geometry) *Args {
	return thirteenChunkArgs(src, dst, nz, ny, nx, c, g)
}

// geometry is temporal13's launch: one block per output tile and chunk of
// cz planes, three shared planes of the tile for each of the k levels
// below the last, dynamic.
func (tp *temporal13Params) geometry(nz, ny, nx, cz int) Geometry {
	p, r := *tp, lab.Radius13
	if p.CZ > 0 {
		cz = p.CZ
	}
	if cz <= 0 {
		cz = nz - 2*r
	}
	cz = max(min(cz, nz-2*r), 1)
	ox, oy := p.outputs()
	dyn := 4 * 3 * p.K * p.BX * p.BY
	return Geometry{Block: [3]int{p.BX, p.BY, 1},
		Grid:        [3]int{ceilDiv(nx-2*r, ox), ceilDiv(ny-2*r, oy), ceilDiv(nz-2*r, cz)},
		SharedBytes: dyn, DynamicShared: dyn, Planes: cz}
}

// describe writes temporal13's tile: k, then input points × rows × output
// planes per block.
func (p *temporal13Params) describe(_, cz int) string {
	return fmt.Sprintf("k%d:%dx%dx%d", p.K, p.BX, p.BY, cz)
}
