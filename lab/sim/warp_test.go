package sim

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// line returns the line of its caller: a test names the line after it as
// the site it expects.
func line() int {
	_, _, l, _ := runtime.Caller(1)
	return l
}

// launch1D runs body over one block of threads threads, x only.
func launch1D(t *testing.T, threads int, body func(t *Thread)) Stats {
	t.Helper()
	st, err := (&Simulator{Workers: 1}).Launch(Kernel{Name: "k", Grid: Dim3{1, 1, 1}, Block: Dim3{threads, 1, 1}, Body: body})
	require.NoError(t, err)
	return st
}

func TestWarpOfConsecutiveFloatsIsFourSectors(t *testing.T) {
	in := &Global{Name: "in", Data: make([]float32, 64)}
	out := &Global{Name: "out", Data: make([]float32, 64)}
	var want int
	st := launch1D(t, 32, func(th *Thread) {
		want = line()
		v := th.Load(in, th.ThreadIdx.X)
		th.Store(out, th.ThreadIdx.X, v)
	})
	// 32 floats of 4 bytes from a sector boundary: 128 bytes, 4 sectors
	// of 32 bytes, one line of 128, one request.
	ld := st.Memory.GlobalLoads
	assert.Equal(t, int64(1), ld.Requests)
	assert.Equal(t, int64(32), ld.Threads)
	assert.Equal(t, int64(4), ld.Sectors)
	assert.Equal(t, int64(1), ld.Lines)
	assert.Equal(t, int64(128), ld.UsefulBytes)
	assert.InDelta(t, 4.0, ld.SectorsPerRequest(), 0)
	assert.InDelta(t, 1.0, ld.Efficiency(), 0)
	assert.Equal(t, int64(4), st.Memory.GlobalStores.Sectors)
	assert.Zero(t, st.Memory.SharedLoads.Requests)
	require.Len(t, st.Memory.Sites, 2)
	s := st.Memory.Sites[0]
	assert.Equal(t, "sim/warp_test.go", s.File)
	assert.Equal(t, want+1, s.Line)
	assert.Equal(t, GlobalLoad, s.Kind)
	assert.Equal(t, "in", s.Array)
	assert.Equal(t, want+2, st.Memory.Sites[1].Line)
	assert.Equal(t, GlobalStore, st.Memory.Sites[1].Kind)
}

func TestMisalignedAndStridedWarps(t *testing.T) {
	in := &Global{Name: "in", Data: make([]float32, 32*32+1)}
	st := launch1D(t, 32, func(th *Thread) {
		x := th.ThreadIdx.X
		th.Load(in, x+1)  // elements 1…32: sectors 0…4, lines 0 and 1
		th.Load(in, 32*x) // a row apart: 32 sectors in 32 lines
	})
	require.Len(t, st.Memory.Sites, 2)
	shifted, strided := st.Memory.Sites[0].WarpCounts, st.Memory.Sites[1].WarpCounts
	assert.Equal(t, int64(5), shifted.Sectors)
	assert.Equal(t, int64(2), shifted.Lines)
	assert.InDelta(t, 128.0/160, shifted.Efficiency(), 1e-12)
	assert.Equal(t, int64(32), strided.Sectors)
	assert.Equal(t, int64(32), strided.Lines)
	assert.InDelta(t, 4.0/32, strided.Efficiency(), 1e-12)
	assert.Equal(t, int64(2), st.Memory.GlobalLoads.Requests)
	assert.InDelta(t, 37.0/2, st.Memory.GlobalLoads.SectorsPerRequest(), 1e-12)
	w, ok := st.Memory.Worst(GlobalLoad)
	require.True(t, ok)
	assert.Equal(t, st.Memory.Sites[1].Line, w.Line, "the strided load is the worst")
}

func TestWarpsOfAPartialBlockAndALoop(t *testing.T) {
	in := &Global{Name: "in", Data: make([]float32, 200)}
	// 40 threads: warp 0 has 32, warp 1 has 8. Each thread loads three
	// times in a loop, element 40r + x: each execution of the site is
	// one request per warp.
	st := launch1D(t, 40, func(th *Thread) {
		for r := range 3 {
			th.Load(in, 40*r+th.ThreadIdx.X)
		}
	})
	ld := st.Memory.GlobalLoads
	assert.Equal(t, int64(6), ld.Requests, "3 executions × 2 warps")
	assert.Equal(t, int64(120), ld.Threads)
	// r = 0: warp 0 reads 0…31 (sectors 0–3), warp 1 reads 32…39 (4).
	// r = 1: 40…71 (sectors 5–8), 72…79 (9). r = 2: 80…111 (10–13),
	// 112…119 (14).
	assert.Equal(t, int64(15), ld.Sectors)
	require.Len(t, st.Memory.Sites, 1)
}

