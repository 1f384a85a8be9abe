package fig

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/lab/sim"
)

// expectRoles computes, by walking the points of one plane of a block as
// the chapter's kernels index them, what each thread of it should do: the
// global loads and the outputs of a thread at (j, k) of a grid of side n.
// in reports whether a point lies in the grid, interior whether it is at
// least r from every face.
func expectRoles(spec threadSpec, blockDim sim.Dim3) (loads, outputs []int) {
	n := spec.n
	in := func(p int) bool { return p >= 0 && p < n }
	inside := func(p, r int) bool { return p >= r && p < n-r }
	m := blockDim.X * blockDim.Y
	loads, outputs = make([]int, m), make([]int, m)
	for ty := range blockDim.Y {
		for tx := range blockDim.X {
			t := ty*blockDim.X + tx
			switch spec.step {
			case "basic": // one thread per point, seven loads for an interior one
				T := spec.tile
				i := spec.blockIdx.Z*T + spec.plane
				j, k := spec.blockIdx.Y*T+ty, spec.blockIdx.X*T+tx
				if inside(i, 1) && inside(j, 1) && inside(k, 1) {
					loads[t], outputs[t] = 7, 1
				}
			case "tiled", Star13: // one load per point of the input tile, outputs inside
				r := 1
				if spec.step == Star13 {
					r = 2
				}
				T := spec.tile
				out := T - 2*r
				i := spec.blockIdx.Z*out + spec.plane - r
				j, k := spec.blockIdx.Y*out+ty-r, spec.blockIdx.X*out+tx-r
				if in(i) && in(j) && in(k) {
					loads[t] = 1
				}
				inTile := func(p int) bool { return p >= r && p < T-r }
				if inside(i, r) && inside(j, r) && inside(k, r) && inTile(spec.plane) && inTile(ty) && inTile(tx) {
					outputs[t] = 1
				}
			default: // coarsened and register tiled: a column of planes iStart−1 … iStart+out
				T := spec.tile
				out := T - 2
				iStart := spec.blockIdx.Z * out
				j, k := spec.blockIdx.Y*out+ty-1, spec.blockIdx.X*out+tx-1
				if !in(j) || !in(k) {
					continue
				}
				for i := iStart - 1; i <= iStart+out; i++ {
					if in(i) {
						loads[t]++
					}
				}
				if inside(j, 1) && inside(k, 1) && ty >= 1 && ty < T-1 && tx >= 1 && tx < T-1 {
					for i := iStart; i < iStart+out; i++ {
						if inside(i, 1) {
							outputs[t]++
						}
					}
				}
			}
		}
	}
	return loads, outputs
}

// TestTraceBlockMatchesIndexing checks every thread figure's trace against
// the kernels' indexing walked by hand, and that each shows all three
// roles (the basic kernel has no thread that only loads). In a build
// without the tag "hidden", Star13's trace is the committed record.
func TestTraceBlockMatchesIndexing(t *testing.T) {
	for _, spec := range threadSpecs {
		t.Run(spec.step, func(t *testing.T) {
			bt, err := spec.trace() // Star13 without its kernel: the committed record
			require.NoError(t, err)
			loads, outputs := expectRoles(spec, bt.Block)
			assert.Equal(t, loads, bt.Loads, "global loads per thread")
			assert.Equal(t, outputs, bt.Outputs, "outputs per thread")
			c, l, i := bt.Roles()
			assert.Positive(t, c, "threads computing")
			if spec.step != "basic" { // a basic thread loads only to compute
				assert.Positive(t, l, "threads only loading")
			}
			assert.Positive(t, i, "idle threads")
			assert.Equal(t, bt.Block.X*bt.Block.Y, c+l+i)
		})
	}
}

// TestTraceBlockRefusesBadArguments checks the errors of TraceBlock.
func TestTraceBlockRefusesBadArguments(t *testing.T) {
	for _, c := range []struct {
		step          string
		tile, n, z, p int
		want          string
	}{
		{"basic", 8, 2, 0, 0, "grid side 2"},
		{"basic", 8, MaxTraceN + 1, 0, 0, fmt.Sprintf("outside 3…%d", MaxTraceN)},
		{"nosuch", 8, 12, 0, 0, "no simulated kernel"},
		{"tiled", 8, 12, 5, 0, "outside the grid of blocks"},
		{"tiled", 8, 12, 0, 9, "outside the block's 8 planes"},
		{Star13, 4, 12, 0, 0, "at least 5"},
	} {
		_, err := TraceBlock(c.step, c.tile, c.n, sim.Dim3{Z: c.z}, c.p)
		require.Error(t, err, c.step)
		assert.Contains(t, err.Error(), c.want)
	}
}
