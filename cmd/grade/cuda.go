package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/grading"
)

// The CUDA exercises (exercises/2N_cuda_*) are graded on the GPU by
// package cudacheck, in a child process that is this program itself,
// started with -cuda-child: it needs neither the go command nor the
// sandbox (the student's code is CUDA C, which runs only on the GPU), so
// that a prebuilt grade binary grades them on a GPU machine without Go.

// cudaChildFlag, as the first argument, makes this program the child that
// runs the GPU checks of one submission (cudacheck.ChildMain).
const cudaChildFlag = "-cuda-child"

// splitCUDA separates the exercises graded on the GPU from the others.
func splitCUDA(exs []grading.Exercise) (goExs, cudaExs []grading.Exercise) {
	for _, e := range exs {
		if cudacheck.IsCUDA(e.ID) {
			cudaExs = append(cudaExs, e)
		} else {
			goExs = append(goExs, e)
		}
	}
	return goExs, cudaExs
}

// findSanitizer returns compute-sanitizer from the PATH, or "" with a note
// on w when it is not there.
func findSanitizer(w io.Writer) string {
	p, err := exec.LookPath("compute-sanitizer")
	if err != nil {
		fmt.Fprintf(w, "grade: -sanitize: compute-sanitizer is not on the PATH; memcheck and racecheck are not run\n")
		return ""
	}
	return p
}

// cudaChild returns the command of the child: cfg's, or this program with
// -cuda-child.
func cudaChild(cfg Config) ([]string, error) {
	if len(cfg.cudaChild) > 0 {
		return cfg.cudaChild, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this program for the GPU checks: %w", err)
	}
	return []string{exe, cudaChildFlag}, nil
}

// gradeCUDA grades the CUDA exercises of cfg's submission (or of the
// repository), one at a time.
func gradeCUDA(cfg Config, exs []grading.Exercise) []grading.ExerciseResult {
	var out []grading.ExerciseResult
	child, childErr := cudaChild(cfg)
	for _, e := range exs {
		spec, _ := cudacheck.Lookup(e.ID)
		fmt.Fprintf(cfg.Log, "grade: %s (GPU)\n", e.ID)
		rel := filepath.ToSlash(filepath.Join("exercises", e.ID, spec.File))
		var src []byte
		var err error
		switch p, ok := cfg.Overlay[rel]; {
		case ok:
			src, err = readRegular(p)
		case cfg.Submission != "":
			src, err = submissionFile(cfg.Submission, e.ID, spec.File)
		default:
			src, err = readRegular(filepath.Join(cfg.Root, filepath.FromSlash(rel)))
		}
		switch {
		case errors.Is(err, errLink):
			out = append(out, grading.Fail(e, grading.Rejected, fmt.Sprintf("%s: %v", rel, err), cfg.Seed))
			continue
		case errors.Is(err, errMissing):
			out = append(out, grading.Fail(e, grading.Missing, err.Error(), cfg.Seed))
			continue
		case err != nil:
			out = append(out, grading.Fail(e, grading.Missing, fmt.Sprintf("%s: %v", rel, err), cfg.Seed))
			continue
		case childErr != nil:
			out = append(out, grading.Fail(e, grading.NotAvailable, childErr.Error(), cfg.Seed))
			continue
		}
		out = append(out, cudacheck.Grade(cudacheck.Config{Command: child, Seed: cfg.Seed, Timeout: cfg.Timeout,
			Sanitizer: cfg.Sanitizer}, spec, src))
	}
	return out
}

// writeLeaderboard writes leaderboard.md in out for the challenge, from
// the gradebook: the students whose kernel was timed, correct ones first,
// fastest first (the share of the float4 copy in the same run), then the
// others.
func writeLeaderboard(out string, g *Gradebook) error {
	id := challengeID()
	if id == "" || !slices.ContainsFunc(g.Exercises, func(e GradebookExercise) bool { return e.ID == id }) {
		return nil
	}
	b, err := leaderboard(g, id)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(out, "leaderboard.md"), []byte(b))
}

func challengeID() string {
	for _, s := range cudacheck.Specs() {
		if s.Kind == cudacheck.Challenge {
			return s.ID
		}
	}
	return ""
}

type entry struct {
	student  string
	pct, ms  float64
	correct  bool
	timed    bool
	state    string
	message  string
	hasCells bool
}

// leaderboard returns the Markdown table of exercise id.
func leaderboard(g *Gradebook, id string) (string, error) {
	var es []entry
	for _, sid := range g.studentIDs() {
		c := g.Students[sid].Cells[id]
		e := entry{student: sid}
		if c != nil {
			e.hasCells, e.state = true, c.State
			if c.Result != nil {
				m := c.Result.Metrics
				e.pct, e.timed = m["pct_copy"]
				e.ms = m["ms"]
				e.correct = m["correct"] == 1 && c.Result.Status == grading.Graded
				if c.Result.Status != grading.Graded {
					e.message = string(c.Result.Status)
				}
			}
		}
		es = append(es, e)
	}
	slices.SortStableFunc(es, func(a, b entry) int {
		switch {
		case a.correct != b.correct:
			if a.correct {
				return -1
			}
			return 1
		case a.timed != b.timed:
			if a.timed {
				return -1
			}
			return 1
		}
		if a.pct > b.pct {
			return -1
		}
		if a.pct < b.pct {
			return 1
		}
		return strings.Compare(a.student, b.student)
	})
	var sb strings.Builder
	fmt.Fprintf(&sb, "# Leaderboard: %s\n\n", id)
	fmt.Fprintf(&sb, "The share of the float4 copy of the same %d³ grid, timed in the same process (medians of %d launches timed with CUDA events); only a correct kernel is ranked.\n\n", cudacheck.PerfN, 20)
	sb.WriteString("| rank | student | % of copy | ms at N = 512 | correct |\n| ---: | --- | ---: | ---: | --- |\n")
	rank := 0
	for _, e := range es {
		r := "—"
		if e.correct && e.timed {
			rank++
			r = fmt.Sprint(rank)
		}
		pct, ms := "—", "—"
		if e.timed && !math.IsNaN(e.pct) {
			pct, ms = fmt.Sprintf("%.1f", e.pct), fmt.Sprintf("%.3f", e.ms)
		}
		correct := "no"
		switch {
		case e.correct:
			correct = "yes"
		case !e.hasCells:
			correct = "no submission"
		case e.state == StateNeedsGPU:
			correct = "not graded yet (needs_gpu)"
		case e.message != "":
			correct = "no (" + e.message + ")"
		}
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s |\n", r, mdCell(e.student), pct, ms, correct)
	}
	return sb.String(), nil
}
