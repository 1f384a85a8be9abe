package gradebook

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
)

func newRand() *rand.Rand {
	return rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
}

// hostile draws a string from characters that mean something to
// Markdown, HTML, CSV or a spreadsheet.
func hostile(rng *rand.Rand, n int) string {
	const alphabet = "=+-@\t\r\n <>&\"'`|*_[]()!#~\\/:.;abcwXYZW09 ＝＠$"
	rs := []rune(alphabet)
	var b strings.Builder
	for range n {
		b.WriteRune(rs[rng.IntN(len(rs))])
	}
	return b.String()
}

// formulaStart reports whether a spreadsheet could read cell as a
// formula: its first character after spaces starts one (OWASP).
func formulaStart(cell string) bool {
	t := strings.TrimLeft(cell, " \n\u00a0\u3000")
	if t == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(t)
	return strings.ContainsRune("=+-@\t\r＝＋－＠\ufe62\ufe63\ufe66", r)
}

func TestSafeCell(t *testing.T) {
	rng := newRand()
	for _, s := range []string{"=1+1", "+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1", " =HYPERLINK(\"x\")", "＝1+1", "-", "=", "@"} {
		got := SafeCell(s)
		assert.Equal(t, "'"+s, got, "%q", s)
	}
	for _, s := range []string{"", "0", "17", "-3", "12.5", "ann", "a=b", "0xff", "3 points"} {
		assert.Equal(t, s, SafeCell(s), "%q stays as it is", s)
	}
	for range 2000 {
		s := hostile(rng, 1+rng.IntN(12))
		got := SafeCell(s)
		if _, err := strconv.ParseFloat(s, 64); err == nil && regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`).MatchString(s) {
			assert.Equal(t, s, got, "a number stays a number")
			continue
		}
		if formulaStart(s) {
			assert.Equal(t, "'"+s, got, "%q", s)
		} else {
			assert.Equal(t, s, got, "%q", s)
		}
		assert.False(t, formulaStart(got) && !regexp.MustCompile(`^-[0-9]`).MatchString(got), "%q", got)
	}
}

// sampleBook is a gradebook of two exercises and students with random
// points, a withheld cell, an override, a derived id, a refused hand-in
// and hostile messages.
func sampleBook(rng *rand.Rand) (*Book, map[string][2]int) {
	exs := []Exercise{{ID: "01_sine", Title: "Sine", MaxPoints: 8}, {ID: "20_cuda_basic", Title: "Basic <CUDA>", MaxPoints: 10}}
	g := New(exs)
	pts := map[string][2]int{}
	for i := range 6 {
		id := fmt.Sprintf("s%d", i)
		a, b := rng.IntN(9), rng.IntN(11)
		s := &Student{ID: id, Source: SourceFiles, Cells: map[string]*Cell{
			"01_sine":       {State: StateGraded, Points: a, MaxPoints: 8, Result: result("01_sine", a, 8, hostile(rng, 30))},
			"20_cuda_basic": {State: StateGraded, Points: b, MaxPoints: 10, Result: result("20_cuda_basic", b, 10, hostile(rng, 30))},
		}}
		g.Students[id] = s
		pts[id] = [2]int{a, b}
	}
	g.Students["s1"].Cells["20_cuda_basic"] = &Cell{State: StateNeedsGPU, MaxPoints: 10}
	pts["s1"] = [2]int{pts["s1"][0], -1}
	g.Students["s2"].Cells["01_sine"].Override = &Override{Points: 3, Reason: "=cmd|' /C calc'!A0 <b>late</b>", Was: pts["s2"][0]}
	pts["s2"] = [2]int{3, pts["s2"][1]}
	g.Students["s3"].Folder = "=HYPERLINK(\"http://evil\")\n<img src=x>"
	g.Students["s4"].Source, g.Students["s4"].Note = SourceRefused, "-2+3 the entry is a file, not a student's folder"
	g.Recount()
	return g, pts
}

func result(id string, pts, max int, msg string) *grading.ExerciseResult {
	r := &grading.ExerciseResult{ID: id, Status: grading.Graded, Points: pts, MaxPoints: max,
		Checks: []grading.CheckResult{{ID: "values", Title: "values", Points: pts, MaxPoints: max, Passed: pts == max, Message: msg}}}
	if pts < max && pts > 0 {
		r.Checks = []grading.CheckResult{
			{ID: "values", Title: "values", Points: pts, MaxPoints: pts, Passed: true, Message: "ok"},
			{ID: "edges", Title: "edges", MaxPoints: max - pts, Message: msg},
		}
	}
	return r
}

func TestCSVIsExactAndSafeForSpreadsheets(t *testing.T) {
	rng := newRand()
	g, pts := sampleBook(rng)
	var b bytes.Buffer
	require.NoError(t, g.WriteCSV(&b))
	rows, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 7)
	assert.Equal(t, []string{"student", "01_sine", "20_cuda_basic", "total", "graded_max", "withheld_max", "max_points", "sha256", "modified", "note"}, rows[0])
	for _, row := range rows[1:] {
		p := pts[row[0]]
		// The total counts graded work only, out of the graded maximum;
		// the withheld maximum is beside it.
		want := []string{row[0], strconv.Itoa(p[0]), strconv.Itoa(p[1]), strconv.Itoa(p[0] + max(p[1], 0)), "18", "0", "18"}
		if p[1] < 0 {
			want[2] = "" // withheld: empty, not 0
			want[4], want[5] = "8", "10"
		}
		assert.Equal(t, want, row[:7], row[0])
		for _, c := range row {
			assert.False(t, formulaStart(c), "%s: the cell %q could start a formula", row[0], c)
		}
	}
	byID := map[string][]string{}
	for _, r := range rows[1:] {
		byID[r[0]] = r
	}
	assert.Equal(t, "", byID["s0"][9])
	assert.Equal(t, `folder "=HYPERLINK(\"http://evil\")\n<img src=x>"`, byID["s3"][9], "the folder, quoted on one line")
	assert.Equal(t, "'-2+3 the entry is a file, not a student's folder", byID["s4"][9])
}

// unescape undoes Escape: backslash escapes and the three entities.
func unescape(s string) string {
	s = regexp.MustCompile(`\\([[:punct:]])`).ReplaceAllString(s, "$1")
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

func TestEscapeLeavesNoMarkup(t *testing.T) {
	rng := newRand()
	for range 2000 {
		s := hostile(rng, 1+rng.IntN(40))
		got := Escape(s)
		assert.NotContains(t, got, "<")
		assert.NotContains(t, got, ">")
		assert.NotContains(t, got, "\n")
		// Every Markdown-active character is escaped.
		for i := 0; i < len(got); i++ {
			if strings.IndexByte("`*_[]!#|~$@", got[i]) >= 0 {
				require.True(t, i > 0 && got[i-1] == '\\', "%q: %q at %d is not escaped", got, got[i], i)
			}
			if got[i] == '\\' {
				i++ // an escaped character
			}
		}
		want := strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(s)
		assert.Equal(t, want, unescape(got), "%q reads back", s)
	}
	got := Escape("see https://evil.example, WWW.evil.example or me@evil.example")
	assert.NotRegexp(t, `[^\\]://`, got)
	assert.NotRegexp(t, `(?i)www\.`, got)
	assert.NotRegexp(t, `[^\\]@`, got)
	assert.Equal(t, "Fig. 8.1 (a + h/2): 3 points", Escape("Fig. 8.1 (a + h/2): 3 points"), "ordinary text stays readable")
}

