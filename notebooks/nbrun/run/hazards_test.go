package run

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// Divergent barriers are counted beside the shared-memory hazards, and
// only when there are some.
func TestHazardsCountsDivergentBarriers(t *testing.T) {
	r := Result{Result: lab.Result{Stats: sim.Stats{HazardCounts: sim.HazardCounts{ReadAfterWrite: 2, DivergentBarrier: 3}}}}
	assert.Equal(t, "5 hazards: 2 read after write, 0 write after read, 0 write after write, 0 uninitialised reads, 3 divergent barriers", r.Hazards(3))
	r = Result{Result: lab.Result{Stats: sim.Stats{HazardCounts: sim.HazardCounts{Uninitialised: 1}}}}
	assert.Equal(t, "1 hazards: 0 read after write, 0 write after read, 0 write after write, 1 uninitialised reads", r.Hazards(3))
}
