package cudacheck

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/gpu"
	"stencillab.dev/lab"
)

// envFake makes the test binary a child that answers on the CPU, as a
// GPU running a correct kernel would, or misbehaves as a cheating kernel,
// a faulting or hanging one, or a subverted child would (CPUChildMain's
// modes), to test the grader's side without a GPU.
const envFake = "STENCILLAB_CUDA_FAKE"

// fakePct is the share of the copy the stand-in's kernel reaches.
const fakePct = 61.5

func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv(envFake); ok {
		os.Exit(CPUChildMain(os.Args[1:], os.Stdin, os.Stdout, fakePct, mode))
	}
	Main(m)
}

// The recorded shares are the bench file's, and each threshold is three
// quarters of its share, rounded to the nearest 5 %.
func TestThresholdsFromTheRecord(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "figures", "data", "bench_h200.json"))
	require.NoError(t, err)
	var bench struct {
		Results []struct {
			Kernel string  `json:"kernel"`
			N      int     `json:"n"`
			Pct    float64 `json:"pct_copy"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal(b, &bench))
	pct := map[string]float64{}
	for _, r := range bench.Results {
		if r.N == PerfN {
			pct[r.Kernel] = r.Pct / 100
		}
	}
	want := map[string]float64{"basic": 0.30, "tiled": 0.15, "coarsened": 0.25, "register_tiled": 0.30}
	for _, s := range Specs() {
		if s.Step == "" {
			continue
		}
		rec, ok := pct[s.Step]
		require.True(t, ok, "%s: no recorded share for %s at N = %d", s.ID, s.Step, PerfN)
		assert.InDelta(t, rec, s.Recorded, 0.0006, s.ID)
		assert.InDelta(t, want[s.Step], s.Threshold, 1e-9, s.ID)
		assert.InDelta(t, math.Round(rec*0.75/0.05)*0.05, s.Threshold, 1e-9, s.ID)
		assert.Less(t, s.Threshold, rec, "%s: the reference must pass with a margin", s.ID)
	}
	assert.Greater(t, ChallengeFull, pct["register_tiled"], "the challenge asks for more than the best chapter kernel")
}

// Every spec names a lab step with device code, its entry and tile define,
// and a folder with the file to complete.
func TestSpecsMatchTheLab(t *testing.T) {
	for _, s := range Specs() {
		_, err := os.Stat(filepath.Join("..", s.ID, s.File))
		require.NoError(t, err, s.ID)
		_, err = os.Stat(filepath.Join("..", s.ID, "doc.go"))
		require.NoError(t, err, s.ID)
		if s.Step == "" {
			assert.Equal(t, "challenge", s.Entry())
			continue
		}
		st, err := lab.LookupStep3(s.Step)
		require.NoError(t, err)
		assert.Equal(t, st.CUDA.Entry, s.Entry())
		assert.Equal(t, st.CUDA.TileDefine, s.TileDefine())
		src, err := os.ReadFile(filepath.Join("..", s.ID, s.File))
		require.NoError(t, err)
		assert.Contains(t, string(src), `extern "C" __global__ void `+s.Entry()+"(", s.ID)
		if d := s.TileDefine(); d != "" {
			assert.Contains(t, string(src), "#ifndef "+d, "%s: the tile is a define with a default the checks can override", s.ID)
		}
		for _, tile := range s.Tiles {
			assert.GreaterOrEqual(t, tile, st.MinTile, s.ID)
		}
	}
}

func TestChallengeLaunch(t *testing.T) {
	src := "#define BLOCK_X 32\n  #define BLOCK_Y (8)\n#define BLOCK_Z 1 // one plane\n#define TILE_X 32\n#define TILE_Y 8\n#define TILE_Z 64\n// #define TILE_Z 2\n"
	b, tile, err := ChallengeLaunch(src)
	require.NoError(t, err)
	assert.Equal(t, [3]int{32, 8, 1}, b)
	assert.Equal(t, [3]int{32, 8, 64}, tile)

	_, _, err = ChallengeLaunch(strings.Replace(src, "#define TILE_Z 64\n", "", 1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "TILE_Z is missing")
	_, _, err = ChallengeLaunch(strings.Replace(src, "BLOCK_X 32", "BLOCK_X 0", 1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "BLOCK_X = 0")
}

// The checks are listed with their points; the sanitizer adds two.
func TestExercisePoints(t *testing.T) {
	for _, s := range Specs() {
		plain, san := s.Exercise(nil, false), s.Exercise(nil, true)
		assert.Equal(t, plain.MaxPoints()+2, san.MaxPoints(), s.ID)
		ids := map[string]bool{}
		for _, c := range san.Checks {
			assert.False(t, ids[c.ID], "%s: check %s twice", s.ID, c.ID)
			ids[c.ID] = true
		}
		assert.True(t, ids["memcheck"] && ids["racecheck"], s.ID)
	}
	ch, _ := Lookup("25_cuda_challenge")
	speed := 0
	for _, c := range ch.Exercise(nil, false).Checks {
		if strings.HasPrefix(c.ID, "speed-") {
			speed += c.Points
		}
	}
	assert.Equal(t, 10, speed, "ten speed points, two per tenth of the copy up to 50 %")
}

func TestSanitizerErrors(t *testing.T) {
	out := "========= COMPUTE-SANITIZER\n========= Invalid __global__ read of size 4 bytes\n=========     at basic+0x1a0 in basic.cu:22\n=========\nhello\n========= ERROR SUMMARY: 1 error\n"
	assert.Equal(t, "COMPUTE-SANITIZER\nInvalid __global__ read of size 4 bytes\nat basic+0x1a0 in basic.cu:22\nERROR SUMMARY: 1 error", sanitizerErrors(out))
}

func self(env string) Config {
	return Config{Command: []string{os.Args[0]}, Env: []string{env}, Seed: 7, Timeout: 2 * time.Second, PerfN: 24}
}

// Without a GPU the real child reports needs_gpu: withheld, not zero, and
// the message says where to grade it.
func TestNeedsGPUWithoutAGPU(t *testing.T) {
	if d, err := gpu.Default(); err == nil {
		t.Skipf("this machine has a GPU (%s): the needs_gpu path is tested where there is none", d.Props().Name)
	}
	spec, _ := Lookup("20_cuda_basic")
	src, err := os.ReadFile(filepath.Join("..", spec.ID, spec.File))
	require.NoError(t, err)
	cfg := self(envChild + "=1")
	cfg.Timeout = time.Minute
	r := Grade(cfg, spec, src)
	assert.Equal(t, grading.NeedsGPU, r.Status)
	assert.Equal(t, 0, r.Points)
	assert.Equal(t, spec.Exercise(nil, false).MaxPoints(), r.MaxPoints)
	assert.Contains(t, r.Message, "withheld, not zero")
	assert.Contains(t, r.Message, "grade 20_cuda_basic")
	assert.Len(t, r.Checks, len(spec.Exercise(nil, false).Checks))
	require.NoError(t, r.Validate())
}

// A child that hangs is killed at the time limit; the result names the
// check it was in, and the exercise scores 0.
func TestHangingChildIsKilled(t *testing.T) {
	spec, _ := Lookup("21_cuda_tiled")
	start := time.Now()
	r := Grade(self(envFake+"=hang"), spec, []byte("// any"))
	assert.Less(t, time.Since(start), 30*time.Second)
	assert.Equal(t, grading.TimedOut, r.Status)
	assert.Equal(t, 0, r.Points)
	assert.Contains(t, r.Message, `during check "values"`)
	assert.Contains(t, r.Message, "the GPU is free for the next exercise")
}

func TestFaultingChildNamesTheCheck(t *testing.T) {
	spec, _ := Lookup("20_cuda_basic")
	r := Grade(self(envFake+"=fault"), spec, []byte("// any"))
	assert.Equal(t, grading.Crashed, r.Status)
	assert.Equal(t, 0, r.Points)
	assert.Contains(t, r.Message, `faulted during check "small"`)
	assert.Contains(t, r.Message, "CUDA_ERROR_ILLEGAL_ADDRESS")
}

func TestDyingChildIsReported(t *testing.T) {
	spec, _ := Lookup("20_cuda_basic")
	r := Grade(self(envFake+"=die"), spec, []byte("// any"))
	assert.Equal(t, grading.Crashed, r.Status)
	assert.Contains(t, r.Message, `during check "tiles"`)
	assert.Contains(t, r.Message, "runtime: out of memory")
	assert.Contains(t, r.Message, "the GPU checks' process ended")
}

// The z loop mistake (exercise 24) writes, in each block of 30 output
// planes, only its first plane, blockIdx.z·30: on every grid of the c3-c4
// check it still writes interior planes (30 and 60), so that check judges
// them and does not fail for that mistake.
func TestC3C4GridsKeepPlanesOfTheZLoopMistake(t *testing.T) {
	s, ok := Lookup("24_cuda_find_the_bug")
	require.True(t, ok)
	require.Equal(t, 32, s.DefaultTile(), "fix.cu's comment: the grader compiles it with -DIN_TILE_DIM=32")
	outTile := s.DefaultTile() - 2
	for nz := c3c4MinZ; nz <= c3c4MaxZ; nz++ {
		var written []int
		for bz := 0; bz < (nz-1+outTile-1)/outTile; bz++ {
			if i := bz * outTile; i >= 1 && i < nz-1 {
				written = append(written, i)
			}
		}
		assert.Equal(t, []int{30, 60}, written, "nz = %d", nz)
	}
}
