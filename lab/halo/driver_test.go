package halo

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab"
)

// randomCoeffs returns seven different coefficients of order one.
func randomCoeffs(rng *rand.Rand) lab.Coeffs {
	for {
		var c lab.Coeffs
		for i := range c {
			c[i] = 0.05 + 0.25*rng.Float64()
		}
		distinct := true
		for i := range c {
			for j := range i {
				distinct = distinct && c[i] != c[j]
			}
		}
		if distinct {
			return c
		}
	}
}

// splitConfigs returns the configurations a step is split in: its
// default, and for a temporally blocked step a pass of two steps too.
func splitConfigs(s lab.Step3) []lab.Config {
	cfgs := []lab.Config{{}}
	if s.TimeSteps != nil && s.DefaultTile != 2 && s.MinTile <= 2 {
		cfgs = append(cfgs, lab.Config{Tile: 2})
	}
	return cfgs
}

// TestSplitEqualsOneDomain runs every registered 3D step on cpu and sim
// split over 1 to 5 ranks, as slabs and as pencils, over several passes,
// and compares each output with the single-domain run's bit for bit, on
// odd shapes with random inputs and coefficients.
func TestSplitEqualsOneDomain(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 8))
	shapes := [][3]int{{13, 11, 9}, {37, 5, 7}, {22, 14, 6}}
	compared := map[string]int{}
	for _, backend := range []string{lab.CPU, lab.Sim} {
		for _, s := range lab.Steps3() {
			if !slices.Contains(lab.Backends(s.Name), backend) {
				continue
			}
			for _, cfg := range splitConfigs(s) {
				resolved, err := s.Resolve(cfg)
				require.NoError(t, err)
				per := s.StepsPerPass(resolved)
				for _, sh := range shapes {
					passes := 1 + rng.IntN(3)
					base := lab.Run{Step: s.Name, Backend: backend, Config: cfg, NZ: sh[0], NY: sh[1], NX: sh[2],
						Seed: rng.Uint64(), C: randomCoeffs(rng), Steps: per * passes}
					want, err := lab.Execute(base)
					require.NoError(t, err, "%s on %s", s.Name, backend)
					for ranks := 1; ranks <= 5; ranks++ {
						for py := 1; py <= 2; py++ {
							what := fmt.Sprintf("%s (tile %d) on %s, %v, %d passes, %d ranks, %d along y", s.Name, cfg.Tile, backend, sh, passes, ranks, py)
							r := base
							r.Split = lab.Split{Ranks: ranks, PY: py}
							got, err := RunSplit(r)
							if _, derr := Decompose(sh[0], sh[1], sh[2], ranks, py, per); derr != nil || ranks%py != 0 {
								require.ErrorIs(t, err, lab.ErrSize, what)
								continue
							}
							require.NoError(t, err, what)
							require.Equal(t, want.Out.Data, got.Out.Data, what)
							assert.Equal(t, want.Steps, got.Steps, what)
							require.NotNil(t, got.Comm, what)
							assert.Equal(t, passes, got.Comm.Exchanges, what)
							assert.Equal(t, per, got.Comm.StepsPerExchange, what)
							compared[backend+" "+s.Name]++
						}
					}
				}
			}
		}
	}
	t.Log(compared)
	assert.Contains(t, compared, "cpu reference")
	for k, n := range compared {
		assert.GreaterOrEqual(t, n, 15, k)
	}
}

