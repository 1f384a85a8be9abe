package multi

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/internal/testlimit"

	"stencillab.dev/lab"
	"stencillab.dev/lab/halo"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestProcessRank(t *testing.T) {
	pr, ok, err := processRank(envOf(nil))
	require.NoError(t, err)
	assert.False(t, ok, "no launcher")

	pr, ok, err = processRank(envOf(map[string]string{
		"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4",
		"OMPI_COMM_WORLD_LOCAL_RANK": "1", "OMPI_COMM_WORLD_LOCAL_SIZE": "2"}))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, ProcessRank{Rank: 3, Size: 4, Local: 1, LocalSize: 2, Launcher: "OpenMPI"}, pr)

	pr, ok, err = processRank(envOf(map[string]string{"SLURM_PROCID": "5", "SLURM_NTASKS": "8", "SLURM_LOCALID": "1"}))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, ProcessRank{Rank: 5, Size: 8, Local: 1, Launcher: "Slurm"}, pr)

	// One process is not a split launch.
	_, ok, err = processRank(envOf(map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "1"}))
	require.NoError(t, err)
	assert.False(t, ok)

	for _, bad := range []map[string]string{
		{"OMPI_COMM_WORLD_RANK": "4", "OMPI_COMM_WORLD_SIZE": "4"},
		{"OMPI_COMM_WORLD_RANK": "x", "OMPI_COMM_WORLD_SIZE": "4"},
		{"OMPI_COMM_WORLD_RANK": "-1", "OMPI_COMM_WORLD_SIZE": "4"},
		{"OMPI_COMM_WORLD_SIZE": "4"},
		{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "0"},
		{"SLURM_PROCID": "1", "SLURM_NTASKS": "2", "SLURM_LOCALID": "z"},
		{"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_LOCAL_RANK": "2", "OMPI_COMM_WORLD_LOCAL_SIZE": "2"},
	} {
		_, _, err := processRank(envOf(bad))
		assert.Error(t, err, "%v", bad)
	}
}

func FuzzProcessRank(f *testing.F) {
	f.Add("3", "4", "1", "2")
	f.Add("", "x", "", "")
	f.Fuzz(func(t *testing.T, rank, size, local, localSize string) {
		pr, ok, err := processRank(envOf(map[string]string{"OMPI_COMM_WORLD_RANK": rank, "OMPI_COMM_WORLD_SIZE": size,
			"OMPI_COMM_WORLD_LOCAL_RANK": local, "OMPI_COMM_WORLD_LOCAL_SIZE": localSize}))
		if err == nil && ok {
			assert.True(t, pr.Rank >= 0 && pr.Rank < pr.Size)
		}
	})
}

func TestRendezvousAddr(t *testing.T) {
	one := ProcessRank{Rank: 1, Size: 4, LocalSize: 4}
	a, err := rendezvousAddr(envOf(nil), one)
	require.NoError(t, err)
	assert.Equal(t, defaultRendezvous, a)
	_, err = rendezvousAddr(envOf(nil), ProcessRank{Rank: 1, Size: 8, LocalSize: 4})
	require.Error(t, err)
	assert.Contains(t, err.Error(), EnvRendezvous)
	a, err = rendezvousAddr(envOf(map[string]string{EnvRendezvous: "node07:4000"}), one)
	require.NoError(t, err)
	assert.Equal(t, "node07:4000", a)
	a, err = rendezvousAddr(envOf(map[string]string{EnvRendezvous: ":4000"}), one)
	require.NoError(t, err)
	assert.Equal(t, "0.0.0.0:4000", a)
	for _, bad := range []string{"node07", "node07:0", "node07:70000", "node07:http"} {
		_, err := rendezvousAddr(envOf(map[string]string{EnvRendezvous: bad}), one)
		assert.Error(t, err, bad)
	}
}

func TestLocalDevice(t *testing.T) {
	pr := ProcessRank{Rank: 5, Size: 8, Local: 1, LocalSize: 4}
	assert.Equal(t, 1, localDevice(envOf(nil), pr, nil))
	assert.Equal(t, 3, localDevice(envOf(nil), pr, []int{2, 3}))
	assert.Equal(t, 2, localDevice(envOf(nil), ProcessRank{Local: 2}, []int{0, 1, 2, 3}))
	assert.Equal(t, 0, localDevice(envOf(map[string]string{"CUDA_VISIBLE_DEVICES": "3"}), pr, []int{0, 1, 2, 3}))
	assert.Equal(t, 1, localDevice(envOf(map[string]string{"CUDA_VISIBLE_DEVICES": "2,3"}), pr, nil))
}

