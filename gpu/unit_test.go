package gpu

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/gpu/cu"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// h200 is a device as an H200 reports itself, for tests of the launch
// checks that need no GPU.
var h200 = Props{
	Name: "NVIDIA H200", Major: 9, Minor: 0, SMs: 132,
	MaxThreadsPerBlock: 1024, MaxBlockDim: [3]int{1024, 1024, 64},
	MaxGridDim: [3]int{1<<31 - 1, 65535, 65535}, SharedPerBlock: 48 * 1024,
}

func TestNoDriverMessage(t *testing.T) {
	if driverLoaded.Load() {
		t.Skip("a CUDA driver is loaded on this machine; the no-driver path cannot be seen")
	}
	t.Setenv(EnvLibCUDA, "")
	_, err := Default()
	if err == nil {
		t.Skip("a GPU is present on this machine")
	}
	require.ErrorIs(t, err, ErrNoGPU)
	if cu.Cgo {
		assert.Equal(t, "gpu: no NVIDIA driver found (libcuda.so.1): run on the CPU simulator", err.Error())
	} else {
		assert.Contains(t, err.Error(), "built without cgo")
	}
	// The registered steps report the same error instead of panicking.
	for _, s := range Steps3() {
		_, err := lab.Sweeper(s, lab.GPU, lab.Config{})
		assert.ErrorIs(t, err, ErrNoGPU, s)
	}
	g1, _ := lab.NewGrid1[float32](8, 0, 0.1)
	s1, err := lab.CentralDifference(1, 1)
	require.NoError(t, err)
	assert.ErrorIs(t, Derivative(g1, g1, s1), ErrNoGPU)
	g2, _ := lab.NewGrid2[float32](4, 4)
	assert.ErrorIs(t, Sweep2(g2, g2.Clone(), lab.FivePoint([5]float64{1, 2, 3, 4, 5})), ErrNoGPU)
}

func TestDriverOverrideMissing(t *testing.T) {
	if driverLoaded.Load() {
		t.Skip("a CUDA driver is already loaded; an override no longer applies")
	}
	t.Setenv(EnvLibCUDA, "/nonexistent/libcuda.so.1")
	err := loadDriver()
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrNoGPU)
	assert.Contains(t, err.Error(), "STENCIL_LIBCUDA=/nonexistent/libcuda.so.1")
	assert.Contains(t, err.Error(), "run on the CPU simulator")
}

func TestNVRTCOverrideMissing(t *testing.T) {
	if nvrtcLoaded {
		t.Skip("NVRTC is already loaded; an override no longer applies")
	}
	t.Setenv(EnvLibNVRTC, "/nonexistent/libnvrtc.so.13")
	err := loadNVRTC()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no NVRTC found")
	assert.Contains(t, err.Error(), "/nonexistent/libnvrtc.so.13")
	assert.Contains(t, err.Error(), EnvLibNVRTC)
}

func TestCandidates(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	assert.Equal(t, []string{"libcuda.so.1"}, driverCandidates(get))
	c := nvrtcCandidates(get)
	assert.Equal(t, []string{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"}, c[:4])
	assert.Contains(t, c, "/usr/local/cuda/lib64/libnvrtc.so.13")

	env["CUDA_HOME"] = "/opt/cuda"
	c = nvrtcCandidates(get)
	assert.Equal(t, "/opt/cuda/lib64/libnvrtc.so.13", c[4], "CUDA_HOME is searched before /usr/local/cuda")

	env[EnvLibCUDA] = "/x/libcuda.so"
	env[EnvLibNVRTC] = "/y/libnvrtc.so.12"
	assert.Equal(t, []string{"/x/libcuda.so"}, driverCandidates(get), "the override replaces the search")
	assert.Equal(t, []string{"/y/libnvrtc.so.12"}, nvrtcCandidates(get))
}

func TestOpenLibrary(t *testing.T) {
	if !cu.Cgo {
		t.Skip("needs cgo to call dlopen")
	}
	noBind := func(unsafe.Pointer) string { return "" }
	_, err := openLibrary([]string{"/nonexistent/a.so", "/nonexistent/b.so"}, noBind)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/nonexistent/a.so")
	assert.Contains(t, err.Error(), "/nonexistent/b.so")

	// The C library opens but is not the CUDA driver: the first missing
	// symbol is named, and nothing is bound.
	_, err = openLibrary([]string{"libc.so.6"}, bindTable(cu.DriverTable))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "libc.so.6 has no symbol cuInit")
	_, err = openLibrary([]string{"libc.so.6"}, bindTable(cu.NVRTCTable))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "has no symbol nvrtcVersion")

	name, err := openLibrary([]string{"/nonexistent/a.so", "libc.so.6"}, noBind)
	require.NoError(t, err)
	assert.Equal(t, "libc.so.6", name, "the search goes on to the next candidate")
}

