package grader

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/exercises/gradebook"
)

// Forged parts: a cell of 1000 points, an override the instructor never
// gave, a column whose maximum was lowered. Edited without the key, the
// MAC refuses them; signed again with the key (as if the MAC were
// bypassed), the merge's own re-derivation refuses them, naming the
// part. The honest parts merge, every student graded in full.
func TestMergeRefusesForgedParts(t *testing.T) {
	root := repoRoot(t)
	only := []string{"01_sine", "03_five_point"}
	exs, err := selectExercises(catalogue(), only)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(7, 31))
	class, roster := courseClass(t, root, only, 9, rng)
	const n = 2
	var parts []string
	for i := range n {
		out := t.TempDir()
		_, err := GradeClass(ClassConfig{Grade: Config{Root: root, Seed: 77, Only: only, NoSandbox: true, CacheDir: t.TempDir()},
			Class: class, Out: out, Jobs: 2, Roster: roster, Shard: gradebook.Shard{Index: i, Count: n}, grade: standIn(exs)})
		require.NoError(t, err)
		parts = append(parts, out)
	}
	key, err := gradebook.InstructorKey()
	require.NoError(t, err)
	forge := func(t *testing.T, sign bool, edit func(b *gradebook.Book)) string {
		src, err := gradebook.Read(filepath.Join(parts[0], "gradebook.json"))
		require.NoError(t, err)
		edit(src)
		dir := t.TempDir()
		b, err := json.MarshalIndent(src, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "gradebook.json"), b, 0o644))
		mac, err := os.ReadFile(filepath.Join(parts[0], "gradebook.json.mac"))
		require.NoError(t, err)
		if sign {
			mac = []byte(gradebook.MAC(key, b))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, "gradebook.json.mac"), mac, 0o644))
		return dir
	}
	victim := func(b *gradebook.Book) *gradebook.Student {
		return b.Students[b.StudentIDs()[0]]
	}
	attacks := []struct {
		name string
		edit func(b *gradebook.Book)
		want string
	}{
		{"1000 points", func(b *gradebook.Book) {
			c := victim(b).Cells["01_sine"]
			c.Points, c.State = 1000, gradebook.StateGraded
		}, "1000 points, outside 0 to the maximum"},
		{"an override never given", func(b *gradebook.Book) {
			victim(b).Cells["01_sine"].Override = &gradebook.Override{Points: 8, Reason: "trust me"}
		}, "an override (8 points) that the instructor's overrides file does not give"},
		{"a column's maximum lowered", func(b *gradebook.Book) {
			b.Exercises[0].MaxPoints = 1
		}, "the column 01_sine has the maximum 1"},
		{"a cell's maximum lowered", func(b *gradebook.Book) {
			c := victim(b).Cells["03_five_point"]
			c.MaxPoints, c.Points = 1, 1
		}, "has the maximum 1"},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			for _, sign := range []bool{false, true} {
				forged := forge(t, sign, a.edit)
				var stdout, stderr bytes.Buffer
				dest := t.TempDir()
				assert.Equal(t, 1, Run([]string{"merge", "-out", dest, forged, parts[1]}, &stdout, &stderr))
				if sign {
					assert.Contains(t, stderr.String(), a.want)
				} else {
					assert.Contains(t, stderr.String(), "its MAC does not match")
				}
				assert.Contains(t, stderr.String(), forged, "the part is named")
				_, err := os.Stat(filepath.Join(dest, "gradebook.json"))
				assert.ErrorIs(t, err, os.ErrNotExist)
			}
		})
	}
	// The honest parts merge: every student's cells are those of its part.
	dest := t.TempDir()
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, Run(append([]string{"merge", "-out", dest}, parts...), &stdout, &stderr), stderr.String())
	merged, err := gradebook.ReadVerified(filepath.Join(dest, "gradebook.json"))
	require.NoError(t, err)
	total := 0
	for _, p := range parts {
		b, err := gradebook.Read(filepath.Join(p, "gradebook.json"))
		require.NoError(t, err)
		for id, s := range b.Students {
			total++
			require.NotNil(t, merged.Students[id], id)
			for ex, c := range s.Cells {
				assert.Equal(t, c.Points, merged.Students[id].Cells[ex].Points, "%s %s", id, ex)
			}
		}
	}
	assert.Equal(t, 9, total)
	assert.Len(t, merged.Students, 9)
}

// A part's overrides are believed only as the instructor's overrides file
// gives them: the merge with that file keeps them, without it refuses.
func TestMergeTakesOverridesFromTheInstructorsFile(t *testing.T) {
	root := repoRoot(t)
	only := []string{"01_sine"}
	exs, err := selectExercises(catalogue(), only)
	require.NoError(t, err)
	class, roster := courseClass(t, root, only, 6, rand.New(rand.NewPCG(3, 5)))
	ov := filepath.Join(t.TempDir(), "overrides.csv")
	require.NoError(t, os.WriteFile(ov, []byte("student,exercise,points,reason\ns03,01,4,checked by hand\n"), 0o644))
	var parts []string
	for i := range 2 {
		out := t.TempDir()
		_, err := GradeClass(ClassConfig{Grade: Config{Root: root, Seed: 5, Only: only, NoSandbox: true, CacheDir: t.TempDir()},
			Class: class, Out: out, Jobs: 2, Roster: roster, Overrides: ov, Shard: gradebook.Shard{Index: i, Count: 2}, grade: standIn(exs)})
		require.NoError(t, err)
		parts = append(parts, out)
	}
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 1, Run(append([]string{"merge", "-out", t.TempDir()}, parts...), &stdout, &stderr))
	assert.Contains(t, stderr.String(), "that the instructor's overrides file does not give")
	dest := t.TempDir()
	stderr.Reset()
	require.Equal(t, 0, Run(append([]string{"merge", "-out", dest, "-overrides", ov}, parts...), &stdout, &stderr), stderr.String())
	book, err := gradebook.ReadVerified(filepath.Join(dest, "gradebook.json"))
	require.NoError(t, err)
	c := book.Students["s03"].Cells["01_sine"]
	require.NotNil(t, c.Override)
	assert.Equal(t, 4, c.Score())
}