// TestRendezvous joins a world of five ranks on the loopback, the others
// dialling before rank 0 listens, and gathers and broadcasts payloads.
func TestRendezvous(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close() // free the port: the ranks dial before rank 0 listens again
	const size = 5
	id := make([]byte, 128)
	for i := range id {
		id[i] = byte(rand.N(256))
	}
	got := make([][]byte, size)
	gathered := make([][]byte, size)
	bcast := make([][]byte, size)
	errs := make([]error, size)
	var wg sync.WaitGroup
	for rank := 1; rank < size; rank++ {
		wg.Go(func() {
			r, b, err := Dial(addr, rank, size, testlimit.Legit(t))
			if err != nil {
				errs[rank] = err
				return
			}
			defer r.Close()
			got[rank] = b
			all, err := r.Gather(bytes.Repeat([]byte{byte(rank)}, rank*1000))
			if err != nil || all != nil {
				errs[rank] = fmt.Errorf("gather: %v, %d payloads", err, len(all))
				return
			}
			bcast[rank], errs[rank] = r.Broadcast(nil)
		})
	}
	time.Sleep(50 * time.Millisecond)
	r0, err := Listen(addr, size)
	require.NoError(t, err)
	defer r0.Close()
	require.NoError(t, r0.Accept(id, testlimit.Legit(t)))
	all, err := r0.Gather([]byte("zero"))
	require.NoError(t, err)
	copy(gathered, all)
	_, err = r0.Broadcast([]byte("everyone"))
	require.NoError(t, err)
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	assert.Equal(t, []byte("zero"), gathered[0])
	for rank := 1; rank < size; rank++ {
		assert.Equal(t, id, got[rank], "rank %d's id", rank)
		assert.Equal(t, bytes.Repeat([]byte{byte(rank)}, rank*1000), gathered[rank], "rank %d's payload", rank)
		assert.Equal(t, []byte("everyone"), bcast[rank])
	}
}

func TestRendezvousRefuses(t *testing.T) {
	// No rank 0: the dial times out with the address.
	_, _, err := Dial("127.0.0.1:1", 1, 2, 200*time.Millisecond)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrRendezvous)
	assert.Contains(t, err.Error(), "127.0.0.1:1")
	_, _, err = Dial("127.0.0.1:1", 0, 2, time.Second)
	assert.ErrorIs(t, err, ErrRendezvous)

	// A rank of another world size, a rank outside the world, and a
	// stranger.
	for _, c := range []struct {
		greet func(c net.Conn)
		want  string
	}{
		{func(c net.Conn) { writeHello(c, 1, 3) }, "world of 3"},
		{func(c net.Conn) { writeHello(c, 2, 2) }, "rank 2 is not a rank from 1 to 1"},
		{func(c net.Conn) { c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")) }, "not a rank of the lab"},
	} {
		r0, err := Listen("127.0.0.1:0", 2)
		require.NoError(t, err)
		go func() {
			conn, err := net.Dial("tcp", r0.Addr())
			if err == nil {
				c.greet(conn)
				conn.Close()
			}
		}()
		// The stranger does come: its greeting, not the limit, ends Accept.
		err = r0.Accept(make([]byte, 128), testlimit.Legit(t))
		require.Error(t, err)
		assert.ErrorIs(t, err, ErrRendezvous)
		assert.Contains(t, err.Error(), c.want)
		r0.Close()
	}

	// Nobody comes.
	r0, err := Listen("127.0.0.1:0", 3)
	require.NoError(t, err)
	err = r0.Accept(make([]byte, 128), 100*time.Millisecond)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "2 of 2")
	r0.Close()

	_, err = readFrame(bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}), 1<<20)
	assert.Error(t, err)
}