func TestCodeSpanAndBlockCannotBeClosedFromInside(t *testing.T) {
	rng := newRand()
	for range 2000 {
		s := hostile(rng, 1+rng.IntN(40)) + strings.Repeat("`", rng.IntN(6))
		span := CodeSpan(s)
		n := strings.IndexFunc(span, func(r rune) bool { return r != '`' })
		fence := span[:n]
		require.True(t, strings.HasPrefix(span, fence+" ") && strings.HasSuffix(span, " "+fence), span)
		inner := span[n+1 : len(span)-n-1]
		assert.Less(t, longestRun(inner, '`'), n, "%q", span)
		assert.NotContains(t, inner, "\n")
		assert.Equal(t, strings.Count(inner, "|"), strings.Count(inner, `\|`), "every pipe escaped: %q", inner)
		want := strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(s)
		assert.Equal(t, want, strings.ReplaceAll(inner, `\|`, "|"))

		block := CodeBlock(s)
		lines := strings.Split(strings.TrimSuffix(block, "\n"), "\n")
		open := strings.TrimSuffix(lines[0], "text")
		assert.GreaterOrEqual(t, len(open), 3)
		assert.Equal(t, open, lines[len(lines)-1], "closed by its own fence")
		for _, l := range lines[1 : len(lines)-1] {
			assert.Less(t, longestRun(l, '`'), len(open), "no line closes it: %q", l)
		}
	}
}

// outsideCode removes the code spans and blocks of a feedback file (in
// the forms CodeSpan and CodeBlock write) and the <br> the file puts
// between lines, leaving what a renderer reads as Markdown.
func outsideCode(md string) string {
	var out []string
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := regexp.MustCompile("^(`{3,})text$").FindStringSubmatch(l); m != nil {
			for i++; i < len(lines) && lines[i] != m[1]; i++ {
			}
			continue
		}
		for {
			k := strings.Index(l, "`")
			if k < 0 {
				break
			}
			n := k
			for n < len(l) && l[n] == '`' {
				n++
			}
			fence := l[k:n]
			end := strings.Index(l[n:], " "+fence)
			if end < 0 {
				break
			}
			l = l[:k] + "CODE" + l[n+end+1+len(fence):]
		}
		out = append(out, strings.ReplaceAll(l, "<br>", " "))
	}
	return strings.Join(out, "\n")
}

