package cu

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fake reads a launch's arguments as the entry declares them, and
// refuses a list that is not the entry's.
func TestFakeChecksTheArguments(t *testing.T) {
	f := &Fake{}
	img, _, _, code := f.NVRTCCompile(`extern "C" __global__ void k(const float* in, int n, double x) {}`, "k.cu", nil, true)
	require.Zero(t, code)
	m, code := f.ModuleLoadData(img)
	require.Zero(t, code)
	_, code = f.ModuleGetFunction(m, "other")
	assert.Equal(t, fakeNotFound, code)
	fn, code := f.ModuleGetFunction(m, "k")
	require.Zero(t, code)

	// pointer at 0, int at 8, double at 16 (aligned to 8).
	buf := make([]byte, 24)
	binary.LittleEndian.PutUint64(buf, 0xabc0)
	n := int32(-7)
	binary.LittleEndian.PutUint32(buf[8:], uint32(n))
	binary.LittleEndian.PutUint64(buf[16:], math.Float64bits(2.5))
	assert.Zero(t, f.LaunchKernel(fn, [3]int{3, 1, 1}, [3]int{32, 1, 1}, 0, nil, buf, []int{0, 8, 16}))
	assert.Equal(t, fakeInvalidValue, f.LaunchKernel(fn, [3]int{3, 1, 1}, [3]int{32, 1, 1}, 0, nil, buf[:16], []int{0, 8, 12}),
		"a double packed at 12 is not where the kernel reads it")
	assert.Equal(t, fakeInvalidValue, f.LaunchKernel(fn, [3]int{3, 1, 1}, [3]int{32, 1, 1}, 0, nil, buf[:12], []int{0, 8}))
	ls := f.Launches()
	require.Len(t, ls, 3)
	assert.Equal(t, []any{uint64(0xabc0), int32(-7), 2.5}, ls[0].Args)
	assert.Equal(t, [3]int{3, 1, 1}, ls[0].Grid)
	assert.Empty(t, ls[0].Refused)
	assert.Contains(t, ls[1].Refused, "parameter x (double) is at byte 16")
	assert.Contains(t, ls[2].Refused, "k takes 3 parameters, the launch passes 2")
}

// Memory round-trips through the fake, and an allocation over its total
// is refused.
func TestFakeMemory(t *testing.T) {
	f := &Fake{TotalMem: 1 << 12}
	p, code := f.MemAlloc(64)
	require.Zero(t, code)
	src := []float32{1, 2, 3, 4}
	require.Zero(t, f.MemcpyHtoD(p+16, unsafePtr(src), 16))
	got := make([]float32, 4)
	require.Zero(t, f.MemcpyDtoH(unsafePtr(got), p+16, 16))
	assert.Equal(t, src, got)
	_, code = f.MemAlloc(1 << 12)
	assert.Equal(t, fakeOutOfMemory, code)
	free, total, _ := f.MemGetInfo()
	assert.Equal(t, uint64(1<<12-64), free)
	assert.Equal(t, uint64(1<<12), total)
	assert.Zero(t, f.MemFree(p))
	assert.Equal(t, fakeInvalidValue, f.MemFree(p))
}

func unsafePtr(v []float32) Handle { return Handle(&v[0]) }
