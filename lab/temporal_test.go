package lab

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withBoundaryOf returns a copy of g whose boundary points are those of b:
// what a run leaves in its output, whose boundary it never writes.
func withBoundaryOf(g, b *Grid3[float32]) *Grid3[float32] {
	out := b.Clone()
	copyInterior(out, g)
	return out
}

// The simulated temporal kernel advances k time steps per pass: on small
// grids whose sides differ and fit no tile, against k reference sweeps
// with the boundary fixed (lab.Advance), for one pass and two.
func TestTemporalSimMatchesAdvance(t *testing.T) {
	shapes := [][3]int{{5, 9, 13}, {14, 3, 7}, {3, 3, 3}, {11, 17, 4}, {9, 30, 27}}
	for _, k := range []int{1, 2, 3, 4} {
		for _, shape := range shapes {
			for _, passes := range []int{1, 2} {
				sc := newSweepCaseShape(t, shape[0], shape[1], shape[2])
				steps := k * passes
				ref := sc.src.Clone()
				require.NoError(t, Advance(SevenPoint[float32], ref, sc.src, sc.c, steps))
				want := withBoundaryOf(ref, sc.dst)
				res, err := Execute(Run{Step: "temporal", Backend: Sim, Config: Config{Tile: k}, Src: sc.src, Dst: sc.dst, C: sc.c, Steps: steps})
				require.NoError(t, err, "k=%d on %v", k, shape)
				d, err := Compare3(res.Out, want)
				require.NoError(t, err)
				assert.LessOrEqual(t, d.MaxAbs, 1e-5*float64(steps), "k=%d on %v, %d steps, seed %d", k, shape, steps, sc.seed)
				assert.Zero(t, boundaryChanged(res.Out, want), "k=%d on %v: boundary written", k, shape)
				assert.Equal(t, steps, res.Steps)
			}
		}
	}
}

// On a grid that one block covers, every point is loaded once per pass
// and every interior point stored once, whatever k: the traffic of one
// sweep for k time steps.
func TestTemporalSimTraffic(t *testing.T) {
	nz, ny, nx := 13, 11, 9
	for _, k := range []int{1, 2, 4} {
		sc := newSweepCaseShape(t, nz, ny, nx)
		res, err := Execute(Run{Step: "temporal", Backend: Sim, Config: Config{Tile: k}, Src: sc.src, Dst: sc.dst, C: sc.c, Steps: k})
		require.NoError(t, err)
		assert.Equal(t, int64(nz*ny*nx), res.Stats.GlobalLoads, "k=%d", k)
		assert.Equal(t, int64((nz-2)*(ny-2)*(nx-2)), res.Stats.GlobalStores, "k=%d", k)
		// Each level computes at least every interior point once.
		assert.GreaterOrEqual(t, res.Stats.Flops, int64(k*Flops7*(nz-2)*(ny-2)*(nx-2)), "k=%d", k)
	}
}

// The measured intensity rises with k, past the 3.25 OP/B that bounds any
// single sweep (13 operations per 4-byte load).
func TestTemporalSimIntensityRises(t *testing.T) {
	src, err := NewCube[float32](40)
	require.NoError(t, err)
	src.FillRandom(5)
	prev := 0.0
	for _, k := range []int{1, 2, 4} {
		res, err := Execute(Run{Step: "temporal", Backend: Sim, Config: Config{Tile: k}, Src: src, C: DistinctCoeffs(), Steps: k})
		require.NoError(t, err)
		ai := res.Stats.OpPerByte()
		assert.Greater(t, ai, prev, "k=%d", k)
		prev = ai
	}
	assert.Greater(t, prev, float64(Flops7)/Float32Bytes, "k=4 beats the single sweep's bound")
}

func TestTemporalStepDescription(t *testing.T) {
	s, err := LookupStep3("temporal")
	require.NoError(t, err)
	assert.Equal(t, 4, s.StepsPerPass(Config{Tile: 4}))
	assert.Equal(t, 8, s.StepsPerPass(Config{Tile: 8}))
	cfg, err := s.Resolve(Config{})
	require.NoError(t, err)
	assert.Equal(t, TemporalDefaultK, s.StepsPerPass(cfg))
	_, err = Execute(Run{Step: "temporal", Backend: Sim, Config: Config{Tile: 4}, NZ: 5, NY: 5, NX: 5, Steps: 6})
	assert.ErrorContains(t, err, "not a multiple of the 4")
	_, err = Execute(Run{Step: "temporal", Backend: Sim, Config: Config{Tile: 12}, NZ: 5, NY: 5, NX: 5, Steps: 12})
	assert.ErrorContains(t, err, "k must be from 1 to 11")
}

// The model by hand: T = 24, k = 4 performs 13·4·22² = 25168 operations
// per plane on 24² = 576 loads (2304 B), of which 13·4·16² = 13312 give
// outputs.
func TestTemporalIntensity(t *testing.T) {
	p, u := TemporalIntensity(24, 4)
	assert.InDelta(t, 25168.0/2304, p, 1e-12)
	assert.InDelta(t, 13312.0/2304, u, 1e-12)
	// k = 1 on a growing tile tends to the single sweep's 13/4 from below.
	p1, u1 := TemporalIntensity(1000, 1)
	assert.InDelta(t, IntensityLimit, p1, 0.02)
	assert.Less(t, u1, IntensityLimit)
	// The useful intensity of T = 24 peaks at k = 4 = T/6.
	best, bestK := 0.0, 0
	for k := 1; k <= 11; k++ {
		if _, u := TemporalIntensity(24, k); u > best {
			best, bestK = u, k
		}
	}
	assert.Equal(t, 4, bestK)
	p, u = TemporalIntensity(24, 12)
	assert.Zero(t, p+u, "no output tile")
}
