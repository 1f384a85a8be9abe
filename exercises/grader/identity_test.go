package grader

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/grading"
)

// identityClass writes a folder per name, each handing in exercise 01's
// file with a line of its own, and returns the class folder.
func identityClass(t *testing.T, root string, names ...string) string {
	class := t.TempDir()
	e := findExercise(t, "01_sine")
	src, err := os.ReadFile(filepath.Join(root, "exercises", e.ID, e.Files[0]))
	require.NoError(t, err)
	for _, n := range names {
		dir := filepath.Join(class, n, e.ID)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Files[0]), append(append([]byte{}, src...), "\n// "+n+"\n"...), 0o644))
	}
	return class
}

// wantGradedInFull asserts that the student's row holds what the
// stand-in grader gives the folder's files on their own.
func wantGradedInFull(t *testing.T, book *Gradebook, id, dir string, exs []grading.Exercise, seed uint64) {
	t.Helper()
	s := book.Students[id]
	require.NotNil(t, s, "%s has a row", id)
	rep, err := standIn(exs)(Config{Submission: dir, Seed: seed})
	require.NoError(t, err)
	for _, r := range rep.Exercises {
		c := s.Cells[r.ID]
		require.NotNil(t, c, "%s: %s", id, r.ID)
		assert.Equal(t, gradebook.StateGraded, c.State, "%s: %s", id, r.ID)
		assert.Equal(t, r.Points, c.Points, "%s: %s is graded from the student's own files", id, r.ID)
	}
}

// One identity per person, with a roster: a folder in other letter case
// beside the real one, an email in other case beside the id's folder, a
// folder the roster does not list; none of them reaches a row, and the
// honest students beside them are graded in full.
func TestIdentityWithARosterIsOneToOne(t *testing.T) {
	root := repoRoot(t)
	only := []string{"01_sine"}
	exs, err := selectExercises(catalogue(), only)
	require.NoError(t, err)
	class := identityClass(t, root, "alice", "Alice", "bob", "CAROL@Uni.Example", "erin", "Erin@Uni.Example", "mallory", "Ｄａｖｅ")
	roster := filepath.Join(t.TempDir(), "roster.csv")
	require.NoError(t, os.WriteFile(roster, []byte("id,name,email,section\n"+
		"alice,Alice A,alice@uni.example,Lab A\n"+
		"bob,Bob B,bob@uni.example,Lab A\n"+
		"carol@uni.example,Carol C,carol@uni.example,Lab B\n"+
		"dave,Dave D,dave@uni.example,Lab B\n"+
		"erin,Erin E,erin@uni.example,Lab B\n"), 0o644))
	out := t.TempDir()
	var summary bytes.Buffer
	const seed = 41
	book, err := GradeClass(ClassConfig{Grade: Config{Root: root, Seed: seed, Only: only, NoSandbox: true, CacheDir: t.TempDir()},
		Class: class, Out: out, Jobs: 2, Roster: roster, Summary: &summary, grade: standIn(exs)})
	require.NoError(t, err)

	assert.ElementsMatch(t, []string{"bob", "carol@uni.example", "dave"}, book.StudentIDs(), "only the folders mapped one to one have rows")
	wantGradedInFull(t, book, "bob", filepath.Join(class, "bob"), exs, seed)
	wantGradedInFull(t, book, "carol@uni.example", filepath.Join(class, "CAROL@Uni.Example"), exs, seed)
	wantGradedInFull(t, book, "dave", filepath.Join(class, "Ｄａｖｅ"), exs, seed)
	assert.Equal(t, "CAROL@Uni.Example", book.Students["carol@uni.example"].Folder)

	needs := strings.Join(book.Runs[len(book.Runs)-1].NeedsInstructor, "\n")
	for _, n := range []string{"alice", "Alice", "erin", "Erin@Uni.Example"} {
		assert.Contains(t, needs, `"`+n+`": one student with`, n)
	}
	assert.Contains(t, needs, `"mallory": not on the roster`)
	assert.Contains(t, summary.String(), `Needs the instructor: "mallory": not on the roster`)
	for _, n := range []string{"alice", "Alice", "mallory", "erin"} {
		_, err := os.Stat(filepath.Join(out, "feedback", n+".md"))
		assert.ErrorIs(t, err, os.ErrNotExist, "no feedback file for %s", n)
	}

	// The export has every roster row, without -roster given again;
	// alice's and erin's cells are empty, nobody else's points are in
	// them.
	var csvOut, stderr bytes.Buffer
	require.Equal(t, 0, Run([]string{"export", "-format", "canvas", out}, &csvOut, &stderr), stderr.String())
	rows, err := csv.NewReader(&csvOut).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 2+5, "the header, Points Possible and the five roster rows")
	byLogin := map[string][]string{}
	for _, r := range rows[2:] {
		byLogin[r[3]] = r
	}
	assert.Equal(t, "", byLogin["alice@uni.example"][5], "alice is the instructor's to resolve: empty, not another's points")
	assert.Equal(t, "", byLogin["erin@uni.example"][5])
	assert.Equal(t, strconv.Itoa(book.Students["bob"].Cells["01_sine"].Score()), byLogin["bob@uni.example"][5])
	assert.Contains(t, stderr.String(), "no hand-in, cells left empty: alice, erin")

	// The summary counts the cells per status and the students per section.
	assert.Contains(t, summary.String(), "Cells by status: ")
	assert.Regexp(t, `Lab B\s+2\s`, summary.String(), "carol and dave in Lab B")
}

