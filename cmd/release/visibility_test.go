package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/internal/nbformat"
	"stencillab.dev/notebooks/nbrun/predict"
)

// The answer-visibility rule, tested on the students' copy the release
// writes: for every Check-yourself question, nothing a student can read
// before its check shows its answer, nor a rounding of it that the check
// accepts (predict.AnswerLeaks). What a student can read before the check
// is, in the course's order:
//
//   - the course's pages, notebooks/README.md, the start page and the
//     glossary (numbers of three significant digits and more), and every
//     earlier notebook whole: markdown, code and the outputs the
//     release keeps (numbers of four significant digits and more: the
//     course is full of 512³ grids, 1024-thread blocks and rates of a few
//     hundred GB/s, and a shorter number in another notebook is about
//     something else);
//   - the question's own notebook up to its check cell, the check's code
//     included: markdown, code and kept outputs (numbers of two
//     significant digits and more);
//   - the instructions of every notebook (the cells tagged "questions",
//     which say how to write a prediction and give example values): every
//     number, against every question of the course.
//
// Pictures are not read: the release clears the outputs between a question
// and its check, so that a figure drawn there is not shown before the
// check either.

// page is one text a student reads, with where it is.
type page struct {
	where string
	text  string
}

// releasedCell is a cell of a released notebook.
type releasedCell struct {
	kind, source, output string
	tags                 []string
}

// readReleased returns the cells of a released notebook, the text of
// their outputs joined.
func readReleased(t *testing.T, path string) []releasedCell {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var nb struct {
		Cells []struct {
			CellType string          `json:"cell_type"`
			Source   json.RawMessage `json:"source"`
			Metadata struct {
				Tags []string `json:"tags"`
			} `json:"metadata"`
			Outputs []struct {
				Text json.RawMessage            `json:"text"`
				Data map[string]json.RawMessage `json:"data"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	require.NoError(t, json.Unmarshal(b, &nb), path)
	var cells []releasedCell
	for _, c := range nb.Cells {
		src, err := nbformat.CellSource(c.Source)
		require.NoError(t, err, path)
		var out strings.Builder
		for _, o := range c.Outputs {
			texts := []json.RawMessage{o.Text}
			for _, mime := range []string{"text/plain", "text/html", "text/markdown"} {
				texts = append(texts, o.Data[mime])
			}
			for _, raw := range texts {
				if len(raw) == 0 {
					continue
				}
				s, err := nbformat.CellSource(raw)
				require.NoError(t, err, path)
				out.WriteString(s + "\n")
			}
		}
		cells = append(cells, releasedCell{kind: c.CellType, source: src, output: out.String(), tags: c.Metadata.Tags})
	}
	return cells
}

// notebookNumber is the number of a course notebook's file, "07b" for
// 07b_past_the_roofline.ipynb.
func notebookNumber(name string) string {
	n, _, _ := strings.Cut(name, "_")
	return n
}

// context returns the text around offset at, for a message.
func context(text string, at int) string {
	from, to := max(0, at-60), min(len(text), at+60)
	for from > 0 && !utf8Start(text[from]) {
		from--
	}
	for to < len(text) && !utf8Start(text[to]) {
		to++
	}
	return strings.ReplaceAll(text[from:to], "\n", " ")
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func TestNoAnswerBeforeItsCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the release of the whole repository takes a while")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "student")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"-C", root, "-out", out, "-git=false"}, &stdout, &stderr), stderr.String())

	type solved struct {
		q         predict.Question
		want, tol float64
	}
	byKey := map[string]solved{}
	var all []solved
	for _, q := range predict.Questions() {
		s := solved{q: q}
		if q.Graded() {
			a, err := q.Solve()
			require.NoError(t, err, "%s/%s", q.Notebook, q.ID)
			s.want, s.tol = a.Want, q.Tolerance(a.Want)
			all = append(all, s)
		}
		byKey[q.Notebook+"/"+q.ID] = s
	}
	report := func(p page, s solved, min int) {
		for _, l := range predict.AnswerLeaks(p.text, s.q, s.want, s.tol, min) {
			t.Errorf("%s shows %q, the answer of notebook %s's %s (%s) before its check: …%s…",
				p.where, l.Text, s.q.Notebook, s.q.ID, s.q.Name, context(p.text, l.At))
		}
	}

	// The course's pages come before every notebook: their numbers count
	// from three digits up (they list run times and sizes in seconds and
	// bytes).
	var pages []page
	b, err := os.ReadFile(filepath.Join(out, "notebooks", "README.md"))
	require.NoError(t, err)
	pages = append(pages, page{"notebooks/README.md", string(b)})
	for _, name := range []string{"00_start_here.ipynb", "glossary.ipynb"} {
		for i, c := range readReleased(t, filepath.Join(out, "notebooks", name)) {
			pages = append(pages, page{fmt.Sprintf("notebooks/%s cell %d", name, i), c.source + "\n" + c.output})
		}
	}
	var earlier []page // the notebooks before the current one
	files, err := filepath.Glob(filepath.Join(out, "notebooks", "[0-9][0-9]*_*.ipynb"))
	require.NoError(t, err)
	sort.Strings(files)
	checked := map[string]bool{}
	for _, f := range files {
		name := filepath.Base(f)
		nb := notebookNumber(name)
		cells := readReleased(t, f)
		var own []page
		open := "" // the question cell whose check has not come yet
		for i, c := range cells {
			where := fmt.Sprintf("notebooks/%s cell %d", name, i)
			if slices.Contains(c.tags, "questions") {
				for _, s := range all {
					report(page{where + " (instructions)", c.source}, s, 1)
				}
			}
			if slices.Contains(c.tags, predict.QuestionTag) && open == "" {
				open = where
			}
			for _, m := range predict.CheckCall.FindAllStringSubmatch(c.source, -1) {
				if c.kind != "code" {
					break
				}
				key := m[2] + "/" + m[3]
				s, ok := byKey[key]
				if !assert.True(t, ok, "%s checks %s, which nbrun does not declare", where, key) {
					continue
				}
				assert.Equal(t, nb, m[2], "%s checks a question of another notebook", where)
				assert.False(t, checked[key], "%s checks %s a second time", where, key)
				assert.NotEmpty(t, open, "%s checks %s with no question cell (tagged \"question\") before it", where, key)
				checked[key] = true
				if s.q.Graded() {
					report(page{where + " (the check's code)", c.source}, s, 2)
					for _, p := range own {
						report(p, s, 2)
					}
					for _, p := range earlier {
						report(p, s, 4)
					}
					for _, p := range pages {
						report(p, s, 3)
					}
				}
			}
			if c.kind == "code" && predict.CheckCall.MatchString(c.source) {
				open = ""
			}
			own = append(own, page{where, c.source + "\n" + c.output})
		}
		assert.Empty(t, open, "notebooks/%s: the question of %s has no check (nbrun.Check or nbrun.Reveal) after it", name, open)
		earlier = append(earlier, own...)
	}
	for key := range byKey {
		assert.True(t, checked[key], "question %s has no check cell in its notebook", key)
	}
}