func TestErrorMapping(t *testing.T) {
	assert.NoError(t, cuCheck("cuMemAlloc", 0))
	err := cuCheck("cuMemAlloc", 2)
	require.Error(t, err)
	assert.Equal(t, "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY", err.Error())
	var ce *CUDAError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 2, ce.Code)
	assert.Equal(t, "cuLaunchKernel: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", cuCheck("cuLaunchKernel", 701).Error())
	assert.Equal(t, "cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS", cuCheck("cuCtxSynchronize", 700).Error())
	assert.Equal(t, "cuInit: CUDA_ERROR_NO_DEVICE", cuCheck("cuInit", 100).Error())
	if !driverLoaded.Load() {
		assert.Equal(t, "cuX: CUDA error 123456", cuCheck("cuX", 123456).Error())
	}

	wrapped := &NVRTCError{Call: "nvrtcCompileProgram", Code: 6, Name: nvrtcErrorName(6), Log: "tiled.cu(3): error: expected a \";\""}
	assert.Equal(t, "nvrtcCompileProgram: NVRTC_ERROR_COMPILATION:\ntiled.cu(3): error: expected a \";\"", wrapped.Error())
	assert.Equal(t, "nvrtcCreateProgram: NVRTC_ERROR_INVALID_INPUT", rtcCheck("nvrtcCreateProgram", 3).Error())
	assert.Equal(t, "nvrtcX: NVRTC error 99", rtcCheck("nvrtcX", 99).Error())

	var e error = &noGPUError{msg: "gpu: no usable NVIDIA GPU (cuInit: CUDA_ERROR_NO_DEVICE): run on the CPU simulator"}
	assert.ErrorIs(t, e, ErrNoGPU)
	assert.False(t, errors.Is(err, ErrNoGPU))
}

// covers checks that blocks 0…blocks−1, block b owning the outputs
// start(b) … start(b)+per−1, cover every interior index 1…n−2 exactly once,
// and that the last block owns at least one (no block is launched for
// nothing at the end; the chapter's block 0 may own only the boundary).
func covers(t *testing.T, what string, n, blocks, per int, start func(b int) int) {
	t.Helper()
	count := make([]int, n)
	for b := range blocks {
		owned := 0
		for o := start(b); o < start(b)+per; o++ {
			if o >= 1 && o <= n-2 {
				count[o]++
				owned++
			}
		}
		if b == blocks-1 {
			assert.Positive(t, owned, "%s: n = %d: the last block, %d, owns no interior point", what, n, b)
		}
	}
	for o := 1; o <= n-2; o++ {
		if count[o] != 1 {
			assert.Equal(t, 1, count[o], "%s: n = %d: interior index %d is computed %d times", what, n, o, count[o])
			return
		}
	}
}

