//go:build browser

package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/notebooks/nbrun/predict"
)

// Predict, then see, checked on the page a student reads: before anything
// runs, the text of the cells before each question's check shows no answer
// the check accepts (predict.AnswerLeaks, the rule the release is tested
// with); once a prediction is written and the check has run, the answer
// and its working are shown after it.

// jsCells reports every cell of the open notebook: its kind, its source
// (to find the checks), and the text the page shows of its input (a
// markdown cell rendered, a code cell's code) and of its outputs, prompts
// left out ("In [12]:" is not about any question).
const jsCells = `(() => JSON.stringify(Jupyter.notebook.get_cells().map(c => {
	const e = c.element[0];
	const pick = sel => Array.from(e.querySelectorAll(sel)).map(x => x.innerText).join('\n');
	return {kind: c.cell_type, source: c.get_text(),
		input: c.cell_type === 'markdown' ? pick('.text_cell_render') : pick('.input_area'),
		output: pick('.output_subarea')};
})))()`

// pageCell is one cell of jsCells' report.
type pageCell struct {
	Kind   string `json:"kind"`
	Source string `json:"source"`
	Input  string `json:"input"`
	Output string `json:"output"`
}

// readCells reads the open notebook's cells as the page shows them.
func readCells(t *testing.T, ctx context.Context) []pageCell {
	t.Helper()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](jsCells))
	require.NoError(t, err)
	var cells []pageCell
	require.NoError(t, json.Unmarshal([]byte(raw), &cells))
	return cells
}

// checkCall is one check of a question in a check cell.
type checkCall struct {
	reveal    bool
	q         predict.Question
	variable  string  // the prediction's variable, Check's third argument
	want, tol float64 // the answer and the check's tolerance, when graded
}

// checkCalls returns the checks of a code cell's source, each question
// looked up in predict's declarations and solved as the check solves it.
func checkCalls(t *testing.T, src string) []checkCall {
	t.Helper()
	var calls []checkCall
	for _, m := range predict.CheckCall.FindAllStringSubmatch(src, -1) {
		q, err := predict.LookupQuestion(m[2], m[3])
		require.NoError(t, err, "a check cell calls %s", m[0])
		c := checkCall{reveal: m[1] == "Reveal", q: q, variable: m[4]}
		if q.Graded() {
			a, err := q.Solve()
			require.NoError(t, err, "%s/%s", q.Notebook, q.ID)
			c.want, c.tol = a.Want, q.Tolerance(a.Want)
		}
		calls = append(calls, c)
	}
	return calls
}

// snippet returns the text around byte offset at, on one line.
func snippet(text string, at int) string {
	r := []rune(text[:at])
	from := max(0, len(r)-50)
	rest := []rune(text[at:])
	return strings.ReplaceAll(string(r[from:])+string(rest[:min(len(rest), 50)]), "\n", " ")
}

// notebookNumber is the number of a course notebook's file, "07b" for
// 07b_past_the_roofline.ipynb.
func notebookNumber(file string) string {
	n, _, _ := strings.Cut(file, "_")
	return n
}

// answersBeforeChecks reads the open notebook as the page shows it and
// returns, one line each, every answer of a graded question shown before
// its check cell (in the cells above it, or in the check's own code),
// rounded to the number's own decimals and within the check's tolerance,
// or in one of the question's other forms (predict.AnswerLeaks, numbers
// of two significant digits and more). It also names each question of the
// notebook that no check cell on the page checks.
func answersBeforeChecks(t *testing.T, ctx context.Context, file string) []string {
	t.Helper()
	var findings []string
	var above strings.Builder
	seen := map[string]bool{}
	for i, c := range readCells(t, ctx) {
		if c.Kind == "code" {
			text := above.String() + c.Input
			for _, call := range checkCalls(t, c.Source) {
				seen[call.q.Notebook+"/"+call.q.ID] = true
				if !call.q.Graded() {
					continue
				}
				for _, l := range predict.AnswerLeaks(text, call.q, call.want, call.tol, 2) {
					findings = append(findings, fmt.Sprintf("%s: question %s/%s (%s): the page shows %q before its check (cell %d): …%s…",
						file, call.q.Notebook, call.q.ID, call.q.Name, l.Text, i, snippet(text, l.At)))
				}
			}
		}
		above.WriteString(c.Input + "\n" + c.Output + "\n")
	}
	for _, q := range predict.Questions() {
		if q.Notebook == notebookNumber(file) && !seen[q.Notebook+"/"+q.ID] {
			findings = append(findings, fmt.Sprintf("%s: question %s (%s) has no check cell on the page", file, q.ID, q.Name))
		}
	}
	return findings
}

