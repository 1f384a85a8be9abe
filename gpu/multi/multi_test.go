package multi

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/gpu"
	"stencillab.dev/lab"
)

// gpus returns the ordinals 0 … want−1, or skips the test with the reason
// when the machine has fewer GPUs or no NCCL.
func gpus(t *testing.T, want int) []int {
	t.Helper()
	n, err := gpu.DeviceCount()
	if errors.Is(err, gpu.ErrNoGPU) {
		t.Skip(err.Error())
	}
	require.NoError(t, err)
	if n < want {
		t.Skipf("needs %d GPUs; the driver sees %d", want, n)
	}
	if _, _, err := NCCLVersion(); err != nil {
		t.Skip(err.Error())
	}
	return seq(want)
}

// sameBits asserts that got equals want bit for bit and names the first
// point that differs.
func sameBits(t *testing.T, want, got *lab.Grid3[float32], what string) {
	t.Helper()
	require.Equal(t, len(want.Data), len(got.Data), what)
	diff := 0
	first := -1
	for i := range want.Data {
		if math.Float32bits(want.Data[i]) != math.Float32bits(got.Data[i]) {
			if first < 0 {
				first = i
			}
			diff++
		}
	}
	if diff > 0 {
		z, r := first/(want.NY*want.NX), first%(want.NY*want.NX)
		assert.Failf(t, "split differs from one GPU", "%s: %d points differ, the first at (%d, %d, %d): %g, one GPU %g",
			what, diff, z, r/want.NX, r%want.NX, got.Data[first], want.Data[first])
	}
}

// envMultiSteps limits TestMultiEqualsOneGPU to some steps, comma-separated
// (compute-sanitizer runs it on fast and temporal).
const envMultiSteps = "STENCIL_MULTI_STEPS"

// TestMultiEqualsOneGPU runs every step with device code split over two
// (and, where there are, three and four) GPUs, in every overlap variant it
// allows, on odd shapes, and compares the result with the same kernel on
// one GPU, bit for bit.
func TestMultiEqualsOneGPU(t *testing.T) {
	devs := gpus(t, 2)
	if n, _ := gpu.DeviceCount(); n >= 4 {
		devs = seq(4)
	} else if n >= 3 {
		devs = seq(3)
	}
	shapes := [][3]int{{67, 35, 41}, {70, 34, 64}}
	if os.Getenv(envTestN) != "" {
		shapes = shapes[:1]
	}
	steps3 := gpu.Steps3()
	if v := os.Getenv(envMultiSteps); v != "" {
		steps3 = strings.Split(v, ",")
	}
	for _, step := range steps3 {
		s, err := lab.LookupStep3(step)
		require.NoError(t, err)
		per := s.StepsPerPass(lab.Config{Tile: s.DefaultTile})
		for _, sh := range shapes {
			seed := freshSeed()
			c := randomCoeffs(seed)
			steps := 3 * per
			run := lab.Run{Step: step, Backend: lab.GPU, NZ: sh[0], NY: sh[1], NX: sh[2], C: c, Seed: seed, Steps: steps}
			one, err := lab.Execute(run)
			require.NoError(t, err, "%s on one GPU", step)
			counts := []int{2}
			if len(devs) > 2 {
				counts = append(counts, len(devs))
			}
			for _, g := range counts {
				ovs := []*Overlap{None, Copy}
				if per == 1 {
					ovs = overlaps
				}
				for _, ov := range ovs {
					name := fmt.Sprintf("%s/%dx%dx%d/%dgpus/%s", step, sh[0], sh[1], sh[2], g, ov)
					t.Run(name, func(t *testing.T) {
						r := run
						r.Split = lab.Split{Devices: devs[:g], Overlap: ov.Name()}
						got, err := lab.Execute(r)
						require.NoError(t, err)
						sameBits(t, one.Out, got.Out, name)
						require.NotNil(t, got.Comm)
						assert.Equal(t, g, got.Comm.Ranks)
						assert.Equal(t, per, got.Comm.Halo)
						require.Len(t, got.RankTimes, 1)
						assert.Len(t, got.RankTimes[0], g)
						for _, rt := range got.RankTimes[0] {
							assert.Greater(t, rt.Compute, 0.0)
							assert.GreaterOrEqual(t, rt.Wait, 0.0)
						}
					})
				}
			}
		}
	}
}

