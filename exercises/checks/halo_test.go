package checks

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab/halo"
)

// haloResults grades f and returns each check's result by id. Its ranks
// are legitimate work: unless the test shortened haloTimeout for ranks
// that never return, they get legitHaloTimeout.
func haloResults(t *testing.T, f HaloFunc, seed uint64) (map[string]grading.CheckResult, grading.ExerciseResult) {
	t.Helper()
	if haloTimeout == defaultHaloTimeout {
		defer func(d time.Duration) { haloTimeout = d }(haloTimeout)
		haloTimeout = legitHaloTimeout(t)
	}
	res := grading.Run(Halo(f), legitOptions(t, seed))
	byID := map[string]grading.CheckResult{}
	for _, c := range res.Checks {
		byID[c.ID] = c
	}
	return byID, res
}

// TestHaloSharedMemoryFails: a submission that keeps every rank's buffer
// in a package-level variable and copies its halos straight from the
// neighbours' buffers, sending nothing, fails every check of the planes:
// its halos are right, but no message brought them.
func TestHaloSharedMemoryFails(t *testing.T) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	bufs := map[int][]float32{}
	parts := map[int]halo.Part{}
	gen, arrived := 0, 0
	shared := func(c halo.Comm[[]float32], local []float32, p halo.Part, ny, nx int) error {
		// Bad input is refused before the barrier, as every rank gets
		// it: no rank waits for one that is gone, so every case ends
		// by itself and the ranks need no short limit (haloResults
		// gives them one from the test's deadline).
		if ny < 1 || nx < 1 || len(local) != (p.LZ1-p.LZ0)*ny*nx {
			return fmt.Errorf("a buffer of %d values for %d planes of %d×%d", len(local), p.LZ1-p.LZ0, ny, nx)
		}
		mu.Lock()
		defer mu.Unlock()
		bufs[p.Rank], parts[p.Rank] = local, p
		// A barrier: wait until every rank of the case has left its buffer.
		if arrived++; arrived == c.Size() {
			gen, arrived = gen+1, 0
			cond.Broadcast()
		} else {
			for g := gen; g == gen; {
				cond.Wait()
			}
		}
		plane := ny * nx
		for z := p.LZ0; z < p.LZ1; z++ {
			if z >= p.Z0 && z < p.Z1 {
				continue
			}
			for q := range c.Size() {
				qp := parts[q]
				if q != p.Rank && z >= qp.Z0 && z < qp.Z1 && (qp.LZ1-qp.LZ0)*plane == len(bufs[q]) {
					copy(local[(z-p.LZ0)*plane:], bufs[q][(z-qp.LZ0)*plane:(z-qp.LZ0+1)*plane])
				}
			}
		}
		return nil
	}
	byID, _ := haloResults(t, shared, 3)
	for _, id := range []string{"two-ranks", "h1", "deep", "messages"} {
		assert.False(t, byID[id].Passed, "check %s passes a submission that shares memory", id)
		assert.Contains(t, byID[id].Message, "no message brought it", id)
	}
}

// TestHaloStaticRefusesTheLabsAnswer: the lab's own exchange, its
// decomposition, the part's offset helper and Group are outside the
// allow-list, and a file that calls any of them is refused before it runs.
func TestHaloStaticRefusesTheLabsAnswer(t *testing.T) {
	e, err := haloDecl.stub()
	require.NoError(t, err)
	for name, body := range map[string]string{
		"halo.Exchange":  `return halo.Exchange(c, local, p, nx)`,
		"Decompose":      `_, err := halo.Decompose(p.NZ, ny, nx, p.Ranks, 1, p.Halo); return err`,
		"Local":          `_ = p.Local(p.Z0, 0, 0); return nil`,
		"Group":          `return c.Group(func() error { return nil })`,
		"NewChanComms":   `_ = halo.NewChanComms(2); return nil`,
		"a ChanComm":     `if cc, ok := c.(*halo.ChanComm); ok { return cc.Close() }; return nil`,
		"halo.RunRanks":  `return halo.RunRanks(nil, nil)`,
		"Packer methods": `if pk, ok := c.(halo.Packer[[]float32]); ok { _, err := pk.Alloc(1); return err }; return nil`,
	} {
		src := fmt.Sprintf(`package exchange

import "stencillab.dev/lab/halo"

// Exchange hands the work to the lab.
func Exchange(c halo.Comm[[]float32], local []float32, p halo.Part, ny, nx int) error {
	%s
}
`, body)
		vs, err := static.Check(context.Background(), e, map[string][]byte{"halo.go": []byte(src)})
		require.NoError(t, err, name)
		require.NotEmpty(t, vs, "%s: refused", name)
		assert.False(t, vs[0].Compile, "%s: refused by the list, not for not compiling: %v", name, vs)
		assert.Contains(t, fmt.Sprint(vs), "not available", name)
	}
}

