package halo

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"stencillab.dev/lab"
)

// FuzzDecompose: whatever sides, ranks, ranks along y and halo it gets,
// Decompose either refuses them with an error wrapping lab.ErrSize or
// returns parts whose owned boxes tile the interior, each at least a halo
// deep along a split axis, whose local boxes Exchange accepts.
func FuzzDecompose(f *testing.F) {
	for _, c := range [][6]int{{13, 11, 9, 4, 2, 1}, {37, 5, 7, 5, 1, 3}, {12, 9, 9, 4, 1, 4}, {3, 3, 3, 1, 0, 1}, {0, -1, 5, 2, 1, 1},
		{1 << 40, 3, 3, 2, 1, 1}, {100, 100, 100, 4096, 64, 1}} {
		f.Add(c[0], c[1], c[2], c[3], c[4], c[5])
	}
	f.Fuzz(func(t *testing.T, nz, ny, nx, ranks, py, h int) {
		parts, err := Decompose(nz, ny, nx, ranks, py, h)
		if err != nil {
			require.True(t, errors.Is(err, lab.ErrSize), "%v", err)
			return
		}
		require.Len(t, parts, ranks)
		var owned int64
		for _, p := range parts {
			require.NoError(t, checkPart(p, nx), "%s", p)
			owned += int64(p.Z1-p.Z0) * int64(p.Y1-p.Y0)
		}
		require.Equal(t, int64(nz-2)*int64(ny-2), owned, "the owned boxes cover the interior once")
	})
}
