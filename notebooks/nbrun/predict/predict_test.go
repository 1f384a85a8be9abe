package predict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPredict(t *testing.T) {
	// 4·6³ bytes for 4³ outputs: a tile of T = 6 far from the faces.
	want := 4.0 * 6 * 6 * 6 / (4 * 4 * 4)
	right := Predict("q", "bytes per point", 13.5, want, 0.05)
	assert.Equal(t, 1, right.Points, "13.5 is 864/64")
	assert.Equal(t, 1, right.MaxPoints)

	wrong := Predict("q", "bytes per point", 8, want, 0.05)
	assert.Equal(t, 0, wrong.Points, "8 is not 13.5")

	unset := Predict("q", "bytes per point", Unset, want, 0.05)
	assert.Equal(t, 0, unset.Points, "a prediction not made scores nothing")
	assert.True(t, unset.Checks[0].NotImplemented)
}

// TestPredictIntegers: a cell that writes var q = 23 holds an int, and any
// integer type is a prediction.
func TestPredictIntegers(t *testing.T) {
	// The largest T with 4·T³ bytes in 48 KiB, by counting up.
	tile := 1
	for 4*(tile+1)*(tile+1)*(tile+1) <= 48*1024 {
		tile++
	}
	assert.Equal(t, 1, Predict("q", "T", tile, float64(tile), 0).Points)
	assert.Equal(t, 1, Predict("q", "T", int32(tile), float64(tile), 0).Points)
	assert.Equal(t, 1, Predict("q", "T", uint64(tile), float64(tile), 0).Points)
	assert.Equal(t, 1, Predict("q", "T", float32(tile), float64(tile), 0).Points)
	assert.Equal(t, 0, Predict("q", "T", tile+1, float64(tile), 0).Points)
	assert.Equal(t, 0, Predict("q", "T", -tile, float64(tile), 0).Points)
}

// TestPredictHints: a known mistake earns its hint, any other wrong answer
// the plain message, and no message holds the answer.
func TestPredictHints(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 26))
	for range 50 {
		tile := 3 + rng.IntN(30)
		outputs := float64((tile - 2) * (tile - 2) * (tile - 2))
		slip := float64((tile - 2) * (tile - 2) * tile)
		m := []Mistake{{Value: slip, Hint: "(T−2)²·T? The block computes T − 2 planes, not T."}}

		res := Predict("q", "outputs", slip, outputs, 0.5, m...)
		assert.Equal(t, 0, res.Points)
		assert.Contains(t, res.Checks[0].Message, "(T−2)²·T?", "T = %d", tile)
		assert.NotContains(t, res.Checks[0].Message, fmt.Sprint(outputs), "the hint gives the answer away")

		other := slip + 1 + float64(rng.IntN(100))
		res = Predict("q", "outputs", other, outputs, 0.5, m...)
		if math.Abs(other-outputs) > 0.5 {
			assert.NotContains(t, res.Checks[0].Message, "(T−2)²·T?")
			assert.Contains(t, res.Checks[0].Message, "work it out again")
		}
	}
	// A mistake equal to the answer gives no hint: the answer is right.
	assert.Equal(t, "5 is not it; work it out again before you read the answer below",
		predictionHint(5, 4, 0, []Mistake{{Value: 4, Hint: "no"}, {Value: math.NaN(), Hint: "nan"}, {Value: 5, Hint: " "}}))
}

// TestPredictBadCheck: a NaN answer or a bad tolerance is the notebook's
// fault, reported, never a pass.
func TestPredictBadCheck(t *testing.T) {
	for _, c := range []struct{ want, tol float64 }{{math.NaN(), 0}, {math.Inf(1), 0}, {1, -1}, {1, math.NaN()}, {1, math.Inf(1)}} {
		res := Predict("q", "x", 1, c.want, c.tol)
		assert.Equal(t, 0, res.Points, "want %g, tol %g", c.want, c.tol)
		assert.NotEmpty(t, res.Checks[0].Message)
	}
}