func TestGeometryCoversInterior(t *testing.T) {
	for _, n := range []int{3, 4, 5, 7, 8, 31, 32, 33, 67, 129, 130, 256, 257, 512} {
		for _, T := range []int{3, 4, 6, 8, 10} {
			c, err := newConfig3("tiled", Options{Tile: T})
			require.NoError(t, err)
			g := c.geometry(n, n+1, n+2, 0)
			assert.Equal(t, [3]int{T, T, T}, g.Block)
			assert.Equal(t, 4*T*T*T, g.SharedBytes)
			// Fig. 8.8: block b's output threads 1…T−2 sit at b·(T−2)+t−1.
			covers(t, "tiled x", n+2, g.Grid[0], T-2, func(b int) int { return b * (T - 2) })
			covers(t, "tiled y", n+1, g.Grid[1], T-2, func(b int) int { return b * (T - 2) })
			covers(t, "tiled z", n, g.Grid[2], T-2, func(b int) int { return b * (T - 2) })
		}
		for _, step := range []string{"coarsened", "register_tiled"} {
			for _, T := range []int{4, 16, 32} {
				c, err := newConfig3(step, Options{Tile: T})
				require.NoError(t, err)
				g := c.geometry(n, n, n, 0)
				assert.Equal(t, [3]int{T, T, 1}, g.Block)
				// Figs. 8.10/8.12: block b marches over planes b·(T−2) … b·(T−2)+T−3.
				covers(t, step+" z", n, g.Grid[2], T-2, func(b int) int { return b * (T - 2) })
				covers(t, step+" x", n, g.Grid[0], T-2, func(b int) int { return b * (T - 2) })
			}
		}
		c, err := newConfig3("basic", Options{})
		require.NoError(t, err)
		g := c.geometry(n, n, n, 0)
		assert.Equal(t, [3]int{8, 8, 8}, g.Block)
		assert.GreaterOrEqual(t, g.Grid[0]*8, n, "basic covers every point")
		assert.Less(t, (g.Grid[0]-1)*8, n, "basic launches no empty block")

		for _, defs := range [][]Define{nil, {{"FAST_MODE", "0"}, {"FAST_RY", "3"}},
			{{"FAST_MODE", "0"}, {"FAST_RY", "2"}, {"FAST_WX", "4"}, {"FAST_BY", "2"}},
			{{"FAST_MODE", "3"}, {"FAST_WX", "8"}, {"FAST_BY", "4"}},
			{{"FAST_MODE", "3"}, {"FAST_WX", "2"}, {"FAST_BY", "3"}, {"FAST_DEPTH", "2"}}} {
			c, err := newConfig3("fast", Options{Tile: 7, Defines: defs})
			require.NoError(t, err)
			f := fastOf(t, c)
			nx := n + 1 // some rows of a multiple of 4, some not
			g := c.geometry(n, n, nx, 0)
			v := vec(nx)
			rows := f.BY * f.RY
			wx := 1
			if f.Mode == fastRegisters {
				wx = f.WX
			}
			if f.Mode == fastBulk && v == 4 {
				// One block spans the row; its threads loop over it.
				assert.Equal(t, [3]int{32 * f.WX, 1, 1}, g.Block)
				assert.Equal(t, 1, g.Grid[0])
			} else {
				assert.Equal(t, [3]int{32 * wx, f.BY, 1}, g.Block)
				// A block owns 32·wx·V points from b·32·wx·V.
				covers(t, "fast x", nx, g.Grid[0], 32*wx*v, func(b int) int { return b * 32 * wx * v })
			}
			// Rows and planes start at 1.
			covers(t, "fast y", n, g.Grid[1], rows, func(b int) int { return 1 + b*rows })
			covers(t, "fast z", n, g.Grid[2], 7, func(b int) int { return 1 + b*7 })
		}
	}
}

