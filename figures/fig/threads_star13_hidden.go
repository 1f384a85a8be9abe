//go:build hidden

package fig

import (
	"fmt"

	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// The tiled thirteen-point kernel is the answer to exercise 06, so it is
// built only with the tag "hidden", which the students' release leaves
// out. Without it, the Star13 thread figure is drawn from the record of
// this kernel's launch committed in threads_star13.json.

func init() { star13Kernel = star13Tiled }

// star13Tiled is the shared-memory tiled kernel of the thirteen-point star
// on the simulator: blocks of IN_TILE_DIM³ threads each load one point of
// an input tile into shared memory; after the barrier the inner
// OUT_TILE_DIM³ = (IN_TILE_DIM−4)³ threads whose point is at least 2 from
// every face compute it from thirteen shared values.
func star13Tiled(in, out *sim.Global, n, T int, c [13]float32) (sim.Kernel, error) {
	const r = 2
	OUT := T - 2*r
	if OUT < 1 {
		return sim.Kernel{}, fmt.Errorf("star13: IN_TILE_DIM = %d leaves no output tile; it must be at least 5: %w", T, sim.ErrLimit)
	}
	if len(in.Data) != n*n*n || len(out.Data) != n*n*n {
		return sim.Kernel{}, fmt.Errorf("star13: grids of %d and %d values are not %d³: %w", len(in.Data), len(out.Data), n, sim.ErrLimit)
	}
	nb := (n-r-1)/OUT + 1 // the last interior point, n−r−1, has a block
	offs := lab.ThirteenPoint([13]float64{}).Offsets
	return sim.Kernel{
		Name:  Star13,
		Grid:  sim.Dim3{X: nb, Y: nb, Z: nb},
		Block: sim.Dim3{X: T, Y: T, Z: T},
		Body: func(t *sim.Thread) {
			tz, ty, tx := t.ThreadIdx.Z, t.ThreadIdx.Y, t.ThreadIdx.X
			i := t.BlockIdx.Z*OUT + tz - r
			j := t.BlockIdx.Y*OUT + ty - r
			k := t.BlockIdx.X*OUT + tx - r
			in_s := t.Shared3("in_s", T, T, T)
			if i >= 0 && i < n && j >= 0 && j < n && k >= 0 && k < n {
				in_s.Store(tz, ty, tx, t.Load(in, (i*n+j)*n+k))
			}
			t.Sync()
			if i >= r && i < n-r && j >= r && j < n-r && k >= r && k < n-r &&
				tz >= r && tz < T-r && ty >= r && ty < T-r && tx >= r && tx < T-r {
				var v float32
				for m, o := range offs {
					v += c[m] * in_s.Load(tz+o[0], ty+o[1], tx+o[2])
				}
				t.Store(out, (i*n+j)*n+k, v)
				t.Flops(25)
			}
		},
	}, nil
}
