package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecorderKeepsOneBlock launches a kernel that copies a shuffled
// element through shared memory and checks that the recorder holds, for
// the chosen block only, each thread's global load, shared store and load
// around the barrier, and its global store, as the kernel's own indices
// say.
func TestRecorderKeepsOneBlock(t *testing.T) {
	const bx, by = 5, 3 // odd block shape
	grid := Dim3{X: 3, Y: 2, Z: 1}
	n := grid.Size() * bx * by
	perm := rand.New(rand.NewPCG(7, 11)).Perm(n)
	in := &Global{Name: "in", Data: make([]float32, n)}
	out := &Global{Name: "out", Data: make([]float32, n)}
	rec := &Recorder{Block: Dim3{X: 2, Y: 1, Z: 0}}
	s := &Simulator{Trace: rec.Trace}
	_, err := s.Launch(Kernel{Name: "copy", Grid: grid, Block: Dim3{X: bx, Y: by, Z: 1}, Body: func(th *Thread) {
		sh := th.Shared2("s", by, bx)
		b := th.BlockIdx.X + grid.X*th.BlockIdx.Y
		g := b*bx*by + th.ThreadIdx.Y*bx + th.ThreadIdx.X
		sh.Store(th.ThreadIdx.Y, th.ThreadIdx.X, th.Load(in, perm[g]))
		th.Sync()
		th.Store(out, g, sh.Load(th.ThreadIdx.Y, th.ThreadIdx.X))
	}})
	require.NoError(t, err)
	require.NoError(t, rec.Err())
	acc := rec.Accesses()
	require.Len(t, acc, 4*bx*by)
	b := 2 + grid.X*1
	for i, a := range acc {
		assert.Equal(t, rec.Block, a.Block)
		// Interval 0 holds the loads and shared stores, interval 1 the rest.
		thread := (i / 2) % (bx * by)
		ty, tx := thread/bx, thread%bx
		g := b*bx*by + thread
		assert.Equal(t, Dim3{X: tx, Y: ty, Z: 0}, a.Thread)
		switch i / (2 * bx * by) {
		case 0:
			assert.Equal(t, 0, a.Interval)
			if i%2 == 0 {
				assert.Equal(t, Access{Kind: GlobalLoad, Block: rec.Block, Thread: a.Thread, Array: "in", Index: perm[g]}, a)
			} else {
				assert.Equal(t, Access{Kind: SharedStore, Block: rec.Block, Thread: a.Thread, Array: "s", Index: thread, At: []int{ty, tx}}, a)
			}
		case 1:
			assert.Equal(t, 1, a.Interval)
			if i%2 == 0 {
				assert.Equal(t, Access{Kind: SharedLoad, Block: rec.Block, Thread: a.Thread, Array: "s", Index: thread, At: []int{ty, tx}, Interval: 1}, a)
			} else {
				assert.Equal(t, Access{Kind: GlobalStore, Block: rec.Block, Thread: a.Thread, Array: "out", Index: g, Interval: 1}, a)
			}
		}
	}
}

// TestRecorderBounded checks that a recorder past its Max counts what it
// drops and says so, and that a nil recorder records nothing.
func TestRecorderBounded(t *testing.T) {
	in := &Global{Name: "in", Data: make([]float32, 64)}
	rec := &Recorder{Max: 10}
	s := &Simulator{Trace: rec.Trace}
	_, err := s.Launch(Kernel{Grid: Dim3{X: 1, Y: 1, Z: 1}, Block: Dim3{X: 64, Y: 1, Z: 1}, Body: func(th *Thread) {
		th.Load(in, th.ThreadIdx.X)
	}})
	require.NoError(t, err)
	assert.Len(t, rec.Accesses(), 10)
	assert.Equal(t, int64(54), rec.Dropped())
	require.ErrorIs(t, rec.Err(), ErrLimit)
	assert.Contains(t, rec.Err().Error(), "limit of 10")

	var none *Recorder
	none.Trace(Access{})
	assert.Nil(t, none.Accesses())
	assert.NoError(t, none.Err())
}
