package benchfile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The committed H200 bench reads back, and every record survives a round
// trip through the one type.
func TestCommittedBenchRoundTrips(t *testing.T) {
	f, err := Load("../../figures/data/bench_h200.json")
	require.NoError(t, err)
	require.NotEmpty(t, f.Results)
	require.NotNil(t, f.DeviceInfo)
	assert.Equal(t, f.Device, f.DeviceInfo.Name)
	for _, c := range f.Copies {
		// A copy moves 8 bytes per point of the N³ grid.
		assert.InDelta(t, 8*float64(c.N)*float64(c.N)*float64(c.N), c.Bytes, 0.5, "copy at N = %d", c.N)
	}
	b, err := json.Marshal(f)
	require.NoError(t, err)
	g, err := Read(bytes.NewReader(b))
	require.NoError(t, err)
	assert.Equal(t, f, g)
}

func TestReadAcceptsThreeShapesAndRejectsBadRecords(t *testing.T) {
	one := `{"kernel":"tiled","n":64,"median_ms":0.1,"gbps":20,"gflops":30}`
	for _, in := range []string{"[" + one + "]", one + "\n" + one, `{"device":"X","results":[` + one + `]}`} {
		f, err := Read(strings.NewReader(in))
		require.NoError(t, err, in)
		assert.Equal(t, "tiled", f.Results[0].Kernel)
		assert.Equal(t, 64, f.Results[0].N)
	}
	for _, bad := range []string{"", "[]", `{"results":[]}`, `[{"kernel":"","n":64,"median_ms":1,"gbps":1,"gflops":1}]`,
		`[{"kernel":"x","n":2,"median_ms":1,"gbps":1,"gflops":1}]`, `[{"kernel":"x","n":9,"median_ms":0,"gbps":1,"gflops":1}]`, "{"} {
		_, err := Read(strings.NewReader(bad))
		assert.ErrorIs(t, err, ErrInvalid, bad)
	}
}

// Pct keeps the file's share of the copy and works it out only where the
// file leaves it out.
func TestPct(t *testing.T) {
	assert.Equal(t, 87.5, Run{GBps: 700, CopyGBps: 800}.Pct(), "700 of 800 GB/s")
	assert.Equal(t, 90.0, Run{GBps: 700, CopyGBps: 800, PctCopy: 90}.Pct(), "the file's value")
	assert.Equal(t, 0.0, Run{GBps: 700}.Pct(), "no copy")
}
