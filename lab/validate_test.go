package lab

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab/sim"
)

func TestValidateLiteralGrids(t *testing.T) {
	good, err := NewGrid3[float32](3, 4, 5)
	require.NoError(t, err)
	require.NoError(t, good.Validate())
	for name, g := range map[string]*Grid3[float32]{
		"nil":                    nil,
		"short data":             {NZ: 3, NY: 4, NX: 5, Data: make([]float32, 3*4*5-1)},
		"long data":              {NZ: 3, NY: 4, NX: 5, Data: make([]float32, 3*4*5+7)},
		"zero side":              {NZ: 0, NY: 4, NX: 5},
		"two negative sides":     {NZ: -3, NY: -4, NX: 5, Data: make([]float32, 60)},
		"sides past MaxPoints":   {NZ: 1 << 20, NY: 1 << 20, NX: 1 << 20},
		"product wraps to match": {NZ: 1 << 31, NY: 1 << 31, NX: 1, Data: nil},
	} {
		err := g.Validate()
		assert.ErrorIs(t, err, ErrSize, name)
		if g != nil {
			// Every entry that takes a grid refuses it, with an error.
			other := &Grid3[float32]{NZ: g.NZ, NY: g.NY, NX: g.NX, Data: make([]float32, max(len(g.Data), 1))}
			assert.Error(t, SevenPoint(other, g, DistinctCoeffs()), name)
			_, err := Compare3(g, other)
			assert.Error(t, err, name)
			_, err = Execute(Run{Step: "tiled", Backend: Sim, Src: g, C: DistinctCoeffs()})
			assert.ErrorIs(t, err, ErrSize, name)
		}
	}

	g2 := &Grid2[float64]{NY: 4, NX: 4, Data: make([]float64, 15)}
	assert.ErrorIs(t, g2.Validate(), ErrSize)
	assert.Error(t, Sweep2(g2.Clone(), g2, FivePoint([5]float64{1, 2, 3, 4, 5})))
	assert.ErrorIs(t, (*Grid2[float64])(nil).Validate(), ErrSize)

	g1, err := NewGrid1[float64](9, 0, 0.25)
	require.NoError(t, err)
	require.NoError(t, g1.Validate())
	d1, err := CentralDifference(1, 1)
	require.NoError(t, err)
	for name, g := range map[string]*Grid1[float64]{
		"zero spacing":     {N: 9, H: 0, Data: make([]float64, 9)},
		"negative spacing": {N: 9, H: -1, Data: make([]float64, 9)},
		"NaN spacing":      {N: 9, H: math.NaN(), Data: make([]float64, 9)},
		"infinite origin":  {N: 9, H: 1, X0: math.Inf(-1), Data: make([]float64, 9)},
		"N beyond data":    {N: 12, H: 1, Data: make([]float64, 9)},
		"zero points":      {N: 0, H: 1},
	} {
		assert.ErrorIs(t, g.Validate(), ErrSize, name)
		dst := &Grid1[float64]{N: g.N, H: 1, Data: make([]float64, len(g.Data))}
		err := Derivative(dst, g, d1)
		assert.Error(t, err, "%s: Derivative refuses the grid rather than divide by zero or index past it", name)
	}
}

func TestExecuteRefusesBadCounts(t *testing.T) {
	base := Run{Step: "tiled", Backend: Sim, NZ: 5, NY: 6, NX: 7, C: DistinctCoeffs()}
	for name, r := range map[string]Run{
		"negative reps":      {Reps: -1},
		"reps past MaxReps":  {Reps: MaxReps + 1},
		"absurd reps":        {Reps: 99999999999999},
		"negative steps":     {Steps: -1},
		"steps past the cap": {Steps: MaxSteps + 1},
		"negative tile":      {Config: Config{Tile: -4}},
	} {
		r.Step, r.Backend, r.NZ, r.NY, r.NX, r.C = base.Step, base.Backend, base.NZ, base.NY, base.NX, base.C
		res, err := Execute(r)
		assert.ErrorIs(t, err, ErrSize, name)
		assert.Nil(t, res.Out, name)
	}
	_, err := Execute(Run{Step: "tiled", Backend: Sim, NZ: 5, NY: 6, NX: 7, Reps: MaxReps + 1})
	assert.ErrorContains(t, err, "exceeds the limit of 100000")
}