func TestFeedbackEscapesMarkup(t *testing.T) {
	rng := newRand()
	g, _ := sampleBook(rng)
	attacks := []string{
		"<script>alert(1)</script>",
		"[click](http://evil.example)",
		"![x](http://evil.example/x.png)",
		"```\n# Full marks\n```",
		"`` ` ``` ```` | a | b |",
		"<!-- hidden --> &lt;b&gt;",
		"www.evil.example and https://evil.example",
		"line one\n<img src=x onerror=alert(1)>\n| forged | 10/10 | ok |",
	}
	s := g.Students["s0"]
	r := s.Cells["01_sine"].Result
	r.Status, r.Message = grading.BuildFailed, strings.Join(attacks, "\n")
	for i, a := range attacks {
		r.Checks = append(r.Checks, grading.CheckResult{ID: fmt.Sprintf("c%d", i), Title: "t", MaxPoints: 1, Message: a})
	}
	s.Folder = "<b>bold</b>\n# heading"
	s.Note = "```\n<script>x</script>"
	fb := g.Feedback(s)
	rest := outsideCode(fb)
	assert.NotContains(t, rest, "<", "no tag outside code:\n%s", rest)
	for _, bad := range []string{"](", "http", "www", "# Full marks", "| forged"} {
		assert.NotContains(t, rest, bad, "outside code:\n%s", rest)
	}
	for _, a := range attacks {
		for _, line := range strings.Split(a, "\n") {
			assert.Contains(t, fb, line, "the message is shown as it is, in code")
		}
	}
	// Every table row has its three cells: no pipe of a message splits one.
	for _, l := range strings.Split(fb, "\n") {
		if strings.HasPrefix(l, "| c") {
			cells := regexp.MustCompile(`[^\\]\|`).FindAllStringIndex(l, -1)
			assert.Len(t, cells, 3, "%q", l)
		}
	}
}

func TestWriteAndReadBack(t *testing.T) {
	rng := newRand()
	g, _ := sampleBook(rng)
	out := t.TempDir()
	require.NoError(t, g.Write(out))
	back, err := Read(filepath.Join(out, "gradebook.json"))
	require.NoError(t, err)
	assert.Equal(t, g.StudentIDs(), back.StudentIDs())
	for _, id := range g.StudentIDs() {
		assert.Equal(t, g.Students[id].Points, back.Students[id].Points, id)
		fb, err := os.ReadFile(filepath.Join(out, "feedback", id+".md"))
		require.NoError(t, err)
		assert.Equal(t, g.Feedback(g.Students[id]), string(fb))
	}
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasSuffix(e.Name(), ".tmp"), "no temporary file is left")
	}

	// A row whose key is not its id, or an id a file could not be named
	// after, is refused when read.
	for _, bad := range []string{`{"version":1,"students":{"a":{"id":"b"}}}`, `{"version":1,"students":{"../x":{"id":"../x"}}}`, `{"version":1,"students":{"a":null}}`} {
		p := filepath.Join(t.TempDir(), "gradebook.json")
		require.NoError(t, os.WriteFile(p, []byte(bad), 0o644))
		_, err := Read(p)
		assert.ErrorContains(t, err, "not a valid row", bad)
	}
	empty, err := ReadIfExists(t.TempDir())
	require.NoError(t, err)
	assert.Empty(t, empty.Students)
}

func TestDeriveID(t *testing.T) {
	rng := newRand()
	seen := map[string]string{}
	names := []string{"Jane Doe", "Jane_Doe", "josé", "-rf", ".hidden", "<script>", "=1+1", "a\nb", strings.Repeat("x", 300), "", "ann"}
	for range 200 {
		names = append(names, hostile(rng, 1+rng.IntN(20)))
	}
	done := map[string]bool{}
	for _, n := range names {
		if done[n] {
			continue
		}
		done[n] = true
		id := DeriveID(n, func(id string) bool { _, ok := seen[id]; return ok })
		require.True(t, ValidID(id), "%q gives %q", n, id)
		if prev, ok := seen[id]; ok {
			assert.Equal(t, prev, n, "two names give %q", id)
		}
		seen[id] = n
		assert.Equal(t, id, DeriveID(n, nil), "the same name gives the same id")
	}
	// A collision with a taken id takes more of the hash.
	first := DeriveID("Jane Doe", nil)
	other := DeriveID("Jane Doe", func(id string) bool { return id == first })
	assert.NotEqual(t, first, other)
	assert.True(t, strings.HasPrefix(other, strings.TrimRight(first, "0123456789abcdef")))
}

