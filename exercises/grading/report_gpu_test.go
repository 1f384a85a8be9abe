package grading

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/internal/testlimit"
)

// A student without a GPU: the total counts what could be graded here, and
// the withheld GPU points are shown apart, as graded on a GPU later, never
// as a FAIL.
func TestReportShowsGPUPointsApart(t *testing.T) {
	a := Run(Exercise{ID: "01_a", Title: "A", Checks: []Check{
		{ID: "ok", Points: 2, Run: func(t *T) {}},
		{ID: "bad", Points: 3, Run: func(t *T) { t.Fail("wrong") }},
	}}, Options{Seed: 7, CheckTimeout: testlimit.Legit(t)})
	gpuEx := func(id string, pts ...int) ExerciseResult {
		e := Exercise{ID: id, Title: "On a GPU"}
		for i, p := range pts {
			e.Checks = append(e.Checks, Check{ID: fmt.Sprintf("c%d", i), Title: fmt.Sprintf("check %d", i), Points: p})
		}
		return Fail(e, NeedsGPU, "needs an NVIDIA GPU, and this machine has none", 7)
	}
	g1, g2 := gpuEx("20_g", 3, 1, 2), gpuEx("21_h", 4)
	broken := Fail(Exercise{ID: "02_b", Title: "B", Checks: []Check{{ID: "x", Points: 4}}}, BuildFailed, "does not compile", 7)
	results := []ExerciseResult{a, g1, broken, g2}
	rep := NewReport(7, results)

	graded, withheld := 0, 0
	for _, r := range results {
		for _, c := range r.Checks {
			if r.Status == NeedsGPU {
				withheld += c.MaxPoints
			} else {
				graded += c.MaxPoints
			}
		}
	}
	assert.Equal(t, 2, rep.Points)
	assert.Equal(t, graded, rep.GradedMax)
	assert.Equal(t, withheld, rep.WithheldMax)
	assert.Equal(t, graded+withheld, rep.MaxPoints, "max_points is every exercise's maximum")

	var buf bytes.Buffer
	require.NoError(t, rep.WriteText(&buf))
	text := buf.String()
	assert.Contains(t, text, fmt.Sprintf("Total 2/%d ", graded))
	assert.Contains(t, text, fmt.Sprintf("Graded on a GPU later: %d points (20_g, 21_h), not counted above", withheld))
	assert.Contains(t, text, "20_g  On a GPU  –/6  graded on a GPU later")
	assert.Contains(t, text, "GPU  c0  –/3  check 0")
	assert.NotContains(t, text, "needs_gpu")
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "FAIL") {
			assert.NotContains(t, []string{"c0", "c1", "c2"}, strings.Fields(line)[1], "a withheld check is no FAIL: %s", line)
		}
	}
	assert.Contains(t, text, "FAIL bad  0/3  wrong", "a graded exercise's failure is still a FAIL")
	assert.Contains(t, text, "02_b  B  0/4  [build_failed]", "an exercise that does not compile counts")

	buf.Reset()
	require.NoError(t, rep.WriteJSON(&buf))
	var decoded struct {
		Points      int `json:"points"`
		GradedMax   int `json:"graded_max"`
		WithheldMax int `json:"withheld_max"`
		MaxPoints   int `json:"max_points"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &decoded))
	assert.Equal(t, rep.Points, decoded.Points)
	assert.Equal(t, graded, decoded.GradedMax)
	assert.Equal(t, withheld, decoded.WithheldMax)
	assert.Equal(t, graded+withheld, decoded.MaxPoints)

	// Nothing withheld: no line about a GPU.
	buf.Reset()
	require.NoError(t, NewReport(7, []ExerciseResult{a}).WriteText(&buf))
	assert.NotContains(t, buf.String(), "GPU")

	// A notebook's score line.
	assert.Equal(t, "Score: graded on a GPU later (6 points; this machine has no GPU to run the checks)", g1.ScoreLine())
	assert.Equal(t, fmt.Sprintf("Score 2/5   (seed %d)", a.Seed), a.ScoreLine())
}
