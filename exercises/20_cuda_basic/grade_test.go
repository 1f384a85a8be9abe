package cudabasic

import (
	"testing"

	"stencillab.dev/exercises/cudacheck"
)

func TestMain(m *testing.M) { cudacheck.Main(m) }

// TestGrade runs the GPU checks of this exercise on basic.cu (skipped, with the
// reason, on a machine without a GPU).
func TestGrade(t *testing.T) { cudacheck.Test(t, "20_cuda_basic") }
