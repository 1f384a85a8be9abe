package exercise

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/gpu"
)

// Without a GPU the notebook's call withholds the score and says that the
// exercise is graded on a GPU later; it does not fail, and the cell shows
// no FAIL.
func TestCUDAExerciseWithoutAGPU(t *testing.T) {
	if d, err := gpu.Default(); err == nil {
		t.Skipf("this machine has a GPU (%s): the needs_gpu path is tested where there is none", d.Props().Name)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "exercises", "20_cuda_basic", "basic.cu"))
	require.NoError(t, err)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	stdout := os.Stdout
	os.Stdout = w
	res, err := CUDAExercise("20_cuda_basic", string(src))
	os.Stdout = stdout
	require.NoError(t, w.Close())
	printed, readErr := io.ReadAll(r)
	require.NoError(t, readErr)
	require.NoError(t, err)
	assert.Contains(t, string(printed), "graded on a GPU later")
	assert.NotContains(t, string(printed), "FAIL")
	assert.Equal(t, grading.NeedsGPU, res.Status)
	assert.Zero(t, res.Points)
	assert.Contains(t, res.Message, "withheld, not zero")

	_, err = CUDAExercise("99_nothing", "")
	assert.ErrorContains(t, err, `no CUDA exercise "99_nothing"`)
}