func TestGeometry12CoversInterior(t *testing.T) {
	for _, n := range []int{3, 5, 9, 100, 257, 1000} {
		for _, r := range []int{1, 2, 3} {
			for _, T := range []int{2*r + 1, 32, 256} {
				if n < 2*r+1 {
					continue
				}
				g := derivativeGeometry(n, r, T)
				// Block b's threads r…T−r−1 compute b·(T−2r)+t−r.
				count := make([]int, n)
				for b := range g.Grid[0] {
					for t := r; t < T-r; t++ {
						if k := b*(T-2*r) + t - r; k >= r && k < n-r {
							count[k]++
						}
					}
				}
				for k := r; k < n-r; k++ {
					require.Equal(t, 1, count[k], "derivative n=%d r=%d T=%d: point %d", n, r, T, k)
				}
			}
		}
		g := fivePointGeometry(n, n+3, 16)
		covers(t, "five_point x", n+3, g.Grid[0], 14, func(b int) int { return b * 14 })
		covers(t, "five_point y", n, g.Grid[1], 14, func(b int) int { return b * 14 })
	}
}

func TestDefinesAndOptions(t *testing.T) {
	c, err := newConfig3("tiled", Options{Tile: 6})
	require.NoError(t, err)
	assert.Equal(t, []Define{{"IN_TILE_DIM", "6"}}, c.defines)
	assert.Equal(t, "tiled", c.entry(512))

	c, err = newConfig3("register", Options{})
	require.NoError(t, err)
	assert.Equal(t, "register_tiled", c.step, "the catalogue's alias")
	c, err = newConfig3("register_tiled", Options{})
	require.NoError(t, err)
	assert.Equal(t, 32, c.tile)
	assert.Equal(t, []string{"-DIN_TILE_DIM=32"}, defineFlags(c.defines))
	assert.Equal(t, "32x32", c.describeTile(512, 0))

	c, err = newConfig3("basic", Options{Block: [3]int{32, 8, 1}})
	require.NoError(t, err)
	assert.Empty(t, c.defines, "basic's block is a launch setting, not a define")
	assert.Equal(t, "32x8x1", c.describeTile(512, 0))

	c, err = newConfig3("fast", Options{Tile: 16, Defines: []Define{{"FAST_MODE", "0"}, {"FAST_RY", "2"}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"-DFAST_MODE=0", "-DFAST_BY=8", "-DFAST_RY=2", "-DFAST_WX=1",
		"-DFAST_L2PF=0", "-DFAST_MINB=1", "-DFAST_PREFETCH=1", "-DFAST_STREAM=0"}, defineFlags(c.defines))
	assert.Equal(t, "fast4", c.entry(512))
	assert.Equal(t, "fast1", c.entry(130))
	assert.Equal(t, "128x16x16", c.describeTile(512, 0))

	c, err = newConfig3("fast", Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"-DFAST_MODE=3", "-DFAST_BY=4", "-DFAST_WX=8", "-DFAST_DEPTH=1", "-DFAST_L2PF=0",
		"-DFAST_MINB=1", "-DFAST_PREFETCH=1", "-DFAST_STREAM=0", "-DFAST_PFD=0"}, defineFlags(c.defines))
	assert.Equal(t, 4*4*6*512, c.geometry(512, 512, 512, 0).DynamicShared, "the default touches the x-face sectors in L2: no windows")

	c, err = newConfig3("fast", Options{Defines: []Define{{"FAST_MODE", "3"}, {"FAST_WX", "8"}, {"FAST_BY", "8"}, {"FAST_DEPTH", "2"}}})
	require.NoError(t, err)
	g := c.geometry(512, 512, 512, 170)
	assert.Equal(t, [3]int{256, 1, 1}, g.Block, "mode 3: one block of 8 warps spans whole rows")
	assert.Equal(t, [3]int{1, 64, 3}, g.Grid)
	assert.Equal(t, 4*5*10*512, g.DynamicShared, "a ring of depth+3 tiles of 8+2 whole rows")
	assert.Equal(t, "512x8x170", c.describeTile(512, 170))
	assert.Equal(t, [3]int{32, 8, 1}, c.geometry(130, 130, 130, 0).Block, "odd rows fall back to mode 0's code")
	assert.NoError(t, checkGeometry(g, Props{MaxThreadsPerBlock: 1024, MaxBlockDim: [3]int{1024, 1024, 64},
		MaxGridDim: [3]int{1 << 30, 65535, 65535}, SharedPerBlock: 48 * 1024, SharedPerBlockOptin: 227 * 1024}, 0, 0),
		"dynamic shared memory may opt in beyond 48 KiB")
	assert.Error(t, checkGeometry(g, h200, 0, 0), "not without the opt-in limit")

	opts := compileOptions("sm_90", c.defines[:1])
	assert.Equal(t, []string{"--gpu-architecture=sm_90", "--std=c++17", "--generate-line-info", "-DFAST_MODE=3"}, opts)

	for _, bad := range []struct {
		step string
		o    Options
		want string
	}{
		{"tiled", Options{Tile: 2}, "at least 3"},
		{"coarsened", Options{Tile: -1}, "must be positive"},
		{"tiled", Options{Defines: []Define{{"IN_TILE_DIM", "8"}}}, "through the tile"},
		{"tiled", Options{Block: [3]int{8, 8, 8}}, "only to a step whose block is free"},
		{"basic", Options{Block: [3]int{8, 0, 8}}, "at least 1"},
		{"fast", Options{Defines: []Define{{"FAST_BY", "33"}}}, "FAST_BY = 33 must be an integer from 1 to 32"},
		{"fast", Options{Defines: []Define{{"FAST_RY", "2"}}}, "FAST_MODE=0 only"},
		{"fast", Options{Defines: []Define{{"FAST_MODE", "0"}, {"FAST_DEPTH", "3"}}}, "FAST_MODE=3 only"},
		{"fast", Options{Defines: []Define{{"FAST_MODE", "0"}, {"FAST_PFD", "1"}}}, "FAST_MODE=3 only"},
		{"fast", Options{Defines: []Define{{"FAST_MODE", "1"}}}, "modes 1 and 2 lost"},
		{"fast", Options{Defines: []Define{{"FAST_MODE", "4"}}}, "from 0 to 3"},
		{"fast", Options{Defines: []Define{{"FAST_DEPTH", "0"}}}, "from 1 to 8"},
		{"fast", Options{Defines: []Define{{"FAST_EDGE", "3"}}}, "unknown define FAST_EDGE"},
		{"fast", Options{Defines: []Define{{"MY_FLAG", "3"}}}, "known: FAST_MODE, FAST_BY"},
		{"fast", Options{Defines: []Define{{"FAST_CZ", "3"}}}, "through the tile"},
		{"fast", Options{Defines: []Define{{"FAST_BY", "4"}, {"FAST_BY", "8"}}}, "given twice"},
		{"fast", Options{Defines: []Define{{"2BAD", "1"}}}, "not a C identifier"},
		{"tiled", Options{Defines: []Define{{"FAST_BY", "4"}}}, "takes no defines"},
		{"reference", Options{}, "no 3D step"},
	} {
		_, err := newConfig3(bad.step, bad.o)
		require.Error(t, err, "%s %+v", bad.step, bad.o)
		assert.Contains(t, err.Error(), bad.want)
	}

	d, err := ParseDefine("FAST_BY=16")
	require.NoError(t, err)
	assert.Equal(t, Define{"FAST_BY", "16"}, d)
	d, err = ParseDefine("FAST_STREAM")
	require.NoError(t, err)
	assert.Equal(t, Define{"FAST_STREAM", "1"}, d)
	for _, bad := range []string{"=3", "A B=1", "X=a b", "X=\"1\"", "X="} {
		_, err := ParseDefine(bad)
		assert.Error(t, err, bad)
	}
}