// Without a roster: two spellings of one name in Unicode, and a folder
// named as another's derived id, reach no row; the plain ids beside them
// are graded in full.
func TestIdentityWithoutARosterRefusesLookalikes(t *testing.T) {
	root := repoRoot(t)
	only := []string{"01_sine"}
	exs, err := selectExercises(catalogue(), only)
	require.NoError(t, err)
	nfc, nfd := "Jos\u00e9 P", "Jose\u0301 P"
	derived := gradebook.DeriveID("Jane Doe", nil)
	class := identityClass(t, root, nfc, nfd, "Jane Doe", derived, "kim", "Zoë K")
	out := t.TempDir()
	book, err := GradeClass(ClassConfig{Grade: Config{Root: root, Seed: 43, Only: only, NoSandbox: true, CacheDir: t.TempDir()},
		Class: class, Out: out, Jobs: 2, grade: standIn(exs)})
	require.NoError(t, err)
	zoe := gradebook.DeriveID("Zoë K", nil)
	assert.ElementsMatch(t, []string{"kim", zoe}, book.StudentIDs())
	wantGradedInFull(t, book, "kim", filepath.Join(class, "kim"), exs, 43)
	wantGradedInFull(t, book, zoe, filepath.Join(class, "Zoë K"), exs, 43)
	needs := strings.Join(book.Runs[0].NeedsInstructor, "\n")
	for _, n := range []string{nfc, nfd, "Jane Doe", derived} {
		assert.Contains(t, needs, gradebook.QuoteName(n)+": one student with", n)
	}
}

// An export row that two rows of the gradebook claim (one by its id, one
// by its folder) is refused, naming both.
func TestExportRefusesARowClaimedTwice(t *testing.T) {
	ex := gradebook.Exercise{ID: "01_sine", Title: "Sine", MaxPoints: 8}
	book := gradebook.New([]gradebook.Exercise{ex})
	book.Students["ana"] = &gradebook.Student{ID: "ana", Cells: map[string]*gradebook.Cell{}}
	book.Students["ana-0123abcd"] = &gradebook.Student{ID: "ana-0123abcd", Folder: "ana", Cells: map[string]*gradebook.Cell{}}
	r, err := gradebook.ReadRoster(strings.NewReader("id,email\nana,ana@uni.example\n"))
	require.NoError(t, err)
	var b bytes.Buffer
	_, err = book.Export(&b, gradebook.FormatCanvas, r)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"ana" and "ana-0123abcd" both claim the roster's "ana"`)
}
