package lab

import (
	"fmt"
	"math"
	"strings"

	"stencillab.dev/lab/sim"
)

// Float32Bytes is the size of one grid element in the chapter's kernels.
const Float32Bytes = 4

// BlockCost is what one thread block of a 3D seven-point kernel does, by
// the chapter's accounting: the outputs it computes, the floating-point
// operations, the input elements it loads from global memory, its threads
// and the shared memory it declares. Stores are not counted, as in the
// chapter's slides.
type BlockCost struct {
	Outputs     int // output points computed
	Ops         int // floating-point operations, 13 per output
	Loads       int // input elements loaded from global memory
	Threads     int // threads per block
	SharedBytes int // shared memory per block
}

// OpPerByte returns Ops over the bytes loaded (4 per element).
func (b BlockCost) OpPerByte() float64 {
	return float64(b.Ops) / float64(b.Loads*Float32Bytes)
}

// modelStep returns the registered step of the cost model with that name.
func modelStep(kernel string) (Step3, error) {
	st, err := LookupStep3(kernel)
	if err == nil && st.Cost == nil {
		err = fmt.Errorf("lab: %s is outside the chapter's cost model: %w (in it: %s)", st.Name, ErrUnknown, strings.Join(Names3(InModel), ", "))
	}
	if err != nil {
		return Step3{}, fmt.Errorf("lab: intensity of %q: %w", kernel, err)
	}
	return st, nil
}

// Cost returns the per-block cost of a kernel at tile T, far from the
// grid's edges (every output of the tile is interior): the outputs and
// loads the step's description gives (Step3.Cost, and Step3.Explain in
// words), 13 operations per output, and the threads and shared memory of
// its launch (Step3.Geometry). For a whole launch, whose blocks at the
// faces load less, see CostN.
func Cost(kernel string, T int) (BlockCost, error) {
	st, err := modelStep(kernel)
	if err != nil {
		return BlockCost{}, err
	}
	if T < max(st.MinTile, 3) {
		return BlockCost{}, fmt.Errorf("lab: intensity of %s at T = %d: the input tile needs T ≥ 3 to have an output", st.Name, T)
	}
	// A grid large enough that a block far from its faces exists.
	g := st.Geometry(3*T, 3*T, 3*T, Config{Tile: T})
	out, loads := st.Cost(T)
	return BlockCost{Outputs: out, Ops: Flops7 * out, Loads: loads, Threads: g.Block.Size(), SharedBytes: g.SharedBytes}, nil
}

// IntensityBasic is the basic kernel's arithmetic intensity: 13 operations
// over 7 loads of 4 bytes, 13/28 ≈ 0.46 OP/B.
func IntensityBasic() float64 { return float64(Flops7) / (7 * Float32Bytes) }

// IntensityTiled is the shared-memory tiled kernel's intensity at input
// tile T: 13(T−2)³ / (4T³) = 3.25·(1 − 2/T)³ OP/B; 1.37 at T = 8, 2.68 at
// T = 32.
func IntensityTiled(T float64) float64 {
	return float64(Flops7) / Float32Bytes * math.Pow(1-2/T, 3)
}

// IntensityLimit is the limit of IntensityTiled as T grows: 13/4 = 3.25.
const IntensityLimit = float64(Flops7) / Float32Bytes

// MaxTile returns the largest input tile T for which a kernel fits both
// limits, and which limit stops it there ("threads" or "shared memory").
func MaxTile(kernel string, lim sim.Limits) (T int, bound string, err error) {
	if _, err := Cost(kernel, 3); err != nil {
		return 0, "", err
	}
	// No block side exceeds sim.MaxThreadsPerBlock threads, so no tile
	// beyond it launches, however large lim: the search stops there.
	for t := 3; t < sim.MaxThreadsPerBlock; t++ {
		c, _ := Cost(kernel, t+1)
		switch {
		case c.Threads > lim.MaxThreads:
			return t, "threads", nil
		case c.SharedBytes > lim.MaxSharedBytes:
			return t, "shared memory", nil
		}
	}
	return sim.MaxThreadsPerBlock, "block dimensions", nil
}