// TestOwnedCoding round-trips each part's owned points through the
// encoding the ranks gather with, for slabs and pencils.
func TestOwnedCoding(t *testing.T) {
	for _, c := range []struct{ nz, ny, nx, ranks, py int }{{17, 9, 7, 3, 1}, {13, 11, 6, 4, 2}} {
		src, err := lab.NewGrid3[float32](c.nz, c.ny, c.nx)
		require.NoError(t, err)
		src.FillRandom(uint64(c.nz))
		parts, err := halo.Decompose(c.nz, c.ny, c.nx, c.ranks, c.py, 1)
		require.NoError(t, err)
		dst, _ := lab.NewGrid3[float32](c.nz, c.ny, c.nx)
		for _, p := range parts {
			decodeOwned(dst, p, encodeOwned(src, p))
		}
		for z := 0; z < c.nz; z++ {
			for y := 0; y < c.ny; y++ {
				for x := 0; x < c.nx; x++ {
					inner := z > 0 && z < c.nz-1 && y > 0 && y < c.ny-1 && x > 0 && x < c.nx-1
					want := float32(0)
					if inner {
						want = src.At(z, y, x)
					}
					require.Equal(t, want, dst.At(z, y, x), "(%d, %d, %d)", z, y, x)
				}
			}
		}
		g2, _ := lab.NewGrid3[float32](c.nz, c.ny, c.nx)
		decodeGrid(g2, encodeGrid(src))
		assert.Equal(t, src.Data, g2.Data)
	}
}

// TestLocalBox checks each part's local grid against the global points it
// names, plane by plane and row by row.
func TestLocalBox(t *testing.T) {
	g, _ := lab.NewGrid3[float32](15, 12, 5)
	g.FillRandom(3)
	for _, py := range []int{1, 3} {
		parts, err := halo.Decompose(15, 12, 5, 3*py, py, 2)
		require.NoError(t, err)
		for _, p := range parts {
			box := localBox(g, p)
			require.Len(t, box, p.LocalLen())
			for z := p.LZ0; z < p.LZ1; z++ {
				for y := p.LY0; y < p.LY1; y++ {
					for x := 0; x < 5; x++ {
						require.Equal(t, g.At(z, y, x), box[p.Local(z, y, x)])
					}
				}
			}
		}
	}
}

func TestCommStats(t *testing.T) {
	parts, err := halo.Decompose(66, 20, 12, 4, 1, 1)
	require.NoError(t, err)
	s := commStats(parts, 1, 6)
	assert.Equal(t, []int64{1, 2, 2, 1}, s.Messages)
	plane := int64(20 * 12 * 4)
	assert.Equal(t, []int64{plane, 2 * plane, 2 * plane, plane}, s.Bytes)
	assert.Equal(t, 6, s.Exchanges)
	parts, err = halo.Decompose(66, 20, 12, 2, 1, 4)
	require.NoError(t, err)
	s = commStats(parts, 4, 3)
	assert.Equal(t, []int64{4 * plane, 4 * plane}, s.Bytes)
	assert.Equal(t, 4, s.StepsPerExchange)
}

func TestCheckOverlap(t *testing.T) {
	require.Len(t, Overlaps(), len(overlaps))
	for _, name := range Overlaps() {
		o, err := LookupOverlap(name)
		require.NoError(t, err)
		assert.Equal(t, name, o.Name(), "a strategy is found by its own name")
		got, err := checkOverlap(o, 1, 1, true)
		require.NoError(t, err)
		assert.Same(t, o, got)
	}
	o, err := LookupOverlap("")
	require.NoError(t, err)
	assert.Nil(t, o, "no name: the split's default")
	got, err := checkOverlap(nil, 1, 1, true)
	require.NoError(t, err)
	assert.Same(t, DefaultOverlap, got)
	_, err = LookupOverlap("sideways")
	assert.ErrorIs(t, err, lab.ErrUnknown)
	for _, name := range Overlaps() {
		assert.Contains(t, err.Error(), name, "the error lists the strategies")
	}
	// Named before any device is opened, with or without a GPU.
	_, err = splitRunWith(lab.Run{Step: "fast", Backend: lab.GPU, NZ: 9, NY: 9, NX: 9,
		Split: lab.Split{Devices: []int{0}, Overlap: "sideways"}}, oneProcess(1), nil, nil)
	assert.ErrorIs(t, err, lab.ErrUnknown)
	_, err = NewMulti(MultiConfig{Step: "fast", NZ: 9, NY: 9, NX: 9})
	assert.ErrorIs(t, err, lab.ErrSize)
	_, err = checkOverlap(Split, 4, 1, true)
	assert.ErrorContains(t, err, "advances 4")
	_, err = checkOverlap(Early, 1, 2, true)
	assert.ErrorContains(t, err, "pencils")
	_, err = checkOverlap(None, 4, 2, true)
	assert.NoError(t, err)
	_, err = checkOverlap(Copy, 4, 1, true)
	assert.NoError(t, err, "peer copies move deep halos too")
	_, err = checkOverlap(CopyEarly, 4, 1, true)
	assert.ErrorContains(t, err, "advances 4")
	_, err = checkOverlap(Copy, 1, 2, true)
	assert.ErrorContains(t, err, "pencils")
	// Unnamed, the default fits the split: NCCL for processes and pencils.
	// The defaults as defaultOverlap's doc gives them, from the measured
	// runs: copy-early, copy for deep halos, split across processes,
	// none for their deep halos and for pencils.
	for _, c := range []struct {
		per, py int
		one     bool
		want    *Overlap
	}{{1, 1, true, CopyEarly}, {4, 1, true, Copy}, {1, 1, false, Split}, {4, 1, false, None},
		{1, 2, true, None}, {4, 2, false, None}} {
		got, err := checkOverlap(nil, c.per, c.py, c.one)
		require.NoError(t, err, "%+v", c)
		assert.Same(t, c.want, got, "%+v", c)
		if c.py > 1 {
			assert.Same(t, None, got, "%+v: pencils exchange through NCCL only", c)
		}
		if !c.one {
			assert.False(t, got.copies, "%+v: no peer copies between processes", c)
		}
		if c.per != 1 {
			assert.True(t, got.whole, "%+v: deep halos", c)
		}
	}
}

