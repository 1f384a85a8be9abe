package halo

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/internal/testlimit"
)

// guard runs f and fails the test if it has not returned within a
// deadline: a deadlock the world failed to detect hangs no test.
func guard(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(testlimit.Legit(t)):
		// The communicator detects deadlock structurally, so f ends
		// by itself: only the test's deadline bounds it.
		t.Fatal("the ranks hung: a deadlock went undetected")
		return nil
	}
}

func TestSendSendOutsideAGroupIsADeadlock(t *testing.T) {
	comms := NewChanComms(2)
	errs := make([]error, 2)
	err := guard(t, func() error {
		return RunRanks(comms, func(c *ChanComm) error {
			buf := make([]float32, 8)
			peer := 1 - c.Rank()
			if err := c.Send(buf, 0, 4, peer); err != nil {
				errs[c.Rank()] = err
				return err
			}
			return c.Recv(buf, 4, 4, peer)
		})
	})
	require.ErrorIs(t, err, ErrDeadlock)
	for r, e := range errs {
		require.ErrorIs(t, e, ErrDeadlock, "rank %d", r)
		assert.Contains(t, e.Error(), "deadlock: rank 0 sends to 1 (waiting), rank 1 sends to 0 (waiting)")
	}
}

func TestTheSameOrderInAGroupCompletes(t *testing.T) {
	comms := NewChanComms(2)
	got := make([][]float32, 2)
	err := guard(t, func() error {
		return RunRanks(comms, func(c *ChanComm) error {
			buf := []float32{float32(10 * c.Rank()), float32(10*c.Rank() + 1), -1, -1}
			peer := 1 - c.Rank()
			err := c.Group(func() error {
				if err := c.Send(buf, 0, 2, peer); err != nil {
					return err
				}
				return c.Recv(buf, 2, 2, peer)
			})
			got[c.Rank()] = buf
			return err
		})
	})
	require.NoError(t, err)
	assert.Equal(t, []float32{0, 1, 10, 11}, got[0])
	assert.Equal(t, []float32{10, 11, 0, 1}, got[1])
	for r, c := range comms {
		assert.Equal(t, Counters{SentMessages: 1, SentBytes: 8, RecvMessages: 1, RecvBytes: 8}, c.Counters(), "rank %d", r)
	}
}

// TestBlockingChainCompletes: a send outside a group waits for its
// receive, which a pipeline of ranks provides: not a deadlock.
func TestBlockingChainCompletes(t *testing.T) {
	const ranks = 5
	comms := NewChanComms(ranks)
	got := make([]float32, ranks)
	err := guard(t, func() error {
		return RunRanks(comms, func(c *ChanComm) error {
			r := c.Rank()
			buf := []float32{float32(r * r)}
			if r > 0 {
				if err := c.Recv(buf, 0, 1, r-1); err != nil {
					return err
				}
			}
			got[r] = buf[0]
			if r < ranks-1 {
				return c.Send(buf, 0, 1, r+1)
			}
			return nil
		})
	})
	require.NoError(t, err)
	assert.Equal(t, []float32{0, 0, 0, 0, 0}, got, "rank 0's value travels down the chain")
}

func TestMessagesBetweenAPairMatchInOrder(t *testing.T) {
	comms := NewChanComms(2)
	got := make([]float32, 3)
	err := guard(t, func() error {
		return RunRanks(comms, func(c *ChanComm) error {
			if c.Rank() == 0 {
				return c.Group(func() error {
					for i := range 3 {
						if err := c.Send([]float32{float32(100 + i)}, 0, 1, 1); err != nil {
							return err
						}
					}
					return nil
				})
			}
			for i := range 3 {
				if err := c.Recv(got, i, 1, 0); err != nil {
					return err
				}
			}
			return nil
		})
	})
	require.NoError(t, err)
	assert.Equal(t, []float32{100, 101, 102}, got)
}

func TestCountMismatchNamesBoth(t *testing.T) {
	comms := NewChanComms(2)
	err := guard(t, func() error {
		return RunRanks(comms, func(c *ChanComm) error {
			buf := make([]float32, 4)
			if c.Rank() == 0 {
				return c.Send(buf, 0, 4, 1)
			}
			return c.Recv(buf, 0, 3, 0)
		})
	})
	require.ErrorIs(t, err, ErrComm)
	assert.Contains(t, err.Error(), "rank 0 sends 4 elements to rank 1, which receives 3")
}

func TestWaitingOnAFinishedRankIsADeadlock(t *testing.T) {
	comms := NewChanComms(3)
	err := guard(t, func() error {
		return RunRanks(comms, func(c *ChanComm) error {
			switch c.Rank() {
			case 0:
				return c.Send(make([]float32, 2), 0, 2, 1)
			case 1:
				return errors.New("failed before its exchange")
			}
			return c.Recv(make([]float32, 2), 0, 2, 0)
		})
	})
	require.ErrorIs(t, err, ErrDeadlock)
	assert.Contains(t, err.Error(), "failed before its exchange")
	assert.Contains(t, err.Error(), "rank 0 sends to 1 (rank 1 has finished)")
	assert.Contains(t, err.Error(), "rank 2 receives from 0 (waiting)")
	assert.NotErrorIs(t, firstCause(err), ErrDeadlock, "the first cause is the rank's own failure")
}

