package lab

import "fmt"

// Broken kernels for teaching. Each is a seven-point kernel with one
// mistake taken from the chapter or from students' notes on it, written out
// in full so that it can be read next to the correct kernel. The simulator
// catches every one: by a result that differs from SevenPoint, by a hazard
// report, or by refusing the launch.

// Broken describes one broken kernel.
type Broken struct {
	Name   string        // e.g. "coarsened_loop_closes_early"
	From   string        // where the mistake comes from
	Bug    string        // what is wrong, in one sentence
	Caught string        // how the simulator shows it
	Kernel StencilKernel // the kernel, ready for Simulator.Run
}

// BrokenKernels returns the broken kernels in teaching order.
func BrokenKernels() []Broken {
	return []Broken{
		{Name: "tiled_no_interior_check", From: "study notes, day 21 (tiled kernel)",
			Bug:    "the tiled kernel tests only that the thread is inside the output tile, not that its point is interior to the grid",
			Caught: "threads at the grid's faces write boundary cells and read in_s elements no thread loaded (uninitialised reads); past the far faces they store outside the output",
			Kernel: BrokenTiledNoInteriorCheck},
		{Name: "tiled_no_barrier", From: "Fig. 8.8 with its __syncthreads() removed",
			Bug:    "threads read their neighbours' elements of in_s without waiting for them to be loaded",
			Caught: "race reports: reads of in_s elements written by another thread with no barrier between",
			Kernel: BrokenTiledNoBarrier},
		{Name: "coarsened_c3_c4_swapped", From: "Fig. 8.10 (and 8.12) against Fig. 8.6",
			Bug:    "c3 multiplies the j+1 neighbour and c4 the j−1 one, the opposite of the basic kernel",
			Caught: "a wrong result whenever c3 ≠ c4",
			Kernel: BrokenCoarsenedSwappedC3C4},
		{Name: "coarsened_loop_closes_early", From: "study notes, day 22 (thread coarsening)",
			Bug:    "the z loop closes right after loading inNext_s, so the block computes one plane, iStart, with the wrong next plane",
			Caught: "a wrong result: OUT_TILE_DIM−1 planes of every output tile are never written, and plane iStart uses plane iStart+OUT_TILE_DIM",
			Kernel: BrokenCoarsenedLoopClosesEarly},
		{Name: "register_tiled_no_second_barrier", From: "Fig. 8.12 with the __syncthreads() of line 33 removed",
			Bug:    "a thread overwrites its element of inCurr_s with the next plane while its neighbours may still read it",
			Caught: "race reports: writes of inCurr_s elements read by another thread, and reads of elements written by another thread, in the same barrier interval",
			Kernel: BrokenRegisterTiledNoSecondBarrier},
		{Name: "coarsened_block_34x34", From: "study notes, day 22 (run summary: tile 32×32, block 34×34)",
			Bug:    "taking OUT_TILE_DIM = 32 makes IN_TILE_DIM = 34 and blocks of 34×34 = 1156 threads",
			Caught: "the launch is refused: block 34×34 = 1156 threads exceeds 1024 threads per block",
			Kernel: BrokenCoarsenedBlock34},
	}
}