// CheckTile returns an error naming the limit when a kernel at tile T
// exceeds lim, e.g. "block 11×11×11 = 1331 threads exceeds 1024".
func CheckTile(kernel string, T int, lim sim.Limits) error {
	c, err := Cost(kernel, T)
	if err != nil {
		return err
	}
	st, _ := modelStep(kernel)
	if c.Threads > lim.MaxThreads {
		shape := st.Geometry(3*T, 3*T, 3*T, Config{Tile: T}).Block.Shape()
		return fmt.Errorf("lab: %s: block %s = %d threads exceeds %d threads per block", st.Name, shape, c.Threads, lim.MaxThreads)
	}
	if c.SharedBytes > lim.MaxSharedBytes {
		return fmt.Errorf("lab: %s: tile %d needs %d bytes of shared memory per block, over the limit of %d", st.Name, T, c.SharedBytes, lim.MaxSharedBytes)
	}
	return nil
}

// GridCost is what a whole launch of a kernel does on an N×N×N grid, by the
// chapter's accounting, with the blocks at the grid's faces counted
// exactly: it is what the simulator counts (Stats) for the lab's kernels.
type GridCost struct {
	N, T            int   // grid side and tile (block edge for basic)
	Blocks          int   // blocks in the launch
	ThreadsPerBlock int   // threads of one block
	Outputs         int64 // interior points computed, (N−2)³
	Ops             int64 // 13 per output
	Loads           int64 // input elements loaded from global memory
	Stores          int64 // output elements stored, one per output
}

// OpPerByte returns Ops over the bytes loaded (4 per element), the
// chapter's definition of arithmetic intensity.
func (g GridCost) OpPerByte() float64 {
	return float64(g.Ops) / float64(g.Loads*Float32Bytes)
}

// CostN returns the cost of one launch of a kernel on an N×N×N grid with
// tile T, counting the loads every block really makes (Step3.LaunchLoads):
// CostGrid on a cube.
//
// Cost and IntensityTiled describe a block far from the grid's faces,
// which loads its whole T³ input tile for (T−2)³ outputs. The blocks at
// the faces differ, and on a grid of modest size there are many of them:
// at N = 128 and T = 8 the launch's intensity is 1.32 OP/B, not the
// slides' 1.37.
func CostN(kernel string, N, T int) (GridCost, error) { return CostGrid(kernel, N, N, N, T) }

// CostGrid returns the cost of one launch of a kernel on an nz×ny×nx grid
// with tile T, the blocks at the faces counted exactly: what the simulator
// counts (sim.Stats) for the lab's kernels. GridCost.N is nx.
func CostGrid(kernel string, nz, ny, nx, T int) (GridCost, error) {
	st, err := modelStep(kernel)
	if err != nil {
		return GridCost{}, err
	}
	if nz < 3 || ny < 3 || nx < 3 {
		return GridCost{}, fmt.Errorf("lab: intensity of %s on a %d×%d×%d grid: every side needs to be at least 3 to have an interior point: %w", st.Name, nz, ny, nx, ErrSize)
	}
	if T < st.MinTile {
		return GridCost{}, fmt.Errorf("lab: intensity of %s with %s %d: it must be at least %d", st.Name, st.TileName, T, st.MinTile)
	}
	in := interior(nz, ny, nx)
	geo := st.Geometry(nz, ny, nx, Config{Tile: T})
	return GridCost{N: nx, T: T, Blocks: geo.Grid.Size(), ThreadsPerBlock: geo.Block.Size(),
		Outputs: in, Ops: Flops7 * in, Loads: st.LaunchLoads(nz, ny, nx, T), Stores: in}, nil
}

// IntensityN is the arithmetic intensity of one launch of a kernel on an
// N×N×N grid with tile T, edge blocks included: CostN(kernel, N, T).
// OpPerByte(). It is the model that the simulator's measured OP/B is
// checked against.
func IntensityN(kernel string, N, T int) (float64, error) {
	g, err := CostN(kernel, N, T)
	if err != nil {
		return 0, err
	}
	return g.OpPerByte(), nil
}
