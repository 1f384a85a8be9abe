package gpu

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab"
)

// tunedSteps are the steps whose parameter tables try values in the timed
// choice.
func tunedSteps(t *testing.T) []lab.Plan {
	t.Helper()
	var plans []lab.Plan
	for _, name := range append(Steps3(), Steps13()...) {
		p, err := lab.Resolve(name, lab.GPU, lab.Config{})
		require.NoError(t, err, name)
		cs, err := Candidates(p)
		require.NoError(t, err, name)
		if len(cs) > 1 {
			plans = append(plans, p)
		}
	}
	return plans
}

// On the device, every candidate of every tuned step computes the whole
// grid as the host does over 12 time steps (a multiple of every tried k),
// at sizes that are not tile multiples; the choice is the fastest of them,
// and a second call reads it from the cache.
func TestGPUChoice(t *testing.T) {
	d := device(t)
	plans := tunedSteps(t)
	require.NotEmpty(t, plans)
	for _, n := range testSizes(t) {
		if n < 5 || n > 256 {
			continue
		}
		for _, p := range plans {
			if msg := withheld(t, p.Name); msg != "" {
				t.Logf("%s is not tried: %s", p.Name, msg)
				continue
			}
			dir := t.TempDir()
			sp := ChooseSpec{N: n, Steps: 12, Warmup: 0, Reps: 2, Tolerance: 1e-5, Mode: TuneFresh, Dir: dir, Seed: freshSeed()}
			c, err := d.Choose(p, sp)
			require.NoError(t, err, "%s N=%d", p.Name, n)
			best := -1
			for i, tr := range c.Tried {
				assert.Empty(t, tr.Err, "%s N=%d %s", p.Name, n, tr.Setting)
				if tr.Err == "" && (best < 0 || tr.Ms < c.Tried[best].Ms) {
					best = i
				}
			}
			require.GreaterOrEqual(t, best, 0)
			assert.Equal(t, c.Tried[best].Setting, c.Setting.String(), "%s N=%d: the fastest", p.Name, n)
			sp.Mode = TuneCache
			again, err := d.Choose(p, sp)
			require.NoError(t, err)
			assert.True(t, again.Cached, "%s N=%d", p.Name, n)
			assert.Equal(t, c.Setting.String(), again.Setting.String())
		}
	}
}