func TestRankTimes(t *testing.T) {
	ms, rt := rankTimes([]RankTimes{{Rank: 1, Total: 3, Compute: 2, Exchange: 1}, {Rank: 0, Total: 5, Compute: 4, Exchange: 0.5}})
	assert.Equal(t, 5.0, ms)
	assert.Equal(t, []lab.RankTime{{Compute: 4, Exchange: 0.5, Wait: 0}, {Compute: 2, Exchange: 1, Wait: 2}}, rt)
}

// FuzzRendezvousMessages feeds arbitrary bytes to the rendezvous's
// readers, which meet whatever connects to rank 0's port: no panic, no
// payload beyond the limit, and a hello written is read back.
func FuzzRendezvousMessages(f *testing.F) {
	var b bytes.Buffer
	writeHello(&b, 3, 4)
	writeFrame(&b, []byte("id"))
	f.Add(b.Bytes())
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bytes.NewReader(in)
		if rank, size, err := readHello(r); err == nil {
			var w bytes.Buffer
			require.NoError(t, writeHello(&w, rank, size))
			assert.Equal(t, in[:w.Len()], w.Bytes())
		}
		if p, err := readFrame(r, 1<<10); err == nil {
			assert.LessOrEqual(t, len(p), 1<<10)
		}
	})
}

func TestFillFast(t *testing.T) {
	g, _ := lab.NewGrid3[float32](9, 7, 5)
	fillFast(g, 3)
	h, _ := lab.NewGrid3[float32](9, 7, 5)
	fillFast(h, 3)
	assert.Equal(t, g.Data, h.Data, "the same seed, the same grid")
	distinct := map[float32]bool{}
	for _, v := range g.Data {
		assert.True(t, v >= -1 && v < 1, "%g outside [-1, 1)", v)
		distinct[v] = true
	}
	assert.Greater(t, len(distinct), len(g.Data)*9/10)
}

// TestProgress checks the host threads' hand-over of the peer copies: a
// waiter wakes when its peer has enqueued the pass, not before, and fail
// releases every waiter.
func TestProgress(t *testing.T) {
	var p progress
	p.reset(3)
	woke := make(chan int, 3)
	go func() {
		p.await(&p.pushed, 2, 4)
		woke <- 4
	}()
	for pass := range 4 {
		p.set(&p.pushed, 2, pass)
	}
	select {
	case <-woke:
		t.Fatal("woke before pass 4 was enqueued")
	case <-time.After(20 * time.Millisecond):
	}
	p.set(&p.pushed, 2, 4)
	assert.Equal(t, 4, <-woke)
	p.await(&p.pushed, 2, 3) // already there: no wait
	go func() {
		p.await(&p.computed, 0, 100)
		woke <- 100
	}()
	p.fail()
	assert.Equal(t, 100, <-woke)
	p.reset(3)
	assert.Equal(t, []int{-1, -1, -1}, p.computed)
}
