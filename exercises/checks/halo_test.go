package checks

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab/halo"
)

// haloAnswer is an exchange written here, apart from the exercise's
// solution: for each direction, even ranks send then receive, odd ranks
// receive then send. Its variants make the mistakes the checks must name.
type haloAnswer struct {
	sendBoth   bool // every rank sends both its messages, then receives: a cycle of waits
	haloPlane  bool // send the plane past the owned edge (the rank's own halo) instead of the edge
	innerPlane bool // send the plane one inside the owned edge
	count      int  // values per message, when not h·ny·nx
	recvCount  int  // values per receive, when not the send's
	perPlane   bool // one message per plane
	useGroup   bool // everything in one Group
	goroutines bool // send in a goroutine beside the receive
}

func (a haloAnswer) exchange(c halo.Comm[[]float32], local []float32, p halo.Part, ny, nx int) error {
	plane := ny * nx
	if ny < 1 || nx < 1 || p.Halo < 1 || len(local) != (p.LZ1-p.LZ0)*plane {
		return fmt.Errorf("bad input")
	}
	h := p.Halo
	at := func(z int) int { return (z - p.LZ0) * plane }
	n := h * plane
	if a.count > 0 {
		n = a.count
	}
	rn := n
	if a.recvCount > 0 {
		rn = a.recvCount
	}
	send := func(off, to int) error {
		if to < 0 {
			return nil
		}
		if a.perPlane {
			for i := range h {
				if err := c.Send(local, off+i*plane, plane, to); err != nil {
					return err
				}
			}
			return nil
		}
		return c.Send(local, off, n, to)
	}
	recv := func(off, from int) error {
		if from < 0 {
			return nil
		}
		if a.perPlane {
			for i := range h {
				if err := c.Recv(local, off+i*plane, plane, from); err != nil {
					return err
				}
			}
			return nil
		}
		return c.Recv(local, off, rn, from)
	}
	upEdge, downEdge := at(p.Z1-h), at(p.Z0)
	switch {
	case a.haloPlane:
		upEdge, downEdge = at(p.Z1-h+1), at(p.Z0-1)
	case a.innerPlane:
		upEdge, downEdge = at(p.Z1-h-1), at(p.Z0+1)
	}
	if a.sendBoth {
		return errorsJoin(send(upEdge, p.Up), send(downEdge, p.Down), recv(at(p.Z0-h), p.Down), recv(at(p.Z1), p.Up))
	}
	if a.useGroup {
		return c.Group(func() error {
			return errorsJoin(send(upEdge, p.Up), recv(at(p.Z0-h), p.Down), send(downEdge, p.Down), recv(at(p.Z1), p.Up))
		})
	}
	step := func(sOff, to, rOff, from int) error {
		if a.goroutines {
			var wg sync.WaitGroup
			var serr error
			wg.Go(func() { serr = send(sOff, to) })
			rerr := recv(rOff, from)
			wg.Wait()
			return errorsJoin(serr, rerr)
		}
		if p.Rank%2 == 0 {
			if err := send(sOff, to); err != nil {
				return err
			}
			return recv(rOff, from)
		}
		if err := recv(rOff, from); err != nil {
			return err
		}
		return send(sOff, to)
	}
	if err := step(upEdge, p.Up, at(p.Z0-h), p.Down); err != nil {
		return err
	}
	return step(downEdge, p.Down, at(p.Z1), p.Up)
}

func errorsJoin(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// haloResults grades f and returns each check's result by id.
func haloResults(t *testing.T, f HaloFunc, seed uint64) (map[string]grading.CheckResult, grading.ExerciseResult) {
	t.Helper()
	res := grading.Run(Halo(f), grading.Options{Seed: seed})
	byID := map[string]grading.CheckResult{}
	for _, c := range res.Checks {
		byID[c.ID] = c
	}
	return byID, res
}

func TestHaloAnswerScoresFullMarks(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		_, res := haloResults(t, haloAnswer{}.exchange, seed)
		assert.Equal(t, res.MaxPoints, res.Points, "seed %d: %+v", seed, res.Checks)
	}
}

