package gpu

import (
	"fmt"

	"stencillab.dev/lab"
)

// This file is the fast step's tuning: its parameter table, its sources
// for each mode, its launch for each grid, its two entry points and the
// planes each block marches through. The lab describes the step
// (lab/fast.go) but leaves these to the gpu backend, since they exist only
// on a GPU.

var _ = registerTuning(tunedStep, fastTuning{})

// tunedStep is the name of the step this file tunes.
const tunedStep = "fast"

// The modes of the fast kernel that the product keeps (FAST_MODE); modes 1
// and 2 lost to them and are experiments in the bench folder.
const (
	fastRegisters = 0 // y neighbours in registers, overlap through L1
	fastBulk      = 3 // a ring of whole-row plane tiles moved by bulk copies
)

// fastModes are the kept modes' files, after cuda/fast_common.cu.
var fastModes = map[int]string{fastRegisters: "fast_registers.cu", fastBulk: "fast_bulk.cu"}

// fastParams are the fast kernel's parameters.
type fastParams struct {
	Mode, BY, RY, WX, Depth, L2PF, MinBlocks int
	PFD                                      int // planes between the x-face sectors' touch and their stores
	CZ                                       int // planes per block; 0: chosen per grid
	Prefetch, Stream                         int // 0 or 1
}

// bulk and mode0 report whether p runs mode 3 or mode 0: the table's
// conditions.
func (p *fastParams) bulk() bool  { return p.Mode == fastBulk }
func (p *fastParams) mode0() bool { return p.Mode == fastRegisters }

// ring reports whether p runs rows of nx points through mode 3's ring of
// whole rows: float4 rows in mode 3 (other rows take mode 0's march).
func (p *fastParams) ring(nx int) bool { return p.bulk() && vec(nx) == 4 }

// fastTable is the fast step's parameter table: validation, defines (in
// this order) and help text. cuda/fast_common.cu and the mode's file give
// each an #ifndef default.
var fastTable = paramTable[fastParams]{
	{Param{Name: "FAST_MODE", Lo: 0, Hi: 3, Help: "0: planes in registers, y neighbours through L1 (fast_registers.cu); 3: a ring of whole-row tiles moved by bulk copies (fast_bulk.cu, the default)"},
		func(p *fastParams) *int { return &p.Mode }, nil},
	{Param{Name: "FAST_BY", Lo: 1, Hi: 32, Help: "rows of threads per block (mode 3: output rows per block)", Tried: []int{4, 2}},
		func(p *fastParams) *int { return &p.BY }, nil},
	{Param{Name: "FAST_RY", Lo: 1, Hi: 8, Help: "output rows per thread", Applies: "FAST_MODE=0"},
		func(p *fastParams) *int { return &p.RY }, (*fastParams).mode0},
	{Param{Name: "FAST_WX", Lo: 1, Hi: 32, Help: "warps across a row (mode 0) or per block (mode 3)", Tried: []int{8, 16}},
		func(p *fastParams) *int { return &p.WX }, nil},
	{Param{Name: "FAST_DEPTH", Lo: 1, Hi: 8, Help: "planes the ring's copies run ahead of the plane computed", Applies: "FAST_MODE=3"},
		func(p *fastParams) *int { return &p.Depth }, (*fastParams).bulk},
	{Param{Name: "FAST_L2PF", Lo: 0, Hi: 16, Help: "planes ahead that L2 is asked to fetch a thread's rows (0: none; the march in registers)"},
		func(p *fastParams) *int { return &p.L2PF }, nil},
	{Param{Name: "FAST_MINB", Lo: 1, Hi: 32, Help: "the fewest resident blocks per multiprocessor the compiler must allow (__launch_bounds__)"},
		func(p *fastParams) *int { return &p.MinBlocks }, nil},
	{Param{Name: "FAST_PREFETCH", Lo: 0, Hi: 1, Help: "1: the march in registers loads the plane after the next too"},
		func(p *fastParams) *int { return &p.Prefetch }, nil},
	{Param{Name: "FAST_STREAM", Lo: 0, Hi: 1, Help: "1: outputs are written with streaming (evict-first) stores"},
		func(p *fastParams) *int { return &p.Stream }, nil},
	{Param{Name: "FAST_PFD", Lo: -4, Hi: 16, Help: "planes before the plane's iteration (> 0) or after its stores (< 0) that the x-face sectors are touched in L2", Applies: "FAST_MODE=3"},
		func(p *fastParams) *int { return &p.PFD }, (*fastParams).bulk},
}

// fastDefaults returns the fast kernel's default parameters for a mode;
// mode 3's, the default mode, were chosen by measurement on an H200
// (docs/gpu.md).
func fastDefaults(mode int) fastParams {
	if mode == fastRegisters {
		return fastParams{Mode: mode, BY: 8, RY: 1, WX: 1, Depth: 1, MinBlocks: 1, Prefetch: 1}
	}
	return fastParams{Mode: fastBulk, BY: 4, RY: 1, WX: 8, Depth: 1, MinBlocks: 1, Prefetch: 1}
}

// fastTuning is the fast step's tuning.
type fastTuning struct{}

func (fastTuning) params() []Param { return fastTable.params() }

// fastTriedTiles are the planes per block the timed choice tries: the
// wave-filling chunk (0) and the chunks that won the sweeps of the H200
// at N = 1024 and 2048 (docs/gpu.md).
var fastTriedTiles = []int{0, 256, 64}

