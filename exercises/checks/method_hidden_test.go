//go:build hidden

package checks

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	basic "stencillab.dev/exercises/05_basic"
	findthebug "stencillab.dev/exercises/09_find_the_bug"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// The method checks of the kernel exercises 05 to 09 on fixtures: the
// solution scores full marks; a plain kernel (correct, without the
// technique) scores the correctness checks only, at most half the points;
// kernels that dodge the method (shared memory declared and never read,
// read only for show beside a private copy) lose the method points; a
// kernel that writes one column, or zeros on half the planes, scores at
// most 10 %; and each message names the technique that is missing. The
// fixtures use the exercises' solutions, so this file is built with the
// tag "hidden".

// starAt returns the thirteen-point star of a's input at (i, j, k),
// loaded from global memory, with a's coefficients.
func starAt(t *sim.Thread, a star.Args, i, j, k int) float32 {
	var sum float32
	for q, o := range thirteen {
		sum += float32(a.C[q]) * t.Load(a.In, ((i+o[0])*a.NY+j+o[1])*a.NX+k+o[2])
	}
	return sum
}

// thirteen are the star's points (di, dj, dk), in the coefficients' order:
// the lab's thirteen-point stencil.
var thirteen = lab.ThirteenPoint([13]float64{}).Offsets

// owned calls f with every output point (i, j, k) the thread owns in the
// technique of s: its point (basic, tiled: the inner threads of the input
// tile), or the output planes of its column (the kernels marching in z).
func owned(s kernelStep, t *sim.Thread, a star.Args, f func(i, j, k int)) {
	T, r := s.tileOf(a.Tile), star.Radius
	out := s.out(T)
	b, th := t.BlockIdx, t.ThreadIdx
	interior := func(i, j, k int) bool {
		return i >= r && j >= r && k >= r && i < a.NZ-r && j < a.NY-r && k < a.NX-r
	}
	inner := func(x int) bool { return x >= r && x < T-r }
	switch s.kind {
	case basicKind:
		if i, j, k := b.Z*T+th.Z, b.Y*T+th.Y, b.X*T+th.X; interior(i, j, k) {
			f(i, j, k)
		}
	case tiledKind:
		if i, j, k := b.Z*out+th.Z-r, b.Y*out+th.Y-r, b.X*out+th.X-r; inner(th.Z) && inner(th.Y) && inner(th.X) && interior(i, j, k) {
			f(i, j, k)
		}
	default:
		j, k := b.Y*out+th.Y-r, b.X*out+th.X-r
		for i := b.Z * out; i < b.Z*out+out; i++ {
			if inner(th.Y) && inner(th.X) && interior(i, j, k) {
				f(i, j, k)
			}
		}
	}
}

// plain is a kernel with the launch of the exercise s and no technique:
// every thread computes the outputs it owns from thirteen global loads
// each, with no shared memory and no barrier. For the basic kernel, whose
// technique is one thread per point, the threads of the block's first
// z-layer compute their whole column of the block instead.
func plain(s kernelStep) star.Kernel {
	return func(a star.Args) (sim.Kernel, error) {
		grid, block := s.geometry(&simCase{NZ: a.NZ, NY: a.NY, NX: a.NX, Tile: a.Tile})
		return sim.Kernel{Name: "plain", Grid: grid, Block: block, Body: func(t *sim.Thread) {
			if s.kind == basicKind {
				if t.ThreadIdx.Z != 0 {
					return
				}
				for tz := range t.BlockDim.Z {
					i, j, k := t.BlockIdx.Z*t.BlockDim.Z+tz, t.BlockIdx.Y*t.BlockDim.Y+t.ThreadIdx.Y, t.BlockIdx.X*t.BlockDim.X+t.ThreadIdx.X
					r := star.Radius
					if i >= r && j >= r && k >= r && i < a.NZ-r && j < a.NY-r && k < a.NX-r {
						t.Store(a.Out, (i*a.NY+j)*a.NX+k, starAt(t, a, i, j, k))
						t.Flops(star.Flops)
					}
				}
				return
			}
			owned(s, t, a, func(i, j, k int) {
				t.Store(a.Out, (i*a.NY+j)*a.NX+k, starAt(t, a, i, j, k))
				t.Flops(star.Flops)
			})
		}}, nil
	}
}

// declaredOnly is plain with the exercise's shared memory declared,
// written and waited on, never read.
func declaredOnly(s kernelStep) star.Kernel {
	return func(a star.Args) (sim.Kernel, error) {
		kern, err := plain(s)(a)
		body := kern.Body
		T := s.tileOf(a.Tile)
		kern.Body = func(t *sim.Thread) {
			tile := t.Shared1("tile_s", s.sharedBytes(T)/sim.ElemBytes)
			tile.Store(t.ThreadIdx.Y*T+t.ThreadIdx.X, 1)
			t.Sync()
			body(t)
		}
		return kern, err
	}
}

