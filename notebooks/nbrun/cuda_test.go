package nbrun

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/gpu"
)

// Without a GPU the notebook's call says needs_gpu and withholds the
// score; it does not fail.
func TestCUDAExerciseWithoutAGPU(t *testing.T) {
	if d, err := gpu.Default(); err == nil {
		t.Skipf("this machine has a GPU (%s): the needs_gpu path is tested where there is none", d.Props().Name)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "exercises", "20_cuda_basic", "basic.cu"))
	require.NoError(t, err)
	res, err := CUDAExercise("20_cuda_basic", string(src))
	require.NoError(t, err)
	assert.Equal(t, grading.NeedsGPU, res.Status)
	assert.Zero(t, res.Points)
	assert.Contains(t, res.Message, "withheld, not zero")

	_, err = CUDAExercise("99_nothing", "")
	assert.ErrorContains(t, err, `no CUDA exercise "99_nothing"`)
}
