package sim

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loader is a value whose String method reads global memory: fmt
// recovers a panic in a String method and prints it, so a fault there
// never reaches the simulator's own recover.
type loader struct {
	t *Thread
	g *Global
	i int
}

func (l loader) String() string { return fmt.Sprint(l.t.Load(l.g, l.i)) }

func TestFaultRecoveredByALibraryStillFailsTheLaunch(t *testing.T) {
	for _, where := range []string{"global load", "global store", "shared load", "shared store"} {
		in := &Global{Name: "in", Data: make([]float32, 32)}
		out := &Global{Name: "out", Data: make([]float32, 32)}
		body := func(th *Thread) {
			x := th.ThreadIdx.X
			s := th.Shared1("s", 32)
			var bad fmt.Stringer
			switch where {
			case "global load":
				bad = loader{th, in, -1 - x}
			case "global store":
				bad = stringerFunc(func() string { th.Store(out, 32+x, 1); return "" })
			case "shared load":
				bad = stringerFunc(func() string { return fmt.Sprint(s.Load(32 + x)) })
			default:
				bad = stringerFunc(func() string { s.Store(-1, 1); return "" })
			}
			text := fmt.Sprint(bad) // fmt recovers the panic of the fault
			assert.Contains(t, text, "PANIC")
			th.Store(out, x, 1) // the thread goes on as if nothing happened
		}
		st, err := (&Simulator{}).Launch(Kernel{Name: "hides", Grid: Dim3{1, 1, 1}, Block: Dim3{32, 1, 1}, Body: body})
		require.Error(t, err, where)
		assert.ErrorIs(t, err, ErrFault, where)
		assert.Equal(t, int64(32), st.FaultCount, "%s: every thread's fault is counted once", where)
		assert.Zero(t, st.GlobalStores, "%s: no store after the fault", where)
	}
}

type stringerFunc func() string

func (f stringerFunc) String() string { return f() }

func TestFaultRecoveredBeforeABarrierStillFailsTheBlock(t *testing.T) {
	in := &Global{Name: "in", Data: make([]float32, 4)}
	body := func(th *Thread) {
		_ = fmt.Sprint(loader{th, in, 4 + th.ThreadIdx.X})
		th.Sync()
	}
	st, err := (&Simulator{}).Launch(Kernel{Grid: Dim3{3, 1, 1}, Block: Dim3{4, 1, 1}, Body: body})
	require.ErrorIs(t, err, ErrFault)
	assert.Equal(t, int64(12), st.FaultCount)
}

func TestStoresPerThread(t *testing.T) {
	// Block b of n threads: thread x stores x times, so the threads that
	// store are n−1 per block and the most stores of one thread n−1.
	const n, blocks = 8, 3
	out := &Global{Name: "out", Data: make([]float32, n*n)}
	st, err := (&Simulator{}).Launch(Kernel{Grid: Dim3{blocks, 1, 1}, Block: Dim3{n, 1, 1}, Body: func(th *Thread) {
		for q := range th.ThreadIdx.X {
			th.Store(out, th.ThreadIdx.X*n+q, 1)
		}
	}})
	require.NoError(t, err)
	assert.Equal(t, int64(blocks*(n-1)), st.StoringThreads)
	assert.Equal(t, int64(n-1), st.MaxStoresPerThread)
	assert.Equal(t, int64(blocks*n*(n-1)/2), st.GlobalStores)
}

func TestSharedReadsAuditsWhatIsReadBack(t *testing.T) {
	// Each thread stores its input in shared memory, copies its
	// neighbour's element to a second array and writes that element and
	// its own register: with a rounding as SharedReads, only what went
	// through shared memory is rounded, and once, however often it was
	// copied there.
	const n = 16
	in := &Global{Name: "in", Data: make([]float32, n)}
	for i := range in.Data {
		in.Data[i] = 0.1 + float32(i)/7
	}
	round := func(v float32) float32 { return float32(math.Round(float64(v)*4) / 4) }
	run := func(f func(float32) float32) ([]float32, []float32) {
		viaShared := &Global{Name: "a", Data: make([]float32, n)}
		viaReg := &Global{Name: "b", Data: make([]float32, n)}
		_, err := (&Simulator{SharedReads: f}).Launch(Kernel{Grid: Dim3{1, 1, 1}, Block: Dim3{n, 1, 1}, Body: func(th *Thread) {
			x := th.ThreadIdx.X
			s, c := th.Shared1("s", n), th.Shared1("c", n)
			v := th.Load(in, x)
			s.Store(x, v)
			th.Sync()
			c.Store(x, s.Load((x+1)%n))
			th.Sync()
			th.Store(viaShared, x, c.Load(x))
			th.Store(viaReg, x, v)
		}})
		require.NoError(t, err)
		return viaShared.Data, viaReg.Data
	}
	plainS, plainR := run(nil)
	auditS, auditR := run(round)
	for x := range n {
		assert.Equal(t, in.Data[(x+1)%n], plainS[x])
		assert.Equal(t, round(in.Data[(x+1)%n]), auditS[x])
		assert.Equal(t, in.Data[x], plainR[x])
		assert.Equal(t, in.Data[x], auditR[x], "a register is not audited")
	}
}