// TestExecuteSplits: lab.Execute hands a run with ranks to this package,
// which leaves the input alone, keeps the boundary of a given output and
// counts its slabs' messages by the closed form 2(G−1) and 2(G−1)·h·ny·nx·4
// bytes per exchange.
func TestExecuteSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range lab.Steps3() {
		for _, backend := range lab.Backends(s.Name) {
			if backend != lab.CPU && backend != lab.Sim {
				continue
			}
			const nz, ny, nx, g = 23, 7, 10, 3
			src, err := lab.NewGrid3[float32](nz, ny, nx)
			require.NoError(t, err)
			src.FillRandom(rng.Uint64())
			dst, err := lab.NewGrid3[float32](nz, ny, nx)
			require.NoError(t, err)
			dst.FillRandom(rng.Uint64())
			c := randomCoeffs(rng)
			cfg, err := s.Resolve(lab.Config{})
			require.NoError(t, err)
			h := s.StepsPerPass(cfg)
			in, wantDst := src.Clone(), dst.Clone()
			want, err := lab.Execute(lab.Run{Step: s.Name, Backend: backend, Src: in, Dst: wantDst, C: c, Steps: 2 * h})
			require.NoError(t, err)
			got, err := lab.Execute(lab.Run{Step: s.Name, Backend: backend, Src: src, Dst: dst, C: c, Steps: 2 * h, Reps: 2,
				Split: lab.Split{Ranks: g}})
			require.NoError(t, err, "%s on %s", s.Name, backend)
			require.Equal(t, want.Out.Data, got.Out.Data, "%s on %s", s.Name, backend)
			assert.Equal(t, in.Data, src.Data, "the input is left alone")
			assert.Len(t, got.Millis, 2)
			require.Len(t, got.RankTimes, 2)
			assert.Len(t, got.RankTimes[0], g)
			assert.Equal(t, int64(2*(g-1)), got.Comm.TotalMessages())
			assert.Equal(t, int64(2*(g-1)*h*ny*nx*4), got.Comm.TotalBytes())
			assert.InDelta(t, float64(2*(g-1)*h*ny*nx*4)/float64(h), got.Comm.BytesPerStep(), 1e-9)
			assert.Equal(t, []int64{1, 2, 1}, got.Comm.Messages)
			dev, _ := lab.BackendDevice(backend)
			assert.Equal(t, dev, got.Device)
		}
	}
}

func TestRunSplitRefuses(t *testing.T) {
	for _, c := range []struct {
		r    lab.Run
		want string
	}{
		{lab.Run{Step: "reference", Backend: lab.CPU, NZ: 9, NY: 9, NX: 9, Split: lab.Split{Ranks: 2, Overlap: "split"}}, `overlap "split"`},
		{lab.Run{Step: "reference", Backend: lab.GPU, NZ: 9, NY: 9, NX: 9, Split: lab.Split{Ranks: 2}}, "a GPU split names its devices"},
		{lab.Run{Step: "reference", Backend: lab.CPU, NZ: 9, NY: 9, NX: 9, Split: lab.Split{Ranks: 3, PY: 2}}, "do not divide"},
		{lab.Run{Step: "reference", Backend: lab.CPU, NZ: 5, NY: 9, NX: 9, Split: lab.Split{Ranks: 4}}, "need at least 4 interior planes; the grid has 3"},
		{lab.Run{Step: "reference", Backend: lab.CPU, NZ: 9, NY: 9, NX: 9, Split: lab.Split{Ranks: 2, Devices: []int{0}}}, "devices are GPUs"},
		{lab.Run{Step: "reference", Backend: lab.CPU, NZ: 9, NY: 9, NX: 9, Reps: -1, Split: lab.Split{Ranks: 2}}, "must not be negative"},
		{lab.Run{Step: "nosuch", Backend: lab.CPU, NZ: 9, NY: 9, NX: 9, Split: lab.Split{Ranks: 2}}, "nosuch"},
		{lab.Run{Step: "reference", Backend: lab.CPU, NZ: 9, NY: 9, NX: 9, Steps: 3, Split: lab.Split{Ranks: 2}, Config: lab.Config{}}, ""},
	} {
		_, err := lab.Execute(c.r)
		if c.want == "" {
			assert.NoError(t, err)
			continue
		}
		require.Error(t, err, c.want)
		assert.Contains(t, err.Error(), c.want)
	}
	_, err := RunSplit(lab.Run{Step: "reference", Backend: lab.GPU, NZ: 9, NY: 9, NX: 9, Split: lab.Split{Devices: []int{0, 1}}})
	require.ErrorIs(t, err, lab.ErrUnknown)
	assert.Contains(t, err.Error(), "goroutine ranks run on cpu and sim")
	_, err = RunSplit(lab.Run{Step: "reference", Backend: lab.Sim, Kernel: lab.BasicKernel, NZ: 9, NY: 9, NX: 9, Split: lab.Split{Ranks: 2}})
	require.ErrorIs(t, err, lab.ErrUnknown)
	assert.Contains(t, err.Error(), "a kernel of one's own runs on one domain")
}
