package gradebook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	// The tests' gradebooks are signed with a key of their own.
	dir, err := os.MkdirTemp("", "gradebook-key-")
	if err != nil {
		panic(err)
	}
	os.Setenv(EnvKey, filepath.Join(dir, "instructor.key"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// The key is made on first use, readable by its owner alone; a
// gradebook written is read back verified, and one byte changed, or a
// MAC of another key, is refused.
func TestGradebookMACUnderTheInstructorKey(t *testing.T) {
	t.Setenv(EnvKey, filepath.Join(t.TempDir(), "sub", "instructor.key"))
	out := t.TempDir()
	g := New([]Exercise{{ID: "01_sine", Title: "Sine", MaxPoints: 8}})
	g.Students["ana"] = &Student{ID: "ana", Cells: map[string]*Cell{"01_sine": {State: StateGraded, Points: 3, MaxPoints: 8}}}
	g.Recount()
	require.NoError(t, g.Write(out))
	p, err := KeyPath()
	require.NoError(t, err)
	st, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	path := filepath.Join(out, "gradebook.json")
	back, err := ReadVerified(path)
	require.NoError(t, err)
	assert.Equal(t, 3, back.Students["ana"].Points)

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	forged := []byte(strings.Replace(string(b), `"points": 3`, `"points": 8`, 1))
	require.NotEqual(t, b, forged)
	require.NoError(t, os.WriteFile(path, forged, 0o644))
	_, err = ReadVerified(path)
	assert.ErrorContains(t, err, "its MAC does not match")

	// A part signed with another key (a copy of the grader elsewhere).
	require.NoError(t, os.WriteFile(path, b, 0o644))
	t.Setenv(EnvKey, filepath.Join(t.TempDir(), "other.key"))
	_, err = ReadVerified(path)
	assert.ErrorContains(t, err, "its MAC does not match")
	require.NoError(t, os.Remove(path+MACSuffix))
	_, err = ReadVerified(path)
	assert.ErrorContains(t, err, "no MAC of the grader")

	// A key others may read is refused.
	loose := filepath.Join(t.TempDir(), "loose.key")
	require.NoError(t, os.WriteFile(loose, []byte("00112233445566778899aabbccddeeff\n"), 0o644))
	t.Setenv(EnvKey, loose)
	_, err = InstructorKey()
	assert.ErrorContains(t, err, "may be read or written by others")
}
