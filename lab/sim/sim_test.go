package sim

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/internal/testlimit"
)

func TestDim3ShapeAndIndex(t *testing.T) {
	assert.Equal(t, "34×34", Dim3{34, 34, 1}.Shape())
	assert.Equal(t, "11×11×11", Dim3{11, 11, 11}.Shape())
	assert.Equal(t, "256", Dim3{256, 1, 1}.Shape())
	assert.Equal(t, "1×1×4", Dim3{1, 1, 4}.Shape())
	assert.Equal(t, "(3,1,0)", Dim3{3, 1, 0}.String())
	d := Dim3{3, 4, 5}
	assert.Equal(t, 60, d.Size())
	lin := 0
	for z := 0; z < 5; z++ {
		for y := 0; y < 4; y++ {
			for x := 0; x < 3; x++ {
				assert.Equal(t, Dim3{x, y, z}, d.at(lin))
				lin++
			}
		}
	}
}

func TestLaunchRejectsTooManyThreads(t *testing.T) {
	var ran atomic.Int64
	body := func(*Thread) { ran.Add(1) }
	s := &Simulator{}
	st, err := s.Launch(Kernel{Name: "notes", Grid: Dim3{8, 8, 8}, Block: Dim3{34, 34, 1}, Body: body})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrLimit)
	assert.Contains(t, err.Error(), "block 34×34 = 1156 threads exceeds 1024")
	assert.Zero(t, ran.Load())
	assert.Zero(t, st.BlocksRun)
	_, err = s.Launch(Kernel{Grid: Dim3{1, 1, 1}, Block: Dim3{11, 11, 11}, Body: body})
	assert.ErrorContains(t, err, "block 11×11×11 = 1331 threads exceeds 1024")
	// The limit is configurable.
	small := &Simulator{Limits: Limits{MaxThreads: 64}}
	_, err = small.Launch(Kernel{Grid: Dim3{1, 1, 1}, Block: Dim3{8, 8, 2}, Body: body})
	assert.ErrorContains(t, err, "block 8×8×2 = 128 threads exceeds 64")
	_, err = small.Launch(Kernel{Grid: Dim3{2, 1, 1}, Block: Dim3{8, 8, 1}, Body: body})
	require.NoError(t, err)
	assert.Equal(t, int64(128), ran.Load())
}

func TestLaunchRejectsBadDimensions(t *testing.T) {
	body := func(*Thread) {}
	s := &Simulator{}
	for _, k := range []Kernel{
		{Grid: Dim3{0, 1, 1}, Block: Dim3{1, 1, 1}, Body: body},
		{Grid: Dim3{1, 1, 1}, Block: Dim3{4, -1, 1}, Body: body},
		{Grid: Dim3{1, 1, 1}, Block: Dim3{1, 1, 65}, Body: body},
		{Grid: Dim3{1, 70000, 1}, Block: Dim3{1, 1, 1}, Body: body},
		{Grid: Dim3{1, 1, 1}, Block: Dim3{1, 1, 1}},
		{Grid: Dim3{1 << 30, 65535, 65535}, Block: Dim3{1024, 1, 1}, Body: body},
	} {
		_, err := s.Launch(k)
		assert.ErrorIs(t, err, ErrLimit, "%+v", k)
	}
}

func TestSharedMemoryLimit(t *testing.T) {
	declare := func(arrays int, edge int) Kernel {
		return Kernel{Name: "decl", Grid: Dim3{2, 1, 1}, Block: Dim3{4, 1, 1}, Body: func(t *Thread) {
			for a := range arrays {
				t.Shared2([]string{"a_s", "b_s", "c_s"}[a], edge, edge)
			}
		}}
	}
	s := &Simulator{Limits: Limits{MaxSharedBytes: 1024}}
	st, err := s.Launch(declare(1, 16)) // 16·16·4 = 1024 B: at the limit
	require.NoError(t, err)
	assert.Equal(t, 1024, st.SharedBytesPerBlock)
	_, err = s.Launch(declare(2, 16))
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrLimit)
	assert.Contains(t, err.Error(), "2048 B, exceeds the limit of 1024 bytes per block")
	// Default: 48 KiB. A 110×110 array is 48400 B; 111×111 is 49284 B.
	def := &Simulator{}
	_, err = def.Launch(declare(1, 110))
	require.NoError(t, err)
	_, err = def.Launch(declare(1, 111))
	assert.ErrorContains(t, err, "exceeds the limit of 49152 bytes per block")
	// An absurd declaration is refused before anything is allocated.
	_, err = def.Launch(declare(1, 1<<30))
	assert.ErrorIs(t, err, ErrLimit)
}

