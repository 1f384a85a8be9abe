package lab

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab/sim"
)

// simulateShape runs the basic kernel with block b on an nz×ny×nx grid.
func simulateBasic(t *testing.T, nz, ny, nx int, b sim.Dim3) sim.Stats {
	t.Helper()
	src, err := NewGrid3[float32](nz, ny, nx)
	require.NoError(t, err)
	src.FillRandom(7)
	dst := src.Clone()
	st, err := Simulate(&sim.Simulator{}, BasicKernel, Config{Block: b}, dst, src, DistinctCoeffs())
	require.NoError(t, err)
	return st
}

// TestBasicSectorsWorkedByHand: one interior row, (i, j) = (1, 1), k =
// 1…38, on a 3×3×40 grid, every row starting on a sector (40 floats = 5
// sectors).
//
// 8×8×8 blocks: 5 blocks along x; in each, one warp (tz = 1, ty = 0…3)
// holds the row, with 7, 8, 8, 8, 7 active threads. A load at k, j±1 or
// i±1 touches the block's own sector: 5 sectors in 5 requests. The load
// at k−1 reaches back into the sector before for blocks 1…4 (1 + 4·2 = 9
// sectors), the load at k+1 forward for blocks 0…3 (4·2 + 1 = 9). Loads:
// 35 requests, 5·5 + 9 + 9 = 43 sectors; the store: 5 requests, 5
// sectors.
//
// 32×8×1 blocks: 2 blocks along x; the row is one warp of each, with
// k = 1…31 and 32…38 active. At k: sectors 0–3 and 4, 5 in all; at
// k−1: 0–3 and 3–4, 6; at k+1: 0–4 and 4, 6; j±1 and i±1 like k.
// Loads: 14 requests, 5·5 + 6 + 6 = 37 sectors; the store 2 and 5.
func TestBasicSectorsWorkedByHand(t *testing.T) {
	for _, c := range []struct {
		block                       sim.Dim3
		loadReq, loadSec            int64
		storeReq, storeSec, threads int64
	}{
		{sim.Dim3{X: 8, Y: 8, Z: 8}, 35, 43, 5, 5, 38},
		{sim.Dim3{X: 32, Y: 8, Z: 1}, 14, 37, 2, 5, 38},
	} {
		t.Run(c.block.Shape(), func(t *testing.T) {
			m := simulateBasic(t, 3, 3, 40, c.block).Memory
			assert.Equal(t, c.loadReq, m.GlobalLoads.Requests)
			assert.Equal(t, c.loadSec, m.GlobalLoads.Sectors)
			assert.Equal(t, 7*c.threads, m.GlobalLoads.Threads)
			assert.Equal(t, c.storeReq, m.GlobalStores.Requests)
			assert.Equal(t, c.storeSec, m.GlobalStores.Sectors)
			assert.Equal(t, 4*c.threads, m.GlobalStores.UsefulBytes)
			assert.Zero(t, m.SharedLoads.Requests)
		})
	}
}

// warpReference counts the requests and sectors of the basic kernel's
// loads and store by going over the warps directly: for each block and
// each group of 32 consecutive linear thread indices, the threads whose
// point is interior are the active lanes; each of the 7 loads (offsets
// 0, ∓1, ∓nx, ∓nx·ny) and the store is one request when a lane is active,
// touching the distinct 32-byte sectors (8 floats) of its lanes' elements.
func warpReference(nz, ny, nx int, b sim.Dim3) (loadReq, loadSec, storeReq, storeSec int64) {
	offsets := []int{0, -1, 1, -nx, nx, -nx * ny, nx * ny}
	g := sim.Dim3{X: ceilDiv(nx, b.X), Y: ceilDiv(ny, b.Y), Z: ceilDiv(nz, b.Z)}
	threads := b.Size()
	for bz := range g.Z {
		for by := range g.Y {
			for bx := range g.X {
				for w0 := 0; w0 < threads; w0 += 32 {
					var points []int
					for r := w0; r < min(w0+32, threads); r++ {
						tx, ty, tz := r%b.X, r/b.X%b.Y, r/(b.X*b.Y)
						i, j, k := bz*b.Z+tz, by*b.Y+ty, bx*b.X+tx
						if i >= 1 && i < nz-1 && j >= 1 && j < ny-1 && k >= 1 && k < nx-1 {
							points = append(points, (i*ny+j)*nx+k)
						}
					}
					if len(points) == 0 {
						continue
					}
					for o, off := range offsets {
						sectors := map[int]bool{}
						for _, p := range points {
							sectors[(p+off)/8] = true
						}
						loadReq++
						loadSec += int64(len(sectors))
						if o == 0 {
							storeReq++
							storeSec += int64(len(sectors))
						}
					}
				}
			}
		}
	}
	return
}

func TestBasicSectorsAgainstAWarpByWarpCount(t *testing.T) {
	for _, c := range []struct {
		n     [3]int
		block sim.Dim3
	}{
		{[3]int{13, 11, 29}, sim.Dim3{X: 8, Y: 8, Z: 8}},
		{[3]int{13, 11, 29}, sim.Dim3{X: 32, Y: 8, Z: 1}},
		{[3]int{9, 10, 37}, sim.Dim3{X: 5, Y: 3, Z: 7}}, // warps straddle rows and planes
		{[3]int{21, 21, 21}, sim.Dim3{X: 16, Y: 4, Z: 2}},
	} {
		t.Run(fmt.Sprintf("%v/%s", c.n, c.block.Shape()), func(t *testing.T) {
			m := simulateBasic(t, c.n[0], c.n[1], c.n[2], c.block).Memory
			lr, ls, sr, ss := warpReference(c.n[0], c.n[1], c.n[2], c.block)
			assert.Equal(t, lr, m.GlobalLoads.Requests)
			assert.Equal(t, ls, m.GlobalLoads.Sectors)
			assert.Equal(t, sr, m.GlobalStores.Requests)
			assert.Equal(t, ss, m.GlobalStores.Sectors)
			assert.Len(t, m.Sites, 8, "seven loads and a store")
		})
	}
}

// TestTiledSharedTileHasNoConflicts: in the tiled kernel a warp of an
// 8×8×8 block is 4 consecutive rows of 8 of one plane, 32 consecutive
// words of in_s: one bank each, for the store and for every load of the
// seven (the ±1 neighbours shift the 32 words by one, still one word a
// bank).
func TestTiledSharedTileHasNoConflicts(t *testing.T) {
	src, err := NewGrid3[float32](14, 13, 17)
	require.NoError(t, err)
	src.FillRandom(3)
	dst := src.Clone()
	st, err := Simulate(&sim.Simulator{}, TiledKernel, Config{Tile: 8}, dst, src, DistinctCoeffs())
	require.NoError(t, err)
	m := st.Memory
	assert.Positive(t, m.SharedLoads.Requests)
	assert.Zero(t, m.SharedLoads.Conflicts)
	assert.Zero(t, m.SharedStores.Conflicts)
	assert.Equal(t, m.SharedLoads.Requests, m.SharedLoads.Wavefronts)
	assert.Equal(t, st.SharedLoads, m.SharedLoads.Threads)
	assert.Equal(t, st.GlobalLoads, m.GlobalLoads.Threads)
}
