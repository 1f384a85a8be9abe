package lab

import (
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withLimit caps the memory the lab assumes available for one test.
func withLimit(t *testing.T, bytes uint64) {
	t.Helper()
	old := MemoryLimit
	MemoryLimit = bytes
	t.Setenv(MemoryLimitEnv, "")
	t.Cleanup(func() { MemoryLimit = old })
}

func TestAvailableMemoryTakesTheSmallestBound(t *testing.T) {
	withLimit(t, 3e9)
	m, err := AvailableMemory()
	require.NoError(t, err)
	assert.LessOrEqual(t, m.Bytes, uint64(3e9))
	t.Setenv(MemoryLimitEnv, "2GiB")
	m, err = AvailableMemory()
	require.NoError(t, err)
	assert.Equal(t, Memory{Bytes: 2 << 30, Source: MemoryLimitEnv}, m)
	t.Setenv(MemoryLimitEnv, "lots")
	_, err = AvailableMemory()
	assert.ErrorContains(t, err, "STENCIL_MEMORY_LIMIT")
}

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]uint64{
		"4000000000": 4e9, "4G": 4e9, "4 GB": 4e9, "3.5GiB": 3.5 * (1 << 30), "512MiB": 512 << 20, "12": 12, "1k": 1000,
	} {
		got, err := ParseBytes(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, got, s)
	}
	for _, s := range []string{"", "G", "-1", "1e9", "0x10", "NaN", "Inf", "1e400", "99999999999999999999T", "4 apples"} {
		_, err := ParseBytes(s)
		assert.Error(t, err, s)
	}
}

func TestLargestSide(t *testing.T) {
	// 8 B a point: 8·N³ ≤ 1e9 holds for N = 500 exactly, not for 501.
	assert.Equal(t, 500, LargestSide(1e9, 8, 3))
	assert.Equal(t, 499, LargestSide(1e9-1, 8, 3))
	// 48 B a point in 2D: 48·n² ≤ 4.8e9 ⇔ n ≤ 10000.
	assert.Equal(t, 10000, LargestSide(4.8e9, 48, 2))
	assert.Equal(t, 0, LargestSide(7, 8, 3))
}

// A grid that does not fit is refused before it is allocated, with both
// numbers in the error.
func TestNewGridRefusesWhatDoesNotFit(t *testing.T) {
	withLimit(t, 100e6)
	_, err := NewGrid3[float32](300, 300, 300) // 108 MB
	require.ErrorIs(t, err, ErrMemory)
	assert.ErrorContains(t, err, "lab: grid 300×300×300: needs 108.0 MB, 100.0 MB available (lab.MemoryLimit)")
	_, err = NewGrid2[float64](4000, 4000) // 128 MB
	assert.ErrorIs(t, err, ErrMemory)
	g, err := NewGrid3[float32](290, 290, 290) // 97.6 MB
	require.NoError(t, err)
	assert.Equal(t, 290*290*290, g.Len())
}

// Execute counts every grid it will allocate before the first, and names
// the largest cube that fits.
func TestExecuteChecksMemoryFirst(t *testing.T) {
	withLimit(t, 100e6)
	// Two grids of 250³ float32 are 125 MB; 8·N³ ≤ 1e8 up to N = 232.
	_, err := Execute(Run{Step: "reference", Backend: CPU, NZ: 250, NY: 250, NX: 250})
	require.ErrorIs(t, err, ErrMemory)
	assert.ErrorContains(t, err, "2 grids of 250×250×250 float32: needs 125.0 MB, 100.0 MB available (lab.MemoryLimit): N ≤ 232 fits")
	// Four with a host time loop: 16·N³ ≤ 1e8 up to N = 184.
	_, err = Execute(Run{Step: "reference", Backend: CPU, NZ: 200, NY: 200, NX: 200, Steps: 2})
	assert.ErrorContains(t, err, "4 grids of 200×200×200 float32: needs 128.0 MB, 100.0 MB available (lab.MemoryLimit): N ≤ 184 fits")
}

