package halo

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// label is the value the tests give the global point (z, y, x): exact in
// float32 for the small grids here.
func label(z, y, x int) float32 { return float32(z*10000 + y*100 + x) }

// fillOwned fills a part's local grid with the labels of the points it
// owns and of the global boundary, NaN elsewhere: the halo to receive.
func fillOwned(p Part) []float32 {
	buf := make([]float32, p.LocalLen())
	for z := p.LZ0; z < p.LZ1; z++ {
		for y := p.LY0; y < p.LY1; y++ {
			for x := range p.NX {
				v := float32(math.NaN())
				owned := z >= p.Z0 && z < p.Z1 && y >= p.Y0 && y < p.Y1
				boundary := z == 0 || z == p.NZ-1 || y == 0 || y == p.NY-1 || x == 0 || x == p.NX-1
				if owned || boundary {
					v = label(z, y, x)
				}
				buf[p.Local(z, y, x)] = v
			}
		}
	}
	return buf
}

// TestExchangeFillsEveryHalo checks on slabs and pencils of odd shapes,
// with halos 1 to 3 deep, that one Exchange leaves every point of every
// local grid equal to its global value, corners of pencils included, and
// that the counters match the halos exchanged.
func TestExchangeFillsEveryHalo(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	ran := 0
	for range 60 {
		nz, ny, nx := 3+rng.IntN(30), 3+rng.IntN(14), 3+rng.IntN(6)
		py := 1 + rng.IntN(2)
		ranks := py * (1 + rng.IntN(5))
		h := 1 + rng.IntN(3)
		parts, err := Decompose(nz, ny, nx, ranks, py, h)
		if err != nil {
			continue
		}
		ran++
		bufs := make([][]float32, ranks)
		for r, p := range parts {
			bufs[r] = fillOwned(p)
		}
		w, err := NewWorld(ranks)
		require.NoError(t, err)
		err = guard(t, func() error {
			return RunRanks(w.Comms(), func(c *ChanComm) error {
				return Exchange[[]float32](c, bufs[c.Rank()], parts[c.Rank()], nx)
			})
		})
		require.NoError(t, err, "%d×%d×%d over %d ranks (%d along y), halo %d", nz, ny, nx, ranks, py, h)
		for r, p := range parts {
			for z := p.LZ0; z < p.LZ1; z++ {
				for y := p.LY0; y < p.LY1; y++ {
					for x := range nx {
						require.Equal(t, label(z, y, x), bufs[r][p.Local(z, y, x)],
							"rank %d of %d×%d×%d (%d along y, halo %d): point (%d, %d, %d)", r, nz, ny, nx, py, h, z, y, x)
					}
				}
			}
		}
		for r, c := range w.Counters() {
			assert.Equal(t, int64(4*HaloLen(parts[r])), c.RecvBytes, "rank %d receives its halos", r)
		}
	}
	assert.Greater(t, ran, 20)
}

// TestSlabCountsHaveAClosedForm: G slabs of an nz×ny×nx grid exchange
// 2(G−1) messages of h·ny·nx floats each.
func TestSlabCountsHaveAClosedForm(t *testing.T) {
	for _, c := range []struct{ nz, ny, nx, g, h int }{{13, 11, 9, 2, 1}, {37, 5, 7, 5, 3}, {26, 6, 4, 4, 2}, {9, 3, 3, 3, 1}} {
		parts, err := Decompose(c.nz, c.ny, c.nx, c.g, 1, c.h)
		require.NoError(t, err)
		w, err := NewWorld(c.g)
		require.NoError(t, err)
		bufs := make([][]float32, c.g)
		for r, p := range parts {
			bufs[r] = fillOwned(p)
		}
		require.NoError(t, guard(t, func() error {
			return RunRanks(w.Comms(), func(cm *ChanComm) error {
				return Exchange[[]float32](cm, bufs[cm.Rank()], parts[cm.Rank()], c.nx)
			})
		}))
		var msgs, bytes int64
		for _, k := range w.Counters() {
			msgs += k.SentMessages
			bytes += k.SentBytes
		}
		assert.Equal(t, int64(2*(c.g-1)), msgs, "%+v", c)
		assert.Equal(t, int64(2*(c.g-1)*c.h*c.ny*c.nx*4), bytes, "%+v", c)
	}
}

// TestExchangeIsDeadlockFree runs many exchanges in a row with ranks
// that arrive at random moments: the groups never deadlock, and every
// exchange leaves the halos right.
func TestExchangeIsDeadlockFree(t *testing.T) {
	for _, c := range []struct{ nz, ny, nx, ranks, py, h int }{{23, 9, 5, 5, 1, 2}, {17, 12, 4, 4, 2, 2}, {13, 13, 3, 6, 2, 1}} {
		parts, err := Decompose(c.nz, c.ny, c.nx, c.ranks, c.py, c.h)
		require.NoError(t, err)
		comms := NewChanComms(c.ranks)
		bad := make([]bool, c.ranks)
		require.NoError(t, guard(t, func() error {
			return RunRanks(comms, func(cm *ChanComm) error {
				r := cm.Rank()
				rng := rand.New(rand.NewPCG(uint64(r), 3))
				ex, err := NewExchanger[[]float32](cm, parts[r], c.nx)
				if err != nil {
					return err
				}
				defer ex.Close()
				for range 40 {
					buf := fillOwned(parts[r])
					time.Sleep(time.Duration(rng.IntN(300)) * time.Microsecond)
					if err := ex.Exchange(buf); err != nil {
						return err
					}
					for _, v := range buf {
						bad[r] = bad[r] || math.IsNaN(float64(v))
					}
				}
				return nil
			})
		}), "%+v", c)
		assert.Equal(t, make([]bool, c.ranks), bad, "a halo left unfilled, %+v", c)
	}
}

func TestExchangeRefusesAForeignPart(t *testing.T) {
	parts, err := Decompose(13, 11, 9, 4, 2, 1)
	require.NoError(t, err)
	comms := NewChanComms(4)
	_, err = NewExchanger[[]float32](comms[1], parts[2], 9)
	assert.ErrorIs(t, err, ErrComm)
	assert.Contains(t, err.Error(), "belongs to another rank")
	_, err = NewExchanger[[]float32](comms[1], parts[1], 8)
	assert.ErrorIs(t, err, ErrComm)
	bad := parts[1]
	bad.Z1 = bad.Z0
	_, err = NewExchanger[[]float32](comms[1], bad, 9)
	assert.ErrorIs(t, err, ErrComm)
	bad = parts[0]
	bad.Up = 0
	_, err = NewExchanger[[]float32](comms[0], bad, 9)
	assert.ErrorIs(t, err, ErrComm)
	// A communicator without a Packer cannot exchange pencils.
	_, err = NewExchanger[[]float32](noPacker{comms[0]}, parts[0], 9)
	assert.ErrorIs(t, err, ErrComm)
	assert.Contains(t, err.Error(), "has no Packer")
	_, err = NewExchanger[[]float32](nil, parts[0], 9)
	assert.ErrorIs(t, err, ErrComm)
}

// noPacker hides ChanComm's Packer.
type noPacker struct{ c *ChanComm }

func (n noPacker) Rank() int                                  { return n.c.Rank() }
func (n noPacker) Size() int                                  { return n.c.Size() }
func (n noPacker) Send(src []float32, off, k, peer int) error { return n.c.Send(src, off, k, peer) }
func (n noPacker) Recv(dst []float32, off, k, peer int) error { return n.c.Recv(dst, off, k, peer) }
func (n noPacker) Group(f func() error) error                 { return n.c.Group(f) }
