package lab

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withoutSplitters runs f with no splitter registered, whatever another
// test of the binary imported, and restores them.
func withoutSplitters(t *testing.T, f func()) {
	t.Helper()
	splitters.mu.Lock()
	saved := splitters.m
	splitters.m = nil
	splitters.mu.Unlock()
	defer func() {
		splitters.mu.Lock()
		splitters.m = saved
		splitters.mu.Unlock()
	}()
	f()
}

// TestExecuteSplitNamesWhatToImport: a split with no splitter registered
// is an error saying which package registers one, never a run on one
// domain.
func TestExecuteSplitNamesWhatToImport(t *testing.T) {
	withoutSplitters(t, func() {
		for _, c := range []struct {
			r    Run
			want string
		}{
			{Run{Step: "reference", Backend: CPU, NZ: 9, NY: 9, NX: 9, Split: Split{Ranks: 2}}, "import stencillab.dev/lab/halo"},
			{Run{Step: "basic", Backend: Sim, NZ: 9, NY: 9, NX: 9, Split: Split{Ranks: 4, PY: 2}}, "import stencillab.dev/lab/halo"},
			{Run{Step: "basic", Backend: GPU, NZ: 9, NY: 9, NX: 9, Split: Split{Devices: []int{0, 1}}}, "import the gpu package"},
			{Run{Step: "basic", Backend: GPU, NZ: 9, NY: 9, NX: 9, Split: Split{Devices: []int{3}}}, "import the gpu package"},
		} {
			res, err := Execute(c.r)
			require.ErrorIs(t, err, ErrUnknown, c.want)
			assert.Contains(t, err.Error(), c.want)
			assert.Nil(t, res.Out, "nothing ran")
		}
	})
}

// TestExecuteSplitCallsTheSplitter: Execute hands a run that asks for a
// split to the splitter of its backend, and a run that does not to the
// backend.
func TestExecuteSplitCallsTheSplitter(t *testing.T) {
	withoutSplitters(t, func() {
		var got []Run
		RegisterSplitter(CPU, func(r Run) (Result, error) {
			got = append(got, r)
			return Result{Step: "split " + r.Step, Comm: &CommStats{Ranks: r.Split.Ranks}}, nil
		})
		res, err := Execute(Run{Step: "reference", Backend: CPU, NZ: 5, NY: 5, NX: 5, Split: Split{Ranks: 3}})
		require.NoError(t, err)
		assert.Equal(t, "split reference", res.Step)
		assert.Equal(t, 3, res.Comm.Ranks)
		res, err = Execute(Run{Step: "reference", Backend: CPU, NZ: 5, NY: 5, NX: 5, Split: Split{Ranks: 1}})
		require.NoError(t, err)
		assert.Equal(t, "reference", res.Step, "one rank is a plain run")
		assert.Nil(t, res.Comm)
		require.Len(t, got, 1)
		assert.Equal(t, 3, got[0].Split.Ranks)
		// Bad counts are refused before the splitter is asked.
		_, err = Execute(Run{Step: "reference", Backend: CPU, NZ: 5, NY: 5, NX: 5, Reps: MaxReps + 1, Split: Split{Ranks: 3}})
		assert.ErrorIs(t, err, ErrSize)
		assert.Len(t, got, 1)
		assert.Panics(t, func() { RegisterSplitter(CPU, func(Run) (Result, error) { return Result{}, nil }) })
	})
}

func TestSplitCheck(t *testing.T) {
	for _, c := range []struct {
		s       Split
		backend string
		want    string
	}{
		{Split{Ranks: 4, PY: 2}, CPU, ""},
		{Split{Ranks: 5}, Sim, ""},
		{Split{Devices: []int{0, 2}}, GPU, ""},
		{Split{Devices: []int{0, 1, 2, 3}, PY: 2}, GPU, ""},
		{Split{Ranks: -1}, CPU, "-1 ranks: the count must be from 0 to 4096"},
		{Split{Ranks: MaxRanks + 1}, CPU, "the count must be from 0 to 4096"},
		{Split{Ranks: 4, PY: -2}, CPU, "-2 ranks along y"},
		{Split{Ranks: 4, PY: 3}, CPU, "3 ranks along y do not divide 4 ranks"},
		{Split{Ranks: 2}, GPU, "a GPU split names its devices"},
		{Split{Devices: []int{0, 1}}, CPU, "devices are GPUs of the gpu backend"},
		{Split{Devices: []int{0, -1}}, GPU, "device -1"},
		{Split{Devices: []int{1, 1}}, GPU, "device 1 named twice"},
		{Split{Devices: []int{0, 1, 2}, PY: 2}, GPU, "2 ranks along y do not divide 3 ranks"},
	} {
		err := c.s.Check(c.backend)
		if c.want == "" {
			assert.NoError(t, err, "%+v", c.s)
			continue
		}
		require.ErrorIs(t, err, ErrSize, c.want)
		assert.Contains(t, err.Error(), c.want)
	}
	assert.False(t, Split{}.Splits(CPU))
	assert.False(t, Split{Ranks: 1}.Splits(Sim))
	assert.True(t, Split{Ranks: 2}.Splits(CPU))
	assert.True(t, Split{Devices: []int{1}}.Splits(GPU), "one device: the gpu splitter picks the ordinal")
	assert.True(t, Split{Devices: []int{1}}.Splits(CPU), "devices on the CPU reach Check, which refuses them")
	pz, py := Split{Ranks: 6, PY: 2}.Grid(CPU)
	assert.Equal(t, [2]int{3, 2}, [2]int{pz, py})
	pz, py = Split{Devices: []int{0, 1, 2, 3}}.Grid(GPU)
	assert.Equal(t, [2]int{4, 1}, [2]int{pz, py})
}

func TestCommStatsSums(t *testing.T) {
	s := &CommStats{StepsPerExchange: 4, Messages: []int64{1, 2, 2, 1}, Bytes: []int64{10, 20, 20, 10}}
	assert.Equal(t, int64(6), s.TotalMessages())
	assert.Equal(t, int64(60), s.TotalBytes())
	assert.InDelta(t, 15.0, s.BytesPerStep(), 0)
	assert.InDelta(t, 1.5, s.MessagesPerStep(), 0)
	var none *CommStats
	assert.Zero(t, none.TotalBytes())
	assert.Zero(t, none.BytesPerStep())
	assert.Zero(t, none.TotalMessages())
	assert.Zero(t, none.MessagesPerStep())
}
