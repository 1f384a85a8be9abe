package gpu

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/cuda"
	"stencillab.dev/lab"
)

// StepGeometry gives a source written for a step the step's launch: for
// basic one thread per point in T×T×T blocks, ⌈n/T⌉ blocks per axis; for
// tiled ⌈(n−2)/(T−2)⌉ blocks of T³ threads.
func TestStepGeometryFollowsTheLab(t *testing.T) {
	g, err := StepGeometry("basic", 4, 10, 11, 13)
	require.NoError(t, err)
	assert.Equal(t, [3]int{4, 4, 4}, g.Block)
	assert.Equal(t, [3]int{(13 + 3) / 4, (11 + 3) / 4, (10 + 3) / 4}, g.Grid)
	assert.Zero(t, g.SharedBytes, "the compiled kernel's shared memory is added at launch")

	g, err = StepGeometry("tiled", 6, 10, 11, 13)
	require.NoError(t, err)
	assert.Equal(t, [3]int{6, 6, 6}, g.Block)
	assert.Equal(t, [3]int{(13 - 1 + 3) / 4, (11 - 1 + 3) / 4, (10 - 1 + 3) / 4}, g.Grid)

	_, err = StepGeometry("basic", 4, 2, 5, 5)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "side below 3")
}

// A compile error keeps NVRTC's log, which names the student's file.
func TestCompileLogErrorNamesTheFile(t *testing.T) {
	inner := &NVRTCError{Call: "nvrtcCompileProgram", Name: "NVRTC_ERROR_COMPILATION", Log: "basic.cu(12): error: identifier \"x\" is undefined\n"}
	e := &CompileLogError{File: "basic.cu", Log: inner.Log, err: inner}
	assert.Equal(t, "gpu: basic.cu does not compile:\nbasic.cu(12): error: identifier \"x\" is undefined", e.Error())
	var ne *NVRTCError
	assert.True(t, errors.As(e, &ne))
}

// A source compiled from text, launched with its step's geometry, sweeps
// as the lab's reference does; a broken one comes back with NVRTC's log
// naming its file and line; a missing entry names the function to write.
func TestGPUCompileSource(t *testing.T) {
	d := device(t)
	text, err := cuda.Source("tiled.cu")
	require.NoError(t, err)
	geom := func(nz, ny, nx int) (Geometry, error) { return StepGeometry("tiled", 6, nz, ny, nx) }
	k, err := d.CompileSource("student.cu", text, "tiled", []Define{{"IN_TILE_DIM", "6"}}, geom)
	require.NoError(t, err)
	nz, ny, nx := 13, 10, 17
	src, err := lab.NewGrid3[float32](nz, ny, nx)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(freshSeed(), 3))
	for i := range src.Data {
		src.Data[i] = float32(2*r.Float64() - 1)
	}
	c := randomCoeffs(freshSeed())
	a, b := allocPoints(t, d, len(src.Data)), allocPoints(t, d, len(src.Data))
	require.NoError(t, a.Upload(0, src.Data))
	require.NoError(t, b.Poison())
	_, err = k.Launch(b, a, nz, ny, nx, c)
	require.NoError(t, err)
	got, _ := lab.NewGrid3[float32](nz, ny, nx)
	require.NoError(t, b.Download(0, got.Data))
	want := got.Clone() // boundary NaN as poisoned
	require.NoError(t, lab.SevenPoint(want, src, c))
	diff, err := lab.Compare3(got, want)
	require.NoError(t, err)
	assert.LessOrEqual(t, diff.MaxAbs, tol3)

	_, err = d.CompileSource("student.cu", "extern \"C\" __global__ void tiled(float* x) {\n  x[0] = y;\n}\n", "tiled", nil, geom)
	var ce *CompileLogError
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, ce.Log, "student.cu(2)")

	_, err = d.CompileSource("student.cu", text, "basic", []Define{{"IN_TILE_DIM", "6"}}, geom)
	assert.ErrorContains(t, err, "student.cu has no kernel basic")

	big := func(nz, ny, nx int) (Geometry, error) {
		return Geometry{Block: [3]int{34, 34, 1}, Grid: [3]int{1, 1, 1}}, nil
	}
	k, err = d.CompileSource("student.cu", text, "tiled", []Define{{"IN_TILE_DIM", "6"}}, big)
	require.NoError(t, err)
	_, err = k.Geometry(5, 5, 5)
	assert.ErrorContains(t, err, "block 34×34×1 = 1156 threads exceeds 1024")
}

// allocPoints allocates a buffer of n floats (allocN takes a cube's side),
// freed at the end of the test.
func allocPoints(t *testing.T, d *Device, n int) *Buffer {
	t.Helper()
	b, err := d.Alloc(n)
	require.NoError(t, err)
	t.Cleanup(func() { b.Free() })
	return b
}
