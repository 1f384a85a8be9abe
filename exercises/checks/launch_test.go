package checks

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheSimulatorsValidationIsNotAnAnswer: the simulator checks a launch
// itself (sim.Simulator.Validate, which names the limit broken); a file
// that hands Validate to it is refused, as is one that reaches the lab.
func TestTheSimulatorsValidationIsNotAnAnswer(t *testing.T) {
	e, err := launchDecl.stub()
	require.NoError(t, err)
	for name, body := range map[string]string{
		"simulator": `var s sim.Simulator
	return s.Validate(sim.Kernel{Grid: grid, Block: block, Body: func(*sim.Thread) {}})`,
		"launch": `_, err := (&sim.Simulator{Limits: lim}).Launch(sim.Kernel{Grid: grid, Block: block})
	return err`,
	} {
		src := fmt.Sprintf(`package launch

import "stencillab.dev/lab/sim"

// Validate hands the work to the simulator.
func Validate(grid, block sim.Dim3, sharedBytes int, lim sim.Limits) error {
	%s
}
`, body)
		vs, err := static.Check(context.Background(), e, map[string][]byte{"launch.go": []byte(src)})
		require.NoError(t, err, name)
		require.NotEmpty(t, vs, "%s: refused", name)
		assert.False(t, vs[0].Compile, "%s: refused by the list, not for not compiling: %v", name, vs)
		assert.Contains(t, fmt.Sprint(vs), "Simulator", name)
	}
}
