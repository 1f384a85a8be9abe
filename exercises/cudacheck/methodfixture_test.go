package cudacheck

import "testing"

// methodFixture is a submission of one exercise for the method check on
// the GPU machine, with what its grade must show (the GPU script reads
// Expect and Names from expect.json beside it).
type methodFixture struct {
	Exercise string `json:"exercise"`
	// Expect: "correct-only" (every correctness check passes, the method
	// check and the speed points are lost: at most half the points),
	// "tenth" (at most a tenth of the points), "lose-method" (the method
	// check is lost).
	Expect string `json:"expect"`
	// Names is a phrase the method check's message must hold.
	Names string `json:"names"`
	text  string
}

// methodFixtures returns the method check's submissions, named, made from
// the reference solutions ref (read when nil). It has none unless the
// tests are built with the tag hidden (method_fixtures_test.go), since its
// plain kernels are exercise 20's solution: go test -tags hidden
// ./exercises/cudacheck, as make test and the GPU script build it.
var methodFixtures = func(t *testing.T, ref map[string]string) map[string]methodFixture { return nil }