func TestChooseChunk(t *testing.T) {
	// N = 512 with 4×32 blocks per chunk and 3 blocks on each of 132
	// multiprocessors: three chunks of 170 planes give 384 blocks, one wave.
	assert.Equal(t, 170, chooseChunk(128, 510, 396))
	// Everything fits at once: one chunk per column... unless more chunks
	// fill the idle slots: 64 columns on 132 slots → two chunks.
	assert.Equal(t, 255, chooseChunk(64, 510, 132))
	// Far more columns than slots: long chunks, whole waves.
	cz := chooseChunk(2048, 2046, 396)
	assert.GreaterOrEqual(t, cz, minChunk)
	// Small grids: a chunk never exceeds the planes there are, and a grid
	// far smaller than the GPU is cut into chunks of the shortest length.
	assert.Equal(t, 1, chooseChunk(1, 1, 100))
	assert.Equal(t, minChunk, chooseChunk(1, 65, 1000))

	// The efficiency the choice maximises, computed independently for
	// every chunk length: no other length does better.
	for _, tc := range [][3]int{{128, 510, 396}, {256, 1022, 528}, {20, 65, 264}, {4096, 2046, 396}} {
		B, P, capa := tc[0], tc[1], tc[2]
		eff := func(cz int) float64 {
			k := (P + cz - 1) / cz
			waves := (B*k + capa - 1) / capa
			return float64(B*P) / float64(waves*capa*(cz+2))
		}
		got := eff(chooseChunk(B, P, capa))
		for cz := minChunk; cz <= P; cz++ {
			assert.GreaterOrEqual(t, got+1e-9, eff(cz), "B=%d P=%d capacity=%d: cz=%d does better", B, P, capa, cz)
		}
	}
}