func TestSharedDeclarationsMustAgree(t *testing.T) {
	s := &Simulator{}
	_, err := s.Launch(Kernel{Name: "mixed", Grid: Dim3{1, 1, 1}, Block: Dim3{2, 1, 1}, Body: func(t *Thread) {
		t.Shared1("x_s", 4+t.ThreadIdx.X)
	}})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrFault)
	assert.Contains(t, err.Error(), "declares __shared__ float x_s[5], but the block declared it as x_s[4]")
}

// TestPartialBarrierIsAnError checks that a barrier that some threads never
// reach, because they returned, fails with their names, and does not hang.
func TestPartialBarrierIsAnError(t *testing.T) {
	s := &Simulator{}
	done := make(chan error, 1)
	go func() {
		_, err := s.Launch(Kernel{Name: "early_return", Grid: Dim3{3, 1, 1}, Block: Dim3{4, 2, 1}, Body: func(t *Thread) {
			if t.ThreadIdx.X == 0 {
				return
			}
			t.Sync()
		}})
		done <- err
	}()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.ErrorIs(t, err, ErrBarrier)
		assert.Contains(t, err.Error(),
			"barrier 1 of block (0,0,0) reached by 6 of 8 threads: threads (0,0,0), (0,1,0) returned without reaching it")
		assert.Contains(t, err.Error(), "(and 2 more failures)") // blocks 1 and 2
	case <-time.After(testlimit.Legit(t)):
		// The simulator detects the divergent barrier structurally, so
		// the launch ends by itself: only the test's deadline bounds it.
		t.Fatal("a barrier reached by part of the block hangs")
	}
	st := s.Last()
	assert.Equal(t, int64(3), st.FaultCount)
	assert.Equal(t, int64(3), st.BlocksRun)
}

// TestBarrierInLoop runs a tree reduction with a barrier in a loop and
// checks the sums of every block against a plain loop, and the counters
// against the reduction's closed form.
func TestBarrierInLoop(t *testing.T) {
	const threads, blocks = 64, 5
	r := rand.New(rand.NewPCG(rand.Uint64(), 2))
	data := make([]float32, threads*blocks)
	for i := range data {
		data[i] = float32(r.IntN(100)) // small integers: sums are exact
	}
	in := &Global{Name: "in", Data: data}
	out := &Global{Name: "out", Data: make([]float32, blocks)}
	s := &Simulator{}
	st, err := s.Launch(Kernel{Name: "reduce", Grid: Dim3{blocks, 1, 1}, Block: Dim3{threads, 1, 1}, Body: func(t *Thread) {
		tid := t.ThreadIdx.X
		part := t.Shared1("part_s", threads)
		part.Store(tid, t.Load(in, t.BlockIdx.X*threads+tid))
		for stride := threads / 2; stride > 0; stride /= 2 {
			t.Sync()
			if tid < stride {
				part.Store(tid, part.Load(tid)+part.Load(tid+stride))
				t.Flops(1)
			}
		}
		if tid == 0 {
			t.Store(out, t.BlockIdx.X, part.Load(0))
		}
	}})
	require.NoError(t, err)
	for b := range blocks {
		var sum float32
		for _, v := range data[b*threads : (b+1)*threads] {
			sum += v
		}
		assert.Equal(t, sum, out.Data[b], "block %d", b)
	}
	// threads−1 additions per block, each with two shared loads and a
	// store, plus the first store of every thread and the final load.
	assert.Equal(t, int64(blocks*(threads-1)), st.Flops)
	assert.Equal(t, int64(blocks*threads), st.GlobalLoads)
	assert.Equal(t, int64(blocks), st.GlobalStores)
	assert.Equal(t, int64(blocks*(2*(threads-1)+1)), st.SharedLoads)
	assert.Equal(t, int64(blocks*(threads+threads-1)), st.SharedStores)
	assert.Equal(t, ElemBytes*st.SharedLoads, st.SharedLoadBytes)
	assert.Equal(t, int64(blocks*7), st.Intervals) // log2(64) = 6 barriers, 7 intervals
	assert.Equal(t, threads*ElemBytes, st.SharedBytesPerBlock)
	assert.Zero(t, st.HazardCounts.Total())
}

