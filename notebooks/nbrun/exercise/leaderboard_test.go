package exercise

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/notebooks/nbrun/draw"
)

func TestReadLeaderboard(t *testing.T) {
	const id = "25_cuda_challenge"
	rng := rand.New(rand.NewPCG(uint64(os.Getpid()), 7))
	book := gradebook.New([]gradebook.Exercise{{ID: id, MaxPoints: 16}})
	book.Seed = 9
	// Random students: timed and correct, timed and wrong, withheld, or
	// without a cell. The expected order is worked out here by rule: the
	// correct kernels by share of the copy, largest first, then the wrong
	// ones; untimed students are left out.
	type want struct {
		name    string
		pct     float64
		correct bool
	}
	var timed []want
	for i := range 12 {
		name := fmt.Sprintf("s%02d", i)
		s := &gradebook.Student{ID: name, Cells: map[string]*gradebook.Cell{}}
		book.Students[name] = s
		pct := float64(rng.IntN(1000)) / 10
		switch i % 4 {
		case 0, 1:
			correct := i%4 == 0
			m := map[string]float64{"pct_copy": pct, "ms": 25 / (pct + 1), "correct": 0}
			if correct {
				m["correct"] = 1
			}
			s.Cells[id] = &gradebook.Cell{State: gradebook.StateGraded, Result: &grading.ExerciseResult{ID: id, Status: grading.Graded, Metrics: m}}
			timed = append(timed, want{name, pct, correct})
		case 2:
			s.Cells[id] = &gradebook.Cell{State: gradebook.StateNeedsGPU, Result: &grading.ExerciseResult{ID: id, Status: grading.NeedsGPU}}
		}
	}
	sort.Slice(timed, func(a, b int) bool {
		x, y := timed[a], timed[b]
		if x.correct != y.correct {
			return x.correct
		}
		if x.pct != y.pct {
			return x.pct > y.pct
		}
		return x.name < y.name
	})
	b, err := json.Marshal(book)
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "gradebook.json")
	require.NoError(t, os.WriteFile(p, b, 0o644))

	es, err := ReadLeaderboard(p, id)
	require.NoError(t, err)
	require.Len(t, es, len(timed), "only timed kernels")
	for i, w := range timed {
		assert.Equal(t, w.name, es[i].Student, "place %d", i+1)
		assert.Equal(t, w.pct, es[i].Pct, w.name)
		assert.InDelta(t, 25/(w.pct+1), es[i].Millis, 1e-12, w.name)
		assert.Equal(t, w.correct, es[i].Correct, w.name)
	}
	d, err := draw.LeaderboardDiagram(es)
	require.NoError(t, err)
	assert.Len(t, d.Shapes, 3*len(es)+3)
	// A gradebook is a file anything may have written: a share or a time
	// that is not a finite number is refused, naming the student.
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		odd := append([]LeaderboardEntry(nil), es...)
		odd[1].Pct = v
		_, err := draw.LeaderboardDiagram(odd)
		assert.ErrorContains(t, err, odd[1].Student+"'s share of the copy", "share %v", v)
		odd[1].Pct, odd[2].Millis = es[1].Pct, v
		_, err = draw.LeaderboardDiagram(odd)
		assert.ErrorContains(t, err, odd[2].Student+"'s time", "time %v", v)
	}

	require.NoError(t, ShowLeaderboard(filepath.Join(t.TempDir(), "none.json"), id), "no gradebook yet is not an error")
	bad := filepath.Join(t.TempDir(), "gradebook.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"version": 99}`), 0o644))
	_, err = ReadLeaderboard(bad, id)
	assert.ErrorContains(t, err, "version 99")
}

// The gradebook committed for notebook 10 reads.
func TestReadLeaderboardOfTheRecordedClass(t *testing.T) {
	es, err := ReadLeaderboard(filepath.Join("..", "..", "data", "cuda_class", "gradebook.json"), "25_cuda_challenge")
	require.NoError(t, err)
	assert.NotEmpty(t, es)
}
