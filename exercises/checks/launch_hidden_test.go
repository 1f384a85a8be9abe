//go:build hidden

package checks

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab/sim"
)

// These tests hold a correct answer of exercise 11 (launchAnswer), so
// they are built with the tag hidden and left out of the students' copy.

// TestLaunchChecksNameTheMistake grades wrong answers of each kind and
// checks that the check named for the mistake fails, with a hint, and
// that a correct answer passes them all.
func TestLaunchChecksNameTheMistake(t *testing.T) {
	good := launchAnswer()
	res := grading.Run(Launch(good), legitOptions(t, 11))
	require.Equal(t, res.MaxPoints, res.Points, "%+v", res.Checks)

	outTile := good
	outTile.Configure = func(kernel string, T, nz, ny, nx int) (sim.Dim3, sim.Dim3, int, error) {
		g, b, s, err := good.Configure(kernel, T, nz, ny, nx)
		b.X, b.Y = T-4, T-4
		if b.Z != 1 {
			b.Z = T - 4
		}
		return g, b, s, err
	}
	floats := good
	floats.Configure = func(kernel string, T, nz, ny, nx int) (sim.Dim3, sim.Dim3, int, error) {
		g, b, s, err := good.Configure(kernel, T, nz, ny, nx)
		return g, b, s / 4, err
	}
	fullTile := good
	fullTile.Configure = func(kernel string, T, nz, ny, nx int) (sim.Dim3, sim.Dim3, int, error) {
		_, b, s, err := good.Configure(kernel, T, nz, ny, nx)
		up := func(n int) int { return (n + T - 1) / T }
		return sim.Dim3{X: up(nx), Y: up(ny), Z: up(nz)}, b, s, err
	}
	noLimitWrap := good
	noLimitWrap.Validate = func(grid, block sim.Dim3, shared int, lim sim.Limits) error {
		if err := good.Validate(grid, block, shared, lim); err != nil {
			return errors.New(err.Error())
		}
		return nil
	}
	syncFirst := good
	syncFirst.Report = func(kernel string, launchErr, syncErr error) error {
		if syncErr != nil {
			return fmt.Errorf("%s: %w", kernel, syncErr)
		}
		return good.Report(kernel, launchErr, nil)
	}
	for name, c := range map[string]struct {
		fn     LaunchFuncs
		checks []string
		hint   string
	}{
		"output tile as block": {outTile, []string{"tiled", "coarsened"}, "that is the output tile"},
		"floats not bytes":     {floats, []string{"tiled", "coarsened"}, "counts floats"},
		"blocks of T outputs":  {fullTile, []string{"tiled", "coarsened"}, "T−4 points, not T"},
		"limit not wrapped":    {noLimitWrap, []string{"threads", "shared", "dimensions"}, "does not wrap sim.ErrLimit"},
		"wait checked first":   {syncFirst, []string{"report"}, "checked first"},
	} {
		res := grading.Run(Launch(c.fn), legitOptions(t, 12))
		failed := map[string]string{}
		for _, r := range res.Checks {
			if !r.Passed && !r.Hidden { // the hidden checks repeat the public ones
				failed[r.ID] = r.Message
			}
		}
		assert.Len(t, failed, len(c.checks), "%s: %v", name, failed)
		for _, id := range c.checks {
			msg, ok := failed[id]
			if assert.True(t, ok, "%s fails %s", name, id) {
				assert.Contains(t, msg, c.hint, "%s/%s", name, id)
			}
		}
	}
}

