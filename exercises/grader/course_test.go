package grader

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/handin"
)

// standIn is a stand-in for the grading of one student that depends only
// on the seed and the files handed in, as the real grader's result does:
// each check passes when a hash of the seed, the check and the file says
// so. It lets the class runs of these tests run in -short mode.
func standIn(exs []grading.Exercise) func(Config) (grading.Report, error) {
	return func(cfg Config) (grading.Report, error) {
		var rs []grading.ExerciseResult
		for _, e := range exs {
			b, err := submissionFile(cfg.Submission, e.ID, e.Files[0])
			switch {
			case errors.Is(err, errMissing):
				rs = append(rs, grading.Fail(e, grading.Missing, err.Error(), cfg.Seed))
				continue
			case err != nil:
				rs = append(rs, grading.Fail(e, grading.Rejected, err.Error(), cfg.Seed))
				continue
			}
			r := grading.ExerciseResult{ID: e.ID, Title: e.Title, Status: grading.Graded, Seed: cfg.Seed, MaxPoints: e.MaxPoints()}
			for _, ch := range e.Checks {
				h := sha256.Sum256(append([]byte(fmt.Sprintf("%d\x00%s\x00", cfg.Seed, ch.ID)), b...))
				pass := binary.LittleEndian.Uint64(h[:8])%3 != 0
				cr := grading.CheckResult{ID: ch.ID, Title: ch.Title, MaxPoints: ch.Points, Passed: pass, Message: "ok"}
				if pass {
					cr.Points = ch.Points
					r.Points += ch.Points
				} else {
					cr.Message = fmt.Sprintf("wrong at index %d", h[8])
				}
				r.Checks = append(r.Checks, cr)
			}
			rs = append(rs, r)
		}
		return grading.NewReport(cfg.Seed, rs), nil
	}
}

// courseClass writes a class of n students, each handing in random
// variations of the exercises' files (some missing), one folder named by
// an email address; it returns the folder and the roster's path.
func courseClass(t *testing.T, root string, only []string, n int, rng *rand.Rand) (string, string) {
	class := t.TempDir()
	var roster strings.Builder
	roster.WriteString("id,section,email,name,sis_id\n")
	names := []string{"Ana López", "Björn Ångström", "Chloé Lefèvre", "Дмитрий Иванов", "Emre Çelik", "顾明", "Hélène Dubois", "Inês Conceição"}
	for i := range n {
		id := fmt.Sprintf("s%02d", i)
		email := id + "@uni.example"
		if i == 0 {
			id = email
		}
		fmt.Fprintf(&roster, "%s,Lab %c,%s,%s,%d\n", id, 'A'+rune(i%2), email, names[i%len(names)], 2000+i)
		for _, ex := range only {
			if rng.IntN(5) == 0 {
				continue // not handed in
			}
			e := findExercise(t, ex)
			dir := filepath.Join(class, id, ex)
			require.NoError(t, os.MkdirAll(dir, 0o755))
			b, err := os.ReadFile(filepath.Join(root, "exercises", ex, e.Files[0]))
			require.NoError(t, err)
			b = append(b, fmt.Sprintf("\n// variation %d\n", rng.IntN(4))...)
			require.NoError(t, os.WriteFile(filepath.Join(dir, e.Files[0]), b, 0o644))
		}
		require.NoError(t, os.MkdirAll(filepath.Join(class, id), 0o755))
	}
	p := filepath.Join(t.TempDir(), "roster.csv")
	require.NoError(t, os.WriteFile(p, []byte(roster.String()), 0o644))
	return class, p
}

// outputFiles reads every file a class run wrote that does not depend on
// the run's time: gradebook.csv and the feedback.
func outputFiles(t *testing.T, out string) map[string]string {
	files := map[string]string{}
	b, err := os.ReadFile(filepath.Join(out, "gradebook.csv"))
	require.NoError(t, err)
	files["gradebook.csv"] = string(b)
	des, err := os.ReadDir(filepath.Join(out, "feedback"))
	require.NoError(t, err)
	for _, de := range des {
		b, err := os.ReadFile(filepath.Join(out, "feedback", de.Name()))
		require.NoError(t, err)
		files["feedback/"+de.Name()] = string(b)
	}
	return files
}

