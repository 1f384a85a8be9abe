package fig

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab/sim"
)

// On N = 512 every row starts on a sector. Warp 0 of block (1, 1, 1)
// reads in[p−1] at k = 7…14 of four rows with 8×8×8 blocks: each row
// fragment straddles the sector boundary at k = 8, 2 sectors a row, 8 in
// all, one line a row. With 32×8×1 blocks it reads k = 31…62 of one row:
// sector 3 (k = 24…31) and sectors 4–7, 5 in all, in lines 0 and 1.
func TestBasicWarpLoadWorkedByHand(t *testing.T) {
	cube, err := BasicWarpLoad(sim.Dim3{X: 8, Y: 8, Z: 8}, WarpN)
	require.NoError(t, err)
	assert.Len(t, cube.Rows, 4)
	assert.Equal(t, WarpRow{I: 8, J: 11, K0: 7, K1: 14}, cube.Rows[3])
	assert.Equal(t, int64(8), cube.Count.Sectors)
	assert.Equal(t, int64(4), cube.Count.Lines)
	assert.Equal(t, int64(128), cube.Count.UsefulBytes)

	flat, err := BasicWarpLoad(sim.Dim3{X: 32, Y: 8, Z: 1}, WarpN)
	require.NoError(t, err)
	assert.Equal(t, []WarpRow{{I: 1, J: 8, K0: 31, K1: 62}}, flat.Rows)
	assert.Equal(t, int64(5), flat.Count.Sectors)
	assert.Equal(t, int64(2), flat.Count.Lines)

	_, err = BasicWarpLoad(sim.Dim3{}, WarpN)
	assert.Error(t, err)
}

func TestColumnReadBanks(t *testing.T) {
	assert.Equal(t, int64(32), ColumnRead(32).Count.Wavefronts, "rows of 32 floats: every word in bank 0")
	assert.Equal(t, int64(31), ColumnRead(32).Count.Conflicts)
	assert.Equal(t, int64(1), ColumnRead(33).Count.Wavefronts, "padded by one: word 33r in bank r")
	assert.Equal(t, int64(2), ColumnRead(2).Count.Wavefronts, "words 0, 2, …, 62: each even bank twice")
}
