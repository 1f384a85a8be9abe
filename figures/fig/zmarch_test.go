package fig

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// TestZMarchFollowsTheSimulator traces one block of each z-marching kernel
// with IN_TILE_DIM = zIn and checks the frames against the record: in
// iteration it the block has loaded the planes up to the one the frame
// calls inNext (iStart+it+1) and stores the plane it marks as the output
// (iStart+it), and the shared arrays it uses are those the frame names.
func TestZMarchFollowsTheSimulator(t *testing.T) {
	const n = 3*(zIn-2) + 2 // three blocks along each axis
	blockIdx := sim.Dim3{X: 1, Y: 1, Z: 1}
	iStart := blockIdx.Z * zOut
	for k, step := range []string{"coarsened", "register_tiled"} {
		kern, _, err := lab.LookupKernel(step)
		require.NoError(t, err)
		src, err := lab.NewCube[float32](n)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(3, uint64(k)))
		for i := range src.Data {
			src.Data[i] = rng.Float32()
		}
		dst, _ := lab.NewCube[float32](n)
		rec := &sim.Recorder{Block: blockIdx}
		_, err = lab.Simulate(&sim.Simulator{Trace: rec.Trace}, kern, lab.Config{Tile: zIn}, dst, src, lab.DistinctCoeffs())
		require.NoError(t, err, step)
		require.NoError(t, rec.Err())
		loadedTop := map[int]int{} // interval → highest plane loaded up to it
		stored := map[int][]int{}  // interval → planes stored
		var shared []string
		top := -1
		acc := rec.Accesses()
		for _, a := range acc {
			switch a.Kind {
			case sim.GlobalLoad:
				top = max(top, a.Index/(n*n))
			case sim.GlobalStore:
				if p := a.Index / (n * n); !slices.Contains(stored[a.Interval], p) {
					stored[a.Interval] = append(stored[a.Interval], p)
				}
			case sim.SharedStore:
				if !slices.Contains(shared, a.Array) {
					shared = append(shared, a.Array)
				}
			}
			loadedTop[a.Interval] = top
		}
		for it := range ZMarchFrames {
			// The frame's inNext is the input plane after the output plane.
			next := -1
			for off, h := range zKernels[k].hold {
				if h.shared == "inNext_s" || h.reg == "inNext" {
					next = iStart + it + off
				}
			}
			// Iteration it loads inNext in interval 2·it and stores in 2·it+1.
			assert.Equal(t, next, loadedTop[2*it], "%s iteration %d: highest plane loaded", step, it+1)
			assert.Equal(t, []int{iStart + it}, stored[2*it+1], "%s iteration %d: plane stored", step, it+1)
		}
		var want []string
		for _, h := range zKernels[k].hold {
			if h.shared != "" && !slices.Contains(want, h.shared) {
				want = append(want, h.shared)
			}
		}
		slices.Sort(want)
		slices.Sort(shared)
		assert.Equal(t, want, shared, "%s: shared arrays", step)
	}
	_, err := ZMarch(ZMarchFrames)
	assert.ErrorIs(t, err, ErrRender)
	_, err = ZMarch(-1)
	assert.ErrorIs(t, err, ErrRender)
}

// TestZMarchFramesText checks, for every frame at its size, that each text
// lies inside the canvas and that no two texts overlap.
func TestZMarchFramesText(t *testing.T) {
	const slack = 0.5 // points
	for it := range ZMarchFrames {
		d, err := ZMarch(it)
		require.NoError(t, err)
		boxes := d.TextBoxes(Wide, ZMarchHeight)
		for i, b := range boxes {
			assert.True(t, b.Box.Min.X >= -slack && b.Box.Min.Y >= -slack && b.Box.Max.X <= Wide+slack && b.Box.Max.Y <= ZMarchHeight+slack,
				"frame %d: text %q at %v leaves the canvas", it, b.Text, b.Box)
			for _, o := range boxes[i+1:] {
				overlap := b.Box.Min.X < o.Box.Max.X-slack && o.Box.Min.X < b.Box.Max.X-slack &&
					b.Box.Min.Y < o.Box.Max.Y-slack && o.Box.Min.Y < b.Box.Max.Y-slack
				assert.False(t, overlap, "frame %d: texts %q and %q overlap", it, b.Text, o.Text)
			}
		}
	}
}