func TestShardsMergedEqualOneRun(t *testing.T) {
	root := repoRoot(t)
	only := []string{"01_sine", "03_five_point", "05_basic"}
	exs, err := selectExercises(catalogue(), only)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 23))
	class, roster := courseClass(t, root, only, 17, rng)
	seed := rng.Uint64N(1<<40) + 1
	cfg := func(out string, shard gradebook.Shard) ClassConfig {
		return ClassConfig{Grade: Config{Root: root, Seed: seed, Only: only, NoSandbox: true, Hidden: false, CacheDir: t.TempDir()},
			Class: class, Out: out, Jobs: 2, Roster: roster, Shard: shard, grade: standIn(exs)}
	}
	one := t.TempDir()
	_, err = GradeClass(cfg(one, gradebook.Shard{}))
	require.NoError(t, err)

	const n = 3
	var parts []string
	seen := map[string]int{}
	for i := range n {
		out := t.TempDir()
		book, err := GradeClass(cfg(out, gradebook.Shard{Index: i, Count: n}))
		require.NoError(t, err)
		for id := range book.Students {
			seen[id]++
		}
		parts = append(parts, out)
	}
	assert.Len(t, seen, 17, "every student is in a part")
	for id, k := range seen {
		assert.Equal(t, 1, k, "%s is in one part only", id)
	}
	merged := t.TempDir()
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, Run(append([]string{"merge", "-out", merged}, parts...), &stdout, &stderr), stderr.String())
	want, got := outputFiles(t, one), outputFiles(t, merged)
	assert.Equal(t, len(want), len(got))
	for name, w := range want {
		assert.Equal(t, w, got[name], name)
	}
	assert.Contains(t, want, "feedback/s00@uni.example.md", "a folder named by an email the roster lists keeps its name")
	assert.Contains(t, stdout.String(), "Graded 17 students")

	// Parts of two seeds, or a student twice, do not merge.
	other := t.TempDir()
	c := cfg(other, gradebook.Shard{Index: 0, Count: n})
	c.Grade.Seed++
	_, err = GradeClass(c)
	require.NoError(t, err)
	stderr.Reset()
	assert.Equal(t, 1, Run([]string{"merge", "-out", t.TempDir(), other, parts[1], parts[2]}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "every part needs the same -seed")
	stderr.Reset()
	assert.Equal(t, 1, Run([]string{"merge", "-out", t.TempDir(), parts[0], parts[0], parts[1], parts[2]}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "part 0/3 is given twice")
	// A failed task of a job array: its part is missing, and the merge
	// names it instead of dropping its students.
	for miss := range n {
		stderr.Reset()
		var rest []string
		for i, p := range parts {
			if i != miss {
				rest = append(rest, p)
			}
		}
		dest := t.TempDir()
		assert.Equal(t, 1, Run(append([]string{"merge", "-out", dest}, rest...), &stdout, &stderr))
		assert.Contains(t, stderr.String(), fmt.Sprintf("part %d/%d of the class is missing", miss, n))
		_, err := os.Stat(filepath.Join(dest, "gradebook.json"))
		assert.ErrorIs(t, err, os.ErrNotExist, "nothing is written")
	}
}

func TestExportOfAClassRun(t *testing.T) {
	root := repoRoot(t)
	only := []string{"01_sine", "03_five_point"}
	exs, err := selectExercises(catalogue(), only)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 29))
	class, roster := courseClass(t, root, only, 10, rng)
	out := t.TempDir()
	book, err := GradeClass(ClassConfig{Grade: Config{Root: root, Seed: 5, Only: only, NoSandbox: true, CacheDir: t.TempDir()},
		Class: class, Out: out, Jobs: 2, Roster: roster, grade: standIn(exs)})
	require.NoError(t, err)
	r, err := gradebook.ReadRosterFile(roster)
	require.NoError(t, err)
	for _, p := range r.People {
		require.NotNil(t, book.Students[p.ID], p.ID)
		assert.Equal(t, p, book.Students[p.ID].Person, "the row carries the roster's person")
	}
	for _, format := range []string{"canvas", "moodle"} {
		// The roster the run recorded, and the roster given again, write
		// the same file.
		var a, b, stderr bytes.Buffer
		require.Equal(t, 0, Run([]string{"export", "-format", format, out}, &a, &stderr), stderr.String())
		require.Equal(t, 0, Run([]string{"export", "-format", format, "-roster", roster, out}, &b, &stderr), stderr.String())
		assert.Equal(t, a.String(), b.String(), format)
		rows := strings.Split(strings.TrimSpace(a.String()), "\n")
		extra := 1
		if format == "canvas" {
			extra = 2 // the Points Possible row
			assert.Equal(t, "Points Possible,,,,,", rows[1][:len("Points Possible,,,,,")])
		}
		assert.Len(t, rows, 10+extra, format)
		for i, p := range r.People {
			row := rows[i+extra]
			total := []string{}
			for _, e := range only {
				c := book.Students[p.ID].Cells[e]
				total = append(total, fmt.Sprint(c.Score()))
			}
			assert.True(t, strings.HasSuffix(row, ","+strings.Join(total, ",")), "%s: %q ends in the points %v", format, row, total)
			assert.Contains(t, row, p.Email)
		}
	}
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 2, Run([]string{"export", "-format", "blackboard", out}, &stdout, &stderr))
}