func TestDivergentLanesAreInactiveInTheRequest(t *testing.T) {
	in := &Global{Name: "in", Data: make([]float32, 64)}
	st := launch1D(t, 64, func(th *Thread) {
		x := th.ThreadIdx.X
		if x%2 == 0 {
			th.Load(in, x) // even lanes: 16 words spread over 4 sectors per warp
		} else {
			th.Load(in, 0)
		}
	})
	require.Len(t, st.Memory.Sites, 2)
	even, odd := st.Memory.Sites[0].WarpCounts, st.Memory.Sites[1].WarpCounts
	assert.Equal(t, int64(2), even.Requests)
	assert.Equal(t, int64(8), even.Sectors)
	assert.Equal(t, int64(16*4*2), even.UsefulBytes)
	assert.Equal(t, int64(2), odd.Requests)
	assert.Equal(t, int64(2), odd.Sectors, "16 lanes of each warp read one word: one sector")
	assert.Equal(t, int64(4*2), odd.UsefulBytes, "one distinct word per request")
}

func TestSharedStrideOf32FloatsIsA32WayConflict(t *testing.T) {
	for _, c := range []struct {
		name   string
		stride int
		ways   int
	}{
		{"stride 1", 1, 1},
		{"stride 2", 2, 2},    // words 0, 2, …, 62: each even bank twice
		{"stride 32", 32, 32}, // one column of a 32-wide tile: all in bank 0
		{"stride 33", 33, 1},  // the tile padded by one: banks 0, 1, …, 31
	} {
		t.Run(c.name, func(t *testing.T) {
			st := launch1D(t, 32, func(th *Thread) {
				s := th.Shared1("tile_s", 33*32)
				x := th.ThreadIdx.X
				s.Store(c.stride*x, 1)
				th.Sync()
				_ = s.Load(c.stride * x)
			})
			for _, r := range []WarpCounts{st.Memory.SharedStores, st.Memory.SharedLoads} {
				assert.Equal(t, int64(1), r.Requests)
				assert.Equal(t, int64(c.ways), r.Wavefronts)
				assert.Equal(t, int64(c.ways-1), r.Conflicts)
				assert.Equal(t, c.ways, r.MaxWays)
				assert.InDelta(t, float64(c.ways), r.ReplayFactor(), 0)
			}
			assert.Zero(t, st.Memory.GlobalLoads.Requests)
		})
	}
}

func TestSharedBroadcastIsNoConflict(t *testing.T) {
	st := launch1D(t, 32, func(th *Thread) {
		s := th.Shared2("tile_s", 32, 32)
		x := th.ThreadIdx.X
		for c := range 32 {
			s.Store(x, c, 1) // column c: all in bank c, a 32-way conflict
		}
		th.Sync()
		_ = s.Load(5, 0)       // every thread reads one word: a broadcast
		_ = s.Load(x%2, x%2*7) // two words, banks 0 and 7+32 = 39 → 7: no conflict
		_ = s.Load(x%4, 0)     // four distinct words of bank 0: 4 ways
	})
	require.Len(t, st.Memory.Sites, 4)
	assert.Equal(t, int64(32*31), st.Memory.SharedStores.Conflicts)
	bcast, two, four := st.Memory.Sites[1].WarpCounts, st.Memory.Sites[2].WarpCounts, st.Memory.Sites[3].WarpCounts
	assert.Equal(t, int64(1), bcast.Wavefronts)
	assert.Zero(t, bcast.Conflicts)
	assert.Equal(t, int64(4), bcast.UsefulBytes)
	assert.Equal(t, int64(32), bcast.Threads)
	assert.Zero(t, two.Conflicts)
	assert.Equal(t, int64(3), four.Conflicts)
	assert.Equal(t, int64(3), st.Memory.SharedLoads.Conflicts)
	w, ok := st.Memory.Worst(SharedLoad)
	require.True(t, ok)
	assert.Equal(t, st.Memory.Sites[3].Line, w.Line)
}

