package gradebook

import (
	"bytes"
	"encoding/csv"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
)

// canvasMatch is how Canvas's gradebook importer reads a column's header
// (Assignment.title_and_id): a number in parentheses at the end is the
// assignment's id, found whatever the title; otherwise the whole header
// is a title.
func canvasMatch(h string) (title, id string) {
	if m := regexp.MustCompile(`\A(.*)\s\((\d+)\)\z`).FindStringSubmatch(h); m != nil {
		return m[1], m[2]
	}
	return h, ""
}

func canvasBook(title string) *Book {
	g := &Book{Exercises: []Exercise{{ID: "01_sine", Title: title, MaxPoints: 5}, {ID: "03_five_point", Title: "Five points", MaxPoints: 8}},
		Students: map[string]*Student{}}
	r := grading.ExerciseResult{ID: "01_sine", Points: 4, MaxPoints: 5, Status: grading.Graded}
	g.Students["ana"] = &Student{ID: "ana", Cells: map[string]*Cell{"01_sine": NewCell(r)}}
	g.Recount()
	return g
}

func canvasHeaderOf(t *testing.T, g *Book) []string {
	roster, err := NewRoster([]*Person{{ID: "ana", Name: "Ana", SISID: "1001"}})
	require.NoError(t, err)
	var b bytes.Buffer
	_, err = g.Export(&b, FormatCanvas, roster)
	require.NoError(t, err)
	rows, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	return rows[0][5:]
}

// With a column map, an exercise's column carries its assignment's
// number, which Canvas matches whatever the title: the column of a
// renamed exercise still names the same assignment. Without one, the
// header is a title that no number ends (an exercise id has letters), so
// Canvas matches it by the whole title, and a rename makes a new one.
func TestCanvasColumnsKeepTheAssignmentAcrossARename(t *testing.T) {
	m, err := ReadCanvasColumns(strings.NewReader("exercise,canvas_id\n01_sine,12345\n"), canvasBook("Sine").Exercises)
	require.NoError(t, err)
	for _, title := range []string{"Sine", "Sine and cosine, renamed (2026)"} {
		g := canvasBook(title)
		g.SetCanvasColumns(m)
		h := canvasHeaderOf(t, g)
		got, id := canvasMatch(h[0])
		assert.Equal(t, "12345", id, h[0])
		assert.Equal(t, title+" (01_sine)", got)
		_, id = canvasMatch(h[1])
		assert.Empty(t, id, "an exercise without a number is matched by title: %s", h[1])
	}
	plain := canvasHeaderOf(t, canvasBook("Sine"))
	renamed := canvasHeaderOf(t, canvasBook("Sine, renamed"))
	for _, h := range append(plain, renamed...) {
		_, id := canvasMatch(h)
		assert.Empty(t, id, h)
	}
	assert.NotEqual(t, plain[0], renamed[0], "without a map a rename changes the title Canvas matches")
}

// Canvas's own gradebook export, made after the first import, gives the
// map: each column "Title (id) (NUMBER)" that the import made from an
// exercise's column.
func TestCanvasColumnsFromCanvasExport(t *testing.T) {
	exs := canvasBook("Sine").Exercises
	export := "Student,ID,SIS User ID,SIS Login ID,Section,Sine (01_sine) (777),Five points (03_five_point) (778),Quiz 1 (900),Current Score\n" +
		"    Points Possible,,,,,5,8,10,\n"
	m, err := ReadCanvasColumns(strings.NewReader("\ufeff"+export), exs)
	require.NoError(t, err)
	assert.Equal(t, CanvasColumns{"01_sine": "777", "03_five_point": "778"}, m)
	var b bytes.Buffer
	require.NoError(t, WriteCanvasColumns(&b, m))
	back, err := ReadCanvasColumns(&b, exs)
	require.NoError(t, err)
	assert.Equal(t, m, back)
}

// A map with an exercise the gradebook lacks, a number that is not one,
// or anything given twice is refused, naming it.
func TestCanvasColumnsRefused(t *testing.T) {
	exs := canvasBook("Sine").Exercises
	for text, want := range map[string]string{
		"exercise,canvas_id\n02_nothing,1\n":                   `no exercise "02_nothing"`,
		"exercise,canvas_id\n01_sine,12a\n":                    `"12a" is not a Canvas assignment number`,
		"exercise,canvas_id\n01_sine,1\n01_sine,2\n":           "exercise 01_sine is given twice",
		"exercise,canvas_id\n01_sine,1\n03_five_point,1\n":     "assignment 1 is given to both 01_sine and 03_five_point",
		"id,number\n01_sine,1\n":                               "want exercise,canvas_id",
		"exercise,canvas_id\n01_sine\n":                        "line 2: 1 fields",
		"Student,ID,A (01_sine) (5),B (01_sine) (6),Section\n": "exercise 01_sine is given twice",
	} {
		_, err := ReadCanvasColumns(strings.NewReader(text), exs)
		assert.ErrorContains(t, err, want, text)
	}
}
