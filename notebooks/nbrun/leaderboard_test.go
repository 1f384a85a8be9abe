package nbrun

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadLeaderboard(t *testing.T) {
	book := `{"students": {
	  "ann": {"cells": {"25_cuda_challenge": {"result": {"status": "graded", "metrics": {"pct_copy": 38.9, "ms": 0.65, "correct": 1}}}}},
	  "bo":  {"cells": {"25_cuda_challenge": {"result": {"status": "graded", "metrics": {"pct_copy": 71.5, "ms": 0.36, "correct": 1}}}}},
	  "cy":  {"cells": {"25_cuda_challenge": {"result": {"status": "graded", "metrics": {"pct_copy": 90, "ms": 0.28, "correct": 0}}}}},
	  "di":  {"cells": {"25_cuda_challenge": {"result": {"status": "needs_gpu"}}}},
	  "ed":  {"cells": {}}}}`
	p := filepath.Join(t.TempDir(), "gradebook.json")
	require.NoError(t, os.WriteFile(p, []byte(book), 0o644))
	es, err := ReadLeaderboard(p, "25_cuda_challenge")
	require.NoError(t, err)
	require.Len(t, es, 3, "only timed kernels")
	assert.Equal(t, LeaderboardEntry{"bo", 71.5, 0.36, true}, es[0])
	assert.Equal(t, LeaderboardEntry{"ann", 38.9, 0.65, true}, es[1])
	assert.Equal(t, LeaderboardEntry{"cy", 90, 0.28, false}, es[2], "an incorrect kernel comes last, however fast")
	d := LeaderboardDiagram(es)
	assert.Len(t, d.Shapes, 3*3+3)

	require.NoError(t, ShowLeaderboard(filepath.Join(t.TempDir(), "none.json"), "25_cuda_challenge"), "no gradebook yet is not an error")
}
