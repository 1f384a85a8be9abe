package grading

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Report is the outcome of grading several exercises, in the form written
// by `grade -json` for a learning-management system.
//
// An exercise withheld for want of a GPU (NeedsGPU) is graded on a GPU
// later: its points are in WithheldMax, not in GradedMax, the maximum that
// Points is out of. MaxPoints is every exercise's maximum, withheld or not.
type Report struct {
	Points      int              `json:"points"`
	GradedMax   int              `json:"graded_max"`
	WithheldMax int              `json:"withheld_max"`
	MaxPoints   int              `json:"max_points"`
	Seed        uint64           `json:"seed"`
	Exercises   []ExerciseResult `json:"exercises"`
}

// NewReport totals the results.
func NewReport(seed uint64, results []ExerciseResult) Report {
	r := Report{Seed: seed, Exercises: results}
	for _, e := range results {
		r.Points += e.Points
		r.MaxPoints += e.MaxPoints
		if e.Status == NeedsGPU {
			r.WithheldMax += e.MaxPoints
		} else {
			r.GradedMax += e.MaxPoints
		}
	}
	if r.Exercises == nil {
		r.Exercises = []ExerciseResult{}
	}
	return r
}

// WriteJSON writes the report as indented JSON.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("grading: write JSON report: %w", err)
	}
	return nil
}

// WriteText writes one block per exercise and the total, e.g. "Total
// 37/50": the points out of those that could be graded here. The points
// withheld for want of a GPU follow on a line of their own, with the
// exercises they belong to.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	var later []string
	for _, e := range r.Exercises {
		e.text(&b)
		b.WriteString("\n")
		if e.Status == NeedsGPU {
			later = append(later, e.ID)
		}
	}
	fmt.Fprintf(&b, "Total %d/%d   (seed %d; -seed %d repeats these inputs)\n", r.Points, r.GradedMax, r.Seed, r.Seed)
	if r.WithheldMax > 0 {
		fmt.Fprintf(&b, "Graded on a GPU later: %d points (%s), not counted above: this machine has no GPU to run them.\n",
			r.WithheldMax, strings.Join(later, ", "))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("grading: write report: %w", err)
	}
	return nil
}

// WriteText writes the exercise's block of the text report.
func (e ExerciseResult) WriteText(w io.Writer) error {
	var b strings.Builder
	e.text(&b)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("grading: write report: %w", err)
	}
	return nil
}

// laterText is what the report says of an exercise, or of a check,
// withheld for want of a GPU.
const laterText = "graded on a GPU later"

func (e ExerciseResult) text(b *strings.Builder) {
	later := e.Status == NeedsGPU
	switch {
	case later:
		fmt.Fprintf(b, "%s  %s  –/%d  %s", e.ID, e.Title, e.MaxPoints, laterText)
	case e.Status != Graded:
		fmt.Fprintf(b, "%s  %s  %d/%d  [%s]", e.ID, e.Title, e.Points, e.MaxPoints, e.Status)
	default:
		fmt.Fprintf(b, "%s  %s  %d/%d", e.ID, e.Title, e.Points, e.MaxPoints)
	}
	b.WriteString("\n")
	if e.Message != "" {
		fmt.Fprintf(b, "  %s\n", indent(e.Message))
	}
	width := 0
	for _, c := range e.Checks {
		width = max(width, len(c.ID))
	}
	for _, c := range e.Checks {
		mark := "FAIL"
		switch {
		case later:
			mark = "GPU "
		case c.Passed:
			mark = "ok  "
		case c.NotImplemented:
			mark = "TODO"
		}
		hidden := ""
		if c.Hidden {
			hidden = " (hidden)"
		}
		msg := c.Message
		if c.Passed || later {
			msg = c.Title
		}
		if later {
			fmt.Fprintf(b, "  %s %-*s  –/%-2d %s%s\n", mark, width, c.ID, c.MaxPoints, indent(msg), hidden)
			continue
		}
		fmt.Fprintf(b, "  %s %-*s %2d/%-2d %s%s\n", mark, width, c.ID, c.Points, c.MaxPoints, indent(msg), hidden)
	}
}

// ScoreLine is the line a notebook prints under the exercise's report:
// "Score 7/9   (seed N)", or, for an exercise withheld for want of a GPU,
// that its points are graded on a GPU later.
func (e ExerciseResult) ScoreLine() string {
	if e.Status == NeedsGPU {
		return fmt.Sprintf("Score: %s (%d points; this machine has no GPU to run the checks)", laterText, e.MaxPoints)
	}
	return fmt.Sprintf("Score %d/%d   (seed %d)", e.Points, e.MaxPoints, e.Seed)
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n      ") }

// Print runs the checks of e with a fresh seed, writes the text report to
// standard output and returns the result. Notebooks call it in the cell
// after the student's function; the score is the one the grader gives.
//
// Code that ends the program during the checks (os.Exit(0), say) would
// leave the cell silent, as if all were well: a guard process started
// first prints, when the program ends before the report, that the checks
// did not finish and the exercise scores 0, and the cell shows it.
//
// In a GoNB notebook, when the exercise's code cell did not compile when
// it last ran (CellError), it prints so and grades nothing: the result is
// NotAvailable, every check not run.
func Print(e Exercise) ExerciseResult {
	if err := CellError(e.ID); err != nil {
		fmt.Println(err)
		return Fail(e, NotAvailable, err.Error(), 0)
	}
	done := exitGuard(e.ID)
	res := Run(e, Options{})
	_ = res.WriteText(os.Stdout)
	fmt.Println(res.ScoreLine())
	done()
	return res
}

// exitGuard starts a process that waits on a pipe this program holds; if
// the program ends before done is called, the pipe closes unread and the
// guard writes the failure to standard error. Without /bin/sh it does
// nothing.
func exitGuard(id string) (done func()) {
	r, w, err := os.Pipe()
	if err != nil {
		return func() {}
	}
	msg := fmt.Sprintf("%s: FAILED: the program ended before the checks finished (status 0: does the code call os.Exit?). The exercise scores 0; the grader reports it the same way.", id)
	cmd := exec.Command("/bin/sh", "-c", `read line || { printf '%s\n' "$0" >&2; exit 1; }`, msg)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = r, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return func() {}
	}
	r.Close()
	return func() {
		_, _ = w.Write([]byte("done\n"))
		w.Close()
		_ = cmd.Wait()
	}
}
