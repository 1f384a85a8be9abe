package fig

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/lab/sim"
)

// TestStar13WithoutKernel checks that a build without the tag "hidden"
// cannot trace the tiled thirteen-point kernel, says why, and still draws
// its figure from the committed record.
func TestStar13WithoutKernel(t *testing.T) {
	if Star13Traceable() {
		t.Skip(`this build holds the tiled thirteen-point kernel (tag "hidden"): see threads_star13_hidden_test.go`)
	}
	_, err := TraceBlock(Star13, 8, 12, sim.Dim3{X: 2, Y: 2, Z: 1}, 3)
	require.ErrorIs(t, err, ErrInstructorOnly)
	assert.Contains(t, err.Error(), Star13RecordFile)
	_, err = RecordStar13()
	require.ErrorIs(t, err, ErrInstructorOnly)
	d, err := Threads(Star13)
	require.NoError(t, err)
	assert.NotEmpty(t, d.Shapes)
}

// rawRecord is the committed record read as plain JSON, without the
// package's parser.
type rawRecord struct {
	Step     string
	Tile, N  int
	Block    struct{ X, Y, Z int }
	BlockIdx struct{ X, Y, Z int } `json:"block_idx"`
	Plane    int
	Counts   struct {
		Compute  int
		LoadOnly int `json:"load_only"`
		Idle     int
	}
	Roles        []string
	Loads        [][]int
	Outputs      [][]int
	SharedStores [][]int `json:"shared_stores"`
}

// TestStar13RecordConsistent checks the committed record of the Star13
// launch on its own: the block is IN_TILE_DIM³ threads with IN_TILE_DIM =
// OUT_TILE_DIM + 4, the role of each thread agrees with its loads and
// outputs and the totals with the roles, each loading thread stores its
// one point into shared memory, and only threads of the inner
// OUT_TILE_DIM² square compute, each one output.
func TestStar13RecordConsistent(t *testing.T) {
	var r rawRecord
	require.NoError(t, json.Unmarshal(star13Record, &r))
	require.Equal(t, Star13, r.Step)
	in := r.Tile
	out := in - 4 // IN_TILE_DIM = OUT_TILE_DIM + 4: a halo of two on each side
	require.GreaterOrEqual(t, out, 1)
	assert.Equal(t, []int{in, in, in}, []int{r.Block.X, r.Block.Y, r.Block.Z}, "a block is IN_TILE_DIM³ threads")
	blocks := (r.N-3)/out + 1 // output tiles cover the interior 2 … n−3
	for _, b := range []int{r.BlockIdx.X, r.BlockIdx.Y, r.BlockIdx.Z} {
		assert.True(t, b >= 0 && b < blocks, "block index %d outside 0…%d", b, blocks-1)
	}
	require.Len(t, r.Roles, in)
	require.Len(t, r.Loads, in)
	require.Len(t, r.Outputs, in)
	require.Len(t, r.SharedStores, in)
	var compute, loadOnly, idle int
	for ty := range in {
		require.Len(t, r.Roles[ty], in)
		require.Len(t, r.Loads[ty], in)
		require.Len(t, r.Outputs[ty], in)
		require.Len(t, r.SharedStores[ty], in)
		for tx := range in {
			loads, outs, role := r.Loads[ty][tx], r.Outputs[ty][tx], r.Roles[ty][tx]
			assert.Equal(t, loads, r.SharedStores[ty][tx], "thread (%d, %d): each load goes to shared memory", tx, ty)
			assert.LessOrEqual(t, loads, 1, "thread (%d, %d) loads one point at most", tx, ty)
			switch {
			case outs > 0:
				compute++
				assert.Equal(t, byte('C'), role, "thread (%d, %d)", tx, ty)
				assert.Equal(t, 1, outs, "thread (%d, %d) computes one point", tx, ty)
				assert.Equal(t, 1, loads, "thread (%d, %d) loads its own point", tx, ty)
				inner := func(p int) bool { return p >= 2 && p < in-2 }
				assert.True(t, inner(tx) && inner(ty) && inner(r.Plane), "thread (%d, %d, %d) computes outside the inner tile", tx, ty, r.Plane)
			case loads > 0:
				loadOnly++
				assert.Equal(t, byte('L'), role, "thread (%d, %d)", tx, ty)
			default:
				idle++
				assert.Equal(t, byte('.'), role, "thread (%d, %d)", tx, ty)
			}
		}
	}
	assert.Equal(t, []int{compute, loadOnly, idle}, []int{r.Counts.Compute, r.Counts.LoadOnly, r.Counts.Idle}, "the counts of each role")
	assert.Equal(t, in*in, compute+loadOnly+idle)
	assert.Positive(t, compute)
	assert.Positive(t, loadOnly)
	assert.Positive(t, idle)

	bt, err := recordedStar13()
	require.NoError(t, err)
	c, l, i := bt.Roles()
	assert.Equal(t, []int{compute, loadOnly, idle}, []int{c, l, i})
}