// CheckRun gives what a float64 time loop and Compare give, within the
// rounding of the float32 states between time steps.
func TestCheckRunMatchesAFloat64Reference(t *testing.T) {
	c := DistinctCoeffs()
	for _, steps := range []int{1, 2, 5} {
		src, err := NewGrid3[float32](9, 11, 13)
		require.NoError(t, err)
		src.FillRandom(uint64(steps))
		got := src.Clone()
		require.NoError(t, Advance(SevenPoint[float32], got, src, c, steps))
		want := Convert[float64](src)
		require.NoError(t, Advance(SevenPoint[float64], want, Convert[float64](src), c, steps))
		ref, err := Compare(Convert[float64](got).Data, want.Data)
		require.NoError(t, err)

		d, err := CheckRun(got, src.Clone(), c, steps)
		require.NoError(t, err)
		if steps == 1 {
			assert.InDelta(t, ref.MaxAbs, d.MaxAbs, 1e-15, "steps %d", steps)
			assert.InDelta(t, ref.RelL2, d.RelL2, 1e-15, "steps %d", steps)
			assert.Equal(t, ref.Worst, d.Worst)
		} else {
			// float32 states: both errors are a few float32 roundings.
			assert.InDelta(t, ref.MaxAbs, d.MaxAbs, 4e-7, "steps %d", steps)
		}
		assert.Greater(t, d.MaxAbs, 0.0)
		assert.Less(t, d.MaxAbs, 1e-5)
	}
	// A point the kernel never wrote shows as an infinite error.
	src, _ := NewGrid3[float32](5, 5, 5)
	src.FillRandom(9)
	got := src.Clone()
	require.NoError(t, SevenPoint(got, src, c))
	got.Set(2, 2, 2, float32(math.NaN()))
	d, err := CheckRun(got, src, c, 1)
	require.NoError(t, err)
	assert.True(t, math.IsInf(d.MaxAbs, 1))
	assert.Equal(t, got.Index(2, 2, 2), d.Worst)
}

// The check costs no extra grid for one time step and one float32 grid for
// more (the old one kept three float64 copies).
func TestCheckRunCostsAtMostOneGrid(t *testing.T) {
	c := DistinctCoeffs()
	src, err := NewGrid3[float32](40, 40, 40)
	require.NoError(t, err)
	src.FillRandom(1)
	got := src.Clone()
	require.NoError(t, SevenPoint(got, src, c))
	grid := float64(4 * src.Len())
	for _, steps := range []int{1, 3} {
		s := src.Clone()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := CheckRun(got, s, c, steps)
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		allocated := float64(after.TotalAlloc - before.TotalAlloc)
		assert.LessOrEqual(t, allocated, float64(CheckGrids(steps))*grid*1.05+8192, "steps %d", steps)
	}
	assert.Equal(t, 0, CheckGrids(1))
	assert.Equal(t, 1, CheckGrids(3))
}

// The check split over many goroutines reports what it reports on one: the
// same largest difference at the same point, and the same norm up to the
// order of its sums, on odd shapes with planted errors; of two equal
// largest differences far apart, the first in index order.
func TestCheckRunThreadsAgree(t *testing.T) {
	c := DistinctCoeffs()
	defer func(n int) { checkThreads = n }(checkThreads)
	for _, shape := range [][3]int{{3, 5, 7}, {17, 9, 13}, {31, 6, 11}} {
		nz, ny, nx := shape[0], shape[1], shape[2]
		for _, steps := range []int{1, 3} {
			src, err := NewGrid3[float32](nz, ny, nx)
			require.NoError(t, err)
			src.FillRandom(uint64(nz + steps))
			got := src.Clone()
			require.NoError(t, Advance(SevenPoint[float32], got, src, c, steps))
			got.Set(nz-2, 1, 1, got.At(nz-2, 1, 1)+0.5)
			got.Set(nz/2, 2, 3, got.At(nz/2, 2, 3)-0.25)
			tied := got.Clone() // two infinite differences
			tied.Set(nz-2, 1, 2, float32(math.NaN()))
			tied.Set(1, ny-2, nx-2, float32(math.NaN()))

			checkThreads = 1
			one, err := CheckRun(got, src.Clone(), c, steps)
			require.NoError(t, err)
			oneTied, err := CheckRun(tied, src.Clone(), c, steps)
			require.NoError(t, err)
			assert.InDelta(t, 0.5, one.MaxAbs, 1e-3)
			assert.Equal(t, got.Index(nz-2, 1, 1), one.Worst, "%v steps %d", shape, steps)
			assert.True(t, math.IsInf(oneTied.MaxAbs, 1))
			assert.Equal(t, min(got.Index(1, ny-2, nx-2), got.Index(nz-2, 1, 2)), oneTied.Worst, "%v steps %d", shape, steps)
			for _, threads := range []int{2, 3, 7, 64} {
				checkThreads = threads
				many, err := CheckRun(got, src.Clone(), c, steps)
				require.NoError(t, err)
				assert.Equal(t, one.MaxAbs, many.MaxAbs, "%v steps %d threads %d", shape, steps, threads)
				assert.Equal(t, one.Worst, many.Worst, "%v steps %d threads %d", shape, steps, threads)
				assert.InEpsilon(t, one.RelL2, many.RelL2, 1e-12, "%v steps %d threads %d", shape, steps, threads)
				manyTied, err := CheckRun(tied, src.Clone(), c, steps)
				require.NoError(t, err)
				assert.Equal(t, oneTied.Worst, manyTied.Worst, "%v steps %d threads %d", shape, steps, threads)
			}
		}
	}
}
