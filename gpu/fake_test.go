package gpu

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/gpu/cu"
	"stencillab.dev/lab"
)

// withFake makes the package call a fake device that reports itself as
// an H200 does, for the rest of the test, and opens it.
func withFake(t *testing.T) (*cu.Fake, *Device) {
	t.Helper()
	f := &cu.Fake{
		Name: "NVIDIA H200 (fake)", TotalMem: 1 << 30, Occupancy: 2, Archs: []int{80, 90},
		Attrs: map[int]int{
			attrMaxThreadsPerBlock: 1024, attrMaxBlockDimX: 1024, attrMaxBlockDimX + 1: 1024, attrMaxBlockDimX + 2: 64,
			attrMaxGridDimX: 1<<31 - 1, attrMaxGridDimX + 1: 65535, attrMaxGridDimX + 2: 65535,
			attrMaxSharedPerBlock: 48 * 1024, attrMultiprocessors: 132, attrComputeMajor: 9, attrComputeMinor: 0,
			attrL2CacheSize: 60 << 20, attrMaxThreadsPerSM: 2048, attrMaxSharedOptin: 227 * 1024,
			attrMaxSharedPerSM: 228 * 1024, attrMemoryClockKHz: 2_619_000, attrMemoryBusWidthBits: 6144,
			attrRegistersPerSM: 65536, attrMaxBlocksPerSM: 32, attrReservedSharedPerB: 1024,
		},
		FuncAttrs: map[int]int{funcAttrMaxThreads: 1024, funcAttrRegisters: 32},
	}
	old, loaded, lib, rtc, rtcLib := drv, driverLoaded.Load(), driverLib, nvrtcLoaded, nvrtcLib
	drv = f
	t.Cleanup(func() {
		drv = old
		driverLoaded.Store(loaded)
		driverLib, nvrtcLoaded, nvrtcLib = lib, rtc, rtcLib
	})
	driverLoaded.Store(false)
	nvrtcLoaded = false
	d, err := Open(0)
	require.NoError(t, err)
	t.Cleanup(func() { d.Close() })
	return f, d
}

// last returns the one launch since the fake was last reset, which it
// must have accepted.
func last(t *testing.T, f *cu.Fake) cu.Launch {
	t.Helper()
	ls := f.Launches()
	require.Len(t, ls, 1)
	require.Empty(t, ls[0].Refused)
	f.Reset()
	return ls[0]
}

// Every 3D step's launcher passes its kernel the grids, the sides, the
// seven coefficients and, for a step whose blocks march through planes,
// those planes, as the entry's parameters in its .cu file declare them;
// its launch is the lab's geometry for the step, or the tuning's.
func TestEvery3DLauncherOnTheFake(t *testing.T) {
	f, d := withFake(t)
	co := lab.DistinctCoeffs()
	require.NotEmpty(t, Steps3())
	for _, step := range Steps3() {
		k, err := d.Stencil3(step, Options{})
		require.NoError(t, err, step)
		for _, nx := range []int{512, 130} { // float4 rows and scalar rows
			nz, ny := 12, 10
			src, err := d.Alloc(nz * ny * nx)
			require.NoError(t, err)
			dst, err := d.Alloc(nz * ny * nx)
			require.NoError(t, err)
			f.Reset()
			got, err := k.Launch(dst, src, nz, ny, nx, co)
			require.NoError(t, err, "%s nx=%d", step, nx)
			l := last(t, f)
			assert.Equal(t, k.cfg.entry(nx), l.Entry.Name, step)
			want := []any{src.ptr, dst.ptr, int32(nz), int32(ny), int32(nx)}
			for _, c := range co {
				want = append(want, float32(c))
			}
			if len(l.Args) == len(want)+1 {
				want = append(want, int32(got.Planes))
				assert.Positive(t, got.Planes, step)
			}
			assert.Equal(t, want, l.Args, "%s nx=%d", step, nx)
			assert.Equal(t, got.Grid, l.Grid, step)
			assert.Equal(t, got.Block, l.Block, step)
			assert.Equal(t, got.DynamicShared, l.Shared, step)
			if k.cfg.tuned == nil {
				g := k.cfg.desc.Geometry(nz, ny, nx, k.cfg.labConfig())
				assert.Equal(t, [3]int{g.Grid.X, g.Grid.Y, g.Grid.Z}, l.Grid, "%s: the lab's grid", step)
				assert.Equal(t, [3]int{g.Block.X, g.Block.Y, g.Block.Z}, l.Block, "%s: the lab's block", step)
			}
			require.NoError(t, src.Free())
			require.NoError(t, dst.Free())
		}
	}
}

// The memory kernels, the 1D and 2D steps pass what their .cu files
// declare, with the values the caller gave.
func TestMemoryAnd1D2DLaunchersOnTheFake(t *testing.T) {
	f, d := withFake(t)
	const n = 4096
	a, err := d.Alloc(n)
	require.NoError(t, err)
	b, err := d.Alloc(n)
	require.NoError(t, err)

	_, err = d.Copy(b, a)
	require.NoError(t, err)
	l := last(t, f)
	assert.Equal(t, "copy_float4", l.Entry.Name)
	assert.Equal(t, []any{a.ptr, b.ptr, int64(n)}, l.Args)
	assert.Equal(t, copyGeometry(n).Grid, l.Grid)

	require.NoError(t, a.FillRandom(77))
	l = last(t, f)
	assert.Equal(t, "fill_random", l.Entry.Name)
	assert.Equal(t, []any{a.ptr, int64(n), uint64(77)}, l.Args)

	for _, nx := range []int{16, 15} {
		_, err = d.MeasureCopyInterior(b, a, 16, 16, nx, 0, 1)
		require.NoError(t, err)
		l = last(t, f)
		assert.Contains(t, []string{"copy_interior4", "copy_interior1"}, l.Entry.Name)
		assert.Equal(t, []any{a.ptr, b.ptr, int32(16), int32(16), int32(nx)}, l.Args)
	}

	s1, err := lab.CentralDifference(2, 2)
	require.NoError(t, err)
	p1, err := d.Derivative1(s1, 0)
	require.NoError(t, err)
	const h = 0.25
	_, err = p1.Launch(b, a, n, h)
	require.NoError(t, err)
	l = last(t, f)
	assert.Equal(t, "derivative", l.Entry.Name)
	w := make([]float32, 9)
	for i, c := range s1.Coeffs {
		w[i] = float32(c)
	}
	assert.Equal(t, []any{a.ptr, b.ptr, int64(n), w, float32(1 / math.Pow(h, 2))}, l.Args)
	assert.Equal(t, derivativeGeometry(n, 2, p1.tile).Grid, l.Grid)

	c5 := [5]float64{0.5, 0.1, 0.2, 0.3, 0.4}
	p2, err := d.FivePoint2(lab.FivePoint(c5), 0)
	require.NoError(t, err)
	_, err = p2.Launch(b, a, 64, 64)
	require.NoError(t, err)
	l = last(t, f)
	assert.Equal(t, "five_point", l.Entry.Name)
	require.Len(t, l.Args, 9)
	assert.Equal(t, []any{a.ptr, b.ptr, int32(64), int32(64)}, l.Args[:4])
	assert.ElementsMatch(t, []any{float32(0.5), float32(0.1), float32(0.2), float32(0.3), float32(0.4)}, l.Args[4:])
}
