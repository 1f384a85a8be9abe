package checks

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// divergentSites are the file and lines of the two barriers of
// divergentTiled, as a report names them.
var divergentSites struct {
	file          string
	first, second int
}

// divergentTiled is the tiled kernel of Fig. 8.8 as a student might write
// it: the barrier is called in both branches of an if, which CUDA leaves
// undefined (each __syncthreads is a barrier of its own).
func divergentTiled(a lab.StencilArgs) (sim.Kernel, error) {
	T := a.Tile
	if T == 0 {
		T = lab.TiledDefaultTile
	}
	if T < 3 {
		return sim.Kernel{}, fmt.Errorf("IN_TILE_DIM = %d leaves no output tile", T)
	}
	out := T - 2
	nz, ny, nx := a.NZ, a.NY, a.NX
	var c [7]float32
	for q := range c {
		c[q] = float32(a.C[q])
	}
	blocks := func(n int) int { return (n-2)/out + 1 }
	return sim.Kernel{
		Name:  "tiled",
		Grid:  sim.Dim3{X: blocks(nx), Y: blocks(ny), Z: blocks(nz)},
		Block: sim.Dim3{X: T, Y: T, Z: T},
		Body: func(t *sim.Thread) {
			tz, ty, tx := t.ThreadIdx.Z, t.ThreadIdx.Y, t.ThreadIdx.X
			i := t.BlockIdx.Z*out + tz - 1
			j := t.BlockIdx.Y*out + ty - 1
			k := t.BlockIdx.X*out + tx - 1
			in_s := t.Shared3("in_s", T, T, T)
			if i >= 0 && i < nz && j >= 0 && j < ny && k >= 0 && k < nx {
				in_s.Store(tz, ty, tx, t.Load(a.In, (i*ny+j)*nx+k))
			}
			if tx < T/2 {
				_, file, line, _ := runtime.Caller(0)
				divergentSites.file, divergentSites.first = filepath.Base(file), line+2
				t.Sync()
			} else {
				_, _, line, _ := runtime.Caller(0)
				divergentSites.second = line + 2
				t.Sync()
			}
			if i >= 1 && i < nz-1 && j >= 1 && j < ny-1 && k >= 1 && k < nx-1 &&
				tz >= 1 && tz < T-1 && ty >= 1 && ty < T-1 && tx >= 1 && tx < T-1 {
				t.Store(a.Out, (i*ny+j)*nx+k, c[0]*in_s.Load(tz, ty, tx)+
					c[1]*in_s.Load(tz, ty, tx-1)+c[2]*in_s.Load(tz, ty, tx+1)+
					c[3]*in_s.Load(tz, ty-1, tx)+c[4]*in_s.Load(tz, ty+1, tx)+
					c[5]*in_s.Load(tz-1, ty, tx)+c[6]*in_s.Load(tz+1, ty, tx))
				t.Flops(lab.Flops7)
			}
		},
	}, nil
}

// A student's kernel whose threads wait at two different barriers fails
// the exercise's barrier check with the sites and a hint; the values alone
// would pass, since the simulator runs the two barriers as one.
func TestDivergentBarrierMessage(t *testing.T) {
	res := grading.Run(KernelExercise("tiled", divergentTiled), grading.Options{})
	var msg string
	for _, c := range res.Checks {
		if c.ID == "barriers" {
			assert.False(t, c.Passed, "seed %d", res.Seed)
			msg = c.Message
		}
	}
	require.NotEmpty(t, msg, "the exercise has a barrier check")
	t.Logf("what a student reads:\n%s", msg)
	s := divergentSites
	assert.Contains(t, msg, fmt.Sprintf("divergent barriers: barrier at %s:%d reached by ", s.file, s.first))
	assert.Contains(t, msg, fmt.Sprintf("threads of block (0,0,0), the others waited at %s:%d", s.file, s.second))
	assert.Contains(t, msg, "every thread of a block must reach the same __syncthreads()")
}