func (fastTuning) triedTiles() []int { return fastTriedTiles }

// configure starts from the defaults of the mode the user chose and reads
// the other defines over them.
func (fastTuning) configure(s lab.Step3, tile int, user map[string]string) (tuned, error) {
	if _, ok := user["FAST_CZ"]; ok {
		return nil, fmt.Errorf("gpu: %s: set FAST_CZ through the tile, not a define", s.Name)
	}
	var m fastParams
	if err := fastTable.set(s.Name, &m, map[string]string{"FAST_MODE": modeOr(user)}); err != nil {
		return nil, err
	}
	if _, kept := fastModes[m.Mode]; !kept {
		return nil, fmt.Errorf("gpu: %s: FAST_MODE = %d is not kept: the modes are 0 (planes in registers) and 3 (bulk-copy ring, the default); modes 1 and 2 lost to them and are experiments in bench/fast_variants.cu",
			s.Name, m.Mode)
	}
	f := fastDefaults(m.Mode)
	if err := fastTable.set(s.Name, &f, user); err != nil {
		return nil, err
	}
	if err := fastTable.check(s.Name, &f, user); err != nil {
		return nil, err
	}
	f.CZ = tile
	return &f, nil
}

// modeOr returns the user's FAST_MODE, or the default mode's.
func modeOr(user map[string]string) string {
	if m, ok := user["FAST_MODE"]; ok {
		return m
	}
	return fmt.Sprint(fastBulk)
}

func (p *fastParams) defines() []Define { return fastTable.defines(p) }

func (p *fastParams) sources() []string { return []string{"fast_common.cu", fastModes[p.Mode]} }

// entry returns the fast kernel's entry for rows of nx points: fast4 for
// float4 rows, fast1 for the others.
func (p *fastParams) entry(nx int) string { return fmt.Sprintf("%s%d", tunedStep, vec(nx)) }

func (p *fastParams) chunks() (open bool, halo int) { return p.CZ == 0, chunkHalo }

func (p *fastParams) args(src, dst uint64, nz, ny, nx int, c coefs, g Geometry) *Args {
	return chunkArgs(src, dst, nz, ny, nx, c, g)
}

// geometry is the fast kernel's launch on an nz×ny×nx grid with cz planes
// per block (when the configuration leaves them open).
func (p *fastParams) geometry(nz, ny, nx, cz int) Geometry {
	f := *p
	if f.CZ > 0 {
		cz = f.CZ
	}
	cz = max(cz, 1)
	v := vec(nx)
	if f.ring(nx) {
		dyn := 4 * (f.Depth + 3) * (f.BY + 2) * nx
		return Geometry{Block: [3]int{32 * f.WX, 1, 1},
			Grid:        [3]int{1, ceilDiv(ny-2, f.BY), ceilDiv(nz-2, cz)},
			SharedBytes: dyn + 8*(f.Depth+3), DynamicShared: dyn, Planes: cz}
	}
	// Mode 0's march, which mode 3 runs too on rows of any length, one warp
	// per row segment.
	wx := 1
	if f.Mode == fastRegisters {
		wx = f.WX
	}
	return Geometry{Block: [3]int{32 * wx, f.BY, 1},
		Grid:   [3]int{ceilDiv(nx-1, 32*wx*v), ceilDiv(ny-2, f.BY*f.RY), ceilDiv(nz-2, cz)},
		Planes: cz}
}

// check refuses float4 rows too long for mode 3's ring in the shared
// memory a block may have on a device with props pr.
func (p *fastParams) check(nx int, pr Props) error {
	if !p.ring(nx) {
		return nil
	}
	limit := max(pr.SharedPerBlock, pr.SharedPerBlockOptin)
	if g := p.geometry(3, 3, nx, 1); g.SharedBytes > limit {
		return fmt.Errorf("gpu: %s: rows of %d points need a ring of %d B of shared memory a block (FAST_DEPTH+3 = %d tiles of FAST_BY+2 = %d rows), over the %d B a block may have: run FAST_MODE=0, or lower FAST_BY or FAST_DEPTH",
			tunedStep, nx, g.SharedBytes, p.Depth+3, p.BY+2, limit)
	}
	return nil
}

// describe writes the fast kernel's tile on rows of nx points with cz
// planes per block: points × rows × planes.
func (p *fastParams) describe(nx, cz int) string {
	g := p.geometry(3, 3, nx, cz)
	points := g.Block[0] * vec(nx)
	if p.ring(nx) {
		points = nx
	}
	return fmt.Sprintf("%dx%dx%d", points, p.BY*p.RY, g.Planes)
}

// vec returns the points per thread of the fast kernel for rows of nx
// points: 4 (float4) when nx is a multiple of 4, else 1.
func vec(nx int) int {
	if nx%4 == 0 {
		return 4
	}
	return 1
}

// chunkHalo is what a chunk costs beyond its own planes, in planes: the
// two halo planes it loads before its first output.
const chunkHalo = 2

// chooseChunk returns the planes per block for fast on P interior planes
// when each chunk of planes needs B blocks and capacity blocks fit on the
// GPU at once. It maximises the useful share of the block slots: blocks
// run in waves, each as long as a chunk plus its halo, so B·K blocks in
// ceil(B·K/capacity) waves of cz+2 planes do B·P plane-steps of work.
// Among equals the longest chunk wins.
func chooseChunk(B, P, capacity int) int { return chooseChunkHalo(B, P, capacity, chunkHalo) }