func TestChooseTarget(t *testing.T) {
	target, cubin, err := chooseTarget(9, 0, []int{75, 80, 86, 89, 90, 100}, true)
	require.NoError(t, err)
	assert.Equal(t, "sm_90", target)
	assert.True(t, cubin)

	target, cubin, err = chooseTarget(9, 0, nil, true)
	require.NoError(t, err)
	assert.Equal(t, "sm_90", target)
	assert.True(t, cubin)

	// An NVRTC older than the device: PTX for its newest architecture.
	target, cubin, err = chooseTarget(9, 0, []int{52, 60, 70, 75, 80, 86}, true)
	require.NoError(t, err)
	assert.Equal(t, "compute_86", target)
	assert.False(t, cubin)

	target, cubin, err = chooseTarget(9, 0, nil, false)
	require.NoError(t, err)
	assert.Equal(t, "compute_90", target)
	assert.False(t, cubin)

	_, _, err = chooseTarget(7, 0, []int{75, 80}, true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot compile for sm_70")
}

func TestCheckGeometry(t *testing.T) {
	c, err := newConfig3("tiled", Options{Tile: 11})
	require.NoError(t, err)
	err = checkGeometry(c.geometry(64, 64, 64, 0), h200, 0, 0)
	require.Error(t, err)
	assert.Equal(t, "block 11×11×11 = 1331 threads exceeds 1024", err.Error())

	c, err = newConfig3("tiled", Options{Tile: 10})
	require.NoError(t, err)
	assert.NoError(t, checkGeometry(c.geometry(64, 64, 64, 0), h200, 0, 0), "tile 10: 1000 threads fit")

	c, err = newConfig3("coarsened", Options{Tile: 33})
	require.NoError(t, err)
	err = checkGeometry(c.geometry(64, 64, 64, 0), h200, 0, 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "1089 threads exceeds 1024")

	// lab's intensity model and the launch agree on the largest tiles.
	for _, step := range []string{"tiled", "coarsened", "register_tiled"} {
		T, _, err := lab.MaxTile(step, sim.Limits{MaxThreads: h200.MaxThreadsPerBlock, MaxSharedBytes: h200.SharedPerBlock})
		require.NoError(t, err)
		c, _ := newConfig3(step, Options{Tile: T})
		assert.NoError(t, checkGeometry(c.geometry(64, 64, 64, 0), h200, 0, 0), "%s T=%d", step, T)
		c, _ = newConfig3(step, Options{Tile: T + 1})
		assert.Error(t, checkGeometry(c.geometry(64, 64, 64, 0), h200, 0, 0), "%s T=%d", step, T+1)
	}

	err = checkGeometry(Geometry{Grid: [3]int{1, 1, 1}, Block: [3]int{4, 4, 65}}, h200, 0, 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "z = 65 exceeds the device's 64")
	err = checkGeometry(Geometry{Grid: [3]int{1, 1, 70000}, Block: [3]int{8, 8, 8}}, h200, 0, 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "z = 70000 blocks exceeds the device's 65535")
	err = checkGeometry(Geometry{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 8, 1}, SharedBytes: 50000}, h200, 0, 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "50000 bytes of shared memory per block exceed the device's 49152")
	err = checkGeometry(Geometry{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 32, 1}}, h200, 640, 96)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exceeds the 640 that the compiled kernel's 96 registers per thread allow")
}

