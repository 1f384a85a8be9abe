package checks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// Every check of the kernel exercises (05 to 09) pays only for outputs it
// compared with the CPU reference in the same run. Kernels that launch
// with the exercise's grid and block but compute nothing (they write
// nothing, write 0, or copy their input) must score 0 on every check,
// hidden ones included when built with the tag "hidden", here and across
// the channel to the grader's child.

// filler returns a kernel with the launch the exercise asks for, whose
// first thread writes value at every interior point and whose other
// threads do nothing; value nil writes nothing at all.
func filler(s kernelStep, value func(t *sim.Thread, a star.Args, idx int) float32) star.Kernel {
	return func(a star.Args) (sim.Kernel, error) {
		grid, block := s.geometry(&simCase{NZ: a.NZ, NY: a.NY, NX: a.NX, Tile: a.Tile})
		return sim.Kernel{Name: "filler", Grid: grid, Block: block, Body: func(t *sim.Thread) {
			if value == nil || t.BlockIdx != (sim.Dim3{}) || t.ThreadIdx != (sim.Dim3{}) {
				return
			}
			r := star.Radius
			for i := r; i < a.NZ-r; i++ {
				for j := r; j < a.NY-r; j++ {
					for k := r; k < a.NX-r; k++ {
						idx := (i*a.NY+j)*a.NX + k
						t.Store(a.Out, idx, value(t, a, idx))
					}
				}
			}
		}}, nil
	}
}

// idleKernels are the kernels that compute nothing, by name.
func idleKernels(s kernelStep) map[string]star.Kernel {
	return map[string]star.Kernel{
		"writes nothing": filler(s, nil),
		"writes 0":       filler(s, func(*sim.Thread, star.Args, int) float32 { return 0 }),
		"copies its input": filler(s, func(t *sim.Thread, a star.Args, idx int) float32 {
			return t.Load(a.In, idx)
		}),
	}
}

// idleExercises are the exercises 05 to 09, each on a kernel that
// computes nothing, run here or, when remote, served as the grader's
// child serves it.
func idleExercises(t *testing.T, name string, remote bool) []grading.Exercise {
	sub := func(k star.Kernel) submitted {
		if remote {
			return submitted{remote: servedKernel(t, k)}
		}
		return submitted{local: k}
	}
	var exs []grading.Exercise
	for _, s := range kernelSteps() {
		exs = append(exs, s.exercise(sub(idleKernels(s)[name])))
	}
	return append(exs, findTheBug(sub(idleKernels(findTheBugStep())[name])))
}

func TestKernelsThatComputeNothingScoreNothing(t *testing.T) {
	for _, seed := range []uint64{1, 2, 20261126} {
		for name := range idleKernels(findTheBugStep()) {
			for _, e := range idleExercises(t, name, seed == 2) {
				res := grading.Run(e, legitOptions(t, seed))
				require.Equal(t, grading.Graded, res.Status, "%s, a kernel that %s: %s", e.ID, name, res.Message)
				for _, c := range res.Checks {
					assert.False(t, c.Passed, "%s/%s gives points to a kernel that %s (seed %d)", e.ID, c.ID, name, seed)
					assert.NotEmpty(t, c.Message, "%s/%s fails without saying why", e.ID, c.ID)
				}
				assert.Zero(t, res.Points, "%s, a kernel that %s (seed %d)", e.ID, name, seed)
			}
		}
	}
}