func TestOverridesAreTheWholeSet(t *testing.T) {
	root := repoRoot(t)
	only := []string{"01_sine", "03_five_point"}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 31))
	class, _ := courseClass(t, root, only, 4, rng)
	out := t.TempDir()
	ov := filepath.Join(t.TempDir(), "overrides.csv")
	gradeWith := func(lines string, extra bool, subset ...string) (*Gradebook, error) {
		require.NoError(t, os.WriteFile(ov, []byte("student,exercise,points,reason\n"+lines), 0o644))
		sub, err := selectExercises(catalogue(), subset)
		require.NoError(t, err)
		return GradeClass(ClassConfig{Grade: Config{Root: root, Seed: 9, Only: subset, NoSandbox: true, CacheDir: t.TempDir()},
			Class: class, Out: out, Jobs: 2, Overrides: ov, ExtraCredit: extra, grade: standIn(sub)})
	}
	max01 := findExercise(t, "01_sine").MaxPoints()
	book, err := gradeWith("s01,01,1,by hand\ns02,03,2,late\n", false, only...)
	require.NoError(t, err)
	assert.Equal(t, 1, book.Students["s01"].Cells["01_sine"].Score())
	assert.Equal(t, 2, book.Students["s02"].Cells["03_five_point"].Score())

	// Grading 01 alone with s01's line removed: s01's override is
	// withdrawn; s02's line, for 03 (not graded now), is kept.
	book, err = gradeWith("s02,03,2,late\n", false, "01_sine")
	require.NoError(t, err)
	assert.Nil(t, book.Students["s01"].Cells["01_sine"].Override, "a line removed withdraws its override")
	require.NotNil(t, book.Students["s02"].Cells["03_five_point"].Override)
	assert.Equal(t, 2, book.Students["s02"].Cells["03_five_point"].Score())

	// Points above the maximum need -extra-credit.
	_, err = gradeWith(fmt.Sprintf("s03,01,%d,bonus\n", max01+3), false, only...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-extra-credit")
	book, err = gradeWith(fmt.Sprintf("s03,01,%d,bonus\n", max01+3), true, only...)
	require.NoError(t, err)
	assert.Equal(t, max01+3, book.Students["s03"].Cells["01_sine"].Score())
	s := book.Students["s03"]
	sum := 0
	for _, c := range s.Cells {
		sum += c.Score()
	}
	assert.Equal(t, sum, s.Points, "the total counts the extra credit")
}

