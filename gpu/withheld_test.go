package gpu

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"stencillab.dev/cuda"
	"stencillab.dev/exercises/release"
	"stencillab.dev/lab"
)

// withheld returns the sentence of the release's placeholder when the CUDA
// source of the 3D step is, in this copy of the lab, that placeholder (a
// students' copy, where a kernel that answers an exercise is withheld and
// stops NVRTC with its #error by design), and "" when the source is whole,
// as in the instructor's copy.
func withheld(t *testing.T, step string) string {
	t.Helper()
	s, err := lab.LookupStep3(step)
	require.NoError(t, err)
	if s.CUDA.File == "" {
		return ""
	}
	src, err := cuda.Source(s.CUDA.File)
	require.NoError(t, err)
	why, err := release.WithheldReason(s.CUDA.File, []byte(src))
	require.NoError(t, err)
	if msg := release.WithheldMessage(why); why != "" && strings.Contains(src, msg) {
		return s.CUDA.File + ": " + msg
	}
	return ""
}

// In this, the instructor's, copy every step's source is whole: the GPU
// tests that skip a withheld step skip nothing here.
func TestNoStepIsWithheldHere(t *testing.T) {
	if !release.IsInstructorTree(filepath.Join("..")) {
		t.Skip("a students' copy: its withheld kernels are placeholders")
	}
	for _, s := range lab.Steps3() {
		require.Empty(t, withheld(t, s.Name), "%s", s.Name)
	}
}
