package checks

import (
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// Tests of the thirteen-point checks that need no kernel of the
// exercises: the closed forms against the simulator's counts of probe
// kernels that only load, the hints against kernels that copy a CPU sweep
// into the output, and the wire code.

// The tiled kernels' grid covers the interior exactly: the last block holds
// the last interior point n−3, and a block fewer would not reach it.
func TestTiledGridCoversTheInterior(t *testing.T) {
	for _, s := range kernelSteps()[1:] {
		for T := 5; T <= 12; T++ {
			out := s.out(T)
			for n := 5; n <= 60; n++ {
				g := s.blocks(n, T)
				assert.LessOrEqual(t, (g-1)*out, n-3, "%s: block %d starts past the last interior point (n = %d, T = %d)", s.name, g-1, n, T)
				assert.GreaterOrEqual(t, g*out-1, n-3, "%s: the blocks stop before n−3 (n = %d, T = %d)", s.name, n, T)
			}
		}
	}
}

// probe returns a kernel with the exercise's launch whose threads load,
// once each, the points of their input tile that lie in the grid, and do
// nothing else: the simulator counts the loads the closed form predicts.
func probe(s kernelStep, sc *simCase) star.Kernel {
	return func(a star.Args) (sim.Kernel, error) {
		grid, block := s.geometry(sc)
		T := s.tileOf(a.Tile)
		out := s.out(T)
		return sim.Kernel{Name: "probe", Grid: grid, Block: block, Body: func(t *sim.Thread) {
			j := t.BlockIdx.Y*out + t.ThreadIdx.Y - star.Radius
			k := t.BlockIdx.X*out + t.ThreadIdx.X - star.Radius
			lo, hi := t.BlockIdx.Z*out+t.ThreadIdx.Z-star.Radius, 0
			if s.kind == tiledKind {
				hi = lo
			} else {
				hi = lo + T - 1 // the column's planes iStart−2 … iStart+OUT+1
			}
			for i := lo; i <= hi; i++ {
				if i >= 0 && i < a.NZ && j >= 0 && j < a.NY && k >= 0 && k < a.NX {
					t.Load(a.In, (i*a.NY+j)*a.NX+k)
				}
			}
		}}, nil
	}
}

func TestLoadsClosedFormCountsTheInputTiles(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range kernelSteps()[1:] {
		for range 12 {
			nz, ny, nx := 5+r.IntN(20), 5+r.IntN(20), 5+r.IntN(20)
			tile := s.tiles[r.IntN(len(s.tiles))]
			sc := &simCase{NZ: nz, NY: ny, NX: nx, Tile: tile}
			src, err := lab.NewGrid3[float32](nz, ny, nx)
			require.NoError(t, err)
			sc.src, sc.dst = src, src.Clone()
			_, st, err := sc.runLocal(probe(s, sc))
			require.NoError(t, err)
			assert.Equal(t, st.GlobalLoads, s.loads(sc), "%s on %d×%d×%d, tile %d", s.name, nz, ny, nx, tile)
		}
	}
}

// cpuKernel is a one-thread kernel that stores the CPU reference sweep
// with the coefficients rearranged by f: a kernel with that mistake, as
// far as its values go.
func cpuKernel(f func(star.Coeffs) star.Coeffs) star.Kernel {
	return func(a star.Args) (sim.Kernel, error) {
		src := &lab.Grid3[float32]{NZ: a.NZ, NY: a.NY, NX: a.NX, Data: append([]float32(nil), a.In.Data...)}
		dst := &lab.Grid3[float32]{NZ: a.NZ, NY: a.NY, NX: a.NX, Data: append([]float32(nil), a.Out.Data...)}
		if err := lab.Sweep3(dst, src, lab.ThirteenPoint(f(a.C))); err != nil {
			return sim.Kernel{}, err
		}
		return sim.Kernel{Name: "cpu", Grid: sim.Dim3{X: 1, Y: 1, Z: 1}, Block: sim.Dim3{X: 1, Y: 1, Z: 1},
			Body: func(t *sim.Thread) {
				for idx, v := range dst.Data {
					if v != a.Out.Data[idx] {
						t.Store(a.Out, idx, v)
					}
				}
			}}, nil
	}
}

func TestValuesChecksNameTheCoefficientMistake(t *testing.T) {
	same := func(c star.Coeffs) star.Coeffs { return c }
	for _, c := range []struct {
		f    func(star.Coeffs) star.Coeffs
		hint string
	}{
		{func(c star.Coeffs) star.Coeffs { return swapped(c, 9, 10) }, "are c9 and c10 swapped?"},
		{func(c star.Coeffs) star.Coeffs { return swapped(c, 5, 6) }, "are c5 and c6 swapped?"},
		{func(c star.Coeffs) star.Coeffs { return swapped(c, 1, 3, 2, 4, 7, 9, 8, 10) }, "x and y are mixed up"},
		{func(c star.Coeffs) star.Coeffs {
			for q := 7; q < star.Points; q++ {
				c[q] = 0
			}
			return c
		}, "did you count all 13 points"},
	} {
		for _, s := range kernelSteps() {
			r := outcomeOf(t, s.exercise(submitted{local: cpuKernel(c.f)}), "values", 3)
			assert.False(t, r.Passed, s.name)
			assert.Contains(t, r.Message, c.hint, s.name)
		}
	}
	for _, s := range kernelSteps() {
		r := outcomeOf(t, s.exercise(submitted{local: cpuKernel(same)}), "values", 3)
		assert.True(t, r.Passed, "%s: the reference's own values pass: %s", s.name, r.Message)
		l := outcomeOf(t, s.exercise(submitted{local: cpuKernel(same)}), "launch", 3)
		assert.False(t, l.Passed, "%s: one block of one thread is not the exercise's launch", s.name)
		assert.Contains(t, l.Message, "blockDim is 1×1×1", s.name)
	}
}

func outcomeOf(t *testing.T, e grading.Exercise, id string, seed uint64) grading.CheckResult {
	res := grading.Run(e, legitOptions(t, seed))
	require.Equal(t, grading.Graded, res.Status, res.Message)
	for _, c := range res.Checks {
		if c.ID == id {
			return c
		}
	}
	require.Failf(t, "no such check", "%s has no check %q", e.ID, id)
	return grading.CheckResult{}
}

// stubKernel is a kernel that is not written yet.
func stubKernel(star.Args) (sim.Kernel, error) { return sim.Kernel{}, grading.ErrNotImplemented }

func TestStubsAreNotImplemented(t *testing.T) {
	for _, e := range []grading.Exercise{KernelExercise("tiled", stubKernel), FindTheBug(stubKernel)} {
		res := grading.Run(e, legitOptions(t, 5))
		for _, c := range res.Checks {
			assert.True(t, c.NotImplemented, "%s/%s: %s", e.ID, c.ID, c.Message)
			assert.Equal(t, 0, c.Points)
		}
	}
	res := grading.Run(KernelExercise("five_point", stubKernel), legitOptions(t, 5))
	require.Len(t, res.Checks, 1)
	assert.Contains(t, res.Checks[0].Message, `no kernel exercise "five_point"`)
}

// serveKernel returns the handler that runs k in the child.
func serveKernel(k star.Kernel) grading.Handler { return grading.ServeFuncs(runner(k), knownErrors) }

// servedKernel connects the checks to a kernel served as the grader's child
// serves it, through pipes.
func servedKernel(t *testing.T, k star.Kernel) *grading.Client {
	callsR, callsW := io.Pipe()
	repR, repW := io.Pipe()
	go func() {
		_ = grading.Serve(callsR, repW, serveKernel(k))
		repW.Close()
	}()
	t.Cleanup(func() { callsW.Close() })
	return grading.NewClient(callsW, repR)
}

func TestKernelsAcrossTheChannel(t *testing.T) {
	same := func(c star.Coeffs) star.Coeffs { return c }
	s, err := lookupKernelStep("coarsened")
	require.NoError(t, err)
	r := outcomeOf(t, s.exercise(submitted{remote: servedKernel(t, cpuKernel(same))}), "values", 4)
	assert.True(t, r.Passed, r.Message)
	r = outcomeOf(t, s.exercise(submitted{remote: servedKernel(t, cpuKernel(func(c star.Coeffs) star.Coeffs { return swapped(c, 11, 12) }))}), "values", 4)
	assert.Contains(t, r.Message, "are c11 and c12 swapped?")
	r = outcomeOf(t, findTheBug(submitted{remote: servedKernel(t, stubKernel)}), "values", 4)
	assert.True(t, r.NotImplemented, "the stub's error crosses the channel: %s", r.Message)
}

func TestServeRefusesMalformedCases(t *testing.T) {
	h := serveKernel(stubKernel)
	run := runner(stubKernel).Run
	for _, a := range []kernelArgs{
		{NZ: -1, NY: 5, NX: 5},
		{NZ: 5, NY: 5, NX: maxWireSide + 1},
		{NZ: 5, NY: 5, NX: 5, Src: make([]float32, 125), Dst: make([]float32, 124)},
		{NZ: 5, NY: 5, NX: 5, Tile: -3, Src: make([]float32, 125), Dst: make([]float32, 125)},
	} {
		_, _, err := run(a)
		assert.ErrorContains(t, err, "a case", "%d×%d×%d, tile %d", a.NZ, a.NY, a.NX, a.Tile)
	}
	_, err := h("launch", nil)
	assert.ErrorContains(t, err, `no method "launch"`)
}

// A kernel's own refusal of its arguments matches sim.ErrLimit, as a
// launch over the limits does, and keeps its message.
func TestRefusalsMatchErrLimit(t *testing.T) {
	err := refusedLaunch(errors.New("IN_TILE_DIM = 4 leaves no output tile"))
	assert.ErrorIs(t, err, sim.ErrLimit)
	assert.ErrorContains(t, err, "IN_TILE_DIM = 4")
	assert.ErrorIs(t, refusedLaunch(grading.ErrNotImplemented), grading.ErrNotImplemented)
}

// idle is a kernel with a launch of the right shape that does nothing: no
// check may give it a point.
func idle(s kernelStep) star.Kernel {
	return func(a star.Args) (sim.Kernel, error) {
		sc := &simCase{NZ: a.NZ, NY: a.NY, NX: a.NX, Tile: a.Tile}
		grid, block := s.geometry(sc)
		return sim.Kernel{Name: "idle", Grid: grid, Block: block, Body: func(*sim.Thread) {}}, nil
	}
}

func TestAKernelThatDoesNothingScoresNothing(t *testing.T) {
	exs := []grading.Exercise{findTheBug(submitted{local: idle(findTheBugStep())})}
	for _, s := range kernelSteps() {
		exs = append(exs, s.exercise(submitted{local: idle(s)}))
	}
	for _, e := range exs {
		res := grading.Run(e, legitOptions(t, 9))
		require.Equal(t, grading.Graded, res.Status, res.Message)
		for _, c := range res.Checks {
			assert.False(t, c.Passed, "%s/%s gives points to a kernel that writes nothing", e.ID, c.ID)
		}
		assert.Equal(t, 0, res.Points, e.ID)
	}
}

// TestAKernelRunOfTheWrongLengthScoresNothing: a child whose Run returns
// fewer or more values than the grid has, with no error, or the right
// number with a refusal, gets no point of any kernel exercise: the output
// stands as untouched, and a short output is a fault.
func TestAKernelRunOfTheWrongLengthScoresNothing(t *testing.T) {
	for name, run := range map[string]func(kernelArgs) ([]float32, sim.Stats, error){
		"short": func(a kernelArgs) ([]float32, sim.Stats, error) { return a.Dst[:len(a.Dst)/2], sim.Stats{}, nil },
		"long":  func(a kernelArgs) ([]float32, sim.Stats, error) { return append(a.Src, 1), sim.Stats{}, nil },
		"none":  func(kernelArgs) ([]float32, sim.Stats, error) { return nil, sim.Stats{}, nil },
	} {
		child := kernelFuncs{Run: run}
		exs := []grading.Exercise{findTheBug(submitted{funcs: child})}
		for _, s := range kernelSteps() {
			exs = append(exs, s.exercise(submitted{remote: pairFuncs(t, child)}))
		}
		for _, e := range exs {
			res := grading.Run(e, legitOptions(t, 5))
			assert.Zero(t, res.Points, "%s: %s", name, e.ID)
		}
		grid := func() *lab.Grid3[float32] {
			g := &lab.Grid3[float32]{NZ: 3, NY: 4, NX: 5, Data: make([]float32, 60)}
			for i := range g.Data {
				g.Data[i] = rand.Float32()
			}
			return g
		}
		sc := &simCase{NZ: 3, NY: 4, NX: 5, src: grid(), dst: grid()}
		out, _, err := sc.runFuncs(child)
		assert.ErrorIs(t, err, sim.ErrFault, name)
		assert.Equal(t, sc.dst.Data, out.Data, "%s: the untouched output stands for it", name)
	}
}

// pairFuncs serves fn as the grader's child does, through pipes, and
// returns the client that calls it.
func pairFuncs(t *testing.T, fn kernelFuncs) *grading.Client {
	callsR, callsW := io.Pipe()
	repR, repW := io.Pipe()
	go func() {
		_ = grading.Serve(callsR, repW, grading.ServeFuncs(fn, knownErrors))
		repW.Close()
	}()
	t.Cleanup(func() { callsW.Close() })
	return grading.NewClient(callsW, repR)
}
