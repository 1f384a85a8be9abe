package sim

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowKernel sleeps in thread 0 of each block, so that a launch of blocks
// blocks takes about blocks×nap.
func slowKernel(blocks int, nap time.Duration) Kernel {
	return Kernel{Name: "slow", Grid: Dim3{X: blocks, Y: 1, Z: 1}, Block: Dim3{X: 2, Y: 1, Z: 1}, Body: func(t *Thread) {
		if t.ThreadIdx.X == 0 {
			time.Sleep(nap)
		}
	}}
}

func TestProgressReportsLongLaunches(t *testing.T) {
	progressAfter, progressEvery = 30*time.Millisecond, 20*time.Millisecond
	defer func() { progressAfter, progressEvery = ProgressAfter, ProgressEvery }()
	var got []Progress
	s := &Simulator{Workers: 1, Progress: func(p Progress) { got = append(got, p) }}
	const blocks = 12
	_, err := s.Launch(slowKernel(blocks, 10*time.Millisecond))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(got), 2, "a launch of about 120 ms reports after 30 ms and at its end")
	last := got[len(got)-1]
	assert.True(t, last.Final)
	assert.Equal(t, blocks, last.Done)
	assert.Equal(t, blocks, last.Blocks)
	for i, p := range got {
		assert.Equal(t, "slow", p.Kernel)
		assert.GreaterOrEqual(t, p.Elapsed, progressAfter)
		if i > 0 {
			assert.GreaterOrEqual(t, p.Done, got[i-1].Done, "blocks done never go back")
		}
	}
	assert.Contains(t, last.String(), "12 of 12 blocks (100 %)")
}

func TestProgressQuietOnShortLaunches(t *testing.T) {
	called := false
	s := &Simulator{Progress: func(Progress) { called = true }}
	_, err := s.Launch(slowKernel(3, 0))
	require.NoError(t, err)
	assert.False(t, called, "a launch shorter than ProgressAfter says nothing")
}

func TestPrintProgress(t *testing.T) {
	assert.Nil(t, PrintProgress(nil))
	var b bytes.Buffer
	PrintProgress(&b)(Progress{Kernel: "tiled", Done: 1, Blocks: 4, Elapsed: 3 * time.Second})
	line := b.String()
	assert.True(t, strings.HasSuffix(line, "\n"))
	// One of four blocks in 3 s: three more take about 9 s.
	assert.Contains(t, line, "simulating tiled: 1 of 4 blocks (25 %), 3s, about 9s left")
	assert.Equal(t, time.Duration(0), Progress{Blocks: 4}.Left())
	assert.Contains(t, Progress{Kernel: "tiled", Done: 99, Blocks: 100, Elapsed: 10 * time.Second}.String(), "under a second left")
}
