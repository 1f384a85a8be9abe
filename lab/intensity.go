package lab

import (
	"fmt"
	"math"
)

// Hardware limits that bound the tile size T of the chapter's kernels.
const (
	// MaxThreadsPerBlock is CUDA's limit on the threads of one block.
	MaxThreadsPerBlock = 1024
	// DefaultSharedPerBlock is the shared memory a block may use without
	// opting in to more: 48 KiB.
	DefaultSharedPerBlock = 48 * 1024
	// Float32Bytes is the size of one grid element in the chapter's kernels.
	Float32Bytes = 4
)

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

// Kernel names of the intensity model; they are the step names.
const (
	KernelBasic         = "basic"
	KernelTiled         = "tiled"
	KernelCoarsened     = "coarsened"
	KernelRegisterTiled = "register_tiled"
)

// Cost returns the per-block cost of a kernel at input tile dimension T,
// far from the grid's edges (every output of the tile is interior).
//
//   - basic, a T×T×T block: T³ outputs, each loading its 7 inputs.
//   - tiled (Fig. 8.8), a T×T×T block: loads the T³ input tile once and
//     computes the (T−2)³ output tile; T³ floats of shared memory.
//   - coarsened (Fig. 8.10), a T×T block marching over T−2 output planes:
//     loads T−2+2 = T planes of T² inputs, so T³ loads for (T−2)³ outputs,
//     as the tiled kernel, but with T² threads and 3·T² floats of shared
//     memory.
//   - register_tiled (Fig. 8.12): the same loads and outputs as coarsened,
//     with only the current plane, T² floats, in shared memory.
//
// For a whole launch on an N×N×N grid, whose blocks at the faces load
// less, see CostN.
func Cost(kernel string, T int) (BlockCost, error) {
	if T < 3 {
		return BlockCost{}, fmt.Errorf("lab: intensity of %s at T = %d: the input tile needs T ≥ 3 to have an output", kernel, T)
	}
	out := (T - 2) * (T - 2) * (T - 2)
	switch kernel {
	case KernelBasic:
		n := T * T * T
		return BlockCost{Outputs: n, Ops: Flops7 * n, Loads: 7 * n, Threads: n}, nil
	case KernelTiled:
		return BlockCost{Outputs: out, Ops: Flops7 * out, Loads: T * T * T, Threads: T * T * T,
			SharedBytes: T * T * T * Float32Bytes}, nil
	case KernelCoarsened:
		return BlockCost{Outputs: out, Ops: Flops7 * out, Loads: T * T * T, Threads: T * T,
			SharedBytes: 3 * T * T * Float32Bytes}, nil
	case KernelRegisterTiled:
		return BlockCost{Outputs: out, Ops: Flops7 * out, Loads: T * T * T, Threads: T * T,
			SharedBytes: T * T * Float32Bytes}, nil
	}
	return BlockCost{}, fmt.Errorf("lab: intensity of %q: %w (known: basic, tiled, coarsened, register_tiled)", kernel, ErrUnknown)
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

// Limits says which hardware limit first bounds T for a kernel.
type Limits struct {
	MaxThreads     int // threads per block allowed, e.g. 1024
	MaxSharedBytes int // shared memory per block allowed, e.g. 48 KiB
}

// DefaultLimits are CUDA's 1024 threads and 48 KiB of shared memory per block.
func DefaultLimits() Limits {
	return Limits{MaxThreads: MaxThreadsPerBlock, MaxSharedBytes: DefaultSharedPerBlock}
}

// MaxTile returns the largest input tile T for which a kernel fits both
// limits, and which limit stops it there ("threads" or "shared memory").
func MaxTile(kernel string, lim Limits) (T int, bound string, err error) {
	if _, err := Cost(kernel, 3); err != nil {
		return 0, "", err
	}
	for t := 3; ; t++ {
		c, _ := Cost(kernel, t+1)
		switch {
		case c.Threads > lim.MaxThreads:
			return t, "threads", nil
		case c.SharedBytes > lim.MaxSharedBytes:
			return t, "shared memory", nil
		}
	}
}

// CheckTile returns an error naming the limit when a kernel at tile T
// exceeds lim, e.g. "block 11×11×11 = 1331 threads exceeds 1024".
func CheckTile(kernel string, T int, lim Limits) error {
	c, err := Cost(kernel, T)
	if err != nil {
		return err
	}
	if c.Threads > lim.MaxThreads {
		shape := fmt.Sprintf("%d×%d×%d", T, T, T)
		if kernel == KernelCoarsened || kernel == KernelRegisterTiled {
			shape = fmt.Sprintf("%d×%d", T, T)
		}
		return fmt.Errorf("lab: %s: block %s = %d threads exceeds %d threads per block", kernel, shape, c.Threads, lim.MaxThreads)
	}
	if c.SharedBytes > lim.MaxSharedBytes {
		return fmt.Errorf("lab: %s: tile %d needs %d bytes of shared memory per block, over the limit of %d", kernel, T, c.SharedBytes, lim.MaxSharedBytes)
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
// tile T, counting the halo loads every block really makes.
//
// Cost and IntensityTiled describe a block far from the grid's faces,
// which loads its whole T³ input tile for (T−2)³ outputs. The blocks at
// the faces differ, and on a grid of modest size there are many of them:
// at N = 128 and T = 8 the launch's intensity is 1.32 OP/B, not the
// slides' 1.37. Counted exactly:
//
//   - basic: each interior point loads its 7 inputs; the ⌈N/T⌉³ blocks
//     include threads on boundary points, which load nothing. Loads are
//     7(N−2)³, the intensity exactly 13/28 whatever N.
//   - tiled, coarsened, register_tiled: nb = (N−2)/(T−2) + 1 blocks along
//     each axis (z too: a coarsened block marches through T−2 planes).
//     Block b spans the input points b(T−2)−1 … b(T−2)+T−2 of an axis and
//     loads those in the grid, 0 … N−1. Over the nb blocks of an axis that
//     is L = nb·T − 1 − max(0, nb(T−2) + 1 − N) points: the first tile
//     sticks out by one below 0, the last by nb(T−2)+1−N past N−1. The load
//     test is a product over the three axes, so Loads = L³. Outputs are
//     (N−2)³, so the intensity is 3.25·((N−2)/L)³, which tends to
//     IntensityTiled(T) as N grows.
func CostN(kernel string, N, T int) (GridCost, error) {
	if _, err := Cost(kernel, 3); err != nil {
		return GridCost{}, err
	}
	if N < 3 {
		return GridCost{}, fmt.Errorf("lab: intensity of %s on N = %d: the grid needs N ≥ 3 to have an interior point: %w", kernel, N, ErrSize)
	}
	interior := int64(N-2) * int64(N-2) * int64(N-2)
	g := GridCost{N: N, T: T, Outputs: interior, Ops: Flops7 * interior, Stores: interior}
	if kernel == KernelBasic {
		if T < 1 {
			return GridCost{}, fmt.Errorf("lab: intensity of basic with block edge %d: it must be at least 1", T)
		}
		nb := (N + T - 1) / T
		g.Blocks, g.ThreadsPerBlock = nb*nb*nb, T*T*T
		g.Loads = 7 * interior
		return g, nil
	}
	c, err := Cost(kernel, T)
	if err != nil {
		return GridCost{}, err
	}
	out := T - 2
	nb := (N-2)/out + 1
	L := int64(nb*T - 1 - max(0, nb*out+1-N))
	g.Blocks, g.ThreadsPerBlock = nb*nb*nb, c.Threads
	g.Loads = L * L * L
	return g, nil
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
