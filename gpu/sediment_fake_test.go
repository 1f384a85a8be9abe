package gpu_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/gpu"
	gsed "stencillab.dev/gpu/sediment"
	"stencillab.dev/lab/sediment"
)

// Every sediment variant's step launches the ghost kernel and its h- and
// s-kernels (or the fused one) with the basin's fields, and the best
// variant passes the rows its warps walk.
func TestSedimentLaunchersOnTheFake(t *testing.T) {
	f, d := gpu.WithFake(t)
	b, err := sediment.Random(70, 50, 1)
	require.NoError(t, err)
	for _, v := range sediment.Variants {
		for _, split := range []bool{false, true} {
			r, err := gsed.New(d, b, v, gsed.Options{Split: split})
			require.NoError(t, err, v)
			f.Reset()
			_, err = r.Run(1)
			require.NoError(t, err, v)
			ls := f.Launches()
			var names []string
			for _, l := range ls {
				require.Empty(t, l.Refused, v)
				names = append(names, l.Entry.Name)
				// Every kernel reads the same α and β, two fields apart.
				assert.Equal(t, ls[0].Args[0], l.Args[0], "%s %s: alpha", v, l.Entry.Name)
				assert.Equal(t, ls[0].Args[1], l.Args[1], "%s %s: beta", v, l.Entry.Name)
				assert.NotEqual(t, l.Args[0], l.Args[1], "%s %s: alpha and beta", v, l.Entry.Name)
				if last := l.Entry.Params[len(l.Entry.Params)-1]; last.Name == "rows" {
					assert.Positive(t, l.Args[len(l.Args)-1], "%s %s: rows", v, l.Entry.Name)
				}
			}
			if len(names) == 2 {
				assert.Equal(t, []string{"sed_ghost_h", "sed_hs"}, names, v)
			} else {
				assert.Equal(t, []string{"sed_ghost_h", "sed_h", "sed_s"}, names, v)
			}
			require.NoError(t, r.Free())
		}
	}
}
