package cudacoarsened

import (
	"testing"

	"stencillab.dev/exercises/cudacheck"
)

func TestMain(m *testing.M) { cudacheck.Main(m) }

// TestGrade runs the GPU checks of this exercise on coarsened.cu (skipped, with the
// reason, on a machine without a GPU).
func TestGrade(t *testing.T) { cudacheck.Test(t, "22_cuda_coarsened") }
