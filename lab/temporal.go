package lab

import (
	"fmt"

	"stencillab.dev/lab/sim"
)

// TemporalDefaultK is the default number of time steps one pass of the
// temporally blocked step advances (its tile, TB_K in cuda/temporal.cu).
const TemporalDefaultK = 4

// TemporalSimTile is the side of the simulated temporal kernel's input
// tile, T×T points with one thread each: it leaves (T−2k)² outputs per
// block, so k may be at most (T−1)/2; its shared memory, 2k planes of T²
// floats, fits the simulator's 48 KiB for k ≤ 10.
const TemporalSimTile = 24

// Temporal blocking: k time steps in one pass over the grid, beyond the
// chapter. Its tile is k; the GPU's tile shape and the planes each block
// covers are the gpu backend's tuning (TB_BX, TB_BY, TB_CZ).
var _ = mustRegister3(Step3{
	Step: Step{Name: "temporal", Aliases: []string{"temporal_blocking"}, Title: "Beyond the roofline: temporal blocking",
		Runs:     "k time steps of the seven-point stencil in one pass, a z-march through a k-stage pipeline of planes in shared memory",
		Notebook: "07b_past_the_roofline"},
	DefaultTile: TemporalDefaultK,
	MinTile:     1,
	TileName:    "time steps per pass k",
	Geometry:    temporalGeometry,
	Kernel:      TemporalKernel,
	CUDA:        CUDA{File: "temporal.cu", Entry: "temporal", TileDefine: "TB_K"},
	TimeSteps:   func(cfg Config) int { return cfg.Tile },
})

// temporalGeometry is the simulated temporal kernel's launch with k =
// cfg.Tile: TemporalSimTile² threads a block, one per point of the input
// tile, blocks along x and y for the (T−2k)² outputs each, one block
// marching through all planes, and 2k shared planes.
func temporalGeometry(nz, ny, nx int, cfg Config) Geometry {
	T, k := TemporalSimTile, cfg.Tile
	out := max(T-2*k, 1)
	return Geometry{Grid: sim.Dim3{X: ceilDiv(nx-2, out), Y: ceilDiv(ny-2, out), Z: 1},
		Block:       sim.Dim3{X: T, Y: T, Z: 1},
		SharedBytes: Float32Bytes * 2 * k * T * T, Planes: nz - 2}
}

// TemporalKernel is the temporally blocked step on the simulator: k =
// a.Tile time steps (default TemporalDefaultK) in one pass, as
// cuda/temporal.cu computes them, with one thread per point of a T×T input
// tile (T = TemporalSimTile) whose x neighbours also come from shared
// memory (the GPU kernel's threads own four points and shuffle).
//
// At iteration i a thread loads input plane i (time level 0) and stage s =
// 1 … k computes level s of plane i−s from level s−1: its centre and z−1
// neighbour in the thread's registers (ce, zm), its z+1 neighbour from the
// stage before in the same iteration, and its x and y neighbours from the
// shared plane of level s−1 written in the iteration before. Each level
// has two shared planes, used alternately, so one barrier per iteration
// suffices. A point on a face of the grid keeps its value at every level:
// the boundary stays fixed at every time step. The block's outputs are
// its tile less k points on each side, where level k is still valid. The
// CUDA kernel's marches (TB_V) differ from this one only in how many
// shared planes and register slots a level keeps and how far the march is
// unrolled, not in the values, loads and stores of each stage.
func TemporalKernel(a StencilArgs) (sim.Kernel, error) {
	k := a.tile(TemporalDefaultK)
	T := TemporalSimTile
	if k < 1 || T-2*k < 1 {
		return sim.Kernel{}, fmt.Errorf("temporal: k = %d time steps leave no output in a %d×%d tile: k must be from 1 to %d", k, T, T, (T-1)/2)
	}
	out := T - 2*k
	nz, ny, nx := a.NZ, a.NY, a.NX
	in, dst := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	g := temporalGeometry(nz, ny, nx, Config{Tile: k})
	return sim.Kernel{
		Name:  "temporal",
		Grid:  g.Grid,
		Block: g.Block,
		Body: func(t *sim.Thread) {
			tx, ty := t.ThreadIdx.X, t.ThreadIdx.Y
			x := 1 + t.BlockIdx.X*out - k + tx
			y := 1 + t.BlockIdx.Y*out - k + ty
			// S[buf·k + level][row][point]: levels 0 … k−1, two planes each.
			S := t.Shared3("S", 2*k, T, T)
			for l := range 2 * k {
				S.Store(l, ty, tx, 0)
			}
			t.Sync()
			inGrid := x >= 0 && x < nx && y >= 0 && y < ny
			xyInterior := x >= 1 && x <= nx-2 && y >= 1 && y <= ny-2
			inTile := tx >= 1 && tx <= T-2 && ty >= 1 && ty <= T-2
			isOutput := tx >= k && tx < k+out && ty >= k && ty < k+out && xyInterior
			zm := make([]float32, k) // level s at plane p−1 of stage s+1
			ce := make([]float32, k) // level s at plane p
			for i := 0; i <= nz-2+k; i++ {
				buf := i & 1
				var c float32 // level s−1 at plane p+1: the input first
				if i < nz && inGrid {
					c = t.Load(in, (i*ny+y)*nx+x)
				}
				S.Store(buf*k, ty, tx, c)
				for s := 1; s <= k; s++ {
					p := i - s
					prev := (buf^1)*k + s - 1
					r := ce[s-1]
					if p >= 1 && p <= nz-2 && xyInterior && inTile {
						r = c0*ce[s-1] +
							c1*S.Load(prev, ty, tx-1) + c2*S.Load(prev, ty, tx+1) +
							c3*S.Load(prev, ty-1, tx) + c4*S.Load(prev, ty+1, tx) +
							c5*zm[s-1] + c6*c
						t.Flops(Flops7)
					}
					zm[s-1], ce[s-1], c = ce[s-1], c, r
					if s < k {
						S.Store(buf*k+s, ty, tx, r)
					} else if isOutput && p >= 1 && p <= nz-2 {
						t.Store(dst, (p*ny+y)*nx+x, r)
					}
				}
				t.Sync()
			}
		},
	}, nil
}

// TemporalIntensity is the arithmetic intensity of the temporally blocked
// step for a block far from the grid's faces, with a T×T input tile (one
// thread per point, as TemporalKernel) and k time steps a pass: the block
// loads T² inputs per plane; every stage updates the (T−2)² points whose
// neighbours lie in the tile (performed), of which only (T−2s)² at stage s
// are still valid, and (T−2k)² per stage are the block's outputs (useful,
// k updates per output). Operations per byte loaded, as IntensityTiled:
//
//	performed = 13·k·(T−2)² / 4T²    useful = 13·k·(T−2k)² / 4T²
//
// performed grows without bound with k; useful peaks near k = T/6, where
// the halo of k points on each side eats the tile.
func TemporalIntensity(T, k int) (performed, useful float64) {
	if T < 3 || k < 1 || T-2*k < 1 {
		return 0, 0
	}
	t2 := float64(Float32Bytes * T * T)
	p := float64(T - 2)
	u := float64(T - 2*k)
	return float64(Flops7*k) * p * p / t2, float64(Flops7*k) * u * u / t2
}