// forShow is the tiled kernel of exercise 06 that loads its tile point
// once, into shared memory and into a private copy, reads its thirteen
// inputs back from shared memory and throws them away, and computes from
// the copy: every counter is the tiled kernel's.
func forShow(a star.Args) (sim.Kernel, error) {
	s, _ := lookupKernelStep("tiled")
	T := s.tileOf(a.Tile)
	out, r := s.out(T), star.Radius
	grid, block := s.geometry(&simCase{NZ: a.NZ, NY: a.NY, NX: a.NX, Tile: a.Tile})
	var mu sync.Mutex
	private := make([]float32, len(a.In.Data))
	return sim.Kernel{Name: "forshow", Grid: grid, Block: block, Body: func(t *sim.Thread) {
		tz, ty, tx := t.ThreadIdx.Z, t.ThreadIdx.Y, t.ThreadIdx.X
		i, j, k := t.BlockIdx.Z*out+tz-r, t.BlockIdx.Y*out+ty-r, t.BlockIdx.X*out+tx-r
		in_s := t.Shared3("in_s", T, T, T)
		if i >= 0 && j >= 0 && k >= 0 && i < a.NZ && j < a.NY && k < a.NX {
			idx := (i*a.NY+j)*a.NX + k
			v := t.Load(a.In, idx)
			in_s.Store(tz, ty, tx, v)
			mu.Lock()
			private[idx] = v
			mu.Unlock()
		}
		t.Sync()
		owned(s, t, a, func(i, j, k int) {
			var sum float32
			mu.Lock()
			for q, o := range thirteen {
				_ = in_s.Load(tz+o[0], ty+o[1], tx+o[2])
				sum += float32(a.C[q]) * private[((i+o[0])*a.NY+j+o[1])*a.NX+k+o[2]]
			}
			mu.Unlock()
			t.Store(a.Out, (i*a.NY+j)*a.NX+k, sum)
			t.Flops(star.Flops)
		})
	}}, nil
}

// reshaped runs the kernel k of exercise s with its outputs sent to a
// scratch array; each thread then copies the outputs it owns to the real
// output where keep says so, and writes 0 where zero says so.
func reshaped(s kernelStep, k star.Kernel, keep, zero func(i, j, k int) bool) star.Kernel {
	return func(a star.Args) (sim.Kernel, error) {
		scratch := &sim.Global{Name: "scratch", Data: slices.Clone(a.Out.Data)}
		b := a
		b.Out = scratch
		kern, err := k(b)
		if err != nil {
			return kern, err
		}
		body := kern.Body
		kern.Body = func(t *sim.Thread) {
			body(t)
			owned(s, t, a, func(i, j, k int) {
				idx := (i*a.NY+j)*a.NX + k
				switch {
				case zero(i, j, k):
					t.Store(a.Out, idx, 0)
				case keep(i, j, k):
					t.Store(a.Out, idx, t.Load(scratch, idx))
				}
			})
		}
		return kern, nil
	}
}

func never(int, int, int) bool { return false }

// oneColumn keeps the outputs of the column (j, k) = (2, 2) only.
func oneColumn(s kernelStep, k star.Kernel) star.Kernel {
	return reshaped(s, k, func(_, j, k int) bool { return j == star.Radius && k == star.Radius }, never)
}

// zerosOnHalf writes 0 on every other plane and the outputs elsewhere.
func zerosOnHalf(s kernelStep, k star.Kernel) star.Kernel {
	return reshaped(s, k, func(int, int, int) bool { return true }, func(i, _, _ int) bool { return i%2 == 1 })
}

// score runs e on seed and returns its result.
func score(t *testing.T, e grading.Exercise, seed uint64) grading.ExerciseResult {
	res := grading.Run(e, legitOptions(t, seed))
	require.Equal(t, grading.Graded, res.Status, "%s: %s", e.ID, res.Message)
	return res
}

