//go:build hidden

package checks

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"stencillab.dev/lab/halo"
)

// The checks of exercise 12 on an exchange written here, which must score
// full marks, and on its variants with one known mistake each, which must
// lose the checks named for it with a message that says what is wrong.
// The exchange is an answer, so this file is built with the tag "hidden"
// and left out of the student release: go test -tags hidden
// ./exercises/checks runs it.

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
	retry      bool // send both first, and when that deadlocks, start again in a safe order
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
	if a.retry {
		err := errorsJoin(send(upEdge, p.Up), send(downEdge, p.Down), recv(at(p.Z0-h), p.Down), recv(at(p.Z1), p.Up))
		if !errors.Is(err, halo.ErrDeadlock) {
			return err
		}
		// The deadlock is caught: go on as a safe exchange would.
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

// TestHaloDeadlockCaughtAndRetriedScoresZero: an exchange that deadlocks,
// catches the error and starts again in a safe order gets its planes
// right, and scores nothing for the exchange: the communicator recorded
// the deadlock.
func TestHaloDeadlockCaughtAndRetriedScoresZero(t *testing.T) {
	byID, res := haloResults(t, haloAnswer{retry: true}.exchange, 3)
	t.Logf("12_halo, a deadlock caught and retried: %d/%d", res.Points, res.MaxPoints)
	for id, c := range byID {
		if id == "bad-input" {
			continue // no exchange runs: every rank refuses its input
		}
		assert.False(t, c.Passed, "%s passed", id)
		assert.Contains(t, c.Message, "deadlock", id)
	}
	assert.LessOrEqual(t, res.Points, 1, "only the refusal of bad input, which exchanges nothing")
}
