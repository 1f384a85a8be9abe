package gpu

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// StepGeometry gives a source written for a step the step's launch: for
// basic one thread per point in T×T×T blocks, ⌈n/T⌉ blocks per axis; for
// tiled ⌈(n−2)/(T−2)⌉ blocks of T³ threads.
func TestStepGeometryFollowsTheLab(t *testing.T) {
	g, err := StepGeometry("basic", 4, 10, 11, 13)
	require.NoError(t, err)
	assert.Equal(t, [3]int{4, 4, 4}, g.Block)
	assert.Equal(t, [3]int{(13 + 3) / 4, (11 + 3) / 4, (10 + 3) / 4}, g.Grid)
	assert.Zero(t, g.SharedBytes, "the compiled kernel's shared memory is added at launch")

	g, err = StepGeometry("tiled", 6, 10, 11, 13)
	require.NoError(t, err)
	assert.Equal(t, [3]int{6, 6, 6}, g.Block)
	assert.Equal(t, [3]int{(13 - 1 + 3) / 4, (11 - 1 + 3) / 4, (10 - 1 + 3) / 4}, g.Grid)

	_, err = StepGeometry("basic", 4, 2, 5, 5)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "side below 3")
}

// A compile error keeps NVRTC's log, which names the student's file.
func TestCompileLogErrorNamesTheFile(t *testing.T) {
	inner := &NVRTCError{Call: "nvrtcCompileProgram", Name: "NVRTC_ERROR_COMPILATION", Log: "basic.cu(12): error: identifier \"x\" is undefined\n"}
	e := &CompileLogError{File: "basic.cu", Log: inner.Log, err: inner}
	assert.Equal(t, "gpu: basic.cu does not compile:\nbasic.cu(12): error: identifier \"x\" is undefined", e.Error())
	var ne *NVRTCError
	assert.True(t, errors.As(e, &ne))
}
