package gpu

import (
	"fmt"
	"strconv"
)

// This file is the temporally blocked step's tuning on a GPU: its tile
// shape, the planes each block covers and its launch for each grid. The lab
// describes the step (lab/temporal.go), whose tile is k, the time steps of
// one pass (TB_K); the simulated kernel's tile is the lab's.

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
}

// temporalDefaults is the default tile of the temporal kernel: 64×32
// input points, 512 threads, (64−2·hx)×(32−2k) outputs. MinBlocks is set
// per k by temporalMinBlocks.
var temporalDefaults = temporalParams{BX: 64, BY: 32}

// temporalMinBlocks is the default TB_MINB for k time steps a pass: two
// resident blocks of 512 threads (at most 64 registers each) for k ≤ 4,
// which measured fastest on an H100 at k = 4 (docs/gpu.md); one above,
// where the 8k registers each thread holds across the march would spill.
func temporalMinBlocks(k int) int {
	if k <= 4 {
		return 2
	}
	return 1
}

// halo returns the x halo, k rounded up to whole float4s.
func (p temporalParams) halo() int { return (p.K + 3) / 4 * 4 }

// outputs returns the output points per row and the output rows of a block.
func (p temporalParams) outputs() (ox, oy int) { return p.BX - 2*p.halo(), p.BY - 2*p.K }

// configureTemporal reads the temporal kernel's defines from user
// (deleting those it takes) and fills in c.temporal and c.defines.
func configureTemporal(c *config3, user map[string]string) error {
	p := temporalDefaults
	p.K = c.tile
	p.MinBlocks = temporalMinBlocks(p.K)
	for _, d := range []struct {
		name   string
		dst    *int
		lo, hi int
	}{
		{"TB_BX", &p.BX, 4, 128},
		{"TB_BY", &p.BY, 1, 1024},
		{"TB_L2PF", &p.L2PF, 0, 16},
		{"TB_MINB", &p.MinBlocks, 1, 32},
		{"TB_STREAM", &p.Stream, 0, 1},
		{"TB_CZ", &p.CZ, 0, 1 << 16},
	} {
		s, ok := user[d.name]
		if !ok {
			continue
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < d.lo || v > d.hi {
			return fmt.Errorf("gpu: temporal: %s = %s must be an integer from %d to %d", d.name, s, d.lo, d.hi)
		}
		*d.dst = v
		delete(user, d.name)
	}
	if p.K > 16 {
		return fmt.Errorf("gpu: temporal: k = TB_K = %d time steps per pass: at most 16 (each step holds 8 registers per thread)", p.K)
	}
	tx := p.BX / 4
	if p.BX%4 != 0 || 32%tx != 0 {
		return fmt.Errorf("gpu: temporal: TB_BX = %d must be 4, 8, 16, 32, 64 or 128 (4 points a thread, a row inside one warp)", p.BX)
	}
	ox, oy := p.outputs()
	if ox < 4 || oy < 1 {
		return fmt.Errorf("gpu: temporal: a %d×%d tile leaves no output for k = %d: TB_BX must exceed %d and TB_BY %d",
			p.BX, p.BY, p.K, 2*p.halo()+3, 2*p.K)
	}
	if t := tx * p.BY; t%32 != 0 || t > 1024 {
		return fmt.Errorf("gpu: temporal: block %d×%d = %d threads: need whole warps and at most 1024", tx, p.BY, t)
	}
	c.temporal = &p
	c.defines = append(c.defines,
		Define{"TB_BX", strconv.Itoa(p.BX)},
		Define{"TB_BY", strconv.Itoa(p.BY)},
		Define{"TB_L2PF", strconv.Itoa(p.L2PF)},
		Define{"TB_MINB", strconv.Itoa(p.MinBlocks)},
		Define{"TB_STREAM", strconv.Itoa(p.Stream)},
	)
	return nil
}

// temporalGeometry is the temporal kernel's launch on an nz×ny×nx grid
// with cz output planes per block (when its configuration leaves them
// open): blocks of TB_BX/4 × TB_BY threads, one per output tile and chunk
// of planes, and 2k shared planes of the tile, dynamic.
func temporalGeometry(c config3, nz, ny, nx, cz int) Geometry {
	p := *c.temporal
	if p.CZ > 0 {
		cz = p.CZ
	}
	if cz <= 0 {
		cz = nz - 2 // one chunk: the whole column of planes
	}
	cz = max(min(cz, nz-2), 1)
	ox, oy := p.outputs()
	dyn := 4 * 2 * p.K * p.BX * p.BY
	return Geometry{Block: [3]int{p.BX / 4, p.BY, 1},
		Grid:        [3]int{ceilDiv(nx-1, ox), ceilDiv(ny-2, oy), ceilDiv(nz-2, cz)},
		SharedBytes: dyn, DynamicShared: dyn, Planes: cz}
}

// temporalTile describes the temporal kernel's tile: k, then input points
// × rows × output planes per block.
func temporalTile(c config3, cz int) string {
	p := c.temporal
	return fmt.Sprintf("k%d:%dx%dx%d", p.K, p.BX, p.BY, cz)
}
