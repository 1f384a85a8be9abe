package data

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMeasuredDRAMMissing(t *testing.T) {
	if _, err := os.Stat(filepath.Join("..", "..", "..", filepath.FromSlash(DRAMFile))); err == nil {
		t.Skip(DRAMFile + " is recorded: nothing is missing")
	}
	_, err := MeasuredDRAM(512)
	assert.True(t, IsMissing(err), "%v", err)
}