// reverse is a block that reverses an array through shared memory, with or
// without the barrier between the writes and the reads.
func reverse(n int, in, out *Global, sync bool) Kernel {
	return Kernel{Name: "reverse", Grid: Dim3{1, 1, 1}, Block: Dim3{n, 1, 1}, Body: func(t *Thread) {
		tid := t.ThreadIdx.X
		s := t.Shared1("s", n)
		s.Store(tid, t.Load(in, tid))
		if sync {
			t.Sync()
		}
		t.Store(out, tid, s.Load(n-1-tid))
	}}
}

func TestRemovingABarrierIsARace(t *testing.T) {
	const n = 8
	data := make([]float32, n)
	for i := range data {
		data[i] = float32(i + 1)
	}
	in := &Global{Name: "in", Data: data}
	out := &Global{Name: "out", Data: make([]float32, n)}
	s := &Simulator{}
	_, err := s.Launch(reverse(n, in, out, true))
	require.NoError(t, err)
	for i := range n {
		assert.Equal(t, data[n-1-i], out.Data[i])
	}

	st, err := s.Launch(reverse(n, in, out, false))
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrHazard)
	// Every thread reads an element another thread writes in the same
	// interval: n reads after write, whichever thread runs first.
	assert.Equal(t, HazardCounts{ReadAfterWrite: n}, st.HazardCounts)
	// Threads run in order: the first race seen is thread 4 writing s[4],
	// which thread 3 had already read, unwritten.
	assert.Contains(t, err.Error(),
		"race: thread (3,0,0) of block (0,0,0) reads s[4] written by thread (4,0,0) with no barrier between (and 7 more hazards)")
	require.NotEmpty(t, st.Hazards)
	h := st.Hazards[0]
	assert.Equal(t, ReadAfterWrite, h.Kind)
	assert.Equal(t, []int{4}, h.Index)
	assert.Equal(t, 0, h.Interval)
}

// TestRaceReportFormat reproduces the report of a missing barrier in a
// block other than the first, with a 3D shared array.
func TestRaceReportFormat(t *testing.T) {
	s := &Simulator{}
	st, err := s.Launch(Kernel{Name: "race", Grid: Dim3{1, 3, 2}, Block: Dim3{5, 2, 1}, Body: func(t *Thread) {
		in_s := t.Shared3("in_s", 1, 2, 5)
		if t.BlockIdx != (Dim3{0, 2, 1}) {
			return
		}
		if t.ThreadIdx == (Dim3{4, 1, 0}) {
			in_s.Store(0, 1, 4, 1)
		}
		if t.ThreadIdx == (Dim3{3, 1, 0}) {
			_ = in_s.Load(0, 1, 4)
		}
	}})
	require.ErrorIs(t, err, ErrHazard)
	assert.Contains(t, err.Error(),
		"race: thread (3,1,0) of block (0,2,1) reads in_s[0][1][4] written by thread (4,1,0) with no barrier between")
	assert.Equal(t, int64(1), st.HazardCounts.Total())
}

