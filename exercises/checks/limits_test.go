package checks

import (
	"testing"
	"time"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/internal/testlimit"
)

// legitOptions are the options of a grading run in a test: the seed (0
// draws one), and a limit per check derived from the test's deadline
// instead of grading's fixed default. The checks these tests run end by
// themselves (no test here relies on a check's time limit to stop it), so
// a loaded machine can slow them but not time them out; go test -timeout
// still catches a hang.
func legitOptions(t *testing.T, seed uint64) grading.Options {
	return grading.Options{Seed: seed, CheckTimeout: testlimit.Legit(t)}
}

// defaultHaloTimeout is haloTimeout as the grader sets it.
var defaultHaloTimeout = haloTimeout

// legitHaloTimeout is the limit of the ranks of a case that end by
// themselves: the test's remaining time, within the most a case may ask
// for (maxHaloTimeoutMs, far above what the checks' small grids need even
// on a loaded machine).
func legitHaloTimeout(t *testing.T) time.Duration {
	return min(testlimit.Legit(t), maxHaloTimeoutMs*time.Millisecond)
}
