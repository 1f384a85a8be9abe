package cudacheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/internal/testlimit"
)

// envChild marks the test binary started as the child of the GPU checks.
const envChild = "STENCILLAB_CUDA_CHILD"

// Main is the TestMain of a CUDA exercise's tests: started by Test as the
// child of the GPU checks, the test binary runs them (ChildMain) instead of
// the tests.
func Main(m *testing.M) {
	if os.Getenv(envChild) == "1" {
		os.Exit(ChildMain(os.Args[1:], os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// Test grades the exercise's file in the working directory (the
// exercise's folder) through a child, the test binary itself (see Main),
// and reports each check as a subtest. Without a GPU it skips, saying that
// the exercise is graded on a GPU later.
func Test(t *testing.T, id string) {
	t.Helper()
	spec, ok := Lookup(id)
	if !ok {
		t.Fatalf("no CUDA exercise %q", id)
	}
	src, err := os.ReadFile(filepath.Join(".", spec.File))
	if err != nil {
		t.Fatalf("read %s: %v", spec.File, err)
	}
	res := Grade(Config{Command: []string{os.Args[0]}, Env: []string{envChild + "=1"}, Timeout: testlimit.Legit(t)}, spec, src)
	if res.Status == grading.NeedsGPU {
		t.Skipf("graded on a GPU later, not counted here: %s", res.Message)
	}
	// The students' copy in CI: an unfinished kernel is not a failure.
	soft := os.Getenv(grading.EnvUngraded) == "1" && !strings.Contains(string(src), "// BEGIN SOLUTION")
	if res.Status != grading.Graded {
		if soft {
			t.Skipf("%s: %s (not a failure of CI)", res.Status, res.Message)
		}
		t.Fatalf("%s: %s", res.Status, res.Message)
	}
	for _, c := range res.Checks {
		t.Run(c.ID, func(t *testing.T) {
			switch {
			case c.Passed:
			case soft:
				t.Skipf("%s: %s (not a failure of CI)", c.ID, c.Message)
			default:
				t.Errorf("%s (%d points): %s (seed %d)", c.ID, c.MaxPoints, strings.TrimSpace(c.Message), res.Seed)
			}
		})
	}
}
