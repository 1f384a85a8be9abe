package cuda_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/cuda"
	"stencillab.dev/exercises/release"
	"stencillab.dev/internal/cuda2go"
)

// thirteenPoint reports whether a kernel takes the thirteen coefficients of
// the exercises' star (exercises/README.md: "float c0, …, float c12"), as
// floats c0 … c12 or as a struct of thirteen floats.
func thirteenPoint(e cuda2go.Entry) bool {
	floats := map[string]bool{}
	for _, p := range e.Params {
		if p.Kind == cuda2go.Floats && p.N == 13 {
			return true
		}
		if p.Kind == cuda2go.Float32 {
			floats[p.Name] = true
		}
	}
	for i := range 13 {
		if !floats[fmt.Sprintf("c%d", i)] {
			return false
		}
	}
	return true
}

// The reading of a kernel's signature above is the exercises' own: every
// CUDA exercise's kernel is a thirteen-point star by it, and the chapter's
// seven-point kernels are not.
func TestThirteenPointIsTheExercisesSignature(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "exercises", "[0-9][0-9]_cuda_*", "*.cu"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "the CUDA exercises")
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		es, err := cuda2go.Parse(filepath.Base(f), string(b))
		require.NoError(t, err, f)
		require.NotEmpty(t, es, f)
		for _, e := range es {
			assert.True(t, thirteenPoint(e), "%s: %s", f, e.Name)
		}
	}
	src, err := cuda.Source("register_tiled")
	require.NoError(t, err)
	es, err := cuda2go.Parse("register_tiled.cu", src)
	require.NoError(t, err)
	require.NotEmpty(t, es)
	for _, e := range es {
		assert.False(t, thirteenPoint(e), "the chapter's seven-point %s", e.Name)
	}
}

// Every kernel of this package that computes the exercises' star is the
// answer to a CUDA exercise, which the students' copy must not hold: its
// file withholds itself from the release (release.WithheldReason), and the
// release writes a placeholder in its place. In the students' copy the
// file is that placeholder, which keeps the marker and the signatures.
func TestThirteenPointKernelsAreWithheld(t *testing.T) {
	found := 0
	for _, name := range cuda.Names() {
		src, err := cuda.Source(name)
		require.NoError(t, err)
		why, err := release.WithheldReason(name+".cu", []byte(src))
		require.NoError(t, err, "%s.cu: its withholding marker", name)
		es, err := cuda2go.Parse(name+".cu", src)
		require.NoError(t, err, name)
		for _, e := range es {
			if !thirteenPoint(e) {
				continue
			}
			found++
			assert.NotEmpty(t, why, "%s.cu: its kernel %s takes c0 … c12, the exercises' star, so it answers a CUDA exercise; "+
				"withhold it from the students' copy with a line %q in its opening comment", name, e.Name, release.WithholdMarker+"REASON")
		}
		if why != "" {
			_, err := release.Placeholder(name+".cu", []byte(src))
			assert.NoError(t, err, "%s.cu: the release can write its placeholder", name)
		}
	}
	t.Logf("%d thirteen-point kernels, each withheld", found)
}