func TestCheckFits(t *testing.T) {
	n := uint64(2048 * 2048 * 2048)
	err := checkFits("basic on a 2048×2048×2048 grid", 2*n*4, 50e9, 150e9)
	require.Error(t, err)
	assert.Equal(t, "gpu: basic on a 2048×2048×2048 grid needs 68.7 GB of device memory, more than the 50.0 GB free (of 150.0 GB)", err.Error())
	assert.NoError(t, checkFits("x", 2*n*4, 140e9, 150e9))
	assert.Equal(t, "512 B", lab.HumanBytes(512))
	assert.Equal(t, "1.1 GB", lab.HumanBytes(1073741824))
}

func TestArgsPacking(t *testing.T) {
	a := new(Args).Ptr(0x1122334455667788).I32(-2).I32(7).F32(1.5).I64(-3).Floats([]float32{1, 2, 3}).F32(0.25)
	assert.Equal(t, []int{0, 8, 12, 16, 24, 32, 44}, a.offsets)
	assert.Equal(t, byte(0x88), a.buf[0])
	assert.Equal(t, []byte{0xfe, 0xff, 0xff, 0xff}, a.buf[8:12])
	assert.Equal(t, math.Float32bits(1.5), uint32(a.buf[16])|uint32(a.buf[17])<<8|uint32(a.buf[18])<<16|uint32(a.buf[19])<<24)
	assert.Len(t, a.buf, 48)
}

func TestStencilChecks(t *testing.T) {
	for d := 1; d <= 2; d++ {
		for r := 1; r <= 4; r++ {
			s, err := lab.CentralDifference(d, r)
			require.NoError(t, err)
			assert.NoError(t, checkStencil1(s), s.Name)
		}
	}
	s, _ := lab.CentralDifference(1, 1)
	bad := s
	bad.Offsets = []int{-1, 1, 0}
	assert.ErrorContains(t, checkStencil1(bad), "in order")
	bad = s
	bad.Coeffs = bad.Coeffs[:2]
	assert.ErrorContains(t, checkStencil1(bad), "3 offsets and 2 coefficients")
	bad = lab.Stencil1{Name: "wide", Radius: 5, Offsets: make([]int, 11), Coeffs: make([]float64, 11)}
	assert.ErrorContains(t, checkStencil1(bad), "radius 5")

	want := [5]float64{0.5, 0.1, 0.2, 0.3, 0.4}
	c, err := fivePointCoeffs(lab.FivePoint(want))
	require.NoError(t, err)
	for i := range want {
		assert.Equal(t, float32(want[i]), c[i])
	}
	// The same stencil with its points listed in another order.
	shuffled := lab.Stencil2{Name: "shuffled", Offsets: [][2]int{{1, 0}, {0, 0}, {0, 1}, {-1, 0}, {0, -1}},
		Coeffs: []float64{0.4, 0.5, 0.2, 0.3, 0.1}}
	c2, err := fivePointCoeffs(shuffled)
	require.NoError(t, err)
	assert.Equal(t, c, c2)
	_, err = fivePointCoeffs(lab.NinePoint([9]float64{}))
	assert.ErrorContains(t, err, "five-point stencils only")
	dup := lab.Stencil2{Name: "dup", Offsets: [][2]int{{0, 0}, {0, 0}, {0, 1}, {-1, 0}, {1, 0}}, Coeffs: make([]float64, 5)}
	_, err = fivePointCoeffs(dup)
	assert.ErrorContains(t, err, "once each")
}