// TestLaunchRefusalsScoreOnlyWhatTheyVerify grades answers of Validate
// that never look at the limits: one that refuses every launch and quotes
// every number it was given (so that any number a check looks for is in
// its message), one that allows every launch, and one that alternates.
// None scores a point of the checks of Validate, while the correct answer
// scores them all.
func TestLaunchRefusalsScoreOnlyWhatTheyVerify(t *testing.T) {
	good := launchAnswer()
	quoteAll := func(grid, block sim.Dim3, shared int, lim sim.Limits) error {
		return fmt.Errorf("launch refused: grid %d %d %d, block %d %d %d = %d threads, %d bytes, limits %d threads and %d bytes: %w",
			grid.X, grid.Y, grid.Z, block.X, block.Y, block.Z, block.Size(), shared, lim.MaxThreads, lim.MaxSharedBytes, sim.ErrLimit)
	}
	refuseAll := good
	refuseAll.Validate = quoteAll
	allowAll := good
	allowAll.Validate = func(sim.Dim3, sim.Dim3, int, sim.Limits) error { return nil }
	alternate := good
	calls := 0
	alternate.Validate = func(grid, block sim.Dim3, shared int, lim sim.Limits) error {
		calls++
		if calls%2 == 1 {
			return quoteAll(grid, block, shared, lim)
		}
		return nil
	}
	validateChecks := []string{"legal", "threads", "shared", "dimensions"}
	for seed := uint64(1); seed <= 5; seed++ {
		score := func(fn LaunchFuncs) map[string]int {
			res := grading.Run(Launch(fn), legitOptions(t, seed))
			pts := map[string]int{}
			for _, r := range res.Checks {
				pts[r.ID] = r.Points
			}
			return pts
		}
		want := score(good)
		for _, id := range validateChecks {
			assert.Positive(t, want[id], "seed %d: the correct answer scores %s", seed, id)
		}
		for name, fn := range map[string]LaunchFuncs{"refuse all": refuseAll, "allow all": allowAll, "alternate": alternate} {
			got := score(fn)
			for _, id := range validateChecks {
				assert.Zero(t, got[id], "seed %d: %s scores %s", seed, name, id)
			}
			for _, id := range []string{"tiled", "coarsened", "bad-config", "report"} {
				assert.Equal(t, want[id], got[id], "seed %d: %s keeps %s, which does not call Validate", seed, name, id)
			}
		}
	}
}

// launchAnswer is a correct answer of exercise 11, written here from the
// exercise's text.
func launchAnswer() LaunchFuncs {
	return LaunchFuncs{
		Configure: func(kernel string, T, nz, ny, nx int) (sim.Dim3, sim.Dim3, int, error) {
			if T < 5 || nz < 1 || ny < 1 || nx < 1 || (kernel != kTiled && kernel != kCoarsened) {
				return sim.Dim3{}, sim.Dim3{}, 0, errors.New("bad")
			}
			up := func(n int) int { return (n + T - 5) / (T - 4) }
			g := sim.Dim3{X: up(nx), Y: up(ny), Z: up(nz)}
			if kernel == kTiled {
				return g, sim.Dim3{X: T, Y: T, Z: T}, 4 * T * T * T, nil
			}
			return g, sim.Dim3{X: T, Y: T, Z: 1}, 20 * T * T, nil
		},
		Validate: func(grid, block sim.Dim3, shared int, lim sim.Limits) error {
			refuse := func(f string, a ...any) error { return fmt.Errorf(f+": %w", append(a, sim.ErrLimit)...) }
			for _, n := range []int{grid.X, grid.Y, grid.Z, block.X, block.Y, block.Z} {
				if n < 1 {
					return refuse("dimension %d below 1", n)
				}
			}
			switch {
			case block.X > 1024 || block.Y > 1024 || block.Z > 64:
				return refuse("block %d×%d×%d too large", block.X, block.Y, block.Z)
			case grid.X > 1<<31-1 || grid.Y > 65535 || grid.Z > 65535:
				return refuse("grid %d×%d×%d too large", grid.X, grid.Y, grid.Z)
			case block.Size() > lim.MaxThreads:
				return refuse("%d threads over %d", block.Size(), lim.MaxThreads)
			case shared < 0 || shared > lim.MaxSharedBytes:
				return refuse("%d bytes over %d", shared, lim.MaxSharedBytes)
			}
			return nil
		},
		Report: func(kernel string, launchErr, syncErr error) error {
			if launchErr != nil {
				return fmt.Errorf("%s: %w", kernel, launchErr)
			}
			if syncErr != nil {
				return fmt.Errorf("%s: %w", kernel, syncErr)
			}
			return nil
		},
	}
}