// TestMultiPencils splits the fast step into z-slabs and y-pencils over
// four GPUs (2 × 2), which exchange y faces through 2D copies.
func TestMultiPencils(t *testing.T) {
	devs := gpus(t, 4)
	for _, step := range []string{"fast", "temporal"} {
		seed := freshSeed()
		run := lab.Run{Step: step, Backend: lab.GPU, NZ: 45, NY: 39, NX: 36, C: randomCoeffs(seed), Seed: seed, Steps: 0}
		s, _ := lab.LookupStep3(step)
		run.Steps = 2 * s.StepsPerPass(lab.Config{Tile: s.DefaultTile})
		one, err := lab.Execute(run)
		require.NoError(t, err)
		run.Split = lab.Split{Devices: devs, PY: 2}
		got, err := lab.Execute(run)
		require.NoError(t, err)
		sameBits(t, one.Out, got.Out, step+" on 2×2 pencils")
	}
}

// TestMultiOneDevice checks that a split over one device is the plain run.
func TestMultiOneDevice(t *testing.T) {
	gpus(t, 1)
	seed := freshSeed()
	run := lab.Run{Step: "fast", Backend: lab.GPU, NZ: 33, NY: 21, NX: 19, C: randomCoeffs(seed), Seed: seed, Steps: 5, Reps: 2}
	one, err := lab.Execute(run)
	require.NoError(t, err)
	run.Split = lab.Split{Devices: []int{0}}
	got, err := lab.Execute(run)
	require.NoError(t, err)
	sameBits(t, one.Out, got.Out, "one device")
	assert.Len(t, got.Millis, 2)
}

// TestMultiLarge runs N = 2048 with 8 time steps on two GPUs (34 GB a
// grid; the time loop's two grids also fit one 80 GB GPU) and checks
// sampled planes against the CPU reference (STENCIL_TEST_LARGE=1).
func TestMultiLarge(t *testing.T) {
	if os.Getenv(envTestLarge) == "" {
		t.Skip("set " + envTestLarge + "=1 for N = 2048 on two GPUs")
	}
	devs := gpus(t, 2)
	const n = 2048
	seed := freshSeed()
	c := randomCoeffs(seed)
	src, err := lab.NewGrid3[float32](n, n, n)
	require.NoError(t, err)
	fillFast(src, seed)
	res, err := lab.Execute(lab.Run{Step: "fast", Backend: lab.GPU, Src: src, C: c, Steps: 8,
		Split: lab.Split{Devices: devs}})
	require.NoError(t, err)
	// Eight steps reach eight planes from a plane: compare planes around
	// the split and the boundary with the reference on their cone.
	for _, z := range []int{1, n/2 - 1, n / 2, n - 2} {
		z0, z1 := max(z-8, 0), min(z+9, n)
		cone, err := lab.NewGrid3[float32](z1-z0, n, n)
		require.NoError(t, err)
		copy(cone.Data, src.Data[z0*n*n:z1*n*n])
		want := cone.Clone()
		require.NoError(t, lab.Advance(lab.SevenPoint[float32], want, cone, c, 8))
		wz := z - z0
		got := res.Out.Data[z*n*n : (z+1)*n*n]
		d, err := lab.Compare(got, want.Data[wz*n*n:(wz+1)*n*n])
		require.NoError(t, err)
		assert.LessOrEqual(t, d.MaxAbs, 1e-5, "plane %d, seed %d", z, seed)
		assert.Less(t, d.RelL2, 1e-6, "plane %d, seed %d", z, seed)
	}
}

// envHaloJSON, when set, makes TestHaloBandwidth measure the halo exchange
// between GPUs 0 and 1 against the message size and write the JSON there.
const envHaloJSON = "STENCIL_HALO_JSON"