func TestExecuteRecoversKernelSetUpPanic(t *testing.T) {
	var nilSlice []int
	for name, k := range map[string]StencilKernel{
		"index panic": func(a StencilArgs) (sim.Kernel, error) { return sim.Kernel{Grid: sim.Dim3{X: nilSlice[a.NX]}}, nil },
		"nil Body":    func(a StencilArgs) (sim.Kernel, error) { return sim.Kernel{Grid: sim.Dim3{X: 1, Y: 1, Z: 1}}, nil },
		"panic value": func(StencilArgs) (sim.Kernel, error) { panic("student's own panic") },
	} {
		res, err := Execute(Run{Step: "mine", Kernel: k, Backend: Sim, NZ: 5, NY: 5, NX: 5, C: DistinctCoeffs()})
		require.Error(t, err, name)
		assert.Equal(t, err, res.Err, "%s: the kernel's own failure is kept in the result", name)
		if name != "nil Body" {
			assert.ErrorIs(t, err, sim.ErrFault, name)
			assert.ErrorContains(t, err, "panicked", name)
		}
	}
	// A thread that panics is a fault too, recorded by the simulator.
	threadPanic := func(a StencilArgs) (sim.Kernel, error) {
		return sim.Kernel{Name: "mine", Grid: sim.Dim3{X: 1, Y: 1, Z: 1}, Block: sim.Dim3{X: 2, Y: 1, Z: 1},
			Body: func(t *sim.Thread) { panic("in a thread") }}, nil
	}
	_, err := Execute(Run{Step: "mine", Kernel: threadPanic, Backend: Sim, NZ: 5, NY: 5, NX: 5})
	assert.ErrorIs(t, err, sim.ErrFault)
}

func TestSimulateRefusesBadArguments(t *testing.T) {
	src, err := NewCube[float32](5)
	require.NoError(t, err)
	dst := src.Clone()
	c := DistinctCoeffs()
	_, err = Simulate(nil, TiledKernel, Config{}, dst, src, c)
	assert.ErrorIs(t, err, sim.ErrLimit)
	_, err = Simulate(&sim.Simulator{}, nil, Config{}, dst, src, c)
	assert.Error(t, err)
	_, err = Simulate(&sim.Simulator{}, TiledKernel, Config{Tile: -1}, dst, src, c)
	assert.Error(t, err)
	_, err = Simulate(&sim.Simulator{}, TiledKernel, Config{}, nil, src, c)
	assert.ErrorIs(t, err, ErrMismatch)
	_, err = Simulate(&sim.Simulator{}, TiledKernel, Config{}, &Grid3[float32]{NZ: 5, NY: 5, NX: 5}, src, c)
	assert.Error(t, err)
	assert.Error(t, CheckKernel(nil, TiledKernel, Config{}))
}

func TestGridMethodsOnBadGrids(t *testing.T) {
	bad3 := &Grid3[float32]{NZ: 3, NY: 3, NX: 3, Data: make([]float32, 4)}
	assert.ErrorIs(t, bad3.Fill(func(i, j, k int) float32 { return 1 }), ErrSize)
	assert.Equal(t, make([]float32, 4), bad3.Data, "a refused fill changes nothing")
	good, err := NewGrid3[float32](2, 3, 4)
	require.NoError(t, err)
	assert.ErrorIs(t, good.Fill(nil), ErrSize)
	require.NoError(t, good.Fill(func(i, j, k int) float32 { return float32(100*i + 10*j + k) }))
	assert.Equal(t, float32(123), good.Data[1*12+2*4+3], "i·NY·NX + j·NX + k")

	bad2 := &Grid2[float64]{NY: 2, NX: 2, Data: make([]float64, 3)}
	assert.ErrorIs(t, bad2.Fill(func(j, k int) float64 { return 1 }), ErrSize)
	var nil1 *Grid1[float64]
	assert.ErrorIs(t, nil1.Fill(func(k int) float64 { return 1 }), ErrSize)

	var nil3 *Grid3[float32]
	var nil2 *Grid2[float32]
	assert.Nil(t, nil3.Clone())
	assert.Nil(t, nil2.Clone())
	assert.Nil(t, Convert[float64](nil3))
	assert.NotPanics(t, func() {
		nil3.FillRandom(1)
		nil3.Poison()
		nil2.FillRandom(1)
		nil2.Poison()
		nil1.FillRandom(1)
		nil1.Poison()
	})
}

func TestDiscretizeRefusesNilFunction(t *testing.T) {
	_, err := Discretize(nil, 0, 1, 5)
	assert.ErrorIs(t, err, ErrSize)
	_, err = Discretize(math.Sin, 0, math.Inf(1), 5)
	assert.Error(t, err, "an infinite interval has no finite spacing")
}

func TestMaxTileEndsUnderHugeLimits(t *testing.T) {
	for _, step := range Names3(InModel) {
		T, bound, err := MaxTile(step, sim.Limits{MaxThreads: math.MaxInt, MaxSharedBytes: math.MaxInt})
		require.NoError(t, err, step)
		assert.LessOrEqual(t, T, sim.MaxThreadsPerBlock, step)
		assert.NotEmpty(t, bound, step)
	}
}
