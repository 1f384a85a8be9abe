package gpu

import (
	"fmt"
	"strconv"
)

// This file is the fast step's tuning: its compile-time parameters, its
// launch for each grid, its two entry points and the planes each block
// marches through. The lab describes the step (lab/fast.go) but leaves
// these to the gpu backend, since they exist only on a GPU.

// tunedStep is the name of the step this file tunes.
const tunedStep = "fast"

// Modes of the fast kernel (FAST_MODE in cuda/fast.cu).
const (
	fastRegisters = 0 // y neighbours in registers, overlap through L1
	fastSharedY   = 1 // y neighbours through a double-buffered shared plane
	fastAsync     = 2 // a cp.async ring of shared-memory plane tiles
	fastBulk      = 3 // a ring of whole-row plane tiles moved by bulk copies
)

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fastParams are the fast kernel's compile-time parameters.
type fastParams struct {
	Mode, BY, RY, WX, Depth, L2PF, MinBlocks, Edge int
	PFD                                            int // planes between FAST_EDGE 5 or 6's touch of a sector and its stores
	CZ                                             int // planes per block; 0: chosen per grid
	Prefetch, Stream                               bool
}

// fastDefaults returns the fast kernel's default parameters for a mode;
// mode 3's, the default mode, were chosen by measurement on an H200
// (docs/gpu.md).
func fastDefaults(mode int) fastParams {
	switch mode {
	case fastRegisters, fastSharedY:
		return fastParams{Mode: mode, BY: 8, RY: 1, WX: 1, Depth: 1, MinBlocks: 1, Prefetch: true}
	case fastAsync:
		return fastParams{Mode: mode, BY: 8, RY: 1, WX: 1, Depth: 3, MinBlocks: 1, Prefetch: true}
	}
	return fastParams{Mode: fastBulk, BY: 4, RY: 1, WX: 8, Depth: 1, MinBlocks: 1, Edge: 5, Prefetch: true}
}

// defaultFast is the configuration of the registered fast step.
var defaultFast = fastDefaults(fastBulk)