func TestWarpsFollowCUDAOrder(t *testing.T) {
	// A 8×8×2 block: warp 0 is ty 0…3 of tz 0, warp 1 ty 4…7 of tz 0,
	// warp 2 ty 0…3 of tz 1... Each thread loads element ty·64 + tx: a
	// warp touches 4 rows of 8 floats, 4 sectors, in 4 lines.
	in := &Global{Name: "in", Data: make([]float32, 8*64)}
	st, err := (&Simulator{Workers: 2}).Launch(Kernel{Grid: Dim3{3, 1, 1}, Block: Dim3{8, 8, 2}, Body: func(th *Thread) {
		th.Load(in, th.ThreadIdx.Y*64+th.ThreadIdx.X)
	}})
	require.NoError(t, err)
	ld := st.Memory.GlobalLoads
	assert.Equal(t, int64(3*4), ld.Requests)
	assert.Equal(t, int64(3*4*4), ld.Sectors)
	assert.Equal(t, int64(3*4*4), ld.Lines)
	assert.InDelta(t, 1.0, ld.Efficiency(), 1e-12, "each row of 8 floats fills its sector")
}

func TestWarpCountsDoNotDependOnWorkers(t *testing.T) {
	in := &Global{Name: "in", Data: make([]float32, 4096)}
	k := Kernel{Grid: Dim3{4, 3, 2}, Block: Dim3{6, 5, 3}, Body: func(th *Thread) {
		s := th.Shared3("s", 3, 5, 6)
		i := (th.BlockIdx.Z*3+th.ThreadIdx.Z)*300 + (th.BlockIdx.Y*5+th.ThreadIdx.Y)*20 + th.BlockIdx.X*5 + th.ThreadIdx.X
		s.Store(th.ThreadIdx.Z, th.ThreadIdx.Y, th.ThreadIdx.X, th.Load(in, i))
		th.Sync()
		_ = s.Load(th.ThreadIdx.Z, th.ThreadIdx.X%5, th.ThreadIdx.Y)
	}}
	a, err := (&Simulator{Workers: 1}).Launch(k)
	require.NoError(t, err)
	b, err := (&Simulator{Workers: 3}).Launch(k)
	require.NoError(t, err)
	assert.Equal(t, a.Memory, b.Memory)
	assert.Equal(t, a.GlobalLoads, a.Memory.GlobalLoads.Threads, "every thread access is in one request")
	assert.Equal(t, a.SharedLoads, a.Memory.SharedLoads.Threads)
}

func TestAccessKindText(t *testing.T) {
	for k := range numKinds {
		b, err := k.MarshalText()
		require.NoError(t, err)
		var back AccessKind
		require.NoError(t, back.UnmarshalText(b))
		assert.Equal(t, k, back)
	}
	assert.Error(t, new(AccessKind).UnmarshalText([]byte("texture load")))
}

func TestManyRequestsOfADivergentWarp(t *testing.T) {
	in := &Global{Name: "in", Data: make([]float32, 64*20)}
	// Odd threads load once more before the loop, so that their accesses
	// do not line up with the even threads' one for one: the requests
	// must still be told apart by site and execution.
	st := launch1D(t, 64, func(th *Thread) {
		x := th.ThreadIdx.X
		if x%2 == 1 {
			th.Load(in, 0)
		}
		for r := range 20 {
			th.Load(in, 64*r+x)
		}
	})
	require.Len(t, st.Memory.Sites, 2)
	extra, loop := st.Memory.Sites[0].WarpCounts, st.Memory.Sites[1].WarpCounts
	assert.Equal(t, int64(2), extra.Requests)
	assert.Equal(t, int64(2), extra.Sectors)
	// 20 executions × 2 warps, each 32 consecutive floats from a multiple
	// of 32: 4 sectors.
	assert.Equal(t, int64(40), loop.Requests)
	assert.Equal(t, int64(160), loop.Sectors)
	assert.Equal(t, int64(64*20), loop.Threads)
}

func TestWarpThreadsAndCountHelpers(t *testing.T) {
	w := WarpThreads(Dim3{8, 8, 8}, 3) // threads 96…127: tz = 1, ty = 4…7
	require.Len(t, w, 32)
	assert.Equal(t, Dim3{0, 4, 1}, w[0])
	assert.Equal(t, Dim3{7, 7, 1}, w[31])
	assert.Len(t, WarpThreads(Dim3{40, 1, 1}, 1), 8)
	assert.Empty(t, WarpThreads(Dim3{40, 1, 1}, 2))
	idx := []int{40, 33, 9, 8}
	c := CountGlobal(idx)
	assert.Equal(t, []int{40, 33, 9, 8}, idx, "left as it is")
	assert.Equal(t, int64(3), c.Sectors)                                   // sectors 1, 4, 5
	assert.Equal(t, int64(2), c.Lines)                                     // lines 0, 1
	assert.Equal(t, int64(3), CountShared([]int{0, 32, 64, 1}).Wavefronts) // three words of bank 0
	assert.Equal(t, 5, SectorOf(40))
	assert.Equal(t, 1, BankOf(33))
}
