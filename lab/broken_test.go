package lab

import (
	"stencillab.dev/lab/sim"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBrokenTiledNoInteriorCheck(t *testing.T) {
	// N = 31, T = 8: the output tiles end at 29 = N−2, so the faults are the
	// cells at the faces 0.
	sc := newSweepCase(t, 31)
	s := &simT{tile: 8}
	err := s.Run(BrokenTiledNoInteriorCheck, sc.dst, sc.src, sc.c)
	require.ErrorIs(t, err, sim.ErrHazard)
	assert.Contains(t, err.Error(),
		"uninitialised read: thread (1,1,1) of block (0,0,0) reads in_s[1][1][0], which no thread of the block wrote")
	assert.Positive(t, s.Last().HazardCounts.Uninitialised)
	// It writes the boundary cells of the faces i = 0, j = 0, k = 0: 3·30²
	// − 3·30 + 1 cells (three faces of 30×30 sharing edges).
	assert.Equal(t, 3*30*30-3*30+1, boundaryChanged(sc.dst, sc.want))

	// N = 20, T = 8: the last tiles reach 23, past the grid: stores there
	// fall outside the output array.
	sc = newSweepCase(t, 20)
	err = s.Run(BrokenTiledNoInteriorCheck, sc.dst, sc.src, sc.c)
	require.ErrorIs(t, err, sim.ErrFault)
	assert.ErrorIs(t, err, sim.ErrHazard)
	assert.Contains(t, err.Error(), "outside its 8000 elements")
}

func TestBrokenTiledNoBarrierRaces(t *testing.T) {
	sc := newSweepCase(t, 17)
	s := &simT{tile: 8}
	err := s.Run(BrokenTiledNoBarrier, sc.dst, sc.src, sc.c)
	require.ErrorIs(t, err, sim.ErrHazard)
	// The first thread to compute is (2,2,2), whose x−1 neighbour (1,2,2)
	// loaded in_s[2][2][1] just before it, with no barrier.
	assert.Contains(t, err.Error(),
		"race: thread (2,2,2) of block (0,0,0) reads in_s[2][2][1] written by thread (1,2,2) with no barrier between")
	st := s.Last()
	assert.Positive(t, st.HazardCounts.ReadAfterWrite)
	assert.Zero(t, st.HazardCounts.WriteAfterRead)
	// The correct kernel on the same data: no hazard.
	require.NoError(t, s.Run(TiledKernel, sc.dst, sc.src, sc.c))
}

func TestBrokenCoarsenedSwappedC3C4(t *testing.T) {
	sc := newSweepCase(t, 31)
	s := &simT{tile: 16}
	require.NoError(t, s.Run(BrokenCoarsenedSwappedC3C4, sc.dst, sc.src, sc.c))
	d, err := Compare3(sc.dst, sc.want)
	require.NoError(t, err)
	assert.Greater(t, d.MaxAbs, 1e-3, "seven distinct coefficients must expose the swap")

	// It is the swap and nothing else: with c3 = c4 it is right, and with
	// c3 and c4 exchanged it matches the reference.
	swapped := sc.c
	swapped[3], swapped[4] = sc.c[4], sc.c[3]
	want := sc.dst.Clone()
	require.NoError(t, SevenPoint(want, sc.src, swapped))
	require.NoError(t, s.Run(BrokenCoarsenedSwappedC3C4, sc.dst, sc.src, sc.c))
	d, err = Compare3(sc.dst, want)
	require.NoError(t, err)
	assert.LessOrEqual(t, d.MaxAbs, 1e-5)

	equal := sc.c
	equal[4] = equal[3]
	want = sc.dst.Clone()
	require.NoError(t, SevenPoint(want, sc.src, equal))
	require.NoError(t, s.Run(BrokenCoarsenedSwappedC3C4, sc.dst, sc.src, equal))
	d, err = Compare3(sc.dst, want)
	require.NoError(t, err)
	assert.LessOrEqual(t, d.MaxAbs, 1e-5, "with c3 = c4 the swap does not show")
}

func TestBrokenCoarsenedLoopClosesEarly(t *testing.T) {
	const n, T = 31, 8
	sc := newSweepCase(t, n)
	s := &simT{tile: T}
	require.NoError(t, s.Run(BrokenCoarsenedLoopClosesEarly, sc.dst, sc.src, sc.c))
	d, err := Compare3(sc.dst, sc.want)
	require.NoError(t, err)
	assert.Greater(t, d.MaxAbs, 1e-3)
	// Only the planes iStart = 6, 12, 18, 24 (1 ≤ iStart ≤ N−2) are
	// written, each (N−2)² points.
	planes := 0
	for iStart := 0; iStart <= n-2; iStart += T - 2 {
		if iStart >= 1 {
			planes++
		}
	}
	assert.Equal(t, int64(planes*(n-2)*(n-2)), s.Last().GlobalStores)
	assert.True(t, sc.dst.At(7, 5, 5) != sc.dst.At(7, 5, 5), "plane 7 is never written")
	assert.Zero(t, boundaryChanged(sc.dst, sc.want))
}

func TestBrokenRegisterTiledNoSecondBarrier(t *testing.T) {
	sc := newSweepCase(t, 21)
	s := &simT{tile: 8}
	err := s.Run(BrokenRegisterTiledNoSecondBarrier, sc.dst, sc.src, sc.c)
	require.ErrorIs(t, err, sim.ErrHazard)
	// Thread (1,2,0) computes nothing and goes straight on to overwrite
	// its element of inCurr_s, which thread (2,2,0) then reads as its x−1
	// neighbour.
	assert.Contains(t, err.Error(),
		"race: thread (1,2,0) of block (0,0,0) writes inCurr_s[2][1] read by thread (2,2,0) with no barrier between")
	assert.Positive(t, s.Last().HazardCounts.WriteAfterRead)
	require.NoError(t, s.Run(RegisterTiledKernel, sc.dst, sc.src, sc.c))
}

func TestBrokenCoarsenedBlock34(t *testing.T) {
	sc := newSweepCase(t, 70)
	s := &simT{}
	err := s.Run(BrokenCoarsenedBlock34, sc.dst, sc.src, sc.c)
	require.ErrorIs(t, err, sim.ErrLimit)
	assert.Contains(t, err.Error(), "block 34×34 = 1156 threads exceeds 1024")
	assert.Zero(t, s.Last().Threads)
}

// TestEveryBrokenKernelIsCaught runs the whole catalogue on one grid.
func TestEveryBrokenKernelIsCaught(t *testing.T) {
	names := map[string]bool{}
	for _, b := range BrokenKernels() {
		assert.False(t, names[b.Name], "duplicate %s", b.Name)
		names[b.Name] = true
		assert.NotEmpty(t, b.From)
		assert.NotEmpty(t, b.Bug)
		assert.NotEmpty(t, b.Caught)
		sc := newSweepCase(t, 31)
		s := &simT{tile: 8}
		err := s.Run(b.Kernel, sc.dst, sc.src, sc.c)
		d, cerr := Compare3(sc.dst, sc.want)
		require.NoError(t, cerr)
		caught := err != nil || d.MaxAbs > 1e-5
		assert.True(t, caught, "%s is not caught (seed %d)", b.Name, sc.seed)
	}
	assert.Len(t, names, 6)
}