// TestHaloChecksNameTheMistake grades the usual wrong exchanges: each
// fails the checks it must, with a message that names what went wrong.
func TestHaloChecksNameTheMistake(t *testing.T) {
	for _, c := range []struct {
		name   string
		a      haloAnswer
		fail   []string // checks that must fail
		pass   []string // checks that must pass
		says   []string // in the first failing check's message
		dodges string   // a check whose message is read instead of the first
	}{
		{name: "every rank sends both, then receives", a: haloAnswer{sendBoth: true}, fail: []string{"two-ranks", "h1", "deep", "messages"},
			says: []string{"deadlock", "rank 0 sends to 1 (waiting)", "rank 1 sends to 0 (waiting)", "even ranks send first"}},
		{name: "the rank's own halo plane sent instead of its edge", a: haloAnswer{haloPlane: true}, fail: []string{"two-ranks", "h1", "messages"},
			says: []string{"halo plane z =", "a halo plane", "owned planes"}},
		{name: "the plane inside the edge", a: haloAnswer{innerPlane: true}, fail: []string{"two-ranks", "h1", "deep", "messages"},
			says: []string{"halo plane z =", "holds plane", "want plane"}},
		{name: "one plane per message for every h", a: haloAnswer{count: -1}, fail: []string{"deep"}, pass: []string{"two-ranks", "h1"},
			dodges: "deep", says: []string{"sent", "values to rank", "h·ny·nx"}},
		{name: "a receive of another count than the send", a: haloAnswer{recvCount: 1}, fail: []string{"two-ranks", "h1", "deep"},
			says: []string{"receives 1"}},
		{name: "a message per plane", a: haloAnswer{perPlane: true}, fail: []string{"messages"}, pass: []string{"two-ranks", "h1"},
			dodges: "messages", says: []string{"values to rank", "h·ny·nx"}},
		{name: "Group", a: haloAnswer{useGroup: true}, fail: []string{"two-ranks", "h1", "deep"},
			says: []string{"Group is not available"}},
		{name: "goroutines", a: haloAnswer{goroutines: true}, fail: []string{"h1", "deep"},
			says: []string{"one at a time"}},
	} {
		a := c.a
		if a.count == -1 {
			a.count = 0
			a = haloAnswer{}
			// one plane's worth of values, whatever h: right for h = 1 only
			f := func(cm halo.Comm[[]float32], local []float32, p halo.Part, ny, nx int) error {
				b := haloAnswer{count: ny * nx, recvCount: ny * nx}
				return b.exchange(cm, local, p, ny, nx)
			}
			checkHaloMistake(t, c.name, f, c.fail, c.pass, c.dodges, c.says)
			continue
		}
		checkHaloMistake(t, c.name, a.exchange, c.fail, c.pass, c.dodges, c.says)
	}
}

func checkHaloMistake(t *testing.T, name string, f HaloFunc, fail, pass []string, dodges string, says []string) {
	t.Helper()
	byID, res := haloResults(t, f, 7)
	for _, id := range fail {
		assert.False(t, byID[id].Passed, "%s: check %s passes", name, id)
	}
	for _, id := range pass {
		assert.True(t, byID[id].Passed, "%s: check %s fails: %s", name, id, byID[id].Message)
	}
	msg := byID[fail[0]].Message
	if dodges != "" {
		msg = byID[dodges].Message
	}
	for _, s := range says {
		assert.Contains(t, msg, s, "%s", name)
	}
	assert.Less(t, res.Points, res.MaxPoints, name)
}

// TestHaloSharedMemoryFails: a submission that keeps every rank's buffer
// in a package-level variable and copies its halos straight from the
// neighbours' buffers, sending nothing, fails every check of the planes:
// its halos are right, but no message brought them.
func TestHaloSharedMemoryFails(t *testing.T) {
	defer func(d time.Duration) { haloTimeout = d }(haloTimeout)
	haloTimeout = time.Second
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	bufs := map[int][]float32{}
	parts := map[int]halo.Part{}
	gen, arrived := 0, 0
	shared := func(c halo.Comm[[]float32], local []float32, p halo.Part, ny, nx int) error {
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
func TestHaloTimeout(t *testing.T) {
	defer func(d time.Duration) { haloTimeout = d }(haloTimeout)
	haloTimeout = 200 * time.Millisecond
	block := make(chan struct{})
	defer close(block)
	stuck := func(c halo.Comm[[]float32], local []float32, p halo.Part, ny, nx int) error {
		if p.Rank == 1 {
			<-block
		}
		return nil
	}
	byID, _ := haloResults(t, stuck, 5)
	assert.Contains(t, byID["two-ranks"].Message, "rank 1 had not returned")
}

// TestHaloStubScoresZero: the released stub scores nothing and stops no
// check by a crash.
func TestHaloStubScoresZero(t *testing.T) {
	e, err := haloDecl.stub()
	require.NoError(t, err)
	res := grading.Run(e, grading.Options{Seed: 1})
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
	}}}}, grading.Options{Seed: 9})
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
		_, err := runHalo(haloAnswer{}.exchange, a)
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