func TestCourseFlagsRefused(t *testing.T) {
	class := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(class, "ann"), 0o755))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-class", class, "-out", filepath.Join(class, "results")}, "lies inside -class"},
		{[]string{"-class", class, "-out", class}, "lies inside -class"},
		{[]string{"-submission", filepath.Join(class, "nobody")}, "not a folder"},
		{[]string{"-class", class, "-out", t.TempDir(), "-shard", "1/2"}, "-shard needs -seed"},
		{[]string{"-class", class, "-out", t.TempDir(), "-shard", "2/2", "-seed", "3"}, "from 0 to 1"},
		{[]string{"-class", class, "-out", t.TempDir(), "-shard", "x", "-seed", "3"}, "not i/n"},
		{[]string{"-gpus", "0,0"}, "named twice"},
		{[]string{"-gpus", "a"}, "not a device number"},
		{[]string{"-roster", "x.csv"}, "go with -class"},
		{[]string{"-class", class, "-out", t.TempDir(), "-extra-credit"}, "-extra-credit needs -overrides"},
		{[]string{"-j", "4"}, "-j needs -class"},
		{[]string{"merge", "-out", t.TempDir()}, "usage: grade merge"},
		{[]string{"similarity", "-threshold", "2", class}, "usage: grade similarity"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 2, Run(c.args, &stdout, &stderr), "%v", c.args)
		assert.Contains(t, stderr.String(), c.want, "%v", c.args)
	}
	// The library refuses it too.
	_, err := GradeClass(ClassConfig{Class: class, Out: filepath.Join(class, "out")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "inside the class folder")
}

// renamed returns Go source with every identifier that the stub does not
// have renamed, and its layout changed: what a student who copies and
// disguises a solution hands in.
func renamed(src, stub []byte) []byte {
	// The builtins keep their names: a student cannot rename them.
	keep := map[string]bool{"nil": true, "true": true, "false": true, "len": true, "make": true, "append": true,
		"min": true, "max": true, "cap": true, "copy": true, "panic": true, "new": true}
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", -1, len(stub)), stub, nil, 0)
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.IDENT {
			keep[lit] = true
		}
	}
	var out strings.Builder
	names := map[string]string{}
	file := fset.AddFile("", -1, len(src))
	s.Init(file, src, nil, scanner.ScanComments)
	last := 0
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		off := file.Offset(pos)
		if tok == token.IDENT && !keep[lit] {
			n, ok := names[lit]
			if !ok {
				n = fmt.Sprintf("zz%dq", len(names))
				names[lit] = n
			}
			out.Write(src[last:off])
			out.WriteString(n)
			last = off + len(lit)
		}
	}
	out.Write(src[last:])
	return []byte(strings.NewReplacer("\t", "    ", "\n", "\n\n").Replace(out.String()))
}

func TestSimilarityFlagsADisguisedCopy(t *testing.T) {
	root := repoRoot(t)
	needSolutions(t, root)
	class := t.TempDir()
	e := findExercise(t, "01_sine")
	f := e.Files[0]
	sol, err := os.ReadFile(filepath.Join(root, "exercises", e.ID, f))
	require.NoError(t, err)
	stub := []byte(stubOf(root, e).Text)
	write := func(student string, b []byte) {
		dir := filepath.Join(class, student, e.ID)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	write("orig", sol)
	write("copy", renamed(sol, stub))
	write("stub", stub)
	// Another student's honest work: the five-point exercise's solution
	// in the sine's file, code of its own.
	other, err := os.ReadFile(filepath.Join(root, "exercises", "03_five_point", findExercise(t, "03_five_point").Files[0]))
	require.NoError(t, err)
	write("other", other)

	pairs, _, err := classSimilarity(root, class, nil, []grading.Exercise{e}, 0.5)
	require.NoError(t, err)
	require.Len(t, pairs, 1, "%+v", pairs)
	assert.Equal(t, "copy", pairs[0].A)
	assert.Equal(t, "orig", pairs[0].B)
	assert.GreaterOrEqual(t, pairs[0].Score, 0.9)

	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, Run([]string{"similarity", "-C", root, class, "01"}, &stdout, &stderr), stderr.String())
	assert.True(t, strings.HasPrefix(stdout.String(), "exercise,student_a,student_b,score,shared,of\n01_sine,copy,orig,"), stdout.String())
}

