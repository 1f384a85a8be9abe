package grader

import (
	"bytes"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/handin"
	"stencillab.dev/exercises/release"
	"stencillab.dev/exercises/similarity"
)

// runSimilarity is `grade similarity [-threshold F] [-o FILE] [-roster
// FILE] CLASS [exercise...]`: the pairs of hand-ins whose solution code of
// an exercise is near-identical, as CSV (exercise, student_a, student_b,
// score, shared, of), highest score first. The hand-ins are read as a
// class run reads them (links refused, files bounded; a notebook's cells
// extracted); the code every student was given does not count.
func runSimilarity(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("grade similarity", flag.ContinueOnError)
	fs.SetOutput(stderr)
	threshold := fs.Float64("threshold", similarity.DefaultThreshold, "flag a pair from this score (the share of fingerprints shared, 0 to 1)")
	outPath := fs.String("o", "", "write the CSV here (default: standard output)")
	rosterPath := fs.String("roster", "", "the roster, for folders named by email addresses")
	root := fs.String("C", "", "the repository (default: the one containing the working directory)")
	allowRepo := fs.Bool(allowInRepoFlag, false, allowInRepoUsage)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: grade similarity [-threshold F] [-o FILE] [-roster FILE] [-C DIR] [-allow-in-repo] CLASS [exercise...]")
		fs.PrintDefaults()
	}
	pos, ok := parseFlags(fs, args)
	if !ok {
		return 2
	}
	if len(pos) < 1 || !(*threshold > 0 && *threshold <= 1) {
		fs.Usage()
		return 2
	}
	exs, err := selectExercises(catalogue(), pos[1:])
	if err != nil {
		fmt.Fprintf(stderr, "grade similarity: %v\n", err)
		return 2
	}
	if err := refuseInRepo(*allowRepo, coursePath{"the class folder", pos[0]}, coursePath{"-roster", *rosterPath}, coursePath{"-o", *outPath}); err != nil {
		fmt.Fprintf(stderr, "grade similarity: %v\n", err)
		return 2
	}
	repo, err := findRoot(orDot(*root))
	if err != nil {
		fmt.Fprintf(stderr, "grade similarity: %v\n", err)
		return 1
	}
	roster, err := readRoster(*rosterPath)
	if err != nil {
		fmt.Fprintf(stderr, "grade similarity: %v\n", err)
		return 1
	}
	pairs, notes, err := classSimilarity(repo, pos[0], roster, exs, *threshold)
	if err != nil {
		fmt.Fprintf(stderr, "grade similarity: %v\n", err)
		return 1
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "grade similarity: %s\n", n)
	}
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	_ = cw.Write([]string{"exercise", "student_a", "student_b", "score", "shared", "of"})
	for _, p := range pairs {
		_ = cw.Write([]string{p.Exercise, gradebook.SafeCell(p.A), gradebook.SafeCell(p.B), fmt.Sprintf("%.3f", p.Score), fmt.Sprint(p.Shared), fmt.Sprint(p.Of)})
	}
	cw.Flush()
	if err := writeOut(*outPath, stdout, b.Bytes()); err != nil {
		fmt.Fprintf(stderr, "grade similarity: %v\n", err)
		return 1
	}
	writeClusters(stderr, pairs, *threshold)
	return 0
}

// writeClusters writes what an instructor reads first: how many pairs are
// flagged, and the rings of copies they make (similarity.Clusters), one
// line each, largest first; the CSV has the pairs.
func writeClusters(w io.Writer, pairs []similarity.Pair, threshold float64) {
	cs := similarity.Clusters(pairs)
	plural := func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	}
	colon := ""
	if len(cs) > 0 {
		colon = ":"
	}
	fmt.Fprintf(w, "grade similarity: %d %s at or above %.2f (the code handed out discounted), in %d %s of copies%s\n",
		len(pairs), plural(len(pairs), "pair", "pairs"), threshold, len(cs), plural(len(cs), "cluster", "clusters"), colon)
	for _, c := range cs {
		fmt.Fprintf(w, "  %s: %d students (%d %s, highest %.3f): %s\n", c.Exercise, len(c.Students), c.Pairs,
			plural(c.Pairs, "pair", "pairs"), c.MaxScore, strings.Join(c.Students, ", "))
	}
}

// classSimilarity reads every hand-in of the class folder and compares
// them exercise by exercise. notes says which hand-ins were left out.
func classSimilarity(root, class string, roster *gradebook.Roster, exs []grading.Exercise, threshold float64) ([]similarity.Pair, []string, error) {
	entries, _, _, err := classEntriesOf(class, "", roster)
	if err != nil {
		return nil, nil, err
	}
	work, err := os.MkdirTemp("", "grade-similarity-")
	if err != nil {
		return nil, nil, fmt.Errorf("a work folder: %w", err)
	}
	defer os.RemoveAll(work)
	code := map[string]map[string]similarity.Source{} // exercise → student → code
	var notes []string
	for _, e := range entries {
		if e.refused != "" {
			notes = append(notes, fmt.Sprintf("%s left out: %s", e.id, e.refused))
			continue
		}
		dir := e.dir
		if _, err := os.Lstat(filepath.Join(dir, handin.NotebookName)); err == nil {
			cells, err := handin.ReadNotebook(filepath.Join(dir, handin.NotebookName))
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s left out: the notebook: %v", e.id, err))
				continue
			}
			dir = filepath.Join(work, e.id)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, nil, fmt.Errorf("a work folder: %w", err)
			}
			if err := handin.ExtractNotebook(dir, root, cells, exs); err != nil {
				notes = append(notes, fmt.Sprintf("%s left out: the notebook: %v", e.id, err))
				continue
			}
		}
		for _, ex := range exs {
			var text strings.Builder
			isGo := true
			for _, f := range ex.Files {
				b, err := handin.SubmissionFile(dir, ex.ID, f)
				if err != nil {
					continue
				}
				isGo = isGo && strings.HasSuffix(f, ".go")
				text.Write(b)
				text.WriteByte('\n')
			}
			if text.Len() == 0 {
				continue
			}
			if code[ex.ID] == nil {
				code[ex.ID] = map[string]similarity.Source{}
			}
			code[ex.ID][e.id] = similarity.Source{Text: text.String(), Go: isGo}
		}
	}
	var pairs []similarity.Pair
	for _, ex := range exs {
		if len(code[ex.ID]) < 2 {
			continue
		}
		ps, skipped := similarity.Compare(ex.ID, code[ex.ID], stubOf(root, ex), threshold)
		pairs = append(pairs, ps...)
		if len(skipped) > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d of %d hand-ins not compared: too little code of their own beyond what was handed out (fewer than %d fingerprints)",
				ex.ID, len(skipped), len(code[ex.ID]), similarity.MinPrints))
		}
	}
	similarity.Sort(pairs)
	return pairs, notes, nil
}

// stubOf is the code every student is given for the exercise: the
// instructor's files with their solutions stripped, as the release does.
func stubOf(root string, ex grading.Exercise) similarity.Source {
	var text strings.Builder
	isGo := true
	for _, f := range ex.Files {
		rel := filepath.ToSlash(filepath.Join("exercises", ex.ID, f))
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			continue
		}
		isGo = isGo && strings.HasSuffix(f, ".go")
		var stub []byte
		if strings.HasSuffix(f, ".go") {
			stub, err = release.StripGo(rel, b)
		} else {
			stub, err = release.StripText(rel, b)
		}
		if err != nil {
			continue
		}
		text.Write(stub)
		text.WriteByte('\n')
	}
	return similarity.Source{Text: text.String(), Go: isGo}
}