func TestSummarize(t *testing.T) {
	m := Summarize(Geometry{}, []float64{5, 1, 3})
	assert.Equal(t, 3.0, m.Median)
	assert.Equal(t, 1.0, m.Min)
	assert.Equal(t, 5.0, m.Max)
	m = Summarize(Geometry{}, []float64{4, 1, 3, 2})
	assert.Equal(t, 2.5, m.Median)
	assert.Equal(t, []float64{4, 1, 3, 2}, m.Millis, "the launches stay in order")
}

func TestCopyGeometry(t *testing.T) {
	for _, n := range []int{1, 3, 4, 5, 1023, 1024, 1025, 512 * 512 * 512} {
		g := copyGeometry(n)
		threads := g.Grid[0] * g.Block[0]
		assert.GreaterOrEqual(t, threads, n/4, "n=%d: a thread per float4", n)
		assert.GreaterOrEqual(t, g.Block[0], n%4, "n=%d: block 0 copies the tail", n)
	}
	assert.True(t, strings.HasPrefix(copyGeometry(4096).String(), "grid 4×1×1, block 256×1×1"))
}

// TestInteriorGeometry walks every thread of the interior copy's launch
// the way copy_interior4 and copy_interior1 index, and checks that the
// points they store are exactly the interior, each once.
func TestInteriorGeometry(t *testing.T) {
	for _, s := range [][3]int{{3, 3, 3}, {3, 3, 4}, {5, 7, 8}, {4, 5, 130}, {3, 4, 517}, {3, 6, 516}, {4, 3, 6}} {
		nz, ny, nx := s[0], s[1], s[2]
		g, entry, err := interiorGeometry(nz, ny, nx, h200)
		require.NoError(t, err, "%v", s)
		written := make([]int, nz*ny*nx)
		for bz := range g.Grid[2] {
			for by := range g.Grid[1] {
				for bx := range g.Grid[0] {
					for ty := range g.Block[1] {
						for tx := range g.Block[0] {
							x := bx*g.Block[0] + tx
							j, i := 1+by*g.Block[1]+ty, 1+bz
							if j > ny-2 || i > nz-2 {
								continue
							}
							row := (i*ny + j) * nx
							if entry == "copy_interior1" {
								if k := 1 + x; k <= nx-2 {
									written[row+k]++
								}
								continue
							}
							if x >= nx/4 {
								continue
							}
							for k := 4 * x; k < 4*x+4; k++ {
								if k != 0 && k != nx-1 {
									written[row+k]++
								}
							}
						}
					}
				}
			}
		}
		assert.Equal(t, nx%4 == 0, entry == "copy_interior4", "%v: float4 rows when nx is a multiple of 4", s)
		for i := range nz {
			for j := range ny {
				for k := range nx {
					inside := i > 0 && i < nz-1 && j > 0 && j < ny-1 && k > 0 && k < nx-1
					want := 0
					if inside {
						want = 1
					}
					require.Equal(t, want, written[(i*ny+j)*nx+k], "%v: point (%d,%d,%d)", s, i, j, k)
				}
			}
		}
	}
	_, _, err := interiorGeometry(2, 5, 5, h200)
	assert.ErrorContains(t, err, "at least 3")
	_, _, err = interiorGeometry(70000, 3, 8, h200)
	assert.ErrorContains(t, err, "z = 69998 blocks exceeds the device's 65535")
}

// nvrtcCompile compiles src through the binding, for the tests that ask
// NVRTC itself what a source does.
func nvrtcCompile(src, name string, opts []string, cubin bool) (image []byte, log string, call string, code int) {
	return drv.NVRTCCompile(src, name, opts, cubin)
}
