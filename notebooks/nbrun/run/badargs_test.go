package run

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

func TestNearMissStepNames(t *testing.T) {
	_, err := Simulate("tiledd", 8, 0)
	assert.ErrorIs(t, err, lab.ErrUnknown)
	assert.ErrorContains(t, err, `did you mean "tiled"?`)
	_, err = Sweep("coarsend", 8, 0)
	assert.ErrorContains(t, err, `did you mean "coarsened"?`)
	_, err = Simulate("tiled_no_barier", 8, 0)
	assert.ErrorContains(t, err, `did you mean "tiled_no_barrier"?`)
}

func TestStudentKernelPanicIsAnError(t *testing.T) {
	k := func(a lab.StencilArgs) (sim.Kernel, error) { return sim.Kernel{}, fmt.Errorf("%d", []int{}[a.NX]) }
	r, err := SimulateKernel("mine", k, 6, 0)
	assert.ErrorIs(t, err, sim.ErrFault)
	assert.ErrorContains(t, err, "panicked")
	assert.False(t, r.OK())
}
