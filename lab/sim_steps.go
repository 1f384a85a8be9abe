package lab

import "fmt"

// StencilArgs are the arguments of one of the chapter's seven-point
// kernels: the input and output grids in global memory, the side N of the
// cube, the coefficients and the tile.
type StencilArgs struct {
	In, Out *Global // in and out of the CUDA kernel, N³ elements each
	N       int     // side of the cube
	C       Coeffs  // c0…c6 in the lab's mapping
	Tile    int     // IN_TILE_DIM (the block edge for the basic kernel); 0 takes the kernel's default
}

// tile returns a.Tile, or def when it is 0.
func (a StencilArgs) tile(def int) int {
	if a.Tile == 0 {
		return def
	}
	return a.Tile
}

// coeffs returns the coefficients as float32, the type of the kernels'
// arithmetic.
func (a StencilArgs) coeffs() (c0, c1, c2, c3, c4, c5, c6 float32) {
	c := a.C
	return float32(c[0]), float32(c[1]), float32(c[2]), float32(c[3]), float32(c[4]), float32(c[5]), float32(c[6])
}

// StencilKernel prepares one launch of a seven-point kernel. Like the host
// code around a CUDA kernel, it picks the grid and block dimensions for N
// and the tile, and binds the arguments into the thread code. A tile that
// leaves no output (T < 3 for the tiled kernels) is an error; one that is
// too large for the device is left for the launch to reject.
type StencilKernel func(a StencilArgs) (Kernel, error)

// Run runs a seven-point kernel on the simulator: dst gets the interior
// points of the sweep of src, its boundary points are left as they were.
// dst and src must be the same N×N×N cube (the chapter's kernels take one
// side N), N ≥ 3, and must not alias. The Stats of the launch are kept for
// Last.
func (s *Simulator) Run(k StencilKernel, dst, src *Grid3[float32], c Coeffs) error {
	if err := CheckSweep(dst, src); err != nil {
		return fmt.Errorf("lab: sim: %w", err)
	}
	if !src.IsCube() {
		return fmt.Errorf("lab: sim: grid %d×%d×%d is not a cube; the chapter's kernels take one side N: %w",
			src.NZ, src.NY, src.NX, ErrSize)
	}
	kern, err := s.prepare(k, dst.Data, src.Data, src.NX, c)
	if err != nil {
		s.mu.Lock()
		s.last = Stats{}
		s.mu.Unlock()
		return err
	}
	_, err = s.Launch(kern)
	return err
}

// prepare binds the arguments of k, with the simulator's tile, into one
// launch on an N×N×N cube.
func (s *Simulator) prepare(k StencilKernel, out, in []float32, N int, c Coeffs) (Kernel, error) {
	if k == nil {
		return Kernel{}, fmt.Errorf("lab: sim: nil kernel: %w", ErrLimit)
	}
	kern, err := k(StencilArgs{
		In:   &Global{Name: "in", Data: in},
		Out:  &Global{Name: "out", Data: out},
		N:    N,
		C:    c,
		Tile: s.Tile,
	})
	if err != nil {
		return Kernel{}, fmt.Errorf("lab: sim: %w", err)
	}
	return kern, nil
}

// Sweep returns k as a SweepFunc that runs on s.
func (s *Simulator) Sweep(k StencilKernel) SweepFunc {
	return func(dst, src *Grid3[float32], c Coeffs) error { return s.Run(k, dst, src, c) }
}

// Check prepares k for a small grid and validates its launch configuration
// against the limits, so that an impossible tile is refused before any
// grid is allocated.
func (s *Simulator) Check(k StencilKernel) error {
	const n = 3
	buf := make([]float32, n*n*n)
	kern, err := s.prepare(k, buf, buf, n, DistinctCoeffs())
	if err != nil {
		return err
	}
	return s.Validate(kern)
}

// Basic is the basic kernel (Fig. 8.6) on the simulator, a SweepFunc.
func (s *Simulator) Basic(dst, src *Grid3[float32], c Coeffs) error {
	return s.Run(BasicKernel, dst, src, c)
}

// Tiled is the shared-memory tiled kernel (Fig. 8.8) on the simulator.
func (s *Simulator) Tiled(dst, src *Grid3[float32], c Coeffs) error {
	return s.Run(TiledKernel, dst, src, c)
}

// Coarsened is the kernel coarsened in z (Fig. 8.10) on the simulator.
func (s *Simulator) Coarsened(dst, src *Grid3[float32], c Coeffs) error {
	return s.Run(CoarsenedKernel, dst, src, c)
}

// RegisterTiled is the register-tiled kernel (Fig. 8.12) on the simulator.
func (s *Simulator) RegisterTiled(dst, src *Grid3[float32], c Coeffs) error {
	return s.Run(RegisterTiledKernel, dst, src, c)
}

// simKernels maps the step names to their simulated kernels.
var simKernels = map[string]StencilKernel{
	KernelBasic:         BasicKernel,
	KernelTiled:         TiledKernel,
	KernelCoarsened:     CoarsenedKernel,
	KernelRegisterTiled: RegisterTiledKernel,
}

// SimKernel returns the simulated kernel of a step: basic, tiled,
// coarsened or register_tiled ("register" is accepted).
func SimKernel(step string) (StencilKernel, error) {
	s, err := LookupStep(step)
	if err != nil {
		return nil, err
	}
	k, ok := simKernels[s.Name]
	if !ok {
		return nil, fmt.Errorf("lab: step %q has no simulated kernel: %w (simulated: basic, tiled, coarsened, register_tiled)", s.Name, ErrUnknown)
	}
	return k, nil
}

func init() {
	for name, k := range simKernels {
		Register(name, Sim, func(cfg Config) (SweepFunc, error) {
			s := NewSimulator(cfg)
			if err := s.Check(k); err != nil {
				return nil, err
			}
			return s.Sweep(k), nil
		})
	}
}