// wrongGuess is a prediction the check of call rejects: further from the
// answer than its tolerance.
func wrongGuess(call checkCall) string {
	return strconv.FormatFloat(math.Round(call.want+10*call.tol+7), 'f', -1, 64)
}

// predictions are the predictions the test wrote into a notebook: the
// checks by cell, and the prediction cells' sources as they were.
type predictions struct {
	checks   map[int][]checkCall
	original map[int]string
}

// writePredictions writes a wrong prediction into the prediction cell of
// every checked question of the open notebook, as a student does before
// Run All: its `var x = nbrun.Unset` becomes a number further from the
// answer than the check's tolerance. It returns the checks and the
// prediction cells' sources as they were.
func writePredictions(t *testing.T, ctx context.Context, file string) predictions {
	t.Helper()
	cells := readCells(t, ctx)
	p := predictions{checks: map[int][]checkCall{}, original: map[int]string{}}
	guessed := map[string]bool{} // the prediction variables already written
	for i, c := range cells {
		if c.Kind != "code" {
			continue
		}
		calls := checkCalls(t, c.Source)
		if len(calls) == 0 {
			continue
		}
		p.checks[i] = calls
		for _, call := range calls {
			if call.reveal || call.variable == "" || !call.q.Graded() || guessed[call.variable] {
				continue
			}
			guessed[call.variable] = true
			decl := regexp.MustCompile(`\bvar\s+` + regexp.QuoteMeta(call.variable) + `\s*=\s*nbrun\.Unset\b`)
			j := i - 1
			for j >= 0 && !(cells[j].Kind == "code" && decl.MatchString(cells[j].Source)) {
				j--
			}
			require.GreaterOrEqual(t, j, 0, "%s: no prediction cell declares %s = nbrun.Unset above the check of %s", file, call.variable, call.q.ID)
			if _, ok := p.original[j]; !ok {
				p.original[j] = cells[j].Source
			}
			cells[j].Source = decl.ReplaceAllString(cells[j].Source, "var "+call.variable+" = "+wrongGuess(call))
			_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(() => { Jupyter.notebook.get_cell(%d).set_text(%s); return true; })()`,
				j, mustJSON(t, cells[j].Source))))
			require.NoError(t, err)
		}
	}
	return p
}

// answersAfterChecks reads the open notebook, its cells run after
// writePredictions, and returns, one line each, every check whose output
// does not show the answer: "Answer." and, when graded, the value in a
// form the check accepts. A Reveal shows its answer with no prediction.
func answersAfterChecks(t *testing.T, ctx context.Context, file string, p predictions) []string {
	t.Helper()
	after := readCells(t, ctx)
	var idx []int
	for i := range p.checks {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	var findings []string
	for _, i := range idx {
		out := after[i].Output
		for _, call := range p.checks[i] {
			what := fmt.Sprintf("%s: question %s/%s (%s), check cell %d", file, call.q.Notebook, call.q.ID, call.q.Name, i)
			if !strings.Contains(out, "Answer.") {
				findings = append(findings, fmt.Sprintf("%s shows no answer after it has run: %q", what, out))
				continue
			}
			if call.q.Graded() && len(predict.AnswerLeaks(out, call.q, call.want, call.tol, 1)) == 0 {
				findings = append(findings, fmt.Sprintf("%s: its answer, %g, is not in what the check shows: %q", what, call.want, out))
			}
		}
	}
	return findings
}

// coarsest returns the shortest decimal rendering of want that its check
// accepts (within tol) and that AnswerLeaks must therefore find: want
// rounded to the fewest decimals, with at least two significant digits.
func coarsest(want, tol float64) string {
	for p := 0; p < 10; p++ {
		s := strconv.FormatFloat(want, 'f', p, 64)
		r, _ := strconv.ParseFloat(s, 64)
		if math.Abs(r-want) <= tol && len(strings.TrimLeft(strings.ReplaceAll(s, ".", ""), "0-")) >= 2 {
			return s
		}
	}
	return strconv.FormatFloat(want, 'f', -1, 64)
}

// grouped writes a whole number s with a thin space between groups of
// three digits, as typeset prose does ("262 144").
func grouped(s string) string {
	if strings.Contains(s, ".") || len(s) <= 4 {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteRune('\u2009')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// attackAnswerCheck doctors a copy of a course notebook so that its page
// shows two answers before their checks, the way a careless edit would:
// the markdown of one question states its answer, rounded as far as its
// check accepts, and a cell before another question's check keeps an
// output that prints that answer with its digits grouped. The page check
// (answersBeforeChecks) must name both questions.
func attackAnswerCheck(t *testing.T, bctx context.Context, s *server, nbdir string) {
	t.Run("an answer shown before its check is caught", func(t *testing.T) {
		// The first notebook with two graded checks in two cells.
		var file string
		var nb map[string]any
		var cells []any
		type target struct {
			cell int // the check cell
			call checkCall
		}
		var targets []target
		for _, f := range courseNotebooks(t, nbdir) {
			raw, err := os.ReadFile(filepath.Join(nbdir, f))
			require.NoError(t, err)
			nb = nil
			require.NoError(t, json.Unmarshal(raw, &nb))
			cells, _ = nb["cells"].([]any)
			targets = targets[:0]
			for i, c := range cells {
				cm := c.(map[string]any)
				if cm["cell_type"] != "code" {
					continue
				}
				for _, call := range checkCalls(t, sourceOf(cm)) {
					if call.q.Graded() && !call.reveal {
						targets = append(targets, target{i, call})
						break
					}
				}
			}
			if len(targets) >= 2 {
				file = f
				break
			}
		}
		require.NotEmpty(t, file, "no notebook has two graded checks to doctor")
		a, b := targets[0], targets[1]
		// The markdown of a's question (the last question cell above its
		// check) states the answer.
		qa := a.cell - 1
		for qa >= 0 && !hasTag(cells[qa].(map[string]any), predict.QuestionTag) {
			qa--
		}
		require.GreaterOrEqual(t, qa, 0, "%s: no question cell above the check of %s", file, a.call.q.ID)
		cm := cells[qa].(map[string]any)
		cm["source"] = sourceOf(cm) + "\n\n(It comes to " + coarsest(a.call.want, a.call.tol) + ".)"
		// The cell before b's check keeps an output with its answer.
		cb := cells[b.cell-1].(map[string]any)
		leak := grouped(coarsest(b.call.want, b.call.tol))
		out := map[string]any{"output_type": "stream", "name": "stdout", "text": "a count: " + leak + " in all\n"}
		if cb["cell_type"] == "code" {
			cb["outputs"] = []any{out}
		} else {
			cb["source"] = sourceOf(cb) + "\n\na count: " + leak + " in all"
		}
		const doctored = "zz_doctored.ipynb"
		writeNotebook(t, filepath.Join(nbdir, doctored), nb)

		tab, done := openNotebook(t, bctx, s, doctored)
		defer done()
		findings := answersBeforeChecks(t, tab, doctored)
		all := strings.Join(findings, "\n")
		t.Logf("doctored %s: %s", file, all)
		for _, x := range []target{a, b} {
			assert.Contains(t, all, "question "+x.call.q.Notebook+"/"+x.call.q.ID+" ", "the answer written above the check of %s is caught", x.call.q.ID)
		}
	})
}

// sourceOf returns a notebook cell's source, a string or a list of lines.
func sourceOf(c map[string]any) string {
	switch s := c["source"].(type) {
	case string:
		return s
	case []any:
		var b strings.Builder
		for _, l := range s {
			str, _ := l.(string)
			b.WriteString(str)
		}
		return b.String()
	}
	return ""
}

// hasTag reports whether a notebook cell carries tag in its metadata.
func hasTag(c map[string]any, tag string) bool {
	meta, _ := c["metadata"].(map[string]any)
	tags, _ := meta["tags"].([]any)
	return slices.Contains(tags, any(tag))
}

// attackAnswerShown runs a notebook with two checks of one question: the
// real check, and a cell that names the check only in a comment and prints
// a score of its own, as a check whose answer was taken out would. After a
// prediction, answersAfterChecks must name the second alone.
func attackAnswerShown(t *testing.T, bctx context.Context, s *server, nbdir string) {
	t.Run("a check that shows no answer is caught", func(t *testing.T) {
		var q predict.Question
		for _, x := range predict.Questions() {
			if x.Graded() {
				q = x
				break
			}
		}
		require.True(t, q.Graded(), "predict declares no graded question")
		call := fmt.Sprintf("nbrun.Check(%q, %q, guess)", q.Notebook, q.ID)
		const file = "zz_noanswer.ipynb"
		writeNotebook(t, filepath.Join(nbdir, file), goNotebook(
			codeCell("prediction", "import \"stencillab.dev/notebooks/nbrun\"\n\nvar guess = nbrun.Unset"),
			codeCell("check", "%%\n"+call),
			codeCell("no-answer", "%%\n// the answer was taken out of "+call+"\nfmt.Println(\"Score 0/1\", guess)"),
		))
		tab, done := openNotebook(t, bctx, s, file)
		defer done()
		p := writePredictions(t, tab, file)
		assert.Equal(t, map[int]string{1: "import \"stencillab.dev/notebooks/nbrun\"\n\nvar guess = nbrun.Unset"}, p.original)
		runAll(t, tab, file)
		findings := answersAfterChecks(t, tab, file, p)
		t.Logf("%s", strings.Join(findings, "\n"))
		if assert.Len(t, findings, 1, "the cell with no answer, and it alone") {
			assert.Contains(t, findings[0], "check cell 3 shows no answer")
		}
	})
}

// TestComparableWithAStudentsCopy: in the students' copy, whose committed
// notebooks have no outputs between a question and its check, a run of
// notebooks 01 to 08 (here the instructor's committed notebooks, which
// have them all) is compared with them as nbcheck -committed compares it
// once the cleared cells are left out, and fails without that. It needs
// no browser.
func TestComparableWithAStudentsCopy(t *testing.T) {
	root := moduleRoot(t)
	student := filepath.Join(t.TempDir(), "student")
	writeRelease(t, root, student)
	bin := buildNbcheck(t, root)
	plain, compare := t.TempDir(), t.TempDir()
	var files []string
	for _, f := range courseNotebooks(t, filepath.Join(root, "notebooks")) {
		if !courseNotebook(f) {
			continue
		}
		files = append(files, f)
		fresh := filepath.Join(root, "notebooks", f)
		cleared := clearedCells(t, filepath.Join(student, "notebooks", f))
		assert.NotEmpty(t, cleared, "%s: the students' copy clears the outputs between a question and its check", f)
		assert.Empty(t, clearedCells(t, fresh), "%s: the instructor's copy clears nothing", f)
		comparableCopy(t, fresh, filepath.Join(plain, f), nil, nil)
		comparableCopy(t, fresh, filepath.Join(compare, f), nil, cleared)
	}
	require.NotEmpty(t, files)
	nbcheck := func(dir string) (string, error) {
		cmd := exec.Command(bin, append([]string{"-min", "0", "-committed", filepath.Join(student, "notebooks")}, files...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out1, err := nbcheck(compare)
	assert.NoError(t, err, "the cleared cells left out:\n%s", out1)
	out2, err := nbcheck(plain)
	assert.Error(t, err, "with the cleared cells compared, the students' copy fails:\n%s", out2)
}
