package nbrun

import (
	"os"
	"path/filepath"
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
}

func TestMeasuredDRAMMissing(t *testing.T) {
	if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(DRAMFile))); err == nil {
		t.Skip(DRAMFile + " is recorded: nothing is missing")
	}
	_, err := MeasuredDRAM(512)
	assert.True(t, IsMissing(err), "%v", err)
}