func TestMethodFixtures(t *testing.T) {
	seeds := []uint64{20261126} // one run each: the cases vary within it
	type fixture struct {
		name  string
		k     star.Kernel
		plain bool    // scores the correctness checks, and no other
		most  float64 // the most of the points it may score
		words string  // in the message of the method check
	}
	for _, s := range kernelSteps() {
		tech := strings.SplitN(s.technique(), " (", 2)[0]
		fixtures := []fixture{
			{"the solution", solutions[s.name], false, 1, ""},
			{"a plain kernel", plain(s), true, 0.5, tech},
			{"a one-column kernel", oneColumn(s, solutions[s.name]), false, 0.1, ""},
			{"zeros on half the planes", zerosOnHalf(s, solutions[s.name]), false, 0.1, ""},
		}
		if s.kind != basicKind {
			fixtures = append(fixtures, fixture{"shared memory declared and never read", declaredOnly(s), true, 0.5, "shared"})
		}
		if s.kind == tiledKind {
			fixtures = append(fixtures, fixture{"shared memory read for show", forShow, true, 0.5, "do not come from shared memory"})
		}
		for _, f := range fixtures {
			for _, seed := range seeds {
				res := score(t, KernelExercise(s.name, f.k), seed)
				t.Logf("%s, %s (seed %d): %d/%d", s.id(), f.name, seed, res.Points, res.MaxPoints)
				assert.LessOrEqual(t, float64(res.Points), f.most*float64(res.MaxPoints), "%s, %s (seed %d)", s.id(), f.name, seed)
				if f.most == 1 {
					assert.Equal(t, res.MaxPoints, res.Points, "%s, %s (seed %d)", s.id(), f.name, seed)
				}
				for _, c := range res.Checks {
					isCorrectness := c.ID == "small" || c.ID == "values"
					switch {
					case f.plain && isCorrectness:
						assert.True(t, c.Passed, "%s, %s: %s (seed %d): %s", s.id(), f.name, c.ID, seed, c.Message)
					case f.plain && c.ID == "hidden-values":
						assert.False(t, c.Passed, "%s, %s: %s pays for the technique (seed %d)", s.id(), f.name, c.ID, seed)
					case f.plain:
						assert.False(t, c.Passed, "%s, %s: %s (seed %d)", s.id(), f.name, c.ID, seed)
						assert.Contains(t, c.Message, tech, "%s, %s: %s names the technique (seed %d)", s.id(), f.name, c.ID, seed)
					}
					if c.ID == "method" && f.words != "" {
						assert.Contains(t, c.Message, f.words, "%s, %s (seed %d)", s.id(), f.name, seed)
					}
				}
			}
		}
	}
}

func TestFindTheBugFixtures(t *testing.T) {
	s := findTheBugStep()
	seed := uint64(3)
	for _, f := range []struct {
		name  string
		k     star.Kernel
		most  float64
		only  []string // the checks it passes; nil: none
		words string   // in every failed message but the values'
	}{
		{"the given kernel fixed", findthebug.Coarsened, 1, nil, ""},
		{"a one-thread-per-point kernel", basic.Basic, 0.5, []string{"values", "hidden-values"}, "the given kernel"},
		{"a plain kernel marching in z", plain(s), 0.5, []string{"values", "hidden-values"}, "the given kernel"},
		{"the given kernel writing one column", oneColumn(s, findthebug.Coarsened), 0.1, []string{}, ""},
		{"the given kernel writing zeros on half the planes", zerosOnHalf(s, findthebug.Coarsened), 0.1, []string{}, ""},
	} {
		res := score(t, FindTheBug(f.k), seed)
		t.Logf("09_find_the_bug, %s: %d/%d", f.name, res.Points, res.MaxPoints)
		assert.LessOrEqual(t, float64(res.Points), f.most*float64(res.MaxPoints), f.name)
		if f.most == 1 {
			assert.Equal(t, res.MaxPoints, res.Points, f.name)
			continue
		}
		for _, c := range res.Checks {
			pass := slices.Contains(f.only, c.ID)
			assert.Equal(t, pass, c.Passed, "%s: %s: %s", f.name, c.ID, c.Message)
			if !c.Passed && c.ID != "values" && c.ID != "hidden-values" && f.words != "" {
				assert.Contains(t, c.Message, f.words, "%s: %s", f.name, c.ID)
			}
		}
	}
}

// outside is a value whose String method loads past the end of the input:
// fmt recovers the panic of that fault and prints it.
type outside struct {
	t  *sim.Thread
	in *sim.Global
}

func (o outside) String() string { return fmt.Sprint(o.t.Load(o.in, len(o.in.Data)+o.t.ThreadIdx.X)) }

// TestFaultHiddenByFmtScoresAsAFault: the solution of each kernel
// exercise with an out-of-bounds load in every thread, inside a String
// method that fmt calls and recovers, scores 0, here and across the
// channel: the simulator recorded the faults.
func TestFaultHiddenByFmtScoresAsAFault(t *testing.T) {
	for _, s := range kernelSteps() {
		k := withLaunch(solutions[s.name], func(kern *sim.Kernel, a star.Args) {
			body := kern.Body
			kern.Body = func(t *sim.Thread) {
				_ = fmt.Sprint(outside{t, a.In})
				body(t)
			}
		})
		for _, e := range []grading.Exercise{KernelExercise(s.name, k), s.exercise(submitted{remote: servedKernel(t, k)})} {
			res := score(t, e, 5)
			assert.Zero(t, res.Points, s.id())
			for _, c := range res.Checks {
				assert.Contains(t, c.Message, "outside its", "%s/%s", s.id(), c.ID)
			}
		}
	}
}
