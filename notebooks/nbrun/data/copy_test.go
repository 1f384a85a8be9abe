package data

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestH200CopyGBps: the model's B_mem is the committed bench's copy at
// each of its sides, read here from the file's raw JSON.
func TestH200CopyGBps(t *testing.T) {
	root, err := RepoRoot()
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(BenchFile)))
	require.NoError(t, err)
	var raw struct {
		Copies []struct {
			N    int     `json:"n"`
			GBps float64 `json:"gbps"`
		} `json:"copy"`
	}
	require.NoError(t, json.Unmarshal(data, &raw))
	require.NotEmpty(t, raw.Copies)
	absent := 1
	for _, c := range raw.Copies {
		absent = max(absent, c.N+1)
		got, err := H200CopyGBps(c.N)
		require.NoError(t, err)
		assert.Equal(t, c.GBps, got, "N = %d", c.N)
	}
	_, err = H200CopyGBps(absent)
	assert.ErrorContains(t, err, BenchFile)
}
