package gpu

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
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

// NVRTC's log as the student sees it: the diagnostics of their file, with
// their quoted lines, and the count; nothing of another file the compiler
// read (a /proc file, a header) and no line the lab does not know.
func TestStudentLogKeepsTheStudentsLines(t *testing.T) {
	log := strings.Join([]string{
		"basic.cu(12): error: identifier \"x\" is undefined",
		"      x = 1;",
		"      ^",
		"",
		"/proc/self/mountinfo(1): error: this declaration has no storage class or type specifier",
		"  22 1 0:21 / /grader/secret rw,relatime shared:1 - ext4 /dev/sda1 rw",
		"  ^",
		"",
		"/usr/include/x.h(3): warning #177-D: variable \"HOME=/home/instructor\" was declared but never referenced",
		"",
		"basic.cu(14): warning #550-D: variable \"y\" was set but never used",
		"        int y = 2;",
		"            ^",
		"",
		"Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"",
		"mount table: /grader/secret",
		"",
		"2 errors detected in the compilation of \"basic.cu\".",
	}, "\n")
	got := StudentLog("basic.cu", log)
	want := strings.Join([]string{
		"basic.cu(12): error: identifier \"x\" is undefined", "      x = 1;", "      ^", "",
		"basic.cu(14): warning #550-D: variable \"y\" was set but never used", "        int y = 2;", "            ^", "",
		"2 errors detected in the compilation of \"basic.cu\".",
		"(2 diagnostics about other files than basic.cu left out)",
	}, "\n")
	assert.Equal(t, want, got)
	for _, leak := range []string{"/proc", "/grader", "instructor", "/usr/include"} {
		assert.NotContains(t, got, leak)
	}

	inner := &NVRTCError{Call: "nvrtcCompileProgram", Name: "NVRTC_ERROR_COMPILATION", Log: log}
	long := strings.Repeat("basic.cu(1): error: e\n", 3*maxLogLines)
	lines := strings.Split(StudentLog("basic.cu", long), "\n")
	assert.Len(t, lines, maxLogLines+1)
	assert.Equal(t, fmt.Sprintf("… %d more lines", 2*maxLogLines), lines[maxLogLines])
	assert.NotContains(t, (&CompileLogError{File: "basic.cu", Log: StudentLog("basic.cu", inner.Log)}).Error(), "/proc")
}

func FuzzStudentLog(f *testing.F) {
	f.Add("basic.cu(1): error: x\n  a\n\nsecret(2): error: SECRET\n  SECRET\n")
	f.Add("1 error detected in the compilation of \"basic.cu\".\nSECRET")
	f.Fuzz(func(t *testing.T, log string) {
		// Whatever NVRTC writes, a line under a diagnostic of another file
		// never reaches the student, and every line kept is one of the
		// student's diagnostics, a line under one, the count or the note.
		got := StudentLog("basic.cu", log)
		if len(got) > (maxLogLines+2)*(maxLogLine+8) {
			t.Fatalf("%d bytes kept", len(got))
		}
		under := false
		for _, l := range strings.Split(got, "\n") {
			switch {
			case strings.HasPrefix(l, "basic.cu("):
				under = true
			case l == "":
				under = false
			case logSummary.MatchString(l), strings.HasPrefix(l, "(") && strings.HasSuffix(l, "left out)"), strings.HasPrefix(l, "… "):
			case !under:
				t.Fatalf("%q kept outside a diagnostic of the file, from %q", l, log)
			}
		}
	})
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
