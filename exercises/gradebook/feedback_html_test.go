package gradebook

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"stencillab.dev/exercises/grading"
)

func TestFeedbackHTMLEscapesEveryText(t *testing.T) {
	rng := newRand()
	g, _ := sampleBook(rng)
	for _, id := range g.StudentIDs() {
		s := g.Students[id]
		page := g.FeedbackHTML(s)
		// The only tags are the page's own.
		for _, tag := range regexp.MustCompile(`<(/?[a-zA-Z!][^>]*)>`).FindAllStringSubmatch(page, -1) {
			name := strings.Fields(strings.TrimPrefix(tag[1], "/"))[0]
			assert.Contains(t, []string{"!DOCTYPE", "html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "pre", "table", "tr", "th", "td", "code"}, name, "%s: a tag %q", id, tag[0])
		}
		assert.NotContains(t, page, "<img", id)
		assert.NotContains(t, page, "<b>", id)
	}
}

func TestFeedbackWithheldIsOneLineAndEmptyHandInOneParagraph(t *testing.T) {
	exs := []Exercise{{ID: "01_sine", Title: "Sine", MaxPoints: 8}, {ID: "03_five_point", Title: "Five", MaxPoints: 9}, {ID: "20_cuda_basic", Title: "Basic", MaxPoints: 16}}
	g := New(exs)
	gpu := func() *Cell {
		return &Cell{State: StateNeedsGPU, MaxPoints: 16, Result: &grading.ExerciseResult{ID: "20_cuda_basic", Status: grading.NeedsGPU, MaxPoints: 16,
			Message: "instructor: run grade bundle on the GPU machine", Checks: []grading.CheckResult{{ID: "compiles", MaxPoints: 2, Message: "needs a GPU"}}}}
	}
	missing := func(id string, max int) *Cell {
		return &Cell{State: StateGraded, MaxPoints: max, Result: &grading.ExerciseResult{ID: id, Status: grading.Missing, MaxPoints: max, Message: "missing exercises/" + id}}
	}
	g.Students["empty"] = &Student{ID: "empty", Source: SourceFiles, Cells: map[string]*Cell{"01_sine": missing("01_sine", 8), "03_five_point": missing("03_five_point", 9), "20_cuda_basic": gpu()}}
	g.Students["some"] = &Student{ID: "some", Source: SourceFiles, Cells: map[string]*Cell{
		"01_sine":       {State: StateGraded, Points: 8, MaxPoints: 8, Result: result("01_sine", 8, 8, "")},
		"03_five_point": missing("03_five_point", 9), "20_cuda_basic": gpu()}}
	g.Recount()

	md := g.Feedback(g.Students["empty"])
	assert.Contains(t, md, "Total: 0/17")
	assert.Contains(t, md, "Not graded yet: 16 points more")
	assert.Contains(t, md, emptyHandIn)
	assert.NotContains(t, md, "missing exercises/", "one paragraph, not one section per exercise")
	assert.LessOrEqual(t, strings.Count(md, "\n"), 8)
	assert.Contains(t, g.FeedbackHTML(g.Students["empty"]), "<p>Nothing to grade was found")

	md = g.Feedback(g.Students["some"])
	assert.NotContains(t, md, emptyHandIn)
	assert.Contains(t, md, "Total: 8/17")
	assert.Contains(t, md, "## 20\\_cuda\\_basic Basic: –/16, graded later on the GPU\n")
	assert.NotContains(t, md, "instructor", "what the grader says of a withheld exercise is not shown")
	assert.NotContains(t, md, "needs a GPU")
	assert.NotContains(t, g.FeedbackHTML(g.Students["some"]), "instructor")
}