func TestSubmissionOfANotebookIsExtracted(t *testing.T) {
	root := repoRoot(t)
	needSolutions(t, root)
	exs, err := selectExercises(catalogue(), []string{"01_sine", "03_five_point"})
	require.NoError(t, err)
	nb, err := os.ReadFile(filepath.Join(root, "notebooks", handin.NotebookName))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, handin.NotebookName), nb, 0o644))
	cfg := Config{Root: root, Submission: dir}
	var lines handin.NotebookLines
	cleanup, err := notebookSubmission(&cfg, exs, &lines)
	require.NoError(t, err)
	assert.NotEqual(t, dir, cfg.Submission, "the notebook's files are graded")
	for _, e := range exs {
		b, err := submissionFile(cfg.Submission, e.ID, e.Files[0])
		require.NoError(t, err, e.ID)
		assert.Contains(t, string(b), "package ", e.ID)
	}
	cleanup()
	_, err = os.Stat(cfg.Submission)
	assert.True(t, os.IsNotExist(err), "the extracted files are removed")

	// A folder without a notebook is graded as it is; a notebook that is
	// not one is refused.
	cfg = Config{Root: root, Submission: t.TempDir()}
	before := cfg.Submission
	_, err = notebookSubmission(&cfg, exs, &lines)
	require.NoError(t, err)
	assert.Equal(t, before, cfg.Submission)
	require.NoError(t, os.WriteFile(filepath.Join(before, handin.NotebookName), []byte("<html>"), 0o644))
	_, err = notebookSubmission(&cfg, exs, &lines)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is refused")
}

func TestListShowsTheHiddenChecksInTheInstructorTree(t *testing.T) {
	root := longRunRoot(t, "builds the grader with the hidden checks")
	e := findExercise(t, "01_sine")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, Run([]string{"-list", "-C", root, "-cache", t.TempDir(), "01"}, &stdout, &stderr), stderr.String())
	// The hidden checks are listed with their points, and the exercise's
	// points count them.
	assert.Regexp(t, `(?m)^  hidden-\S+\s+[0-9]+  `, stdout.String())
	total := 0
	for _, line := range strings.Split(stdout.String(), "\n")[1:] {
		var id string
		var pts int
		if _, err := fmt.Sscanf(line, "%s %d", &id, &pts); err == nil {
			total += pts
		}
	}
	assert.Contains(t, stdout.String(), fmt.Sprintf("(%d points;", total))
	assert.Greater(t, total, e.MaxPoints(), "more than the checks a grader without the hidden ones knows")
}

func TestEmailFoldersAreIdsWhereTheRosterSaysSo(t *testing.T) {
	class := t.TempDir()
	for _, n := range []string{"ana@uni.example", "bob@uni.example", "carl"} {
		require.NoError(t, os.MkdirAll(filepath.Join(class, n), 0o755))
	}
	r, err := gradebook.ReadRoster(strings.NewReader("id,name\nana@uni.example,Ana Núñez\ncarl,Carl\n"))
	require.NoError(t, err)
	ids := func(roster *gradebook.Roster) map[string]string {
		es, _, _, err := classEntriesOf(class, t.TempDir(), roster)
		require.NoError(t, err)
		m := map[string]string{}
		for _, e := range es {
			m[e.name] = e.id
		}
		return m
	}
	with := ids(r)
	assert.Equal(t, "ana@uni.example", with["ana@uni.example"], "listed: the email is the id")
	assert.NotContains(t, with, "bob@uni.example", "not listed: the instructor's list, no row")
	assert.Equal(t, "carl", with["carl"])
	without := ids(nil)
	assert.Equal(t, gradebook.DeriveID("ana@uni.example", nil), without["ana@uni.example"], "no roster: no email id")
}

func TestTreeDigestFollowsTheGoFiles(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command")
	}
	root := t.TempDir()
	write := func(rel, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644))
	}
	write("go.mod", "module stencillab.dev\n")
	write("lab/a.go", "package lab\n")
	write("README.md", "# lab\n")
	d0, err := treeDigest(root, goBin)
	require.NoError(t, err)
	write("README.md", "# lab, edited\n")
	write("notebooks/n.ipynb", "{}")
	d1, err := treeDigest(root, goBin)
	require.NoError(t, err)
	assert.Equal(t, d0, d1, "prose and notebooks build nothing")
	write("lab/a.go", "package lab // edited\n")
	d2, err := treeDigest(root, goBin)
	require.NoError(t, err)
	assert.NotEqual(t, d1, d2, "an edit of a Go file builds the binaries again")
	write("cuda/k.cu", "__global__ void k() {}\n")
	d3, err := treeDigest(root, goBin)
	require.NoError(t, err)
	assert.NotEqual(t, d2, d3, "an embedded file counts")
}