// TestHaloBandwidth measures (it asserts nothing about speed) the halo
// exchange through NCCL beside a plain peer copy, from 4 KB to 64 MB.
func TestHaloBandwidth(t *testing.T) {
	path := os.Getenv(envHaloJSON)
	if path == "" {
		t.Skip("set " + envHaloJSON + "=FILE to measure the halo bandwidth between GPUs 0 and 1")
	}
	gpus(t, 2)
	var sizes []int
	for b := 4 << 10; b <= 64<<20; b *= 4 {
		sizes = append(sizes, b)
	}
	out, err := MeasureHaloExchange([2]int{0, 1}, sizes, 3, 20)
	require.NoError(t, err)
	d, err := gpu.Default()
	require.NoError(t, err)
	lib, ver, _ := NCCLVersion()
	t.Logf("halo exchange between GPUs 0 and 1 (%s, NCCL %s from %s), each way:", d.Props().Name, ver, lib)
	t.Logf("%10s %12s %10s %12s %10s", "bytes", "NCCL µs", "GB/s", "peer µs", "GB/s")
	for _, h := range out {
		t.Logf("%10d %12.1f %10.1f %12.1f %10.1f", h.Bytes, h.NCCLMicros, h.NCCLGBs, h.PeerMicros, h.PeerGBs)
		assert.Greater(t, h.NCCLMicros, 0.0)
		assert.Greater(t, h.PeerMicros, 0.0)
	}
	b, err := json.MarshalIndent(map[string]any{"device": d.Props().Name, "nccl": ver, "exchanges": out}, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

// TestMultiProcess runs under a launcher, one rank per process (mpirun -np
// 4 gpu.test -test.run TestMultiProcess): the split over the processes
// must equal the single-GPU run of rank 0's process bit for bit, for a
// sweep and the temporally blocked step.
func TestMultiProcess(t *testing.T) {
	pr, ok, err := processRank(os.Getenv)
	require.NoError(t, err)
	if !ok {
		t.Skip("runs under mpirun or srun with more than one process (OMPI_COMM_WORLD_SIZE or SLURM_NTASKS)")
	}
	n, err := gpu.DeviceCount()
	if errors.Is(err, gpu.ErrNoGPU) {
		t.Skip(err.Error())
	}
	require.NoError(t, err)
	devs := seq(n)
	if oneVisible(os.Getenv) {
		devs = []int{0}
	}
	for _, step := range []string{"fast", "temporal"} {
		s, err := lab.LookupStep3(step)
		require.NoError(t, err)
		per := s.StepsPerPass(lab.Config{Tile: s.DefaultTile})
		// Every process draws the same input: the seed is fixed.
		seed := uint64(20261126)
		run := lab.Run{Step: step, Backend: lab.GPU, NZ: 131, NY: 67, NX: 72, C: randomCoeffs(seed), Seed: seed, Steps: 3 * per}
		split := run
		split.Split = lab.Split{Devices: devs}
		got, err := lab.Execute(split)
		require.NoError(t, err, "rank %d of %d", pr.Rank, pr.Size)
		require.NotNil(t, got.Comm)
		assert.Equal(t, pr.Size, got.Comm.Ranks)
		require.Len(t, got.RankTimes, 1)
		assert.Len(t, got.RankTimes[0], pr.Size)
		if pr.Rank != 0 {
			continue
		}
		one, err := lab.Execute(run)
		require.NoError(t, err)
		sameBits(t, one.Out, got.Out, fmt.Sprintf("%s over %d processes", step, pr.Size))
		fmt.Fprintf(os.Stderr, "%s over %d processes: equal to one GPU bit for bit: %v\n", step, pr.Size, !t.Failed())
	}
}

// fillFast fills g with values in [−1, 1) from a hash of the seed and the
// index, the planes spread over all cores: lab's FillRandom takes minutes
// at N = 2048.
func fillFast(g *lab.Grid3[float32], seed uint64) {
	plane := g.NY * g.NX
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Go(func() {
			for z := w; z < g.NZ; z += workers {
				d := g.Data[z*plane : (z+1)*plane]
				x := (seed ^ uint64(z)*0x9e3779b97f4a7c15) | 1
				for i := range d {
					x ^= x << 13
					x ^= x >> 7
					x ^= x << 17
					d[i] = float32(x>>40)/float32(1<<23) - 1
				}
			}
		})
	}
	wg.Wait()
}
