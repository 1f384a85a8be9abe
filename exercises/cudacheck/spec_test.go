package cudacheck

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/gpu"
	"stencillab.dev/internal/testlimit"
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

// Each threshold is three quarters of its reference's share in the
// record, rounded to the nearest 5 %, and below the share.
func TestThresholdsFromTheRecord(t *testing.T) {
	b, err := os.ReadFile("cuda13_record.json")
	require.NoError(t, err)
	var rec struct {
		Card    string `json:"card"`
		N       int    `json:"n"`
		Results []struct {
			Kernel string  `json:"kernel"`
			Pct    float64 `json:"pct_copy"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal(b, &rec))
	assert.Equal(t, PerfN, rec.N)
	pct := map[string]float64{}
	for _, r := range rec.Results {
		if v, ok := pct[r.Kernel]; !ok || r.Pct/100 < v {
			pct[r.Kernel] = r.Pct / 100 // the lowest of a kernel's runs
		}
	}
	for _, s := range Specs() {
		if s.Reference == "" {
			assert.Zero(t, s.Threshold, s.ID)
			continue
		}
		rec := pct[s.Reference]
		assert.InDelta(t, rec, s.Recorded, 1e-12, s.ID)
		assert.InDelta(t, math.Round(rec*0.75/0.05)*0.05, s.Threshold, 1e-9, s.ID)
		if rec > 0 {
			assert.Less(t, s.Threshold, rec, "%s: the reference must pass with a margin", s.ID)
		}
	}
	best := 0.0
	for _, v := range pct {
		best = math.Max(best, v)
	}
	require.Positive(t, best, "the record holds the reference kernels' shares")
	assert.InDelta(t, math.Floor(best*10)/10, ChallengeFull(), 1e-9, "the challenge's full speed is the best chapter kernel's share, a tenth below")
	assert.LessOrEqual(t, ChallengeFull(), best)
	assert.NotEqual(t, "not measured yet", rec.Card)
}

// Every spec has a folder with its file, whose entry has the thirteen
// coefficients, and a tile define with a default the checks can override.
func TestSpecsMatchTheirFiles(t *testing.T) {
	for _, s := range Specs() {
		_, err := os.Stat(filepath.Join("..", s.ID, "doc.go"))
		require.NoError(t, err, s.ID)
		src, err := os.ReadFile(filepath.Join("..", s.ID, s.File))
		require.NoError(t, err, s.ID)
		assert.Contains(t, string(src), `extern "C" __global__ void `+s.Entry()+"(", s.ID)
		assert.Contains(t, string(src), "float c12)", "%s: the kernel takes c0…c12", s.ID)
		if d := s.TileDefine(); d != "" {
			assert.Contains(t, string(src), "#ifndef "+d+"\n#define "+d+" "+strconv.Itoa(s.DefaultTile())+"\n", "%s: the tile is a define with the default the checks assume", s.ID)
		}
		for _, tile := range s.Tiles {
			assert.GreaterOrEqual(t, tile, s.MinTile, s.ID)
			g := Geometry13(s.Shape, tile, 40, 40, 40)
			assert.LessOrEqual(t, g.Block[0]*g.Block[1]*g.Block[2], 1024, "%s: tile %d", s.ID, tile)
		}
	}
}

// The launches cover every interior point with exactly one thread that
// stands for it, as the simulated kernels of exercises 05–08 do: a thread
// of block b stands for b·OUT + t − 2 (tiled), and every output tile lies
// in the grid's blocks.
func TestGeometryCoversTheInterior(t *testing.T) {
	r := newRand(5)
	for range 200 {
		n := 5 + r.IntN(120)
		for _, tile := range []int{5, 6, 8, 9, 10, 16, 20, 32} {
			out := tile - 4
			g := Geometry13(Tile3, tile, n, n+1, n+2)
			for axis, side := range []int{n + 2, n + 1, n} {
				covered := make([]int, side)
				for b := range g.Grid[axis] {
					for th := 2; th < tile-2; th++ {
						if p := b*out + th - 2; p >= 2 && p < side-2 {
							covered[p]++
						}
					}
				}
				for p := 2; p < side-2; p++ {
					require.Equal(t, 1, covered[p], "tile %d, side %d, point %d", tile, side, p)
				}
			}
			c := Geometry13(Columns, tile, n, n, n)
			assert.Equal(t, [3]int{tile, tile, 1}, c.Block)
			assert.Equal(t, g.Grid[2], c.Grid[2], "the z tiles of the columns are the tiled kernel's")
		}
		for _, b := range []int{4, 8, 10} {
			g := Geometry13(PerPoint, b, n, n+1, n+2)
			assert.Equal(t, [3]int{(n + 2 + b - 1) / b, (n + 1 + b - 1) / b, (n + b - 1) / b}, g.Grid)
			assert.GreaterOrEqual(t, g.Grid[2]*b, n)
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
	assert.Equal(t, 2*int(math.Round(ChallengeFull()*10)), speed, "two speed points per tenth of the copy up to the best chapter kernel's share")
}

func TestSanitizerErrors(t *testing.T) {
	out := "========= COMPUTE-SANITIZER\n========= Invalid __global__ read of size 4 bytes\n=========     at basic+0x1a0 in basic.cu:22\n=========\nhello\n========= ERROR SUMMARY: 1 error\n"
	assert.Equal(t, "COMPUTE-SANITIZER\nInvalid __global__ read of size 4 bytes\nat basic+0x1a0 in basic.cu:22\nERROR SUMMARY: 1 error", sanitizerErrors(out))
}

// self is the configuration that grades with this test binary as the
// child, env set. Its requests are legitimate work: each may take until
// the test's deadline, so a loaded machine cannot time one out. A test of
// a child that hangs shortens the limit itself (see gradeHung).
func self(t *testing.T, env string) Config {
	return Config{Command: []string{os.Args[0]}, Env: []string{env}, Seed: 7, Timeout: testlimit.Legit(t), PerfN: 24}
}

// gradeHung grades src with cfg, whose child never answers a request of
// check want, under the short limit hung: the hang never ends, so the
// limit stops it whatever the load, and the test asserts the check it
// was in. Every request answered before it is honest work under the same
// limit, which a starved machine may not finish in time: the report then
// names an earlier check, and the grading runs again with the limit
// doubled, within the test's deadline.
func gradeHung(t *testing.T, cfg Config, spec Spec, src []byte, want string, hung time.Duration) grading.ExerciseResult {
	t.Helper()
	for cfg.Timeout = hung; ; cfg.Timeout *= 2 {
		r := Grade(cfg, spec, src)
		if r.Status != grading.TimedOut || strings.Contains(r.Message, fmt.Sprintf("during check %q", want)) {
			return r
		}
		require.Less(t, 2*cfg.Timeout, testlimit.Legit(t), "honest requests still timed out at %v: %s", cfg.Timeout, r.Message)
		t.Logf("timed out before check %q at %v (%s); doubling the limit", want, cfg.Timeout, r.Message)
	}
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
	r := Grade(self(t, envChild+"=1"), spec, src)
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
	r := gradeHung(t, self(t, envFake+"=hang"), spec, []byte("// any"), "values", 2*time.Second)
	assert.Equal(t, grading.TimedOut, r.Status)
	assert.Equal(t, 0, r.Points)
	assert.Contains(t, r.Message, `during check "values"`)
	assert.Contains(t, r.Message, "the GPU is free for the next exercise")
}

func TestFaultingChildNamesTheCheck(t *testing.T) {
	spec, _ := Lookup("20_cuda_basic")
	r := Grade(self(t, envFake+"=fault"), spec, []byte("// any"))
	assert.Equal(t, grading.Crashed, r.Status)
	assert.Equal(t, 0, r.Points)
	assert.Contains(t, r.Message, `faulted during check "small"`)
	assert.Contains(t, r.Message, "CUDA_ERROR_ILLEGAL_ADDRESS")
}

func TestDyingChildIsReported(t *testing.T) {
	spec, _ := Lookup("20_cuda_basic")
	r := Grade(self(t, envFake+"=die"), spec, []byte("// any"))
	assert.Equal(t, grading.Crashed, r.Status)
	assert.Contains(t, r.Message, `during check "tiles"`)
	assert.Contains(t, r.Message, "runtime: out of memory")
	assert.Contains(t, r.Message, "the GPU checks' process ended")
}