func TestBadCallsAreErrors(t *testing.T) {
	c := NewChanComms(2)[0]
	buf := make([]float32, 4)
	for _, e := range []struct {
		err  error
		want string
	}{
		{c.Send(buf, 0, 1, 2), "send to rank 2: the world has ranks 0 to 1"},
		{c.Recv(buf, 0, 1, -1), "receive from rank -1"},
		{c.Send(buf, 0, 1, 0), "send to itself"},
		{c.Send(buf, 3, 2, 1), "elements [3, 5) lie outside the buffer of 4"},
		{c.Recv(buf, -1, 2, 1), "elements [-1, 1) lie outside"},
		{c.Recv(buf, 0, -2, 1), "lie outside"},
		{c.Pack(buf, 0, buf, 0, 2, 1, 2), "the blocks overlap"},
		{c.Pack(make([]float32, 8), 0, make([]float32, 5), 0, 2, 3, 2), ""},
		{c.Pack(make([]float32, 8), 0, buf, 0, 2, 3, 3), "past the buffer of 4"},
		{c.Unpack(buf, 0, 2, 2, 2, make([]float32, 3), 0), "past the staging buffer of 3"},
	} {
		if e.want == "" {
			assert.NoError(t, e.err)
			continue
		}
		require.ErrorIs(t, e.err, ErrComm, e.want)
		assert.Contains(t, e.err.Error(), e.want)
	}
	_, err := c.Alloc(-1)
	assert.ErrorIs(t, err, ErrComm)
	assert.Nil(t, NewChanComms(0))
	_, err = NewWorld(5000)
	assert.ErrorIs(t, err, ErrComm)
	require.NoError(t, c.Close())
	assert.ErrorIs(t, c.Send(buf, 0, 1, 1), ErrComm, "a closed rank sends nothing")
}

// TestPackUnpack compares Pack and Unpack with a reference loop on
// random strided blocks.
func TestPackUnpack(t *testing.T) {
	c := NewChanComms(1)[0]
	for _, s := range []struct{ off, n, stride, count int }{{0, 3, 5, 4}, {2, 1, 1, 7}, {7, 4, 9, 2}, {0, 0, 1, 3}} {
		src := make([]float32, s.off+s.count*s.stride+3)
		for i := range src {
			src[i] = float32(i*7 + 1)
		}
		packed := make([]float32, 2+s.n*s.count)
		require.NoError(t, c.Pack(packed, 2, src, s.off, s.n, s.stride, s.count))
		for i := range s.count {
			for j := range s.n {
				assert.Equal(t, float32((s.off+i*s.stride+j)*7+1), packed[2+i*s.n+j])
			}
		}
		back := make([]float32, len(src))
		require.NoError(t, c.Unpack(back, s.off, s.n, s.stride, s.count, packed, 2))
		for i := range back {
			inBlock := i >= s.off && (i-s.off)%s.stride < s.n && (i-s.off)/s.stride < s.count
			if inBlock {
				assert.Equal(t, src[i], back[i], "element %d", i)
			} else {
				assert.Zero(t, back[i], "element %d lies between the blocks", i)
			}
		}
	}
}

// TestAPanicInARankIsAnError: a rank that panics fails, its peers are
// released, nothing hangs.
func TestAPanicInARankIsAnError(t *testing.T) {
	comms := NewChanComms(2)
	err := guard(t, func() error {
		return RunRanks(comms, func(c *ChanComm) error {
			if c.Rank() == 0 {
				var p []int
				_ = p[3]
			}
			return c.Recv(make([]float32, 1), 0, 1, 0)
		})
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rank 0 panicked")
	assert.ErrorIs(t, err, ErrDeadlock)
}

// TestTraceRecordsTheExchange: the trace of one exchange of three slabs
// holds the four planes in flight, each from an owned edge plane to the
// neighbour's halo plane.
func TestTraceRecordsTheExchange(t *testing.T) {
	parts, err := Decompose(8, 4, 3, 3, 1, 1)
	require.NoError(t, err)
	w, err := NewWorld(3)
	require.NoError(t, err)
	w.Trace(true)
	require.NoError(t, guard(t, func() error {
		return RunRanks(w.Comms(), func(c *ChanComm) error {
			p := parts[c.Rank()]
			return Exchange[[]float32](c, make([]float32, p.LocalLen()), p, 3)
		})
	}))
	msgs := w.Messages()
	require.Len(t, msgs, 4)
	plane := 4 * 3
	seen := map[[2]int]Message{}
	for _, m := range msgs {
		seen[[2]int{m.From, m.To}] = m
		assert.Equal(t, plane, m.N)
	}
	// Interior planes 1…6 over 3 ranks: [1, 3), [3, 5), [5, 7).
	// Rank 0 holds planes 0…3, rank 1 planes 2…5, rank 2 planes 4…7.
	want := map[[2]int]Message{
		{0, 1}: {From: 0, To: 1, SrcOff: 2 * plane, DstOff: 0},         // plane 2 into rank 1's plane 2
		{1, 0}: {From: 1, To: 0, SrcOff: 1 * plane, DstOff: 3 * plane}, // plane 3
		{1, 2}: {From: 1, To: 2, SrcOff: 2 * plane, DstOff: 0},         // plane 4
		{2, 1}: {From: 2, To: 1, SrcOff: 1 * plane, DstOff: 3 * plane}, // plane 5
	}
	for k, m := range want {
		m.N = plane
		assert.Equal(t, m, seen[k], "%v", k)
	}
	// Stopped, the trace kept stays; a world whose trace was stopped
	// before its exchange records nothing of it.
	w.Trace(false)
	assert.Equal(t, msgs, w.Messages())
	off, err := NewWorld(3)
	require.NoError(t, err)
	off.Trace(true)
	off.Trace(false)
	require.NoError(t, guard(t, func() error {
		return RunRanks(off.Comms(), func(c *ChanComm) error {
			p := parts[c.Rank()]
			return Exchange[[]float32](c, make([]float32, p.LocalLen()), p, 3)
		})
	}))
	assert.Empty(t, off.Messages())
}
