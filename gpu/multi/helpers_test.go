package multi

import (
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"stencillab.dev/gpu"
	"stencillab.dev/lab"
)

// envTestN limits the sizes checked, e.g. STENCIL_TEST_N=67 under
// compute-sanitizer (as gpu's tests read it).
const envTestN = "STENCIL_TEST_N"

// envTestLarge=1 adds the large checks.
const envTestLarge = "STENCIL_TEST_LARGE"

// device returns the default device or skips the test with the reason.
func device(t *testing.T) *gpu.Device {
	t.Helper()
	d, err := gpu.Default()
	if errors.Is(err, gpu.ErrNoGPU) {
		t.Skip(err.Error())
	}
	require.NoError(t, err)
	return d
}

var (
	seedBase  = uint64(time.Now().UnixNano())
	seedCount atomic.Uint64
)

// freshSeed returns a new seed for every call, different in every run.
func freshSeed() uint64 { return seedBase + 7919*seedCount.Add(1) }

// randomCoeffs returns seven distinct coefficients drawn afresh: the
// distinct defaults shuffled, each perturbed by up to 5%.
func randomCoeffs(seed uint64) lab.Coeffs {
	r := rand.New(rand.NewPCG(seed, 17))
	c := lab.DistinctCoeffs()
	r.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
	for i := range c {
		c[i] *= 1 + 0.05*(2*r.Float64()-1)
	}
	return c
}