func TestWriteAfterReadAndWriteAfterWrite(t *testing.T) {
	s := &Simulator{}
	// Thread 0 reads x_s[0], which thread 1 wrote before the barrier;
	// after the barrier, thread 1 overwrites it with no barrier in between.
	st, err := s.Launch(Kernel{Name: "war", Grid: Dim3{1, 1, 1}, Block: Dim3{2, 1, 1}, Body: func(t *Thread) {
		x := t.Shared1("x_s", 1)
		if t.ThreadIdx.X == 1 {
			x.Store(0, 1)
		}
		t.Sync()
		if t.ThreadIdx.X == 0 {
			_ = x.Load(0)
		} else {
			x.Store(0, 2)
		}
	}})
	require.ErrorIs(t, err, ErrHazard)
	assert.Equal(t, HazardCounts{WriteAfterRead: 1}, st.HazardCounts)
	assert.Contains(t, err.Error(), "race: thread (1,0,0) of block (0,0,0) writes x_s[0] read by thread (0,0,0) with no barrier between")
	assert.Equal(t, 1, st.Hazards[0].Interval)

	// Two threads writing different values; the same value is no race.
	st, err = s.Launch(Kernel{Name: "waw", Grid: Dim3{1, 1, 1}, Block: Dim3{3, 1, 1}, Body: func(t *Thread) {
		flag := t.Shared1("flag_s", 2)
		flag.Store(0, 1)
		flag.Store(1, float32(t.ThreadIdx.X))
	}})
	require.ErrorIs(t, err, ErrHazard)
	assert.Equal(t, HazardCounts{WriteAfterWrite: 2}, st.HazardCounts)
	assert.Contains(t, err.Error(), "race: thread (1,0,0) of block (0,0,0) writes flag_s[1], also written by thread (0,0,0) with no barrier between")
}

func TestUninitialisedRead(t *testing.T) {
	out := &Global{Name: "out", Data: make([]float32, 4)}
	s := &Simulator{}
	// Only even threads load; every thread reads its right neighbour's slot
	// after the barrier.
	st, err := s.Launch(Kernel{Name: "uninit", Grid: Dim3{2, 1, 1}, Block: Dim3{4, 1, 1}, Body: func(t *Thread) {
		tid := t.ThreadIdx.X
		x := t.Shared1("x_s", 5)
		if tid%2 == 0 {
			x.Store(tid, float32(tid))
		}
		t.Sync()
		if t.BlockIdx.X == 1 {
			t.Store(out, tid, x.Load(tid+1))
		}
	}})
	require.ErrorIs(t, err, ErrHazard)
	// Block 1: thread 1 reads x_s[2], which thread 2 wrote; threads 0, 2
	// and 3 read x_s[1], x_s[3] and x_s[4], which no thread wrote.
	assert.Equal(t, HazardCounts{Uninitialised: 3}, st.HazardCounts)
	assert.Contains(t, err.Error(), "uninitialised read: thread (0,0,0) of block (1,0,0) reads x_s[1], which no thread of the block wrote")
	// An uninitialised read gives NaN, never a value left by another block.
	assert.True(t, out.Data[0] != out.Data[0])
	assert.Equal(t, float32(2), out.Data[1])
}

func TestFaultsAreErrorsNotPanics(t *testing.T) {
	in := &Global{Name: "in", Data: make([]float32, 10)}
	s := &Simulator{}
	_, err := s.Launch(Kernel{Name: "oob", Grid: Dim3{1, 1, 1}, Block: Dim3{4, 1, 1}, Body: func(t *Thread) {
		_ = t.Load(in, 10+t.ThreadIdx.X)
	}})
	require.ErrorIs(t, err, ErrFault)
	assert.Contains(t, err.Error(), "thread (0,0,0) of block (0,0,0) loads in[10] outside its 10 elements (and 3 more failures)")

	_, err = s.Launch(Kernel{Name: "shared_oob", Grid: Dim3{1, 1, 1}, Block: Dim3{2, 1, 1}, Body: func(t *Thread) {
		x := t.Shared3("x_s", 2, 2, 2)
		x.Store(t.ThreadIdx.X, 2, 0, 1)
	}})
	require.ErrorIs(t, err, ErrFault)
	assert.Contains(t, err.Error(), "writes x_s[0][2][0] outside x_s[2][2][2]")

	// A panic in the kernel's own code, with other threads waiting at a
	// barrier: the launch fails and does not hang.
	_, err = s.Launch(Kernel{Name: "panics", Grid: Dim3{2, 1, 1}, Block: Dim3{4, 1, 1}, Body: func(t *Thread) {
		var table []int
		if t.ThreadIdx.X == 2 {
			_ = table[t.ThreadIdx.X]
		}
		t.Sync()
	}})
	require.ErrorIs(t, err, ErrFault)
	assert.Contains(t, err.Error(), "thread (2,0,0) of block (0,0,0) panicked")

	// The simulator is still usable afterwards.
	out := &Global{Name: "out", Data: make([]float32, 8)}
	_, err = s.Launch(reverse(8, &Global{Data: make([]float32, 8)}, out, true))
	assert.NoError(t, err)
}