// TestThreadRecordRoundTrip checks that a record encodes and parses back
// to the same trace, on random counts.
func TestThreadRecordRoundTrip(t *testing.T) {
	bt, err := recordedStar13()
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(13, 8))
	for range 20 {
		c := *bt
		m := c.Block.X * c.Block.Y
		c.Loads, c.Outputs, c.SharedStores = make([]int, m), make([]int, m), make([]int, m)
		for i := range m {
			c.Loads[i], c.Outputs[i], c.SharedStores[i] = rng.IntN(4), rng.IntN(3), rng.IntN(5)
		}
		c.Intervals = 1 + rng.IntN(5)
		b, err := encodeThreadRecord(&c)
		require.NoError(t, err)
		back, err := parseThreadRecord(b)
		require.NoError(t, err)
		assert.Equal(t, &c, back)
	}
}

// TestThreadRecordRefusesBadRecords alters the committed record one field
// at a time and checks that each change is refused with an error naming
// what does not hold.
func TestThreadRecordRefusesBadRecords(t *testing.T) {
	good := string(star13Record)
	edit := func(old, repl string) string {
		t.Helper()
		require.Contains(t, good, old)
		return strings.Replace(good, old, repl, 1)
	}
	for _, c := range []struct{ name, rec, want string }{
		{"empty", "", "bad thread record"},
		{"not an object", "[1, 2]", "bad thread record"},
		{"unknown field", edit(`"plane"`, `"secret": 1, "plane"`), "unknown field"},
		{"trailing text", good + "{}", "text after"},
		{"other step", edit(`"step": "star13_tiled"`, `"step": "tiled"`), "only"},
		{"other tile", edit(`"tile": 8`, `"tile": 9`), "the figure's launch"},
		{"other plane", edit(`"plane": 3`, `"plane": 4`), "the figure's launch"},
		{"flat block", edit(`"block": {"x": 8, "y": 8, "z": 8}`, `"block": {"x": 8, "y": 8, "z": 1}`), "OUT_TILE_DIM + 4"},
		{"no title", edit(`"title": "The`, `"title": "\u0007The`), "not printable"},
		{"no intervals", edit(`"intervals": 2`, `"intervals": 0`), "barrier intervals"},
		{"wrong counts", edit(`"compute": 4`, `"compute": 5`), "the roles give"},
		{"wrong role", edit(`"LLCCLL.."`, `"LLCLLL.."`), "make it 'C'"},
		{"short role row", edit(`"LLCCLL.."`, `"LLCCLL."`), "7 bytes for 8"},
		{"short table row", edit(`[1, 1, 1, 1, 1, 1, 0, 0],`, `[1, 1, 1, 1, 1, 1, 0],`), "7 counts for 8"},
		{"negative count", edit(`[1, 1, 1, 1, 1, 1, 0, 0],`, `[1, 1, 1, 1, 1, 1, 0, -1],`), "outside 0…"},
		{"huge count", edit(`[1, 1, 1, 1, 1, 1, 0, 0],`, `[1, 1, 1, 1, 1, 1, 0, 99999999],`), "outside 0…"},
		{"too large", good + strings.Repeat(" ", maxRecordBytes), "exceeds"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseThreadRecord([]byte(c.rec))
			require.Error(t, err)
			assert.ErrorIs(t, err, errRecord)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// FuzzParseThreadRecord checks that no record makes parseThreadRecord
// panic, and that a record it accepts encodes and parses back to the same
// trace and draws.
func FuzzParseThreadRecord(f *testing.F) {
	f.Add(star13Record)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"step": "star13_tiled", "tile": 8, "roles": ["C"]}`))
	f.Add([]byte(strings.Replace(string(star13Record), `"compute": 4`, `"compute": -4`, 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		bt, err := parseThreadRecord(data)
		if err != nil {
			require.ErrorIs(t, err, errRecord)
			return
		}
		b, err := encodeThreadRecord(bt)
		require.NoError(t, err)
		back, err := parseThreadRecord(b)
		require.NoError(t, err)
		require.Equal(t, bt, back)
		_, err = ThreadPicture(bt)
		require.NoError(t, err)
	})
}

// A step without a thread figure is refused, naming the steps that have
// one.
func TestThreadsUnknownStep(t *testing.T) {
	_, err := Threads("no_such_step")
	require.ErrorIs(t, err, ErrUnknownFigure)
	for _, s := range threadSpecs {
		assert.ErrorContains(t, err, s.step)
	}
}