// TestHaloTimeout: a rank that never returns is reported by its rank once
// the time runs out, and the other ranks' results still come back.
//
// Rank 1 never returns, so a short limit stops it whatever the load. The
// other ranks return at once, but a starved machine may not have run them
// within the limit, and the report then rightly names them too: the test
// doubles the limit and grades again until only rank 1 is named, within
// the test's deadline.
func TestHaloTimeout(t *testing.T) {
	defer func(d time.Duration) { haloTimeout = d }(haloTimeout)
	block := make(chan struct{})
	defer close(block)
	stuck := func(c halo.Comm[[]float32], local []float32, p halo.Part, ny, nx int) error {
		if p.Rank == 1 {
			<-block
		}
		return nil
	}
	running := regexp.MustCompile(`rank ([0-9, ]+) had not returned`)
	for haloTimeout = 200 * time.Millisecond; ; haloTimeout *= 2 {
		byID, _ := haloResults(t, stuck, 5)
		msg := byID["two-ranks"].Message
		m := running.FindStringSubmatch(msg)
		require.NotNil(t, m, "the report names the ranks still running: %s", msg)
		if m[1] == "1" {
			return
		}
		require.Contains(t, strings.Split(m[1], ", "), "1", msg)
		require.Less(t, 2*haloTimeout, legitHaloTimeout(t), "ranks other than 1 still ran after %v: %s", haloTimeout, msg)
		t.Logf("after %v: %s; doubling the limit", haloTimeout, msg)
	}
}

// TestHaloStubScoresZero: the released stub scores nothing and stops no
// check by a crash.
func TestHaloStubScoresZero(t *testing.T) {
	e, err := haloDecl.stub()
	require.NoError(t, err)
	res := grading.Run(e, legitOptions(t, 1))
	assert.Equal(t, 0, res.Points)
	for _, c := range res.Checks {
		assert.True(t, c.NotImplemented, "%s: %s", c.ID, c.Message)
	}
}

// TestHaloPlanesAreTheReference checks the grader's reference on its own:
// the parts tile the interior planes, every local buffer starts with its
// owned and face planes and NaN elsewhere, and its halo planes are those
// of [LZ0, LZ1) that a neighbour owns.
func TestHaloPlanesAreTheReference(t *testing.T) {
	cases := []struct{ nz, ny, nx, ranks, h int }{{9, 3, 5, 2, 1}, {17, 4, 3, 5, 3}, {12, 5, 7, 3, 2}, {5, 3, 3, 1, 2}}
	var grids []*haloGrid
	res := grading.Run(grading.Exercise{ID: "reference", Checks: []grading.Check{{ID: "grids", Points: 1, Run: func(gt *grading.T) {
		for _, c := range cases {
			grids = append(grids, newHaloGrid(gt, c.nz, c.ny, c.nx, c.ranks, c.h))
		}
	}}}}, legitOptions(t, 9))
	require.Equal(t, 1, res.Points, "%+v", res.Checks)
	require.Len(t, grids, len(cases))
	for i, c := range cases {
		g := grids[i]
		owned := make([]int, c.nz)
		for _, p := range g.parts {
			for z := p.Z0; z < p.Z1; z++ {
				owned[z]++
			}
		}
		for z, n := range owned {
			if z == 0 || z == c.nz-1 {
				assert.Zero(t, n, "face plane %d is owned by nobody", z)
			} else {
				assert.Equal(t, 1, n, "interior plane %d is owned once", z)
			}
		}
		n := c.ny * c.nx
		for r, buf := range g.locals() {
			p := g.parts[r]
			require.Len(t, buf, (p.LZ1-p.LZ0)*n)
			for z := p.LZ0; z < p.LZ1; z++ {
				got := buf[(z-p.LZ0)*n : (z-p.LZ0+1)*n]
				fromNeighbour := (z < p.Z0 && p.Down >= 0) || (z >= p.Z1 && p.Up >= 0)
				if fromNeighbour {
					assert.True(t, math.IsNaN(float64(got[0])), "rank %d plane %d starts poisoned", r, z)
				} else {
					assert.Equal(t, g.global[z*n:(z+1)*n], got, "rank %d plane %d starts as the grid's", r, z)
				}
			}
		}
	}
}

