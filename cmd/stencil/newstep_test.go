package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/figures/fig"
	"stencillab.dev/gpu"
	"stencillab.dev/lab"
	"stencillab.dev/notebooks/nbrun"
)

// throwawaySource is the CUDA C of the throwaway step: the basic kernel of
// Fig. 8.6, under another name.
const throwawaySource = `
extern "C" __global__ void throwaway(const float* in, float* out, int nz, int ny, int nx,
                                     float c0, float c1, float c2, float c3, float c4, float c5, float c6)
{
    const int i = blockIdx.z * blockDim.z + threadIdx.z;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 1 && i < nz - 1 && j >= 1 && j < ny - 1 && k >= 1 && k < nx - 1) {
        const long long p = ((long long)i * ny + j) * nx + k;
        out[p] = c0 * in[p] + c1 * in[p - 1] + c2 * in[p + 1] + c3 * in[p - nx] + c4 * in[p + nx]
               + c5 * in[p - (long long)ny * nx] + c6 * in[p + (long long)ny * nx];
    }
}
`

// TestANewStepIsOneDescription proves the claim of lab.Step3: a new 3D step
// is one description (in the lab, one file; here, this test) and one CUDA
// source. It registers a throwaway step, the basic kernel under another
// name with its own tiny source, and shows that the catalogue, the
// simulator, the cost model, the GPU's launch and defines, `stencil steps`
// and `stencil run`, nbrun and the figures' styling lookup all take it up
// with no other edit; the styling lookup, whose table is the figures' own,
// names the row the new step lacks. The registration changes the lab's
// global list, so it runs in a child process of this test binary.
func TestANewStepIsOneDescription(t *testing.T) {
	if os.Getenv("STENCIL_TEST_THROWAWAY") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestANewStepIsOneDescription$", "-test.v")
		cmd.Env = append(os.Environ(), "STENCIL_TEST_THROWAWAY=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Contains(t, string(out), "--- PASS: TestANewStepIsOneDescription")
		return
	}
	const name = "throwaway_basic"
	basic, err := lab.StepOfFigure("8.6")
	require.NoError(t, err)
	s := lab.Step3{
		Step: lab.Step{Name: name, Title: "A throwaway copy of the basic kernel", Runs: "what the basic kernel does",
			Notebook: "99_throwaway"},
		DefaultTile: 4, MinTile: 1, TileName: "block edge", BlockShape: true,
		Geometry: basic.Geometry, Cost: basic.Cost, LaunchLoads: basic.LaunchLoads, Explain: basic.Explain,
		Kernel: basic.Kernel,
		CUDA:   lab.CUDA{File: "throwaway.cu", Entry: "throwaway", Source: throwawaySource},
	}

	// A step that lacks a part is refused with the part named.
	incomplete := s
	incomplete.Geometry = nil
	assert.ErrorContains(t, lab.Register3(incomplete), "geometry")
	incomplete = s
	incomplete.Explain = lab.Explain{}
	assert.ErrorContains(t, lab.Register3(incomplete), "explain")
	assert.ErrorIs(t, lab.Register3(incomplete), lab.ErrIncomplete)

	require.NoError(t, lab.Register3(s))
	assert.Error(t, lab.Register3(s), "a name is registered once")

	// The catalogue.
	st, err := lab.LookupStep(name)
	require.NoError(t, err)
	assert.Equal(t, 3, st.Dim)
	assert.True(t, st.Tiled)
	assert.Equal(t, name, lab.Steps()[len(lab.Steps())-1].Name, "the last notebook's step comes last")
	assert.Equal(t, []string{lab.GPU, lab.Sim}, lab.Backends(name))

	// The simulator, through the one way of running a step, on a grid whose
	// sides differ, against the reference.
	src, err := lab.NewGrid3[float32](9, 7, 11)
	require.NoError(t, err)
	src.FillRandom(5)
	c := lab.Coeffs{0.3, 0.11, 0.13, 0.17, 0.19, 0.23, 0.29}
	want := src.Clone()
	require.NoError(t, lab.SevenPoint(want, src, c))
	res, err := lab.Execute(lab.Run{Step: name, Backend: lab.Sim, Src: src, C: c})
	require.NoError(t, err)
	d, err := lab.Compare3(res.Out, want)
	require.NoError(t, err)
	assert.LessOrEqual(t, d.MaxAbs, 1e-5)
	assert.Equal(t, 4, res.Config.Tile, "the new step's own default tile")
	assert.Equal(t, int64(7*7*5*9), res.Stats.GlobalLoads, "seven loads per interior point")

	// The cost model.
	cost, err := lab.Cost(name, 4)
	require.NoError(t, err)
	assert.Equal(t, lab.BlockCost{Outputs: 64, Ops: 13 * 64, Loads: 7 * 64, Threads: 64}, cost)
	g, err := lab.CostGrid(name, 9, 7, 11, 4)
	require.NoError(t, err)
	assert.Equal(t, res.Stats.GlobalLoads, g.Loads)

	// The GPU's launch and source, worked out without a device.
	assert.Contains(t, gpu.Steps3(), name)
	assert.Equal(t, 4, gpu.DefaultTile(name))
	plan, err := gpu.PlanLaunch(name, gpu.Options{Block: [3]int{32, 8, 1}}, 64, 64, 64)
	require.NoError(t, err)
	assert.Equal(t, "throwaway", plan.Entry)
	assert.Equal(t, [3]int{32, 8, 1}, plan.Geometry.Block)
	assert.Equal(t, [3]int{2, 8, 64}, plan.Geometry.Grid)
	assert.Equal(t, "32x8x1", plan.Tile)
	if d, err := gpu.Default(); err == nil { // compile and run it where a GPU is present
		sweep, err := d.Sweeper(name, gpu.Options{})
		require.NoError(t, err)
		out := src.Clone()
		require.NoError(t, sweep(out, src, c))
		d, err := lab.Compare3(out, want)
		require.NoError(t, err)
		assert.LessOrEqual(t, d.MaxAbs, 1e-5)
	} else {
		assert.True(t, errors.Is(err, gpu.ErrNoGPU), "%v", err)
	}

	// The command line.
	code, out, errOut := stencil("steps")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, name+`\s+-\s+gpu,sim\s+A throwaway copy`, out)
	code, out, errOut = stencil("run", "-kernel", name, "-backend", "sim", "-n", "14", "-check", "-json")
	require.Equal(t, 0, code, errOut)
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &obj))
	assert.Equal(t, name, obj["kernel"])
	assert.Less(t, obj["max_abs_err"].(float64), 1e-5)

	// nbrun.
	r, err := nbrun.Simulate(name, 13, 0)
	require.NoError(t, err)
	assert.True(t, r.OK())
	assert.Equal(t, 4, r.Tile())

	// The figures' styling: the table is the figures' own, and it names the
	// row the new step lacks instead of drawing it in another step's colour.
	_, err = fig.Style(name)
	assert.ErrorIs(t, err, fig.ErrNoStyle)
	assert.ErrorContains(t, err, "figures/fig/steps.go")
	assert.Equal(t, []string{name}, fig.MissingStyles())
	assert.Contains(t, r.Summary(), name+" on the CPU simulator, N = 13, tile 4")
	_, err = nbrun.DiffMap(r, 6)
	assert.NoError(t, err, "the diff map does not need a style")
	_, err = nbrun.TrafficPlot(r)
	assert.ErrorIs(t, err, fig.ErrNoStyle, "a chart in the steps' colours names the missing row")
}