// configureFast reads the fast kernel's defines from user (deleting those
// it takes) and fills in c.fast and c.defines.
func configureFast(c *config3, user map[string]string) error {
	f := defaultFast
	if m, ok := user["FAST_MODE"]; ok {
		v, err := strconv.Atoi(m)
		if err != nil || v < 0 || v > 3 {
			return fmt.Errorf("gpu: fast: FAST_MODE = %s must be an integer from 0 to 3", m)
		}
		f = fastDefaults(v)
	}
	f.CZ = c.tile
	ints := []struct {
		name     string
		dst      *int
		lo, hi   int
		isFlag   bool
		flagDest *bool
	}{
		{"FAST_MODE", &f.Mode, 0, 3, false, nil},
		{"FAST_BY", &f.BY, 1, 32, false, nil},
		{"FAST_RY", &f.RY, 1, 8, false, nil},
		{"FAST_WX", &f.WX, 1, 32, false, nil},
		{"FAST_DEPTH", &f.Depth, 1, 8, false, nil},
		{"FAST_L2PF", &f.L2PF, 0, 16, false, nil},
		{"FAST_MINB", &f.MinBlocks, 1, 32, false, nil},
		{"FAST_EDGE", &f.Edge, 0, 6, false, nil},
		{"FAST_PFD", &f.PFD, -4, 16, false, nil},
		{"FAST_PREFETCH", nil, 0, 1, true, &f.Prefetch},
		{"FAST_STREAM", nil, 0, 1, true, &f.Stream},
	}
	for _, p := range ints {
		s, ok := user[p.name]
		if !ok {
			continue
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < p.lo || v > p.hi {
			return fmt.Errorf("gpu: fast: %s = %s must be an integer from %d to %d", p.name, s, p.lo, p.hi)
		}
		if p.isFlag {
			*p.flagDest = v == 1
		} else {
			*p.dst = v
		}
		delete(user, p.name)
	}
	if f.Mode != fastRegisters && f.RY != 1 {
		return fmt.Errorf("gpu: fast: FAST_RY = %d applies to FAST_MODE=0 only (the other modes hold one row per thread)", f.RY)
	}
	if f.Mode != fastBulk && f.Edge != 0 {
		return fmt.Errorf("gpu: fast: FAST_EDGE = %d applies to FAST_MODE=3 only", f.Edge)
	}
	touch := f.Edge == 5 || f.Edge == 6
	if !touch && f.PFD != 0 {
		return fmt.Errorf("gpu: fast: FAST_PFD = %d applies to FAST_EDGE 5 and 6 only", f.PFD)
	}
	if f.Mode == fastSharedY && f.WX != 1 {
		return fmt.Errorf("gpu: fast: FAST_WX = %d does not apply to FAST_MODE=1 (a warp spans the block in x there)", f.WX)
	}
	c.fast = &f
	c.defines = append(c.defines,
		Define{"FAST_MODE", strconv.Itoa(f.Mode)},
		Define{"FAST_BY", strconv.Itoa(f.BY)},
		Define{"FAST_RY", strconv.Itoa(f.RY)},
		Define{"FAST_WX", strconv.Itoa(f.WX)},
		Define{"FAST_DEPTH", strconv.Itoa(f.Depth)},
		Define{"FAST_L2PF", strconv.Itoa(f.L2PF)},
		Define{"FAST_MINB", strconv.Itoa(f.MinBlocks)},
		Define{"FAST_EDGE", strconv.Itoa(f.Edge)},
		Define{"FAST_PREFETCH", strconv.Itoa(b2i(f.Prefetch))},
		Define{"FAST_STREAM", strconv.Itoa(b2i(f.Stream))},
	)
	if touch {
		c.defines = append(c.defines, Define{"FAST_PFD", strconv.Itoa(f.PFD)})
	}
	return nil
}

// fastGeometry is the fast kernel's launch on an nz×ny×nx grid with cz
// planes per block (when its configuration leaves them open).
func fastGeometry(c config3, nz, ny, nx, cz int) Geometry {
	f := *c.fast
	if f.CZ > 0 {
		cz = f.CZ
	}
	cz = max(cz, 1)
	v := vec(nx)
	wx, rows, shared := 1, f.BY*f.RY, 0
	switch {
	case f.Mode == fastSharedY:
		rows = f.BY
		shared = 4 * 2 * (f.BY + 2) * 32 * v
	case f.Mode == fastAsync && v == 4:
		wx, rows = f.WX, f.BY
		shared = 4 * (f.Depth + 3) * (f.BY + 2) * (128*f.WX + 8)
	case f.Mode == fastRegisters:
		wx = f.WX
	case f.Mode == fastBulk && v == 4:
		slot := (f.BY + 2) * nx
		switch f.Edge {
		case 3:
			slot += 8 * (f.BY + 1)
		case 4:
			slot += (2*f.BY + 3) / 4 * 4
		}
		dyn := 4 * (f.Depth + 3) * slot
		return Geometry{Block: [3]int{32 * f.WX, 1, 1},
			Grid:        [3]int{1, ceilDiv(ny-2, f.BY), ceilDiv(nz-2, cz)},
			SharedBytes: dyn + 8*(f.Depth+3), DynamicShared: dyn, Planes: cz}
	}
	return Geometry{Block: [3]int{32 * wx, f.BY, 1},
		Grid:        [3]int{ceilDiv(nx-1, 32*wx*v), ceilDiv(ny-2, rows), ceilDiv(nz-2, cz)},
		SharedBytes: shared, Planes: cz}
}

// fastTile describes the fast kernel's tile on rows of nx points with cz
// planes per block: points × rows × planes.
func fastTile(c config3, nx, cz int) string {
	g := c.geometry(3, 3, nx, cz)
	rows := c.fast.BY * c.fast.RY
	points := g.Block[0] * vec(nx)
	if c.fast.Mode == fastBulk && vec(nx) == 4 {
		points = nx
	}
	return fmt.Sprintf("%dx%dx%d", points, rows, g.Planes)
}

// fastEntry returns the fast kernel's entry for rows of nx points.
func fastEntry(nx int) string { return fmt.Sprintf("%s%d", tunedStep, vec(nx)) }

// vec returns the points per thread of the fast kernel for rows of nx
// points: 4 (float4) when nx is a multiple of 4, else 1.
func vec(nx int) int {
	if nx%4 == 0 {
		return 4
	}
	return 1
}

// minChunk is the fewest planes a fast block marches through when the
// planes are chosen per grid: below it the two halo planes of each chunk
// cost too much.
const minChunk = 8

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

// chooseChunkHalo is chooseChunk for a kernel whose chunks each cost halo
// planes beyond their own: 2 for a sweep, 2k for k time steps a pass.
func chooseChunkHalo(B, P, capacity, halo int) int {
	if P < 1 || B < 1 {
		return 1
	}
	capacity = max(capacity, 1)
	best, bestEff := P, -1.0
	for K := 1; K <= P; K++ {
		cz := ceilDiv(P, K)
		if cz < minChunk && K > 1 {
			break
		}
		k := ceilDiv(P, cz)
		waves := ceilDiv(B*k, capacity)
		eff := float64(B*P) / float64(waves*capacity*(cz+halo))
		if eff > bestEff+1e-9 {
			best, bestEff = cz, eff
		}
	}
	return best
}