// TestHaloCaseRefused: the child refuses cases beyond its limits before
// any rank runs.
func TestHaloCaseRefused(t *testing.T) {
	run := func(a haloCase) error {
		_, err := runHalo(func(halo.Comm[[]float32], []float32, halo.Part, int, int) error { return nil }, a)
		return err
	}
	parts, err := halo.Decompose(8, 3, 3, 2, 1, 1)
	require.NoError(t, err)
	assert.ErrorContains(t, run(haloCase{NY: 3, NX: 3, Parts: parts, Local: make([][]float32, 1), TimeoutMs: 100}), "2 ranks with 1 buffers")
	assert.ErrorContains(t, run(haloCase{NY: 3, NX: 3, Parts: nil, TimeoutMs: 100}), "0 ranks")
	assert.ErrorContains(t, run(haloCase{NY: 3, NX: 3, Parts: parts, Local: make([][]float32, 2), TimeoutMs: 0}), "time limit")
	big := slices.Repeat([]halo.Part{parts[0]}, maxHaloRanks+1)
	assert.ErrorContains(t, run(haloCase{NY: 3, NX: 3, Parts: big, Local: make([][]float32, len(big)), TimeoutMs: 100}), "ranks")
}

// recordedRun is the run of a case whose buffers all end right and whose
// halos each came in one message of their owner, the messages passed
// through mangle first: a run as a child could report it.
func recordedRun(a haloCase, mangle func(m *haloMsg)) haloRun {
	n := a.NY * a.NX
	nz := a.Parts[0].NZ
	// The global grid, from the planes each rank starts with.
	global := make([][]float32, nz)
	for r, p := range a.Parts {
		for z := p.LZ0; z < p.LZ1; z++ {
			if z >= p.Z0 && z < p.Z1 || z == 0 || z == nz-1 {
				global[z] = a.Local[r][(z-p.LZ0)*n : (z-p.LZ0+1)*n]
			}
		}
	}
	out := haloRun{Local: make([][]float32, len(a.Parts)), Err: make([]string, len(a.Parts)),
		Deadlock: make([]bool, len(a.Parts)), NotImpl: make([]bool, len(a.Parts))}
	for r, p := range a.Parts {
		buf := slices.Concat(global[p.LZ0:p.LZ1]...)
		out.Local[r] = buf
		for _, m := range []haloMsg{
			{From: p.Down, To: r, Off: 0, N: (p.Z0 - p.LZ0) * n},
			{From: p.Up, To: r, Off: (p.Z1 - p.LZ0) * n, N: (p.LZ1 - p.Z1) * n},
		} {
			if m.From < 0 {
				continue
			}
			m.Data = slices.Clone(buf[m.Off : m.Off+m.N])
			mangle(&m)
			out.Received = append(out.Received, m)
		}
	}
	return out
}

// planeChecks grades exercise 12 on what run reports and returns the
// results of the checks of the planes.
func planeChecks(t *testing.T, run func(a haloCase) (haloRun, error)) []grading.CheckResult {
	t.Helper()
	res := grading.Run(haloDecl.Exercise(haloFuncs{Run: run}), legitOptions(t, 5))
	require.Equal(t, grading.Graded, res.Status, "%+v", res)
	var out []grading.CheckResult
	for _, c := range res.Checks {
		if slices.Contains([]string{"two-ranks", "h1", "deep"}, c.ID) {
			out = append(out, c)
		}
	}
	require.Len(t, out, 3)
	return out
}

// TestHaloRecordedRunPasses: the recorded run, messages unchanged, passes
// every check of the planes (so the two tests below fail for what they
// change alone).
func TestHaloRecordedRunPasses(t *testing.T) {
	for _, c := range planeChecks(t, func(a haloCase) (haloRun, error) { return recordedRun(a, func(*haloMsg) {}), nil }) {
		assert.True(t, c.Passed, "%s: %s", c.ID, c.Message)
	}
}

// TestHaloHaloFromItsOwner: a run whose planes are all right and whose
// halos each came in a message of h·ny·nx values, but from a rank that
// does not own them (here the receiving rank itself, as a rank that read
// its neighbour's planes through shared memory could send them), passes
// no check of the planes.
func TestHaloHaloFromItsOwner(t *testing.T) {
	for _, c := range planeChecks(t, func(a haloCase) (haloRun, error) {
		return recordedRun(a, func(m *haloMsg) { m.From = m.To }), nil
	}) {
		assert.False(t, c.Passed, "check %s passes halos that their owner did not send", c.ID)
		assert.Contains(t, c.Message, "which owns it", c.ID)
	}
}

// TestHaloShortMessageData: a run that reports a message of h·ny·nx
// values carrying fewer fails the checks with its reason, not by indexing
// past the data's end.
func TestHaloShortMessageData(t *testing.T) {
	for _, c := range planeChecks(t, func(a haloCase) (haloRun, error) {
		return recordedRun(a, func(m *haloMsg) { m.Data = m.Data[:len(m.Data)/2] }), nil
	}) {
		assert.False(t, c.Passed, c.ID)
		assert.Contains(t, c.Message, "that carried", c.ID)
	}
}
