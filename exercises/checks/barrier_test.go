//go:build hidden

package checks

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// divergentSites are the file and lines of the two barriers of
// divergentTiled, as a report names them.
var divergentSites struct {
	file          string
	first, second int
}

// divergentTiled is the thirteen-point tiled kernel as a student might
// write it: the barrier is called in both branches of an if, which CUDA
// leaves undefined (each __syncthreads is a barrier of its own). It is
// nearly the answer of exercise 06, so this file is instructor-only.
func divergentTiled(a star.Args) (sim.Kernel, error) {
	T := a.Tile
	if T == 0 {
		T = star.TiledDefaultTile
	}
	if T < 5 {
		return sim.Kernel{}, fmt.Errorf("IN_TILE_DIM = %d leaves no output tile", T)
	}
	out := T - 4
	nz, ny, nx := a.NZ, a.NY, a.NX
	var c [star.Points]float32
	for q := range c {
		c[q] = float32(a.C[q])
	}
	blocks := func(n int) int { return (n-3)/out + 1 }
	return sim.Kernel{
		Name:  "tiled13",
		Grid:  sim.Dim3{X: blocks(nx), Y: blocks(ny), Z: blocks(nz)},
		Block: sim.Dim3{X: T, Y: T, Z: T},
		Body: func(t *sim.Thread) {
			tz, ty, tx := t.ThreadIdx.Z, t.ThreadIdx.Y, t.ThreadIdx.X
			i := t.BlockIdx.Z*out + tz - 2
			j := t.BlockIdx.Y*out + ty - 2
			k := t.BlockIdx.X*out + tx - 2
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
			if i >= 2 && i < nz-2 && j >= 2 && j < ny-2 && k >= 2 && k < nx-2 &&
				tz >= 2 && tz < T-2 && ty >= 2 && ty < T-2 && tx >= 2 && tx < T-2 {
				s := func(dz, dy, dx int) float32 { return in_s.Load(tz+dz, ty+dy, tx+dx) }
				t.Store(a.Out, (i*ny+j)*nx+k, c[0]*s(0, 0, 0)+
					c[1]*s(0, 0, -1)+c[2]*s(0, 0, 1)+c[3]*s(0, -1, 0)+c[4]*s(0, 1, 0)+c[5]*s(-1, 0, 0)+c[6]*s(1, 0, 0)+
					c[7]*s(0, 0, -2)+c[8]*s(0, 0, 2)+c[9]*s(0, -2, 0)+c[10]*s(0, 2, 0)+c[11]*s(-2, 0, 0)+c[12]*s(2, 0, 0))
				t.Flops(star.Flops)
			}
		},
	}, nil
}

// A student's kernel whose threads wait at two different barriers fails
// the exercise's barrier check with the sites and a hint; the values alone
// would pass, since the simulator runs the two barriers as one.
func TestDivergentBarrierMessage(t *testing.T) {
	res := grading.Run(KernelExercise("tiled", divergentTiled), legitOptions(t, 0))
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
