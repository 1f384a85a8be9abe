package grader

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/gradebook"
)

// sampleKey is the key of the pseudonyms of the sample class in
// notebooks/data/cuda_class: a fixed key, so that its leaderboard.md is
// the same at every regeneration. It is no instructor's key.
var sampleKey = func() []byte {
	s := sha256.Sum256([]byte("stencillab: the sample class of five, not an instructor's key"))
	return s[:]
}()

// The sample class's leaderboard.md is the one its gradebook.json gives,
// under sampleKey: no student's id in it. STENCILLAB_UPDATE_SAMPLE=1
// writes it.
func TestSampleClassLeaderboard(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "notebooks", "data", "cuda_class")
	g, err := gradebook.Read(filepath.Join(dir, "gradebook.json"))
	require.NoError(t, err)
	id := challengeID()
	s, err := leaderboard(g, id, sampleKey)
	require.NoError(t, err)
	p := filepath.Join(dir, "leaderboard.md")
	if os.Getenv("STENCILLAB_UPDATE_SAMPLE") == "1" {
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
	}
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, s, string(b), "STENCILLAB_UPDATE_SAMPLE=1 go test ./exercises/grader -run TestSampleClassLeaderboard rewrites it")
	names, err := g.Pseudonyms(sampleKey)
	require.NoError(t, err)
	require.Len(t, names, len(g.Students))
	for sid := range g.Students {
		assert.NotContains(t, s, sid)
		assert.Contains(t, s, "| "+names[sid]+" |")
	}
}