func TestMergeKeepsGradedCellsAndOverrides(t *testing.T) {
	ex := []Exercise{{ID: "01_a", MaxPoints: 5}, {ID: "10_gpu", MaxPoints: 7}}
	rng := newRand()
	a, b := rng.IntN(6), rng.IntN(8)
	first := &Book{Seed: 1, Exercises: ex, Students: map[string]*Student{
		"ann": {ID: "ann", Cells: map[string]*Cell{
			"01_a":   {State: StateGraded, Points: a, MaxPoints: 5, Override: &Override{Points: 4, Reason: "late", Was: a}},
			"10_gpu": {State: StateNeedsGPU, MaxPoints: 7},
		}}}}
	book := &Book{}
	book.Merge(first)
	assert.Equal(t, 4, book.Students["ann"].Points, "the override counts; the withheld cell does not")
	assert.Equal(t, 12, book.Students["ann"].MaxPoints)
	assert.False(t, book.Students["ann"].Complete)
	second := &Book{Seed: 2, Exercises: ex, Students: map[string]*Student{
		"ann": {ID: "ann", Note: "n", Cells: map[string]*Cell{
			"01_a":   {State: StateError, MaxPoints: 5},
			"10_gpu": {State: StateGraded, Points: b, MaxPoints: 7},
		}}}}
	book.Merge(second)
	assert.Equal(t, StateGraded, book.Students["ann"].Cells["01_a"].State)
	assert.Equal(t, 4+b, book.Students["ann"].Points)
	assert.True(t, book.Students["ann"].Complete)
	assert.Equal(t, "n", book.Students["ann"].Note)
	assert.Equal(t, uint64(2), book.Seed)
	js, err := json.Marshal(book)
	require.NoError(t, err)
	assert.NotContains(t, string(js), `"folder"`, "no folder when the id is the folder's name")
}

func FuzzSafeCell(f *testing.F) {
	f.Add("=1+1")
	f.Add(" \t@x")
	f.Add("-12")
	f.Fuzz(func(t *testing.T, s string) {
		got := SafeCell(s)
		if got != s {
			assert.Equal(t, "'"+s, got)
			return
		}
		if formulaStart(s) {
			assert.Regexp(t, `^-[0-9]+(\.[0-9]+)?$`, s, "only a negative number keeps its sign")
		}
	})
}

func FuzzFeedback(f *testing.F) {
	f.Add("<script>", "[a](b)")
	f.Add("```", "| x |")
	f.Fuzz(func(t *testing.T, msg, folder string) {
		g := New([]Exercise{{ID: "01_sine", Title: "Sine", MaxPoints: 1}})
		s := &Student{ID: "ann", Folder: folder, Note: msg, Cells: map[string]*Cell{"01_sine": {State: StateGraded, MaxPoints: 1,
			Result: &grading.ExerciseResult{ID: "01_sine", Status: grading.Crashed, Message: msg, MaxPoints: 1,
				Checks: []grading.CheckResult{{ID: "values", MaxPoints: 1, Message: msg}}}}}}
		g.Students["ann"] = s
		rest := outsideCode(g.Feedback(s))
		assert.NotContains(t, rest, "<")
	})
}

// The most frequent mistakes leave out the stubs not yet written: a check
// that says "not implemented yet" runs and fails, but teaches nothing.
func TestMistakesLeaveOutStubs(t *testing.T) {
	g := New([]Exercise{{ID: "01_sine", Title: "Sine", MaxPoints: 2}})
	cell := func(notImpl bool, msg string) *Cell {
		r := grading.ExerciseResult{ID: "01_sine", Status: grading.Graded, MaxPoints: 2,
			Checks: []grading.CheckResult{{ID: "grid", MaxPoints: 2, Message: msg, NotImplemented: notImpl}}}
		return &Cell{State: StateGraded, MaxPoints: 2, Result: &r}
	}
	var ids []string
	for i := range 5 {
		id := fmt.Sprintf("s%d", i)
		ids = append(ids, id)
		c := cell(true, "Discretize: not implemented yet")
		if i < 2 {
			c = cell(false, fmt.Sprintf("xs[%d] is off by h/2", i))
		}
		g.Students[id] = &Student{ID: id, Cells: map[string]*Cell{"01_sine": c}}
	}
	stats, mistakes := g.CheckStats(ids, 3)
	require.Len(t, stats, 1)
	assert.Equal(t, 5, stats[0].Ran)
	assert.Equal(t, 0, stats[0].Passed)
	require.Len(t, mistakes, 1, "the three stubs are no mistake")
	assert.Equal(t, 2, mistakes[0].Count)
	assert.Equal(t, "xs[#] is off by h/#", mistakes[0].Message)
}
