package grader

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Course data inside a git checkout is refused by every command that
// reads or writes it, naming the path and the checkout; -allow-in-repo
// lets it through. A checkout is found by its .git (a folder, or a
// worktree's file), from the path up, links resolved, also for a folder
// that does not exist yet.
func TestCourseDataOutsideTheRepository(t *testing.T) {
	outside := t.TempDir()
	repo := filepath.Join(t.TempDir(), "lab")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	worktree := filepath.Join(t.TempDir(), "wt")
	require.NoError(t, os.MkdirAll(worktree, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(worktree, ".git"), []byte("gitdir: elsewhere\n"), 0o644))
	class := filepath.Join(repo, "submissions")
	require.NoError(t, os.MkdirAll(filepath.Join(class, "alice"), 0o755))
	link := filepath.Join(outside, "class-link")
	require.NoError(t, os.Symlink(class, link))
	roster := filepath.Join(repo, "roster.csv")
	require.NoError(t, os.WriteFile(roster, []byte("id,email\nalice,alice@example.org\n"), 0o600))

	type place struct{ name, path, root string }
	places := []place{
		{"the class", class, repo},
		{"a folder not made yet", filepath.Join(repo, "gradebook", "2026"), repo},
		{"a worktree", filepath.Join(worktree, "out"), worktree},
		{"a link into the checkout", link, repo},
	}
	if _, err := os.Stat(filepath.Join(repoRoot(t), ".git")); err == nil {
		// A copy of the lab that is not a git checkout (a students'
		// release tested in place) holds no checkout to find.
		places = append(places, place{"the lab's own checkout", filepath.Join(repoRoot(t), "gradebook"), repoRoot(t)})
	}
	for _, c := range places {
		got := checkoutHolding(c.path)
		want, err := filepath.EvalSymlinks(c.root)
		require.NoError(t, err)
		assert.Equal(t, want, got, c.name)
	}
	assert.Empty(t, checkoutHolding(outside))
	assert.Empty(t, checkoutHolding(filepath.Join(outside, "new", "gradebook")))

	out := filepath.Join(outside, "gradebook")
	for _, c := range []struct {
		args []string
		what string
	}{
		{[]string{"-class", class, "-out", out}, "-class " + class},
		{[]string{"-class", link, "-out", out}, "-class " + link},
		{[]string{"-class", filepath.Join(outside, "c"), "-out", filepath.Join(repo, "gradebook")}, "-out "},
		{[]string{"-class", filepath.Join(outside, "c"), "-out", out, "-roster", roster}, "-roster " + roster},
		{[]string{"-class", filepath.Join(outside, "c"), "-out", out, "-overrides", filepath.Join(worktree, "ov.csv")}, "-overrides "},
		{[]string{"merge", "-out", filepath.Join(repo, "merged"), out}, "-out "},
		{[]string{"merge", "-out", out, filepath.Join(repo, "part0")}, "the part "},
		{[]string{"export", "-format", "canvas", filepath.Join(repo, "gradebook")}, "the gradebook "},
		{[]string{"export", "-format", "canvas", "-o", filepath.Join(repo, "canvas.csv"), out}, "-o "},
		{[]string{"similarity", class}, "the class folder " + class},
		{[]string{"similarity", "-o", filepath.Join(repo, "pairs.csv"), filepath.Join(outside, "c")}, "-o "},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 2, Run(c.args, &stdout, &stderr), "%v", c.args)
		msg := stderr.String()
		assert.Contains(t, msg, c.what, "%v", c.args)
		assert.Contains(t, msg, "lies inside the git checkout", "%v", c.args)
		assert.Contains(t, msg, "belongs outside any repository", "%v", c.args)
		assert.Contains(t, msg, "-allow-in-repo", "%v", c.args)
	}

	// -allow-in-repo: the command goes on (here, to find no gradebook).
	var stdout, stderr bytes.Buffer
	code := Run([]string{"export", "-allow-in-repo", "-format", "canvas", filepath.Join(repo, "gradebook")}, &stdout, &stderr)
	assert.Equal(t, 1, code, stderr.String())
	assert.NotContains(t, stderr.String(), "lies inside the git checkout")
	stderr.Reset()
	assert.Equal(t, 2, Run([]string{"-allow-in-repo", "01"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "-allow-in-repo needs -class")
}