// BrokenTiledNoInteriorCheck is the tiled kernel of the day-21 study notes:
// Fig. 8.8 without the test that the thread's point (i, j, k) is interior
// to the grid (line 10). A thread of the inner output tile computes even
// when its point is a boundary cell or lies outside the grid, reading in_s
// elements that no thread loaded.
func BrokenTiledNoInteriorCheck(a StencilArgs) (Kernel, error) {
	IN_TILE_DIM := a.tile(TiledDefaultTile)
	if IN_TILE_DIM < 3 {
		return Kernel{}, fmt.Errorf("tiled_no_interior_check: IN_TILE_DIM = %d leaves no output tile; it must be at least 3", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	N := a.N
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	blocks := tiledBlocks(N, OUT_TILE_DIM)
	return Kernel{
		Name:  "tiled_no_interior_check",
		Grid:  Dim3{X: blocks, Y: blocks, Z: blocks},
		Block: Dim3{X: IN_TILE_DIM, Y: IN_TILE_DIM, Z: IN_TILE_DIM},
		Body: func(t *Thread) {
			tz, ty, tx := t.ThreadIdx.Z, t.ThreadIdx.Y, t.ThreadIdx.X
			i := t.BlockIdx.Z*OUT_TILE_DIM + tz - 1
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			in_s := t.Shared3("in_s", IN_TILE_DIM, IN_TILE_DIM, IN_TILE_DIM)
			if i >= 0 && i < N && j >= 0 && j < N && k >= 0 && k < N {
				in_s.Store(tz, ty, tx, t.Load(in, i*N*N+j*N+k))
			}
			t.Sync()
			// Missing: if i >= 1 && i < N-1 && j >= 1 && j < N-1 && k >= 1 && k < N-1.
			if tz >= 1 && tz < IN_TILE_DIM-1 && ty >= 1 && ty < IN_TILE_DIM-1 &&
				tx >= 1 && tx < IN_TILE_DIM-1 {
				t.Store(out, i*N*N+j*N+k, c0*in_s.Load(tz, ty, tx)+
					c1*in_s.Load(tz, ty, tx-1)+
					c2*in_s.Load(tz, ty, tx+1)+
					c3*in_s.Load(tz, ty-1, tx)+
					c4*in_s.Load(tz, ty+1, tx)+
					c5*in_s.Load(tz-1, ty, tx)+
					c6*in_s.Load(tz+1, ty, tx))
				t.Flops(Flops7)
			}
		},
	}, nil
}

// BrokenTiledNoBarrier is Fig. 8.8 with its __syncthreads() removed: a
// thread reads the elements of in_s that its neighbours load, whether they
// have loaded them yet or not.
func BrokenTiledNoBarrier(a StencilArgs) (Kernel, error) {
	IN_TILE_DIM := a.tile(TiledDefaultTile)
	if IN_TILE_DIM < 3 {
		return Kernel{}, fmt.Errorf("tiled_no_barrier: IN_TILE_DIM = %d leaves no output tile; it must be at least 3", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	N := a.N
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	blocks := tiledBlocks(N, OUT_TILE_DIM)
	return Kernel{
		Name:  "tiled_no_barrier",
		Grid:  Dim3{X: blocks, Y: blocks, Z: blocks},
		Block: Dim3{X: IN_TILE_DIM, Y: IN_TILE_DIM, Z: IN_TILE_DIM},
		Body: func(t *Thread) {
			tz, ty, tx := t.ThreadIdx.Z, t.ThreadIdx.Y, t.ThreadIdx.X
			i := t.BlockIdx.Z*OUT_TILE_DIM + tz - 1
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			in_s := t.Shared3("in_s", IN_TILE_DIM, IN_TILE_DIM, IN_TILE_DIM)
			if i >= 0 && i < N && j >= 0 && j < N && k >= 0 && k < N {
				in_s.Store(tz, ty, tx, t.Load(in, i*N*N+j*N+k))
			}
			// Missing: __syncthreads().
			if i >= 1 && i < N-1 && j >= 1 && j < N-1 && k >= 1 && k < N-1 {
				if tz >= 1 && tz < IN_TILE_DIM-1 && ty >= 1 && ty < IN_TILE_DIM-1 &&
					tx >= 1 && tx < IN_TILE_DIM-1 {
					t.Store(out, i*N*N+j*N+k, c0*in_s.Load(tz, ty, tx)+
						c1*in_s.Load(tz, ty, tx-1)+
						c2*in_s.Load(tz, ty, tx+1)+
						c3*in_s.Load(tz, ty-1, tx)+
						c4*in_s.Load(tz, ty+1, tx)+
						c5*in_s.Load(tz-1, ty, tx)+
						c6*in_s.Load(tz+1, ty, tx))
					t.Flops(Flops7)
				}
			}
		},
	}, nil
}

// BrokenCoarsenedSwappedC3C4 is CoarsenedKernel with the coefficients as
// Fig. 8.10 prints them: c3 multiplies inCurr_s[ty+1][tx], the j+1
// neighbour, and c4 the j−1 neighbour, while Fig. 8.6 and the lab's Coeffs
// give c3 to j−1 and c4 to j+1. With c3 = c4 nobody notices.
func BrokenCoarsenedSwappedC3C4(a StencilArgs) (Kernel, error) {
	IN_TILE_DIM := a.tile(CoarsenedDefaultTile)
	if IN_TILE_DIM < 3 {
		return Kernel{}, fmt.Errorf("coarsened_c3_c4_swapped: IN_TILE_DIM = %d leaves no output tile; it must be at least 3", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	N := a.N
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	blocks := tiledBlocks(N, OUT_TILE_DIM)
	return Kernel{
		Name:  "coarsened_c3_c4_swapped",
		Grid:  Dim3{X: blocks, Y: blocks, Z: blocks},
		Block: Dim3{X: IN_TILE_DIM, Y: IN_TILE_DIM, Z: 1},
		Body: func(t *Thread) {
			ty, tx := t.ThreadIdx.Y, t.ThreadIdx.X
			iStart := t.BlockIdx.Z * OUT_TILE_DIM
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			inPrev_s := t.Shared2("inPrev_s", IN_TILE_DIM, IN_TILE_DIM)
			inCurr_s := t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM)
			inNext_s := t.Shared2("inNext_s", IN_TILE_DIM, IN_TILE_DIM)
			if iStart-1 >= 0 && iStart-1 < N && j >= 0 && j < N && k >= 0 && k < N {
				inPrev_s.Store(ty, tx, t.Load(in, (iStart-1)*N*N+j*N+k))
			}
			if iStart >= 0 && iStart < N && j >= 0 && j < N && k >= 0 && k < N {
				inCurr_s.Store(ty, tx, t.Load(in, iStart*N*N+j*N+k))
			}
			for i := iStart; i < iStart+OUT_TILE_DIM; i++ {
				if i+1 >= 0 && i+1 < N && j >= 0 && j < N && k >= 0 && k < N {
					inNext_s.Store(ty, tx, t.Load(in, (i+1)*N*N+j*N+k))
				}
				t.Sync()
				if i >= 1 && i < N-1 && j >= 1 && j < N-1 && k >= 1 && k < N-1 {
					if ty >= 1 && ty < IN_TILE_DIM-1 && tx >= 1 && tx < IN_TILE_DIM-1 {
						t.Store(out, i*N*N+j*N+k, c0*inCurr_s.Load(ty, tx)+
							c1*inCurr_s.Load(ty, tx-1)+
							c2*inCurr_s.Load(ty, tx+1)+
							c3*inCurr_s.Load(ty+1, tx)+ // Fig. 8.10: c3 on j+1
							c4*inCurr_s.Load(ty-1, tx)+ // and c4 on j−1
							c5*inPrev_s.Load(ty, tx)+
							c6*inNext_s.Load(ty, tx))
						t.Flops(Flops7)
					}
				}
				t.Sync()
				if j >= 0 && j < N && k >= 0 && k < N {
					inPrev_s.Store(ty, tx, inCurr_s.Load(ty, tx))
					inCurr_s.Store(ty, tx, inNext_s.Load(ty, tx))
				}
			}
		},
	}, nil
}

// BrokenCoarsenedLoopClosesEarly is the coarsened kernel of the day-22
// study notes: the z loop closes right after loading inNext_s, before the
// barrier and the computation, so each block loads all its planes into the
// same inNext_s and then computes the single plane iStart, with the last
// plane loaded standing in for plane iStart+1. The rest of the kernel is
// CoarsenedKernel's, with the lab's coefficient mapping.
func BrokenCoarsenedLoopClosesEarly(a StencilArgs) (Kernel, error) {
	IN_TILE_DIM := a.tile(CoarsenedDefaultTile)
	if IN_TILE_DIM < 3 {
		return Kernel{}, fmt.Errorf("coarsened_loop_closes_early: IN_TILE_DIM = %d leaves no output tile; it must be at least 3", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	N := a.N
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	blocks := tiledBlocks(N, OUT_TILE_DIM)
	return Kernel{
		Name:  "coarsened_loop_closes_early",
		Grid:  Dim3{X: blocks, Y: blocks, Z: blocks},
		Block: Dim3{X: IN_TILE_DIM, Y: IN_TILE_DIM, Z: 1},
		Body: func(t *Thread) {
			ty, tx := t.ThreadIdx.Y, t.ThreadIdx.X
			iStart := t.BlockIdx.Z * OUT_TILE_DIM
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			inPrev_s := t.Shared2("inPrev_s", IN_TILE_DIM, IN_TILE_DIM)
			inCurr_s := t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM)
			inNext_s := t.Shared2("inNext_s", IN_TILE_DIM, IN_TILE_DIM)
			if iStart-1 >= 0 && iStart-1 < N && j >= 0 && j < N && k >= 0 && k < N {
				inPrev_s.Store(ty, tx, t.Load(in, (iStart-1)*N*N+j*N+k))
			}
			if iStart >= 0 && iStart < N && j >= 0 && j < N && k >= 0 && k < N {
				inCurr_s.Store(ty, tx, t.Load(in, iStart*N*N+j*N+k))
			}
			for i := iStart; i < iStart+OUT_TILE_DIM; i++ {
				if i+1 >= 0 && i+1 < N && j >= 0 && j < N && k >= 0 && k < N {
					inNext_s.Store(ty, tx, t.Load(in, (i+1)*N*N+j*N+k))
				}
			} // the loop closes here, too early
			t.Sync()
			if iStart >= 1 && iStart < N-1 && j >= 1 && j < N-1 && k >= 1 && k < N-1 {
				if ty >= 1 && ty < IN_TILE_DIM-1 && tx >= 1 && tx < IN_TILE_DIM-1 {
					t.Store(out, iStart*N*N+j*N+k, c0*inCurr_s.Load(ty, tx)+
						c1*inCurr_s.Load(ty, tx-1)+
						c2*inCurr_s.Load(ty, tx+1)+
						c3*inCurr_s.Load(ty-1, tx)+
						c4*inCurr_s.Load(ty+1, tx)+
						c5*inPrev_s.Load(ty, tx)+
						c6*inNext_s.Load(ty, tx))
					t.Flops(Flops7)
				}
			}
			t.Sync()
			if j >= 0 && j < N && k >= 0 && k < N {
				inPrev_s.Store(ty, tx, inCurr_s.Load(ty, tx))
				inCurr_s.Store(ty, tx, inNext_s.Load(ty, tx))
			}
		},
	}, nil
}

// BrokenRegisterTiledNoSecondBarrier is RegisterTiledKernel without the
// __syncthreads() that ends each iteration (line 33 of Fig. 8.12): a thread
// overwrites its element of inCurr_s with the next plane while its
// neighbours in x and y may still be reading the current one.
func BrokenRegisterTiledNoSecondBarrier(a StencilArgs) (Kernel, error) {
	IN_TILE_DIM := a.tile(CoarsenedDefaultTile)
	if IN_TILE_DIM < 3 {
		return Kernel{}, fmt.Errorf("register_tiled_no_second_barrier: IN_TILE_DIM = %d leaves no output tile; it must be at least 3", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	N := a.N
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	blocks := tiledBlocks(N, OUT_TILE_DIM)
	return Kernel{
		Name:  "register_tiled_no_second_barrier",
		Grid:  Dim3{X: blocks, Y: blocks, Z: blocks},
		Block: Dim3{X: IN_TILE_DIM, Y: IN_TILE_DIM, Z: 1},
		Body: func(t *Thread) {
			ty, tx := t.ThreadIdx.Y, t.ThreadIdx.X
			iStart := t.BlockIdx.Z * OUT_TILE_DIM
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			var inPrev float32
			inCurr_s := t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM)
			var inCurr float32
			var inNext float32
			if iStart-1 >= 0 && iStart-1 < N && j >= 0 && j < N && k >= 0 && k < N {
				inPrev = t.Load(in, (iStart-1)*N*N+j*N+k)
			}
			if iStart >= 0 && iStart < N && j >= 0 && j < N && k >= 0 && k < N {
				inCurr = t.Load(in, iStart*N*N+j*N+k)
				inCurr_s.Store(ty, tx, inCurr)
			}
			for i := iStart; i < iStart+OUT_TILE_DIM; i++ {
				if i+1 >= 0 && i+1 < N && j >= 0 && j < N && k >= 0 && k < N {
					inNext = t.Load(in, (i+1)*N*N+j*N+k)
				}
				t.Sync()
				if i >= 1 && i < N-1 && j >= 1 && j < N-1 && k >= 1 && k < N-1 {
					if ty >= 1 && ty < IN_TILE_DIM-1 && tx >= 1 && tx < IN_TILE_DIM-1 {
						t.Store(out, i*N*N+j*N+k, c0*inCurr+
							c1*inCurr_s.Load(ty, tx-1)+
							c2*inCurr_s.Load(ty, tx+1)+
							c3*inCurr_s.Load(ty-1, tx)+
							c4*inCurr_s.Load(ty+1, tx)+
							c5*inPrev+
							c6*inNext)
						t.Flops(Flops7)
					}
				}
				// Missing: __syncthreads().
				inPrev = inCurr
				inCurr = inNext
				inCurr_s.Store(ty, tx, inNext)
			}
		},
	}, nil
}

// BrokenCoarsenedBlock34 is the launch of the day-22 study notes:
// CoarsenedKernel with OUT_TILE_DIM = 32, so IN_TILE_DIM = 34 whatever the
// simulator's Tile, and blocks of 34×34 = 1156 threads, more than the 1024
// a block may have. The launch is refused.
func BrokenCoarsenedBlock34(a StencilArgs) (Kernel, error) {
	a.Tile = 34
	k, err := CoarsenedKernel(a)
	k.Name = "coarsened_block_34x34"
	return k, err
}
