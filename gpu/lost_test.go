package gpu

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeDevice is a Device with a thread but no driver behind it, on an
// ordinal no GPU has, for the bookkeeping of a lost context.
func fakeDevice(ordinal int) *Device {
	d := &Device{w: newWorker(), modules: map[string]*Module{}, buffers: map[uint64]uint64{},
		props: Props{Ordinal: ordinal, Name: "fake GPU"}}
	d.gen, _ = contextGen(ordinal)
	return d
}

// Without a GPU: a sticky error marks every Device of the ordinal lost,
// each later call fails with ErrContextLost before it reaches the driver,
// and a Device opened afterwards works.
func TestStickyErrorLosesTheContext(t *testing.T) {
	const ordinal = 97
	d, other := fakeDevice(ordinal), fakeDevice(ordinal)
	defer d.w.stop()
	defer other.w.stop()
	require.NoError(t, d.do(func() error { return nil }))
	// A non-sticky error is only an error.
	err := d.do(func() error { return cuCheck("cuMemAlloc", 2) })
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrContextLost)
	require.NoError(t, d.Lost())

	err = d.do(func() error { return cuCheck("cuStreamSynchronize", 700) })
	require.ErrorIs(t, err, ErrContextLost)
	var ce *CUDAError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 700, ce.Code)
	assert.EqualError(t, err, "gpu: device 97 (fake GPU): the CUDA context is lost after cuStreamSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS; a kernel faulted, and every later call on this Device fails: close it and open a new one (NVIDIA only promises a clean state to a new process)")

	ran := false
	for _, dev := range []*Device{d, other} {
		err := dev.do(func() error { ran = true; return nil })
		assert.ErrorIs(t, err, ErrContextLost)
		assert.ErrorIs(t, dev.Lost(), ErrContextLost)
	}
	assert.False(t, ran, "no call reaches the driver once the context is lost")

	fresh := fakeDevice(ordinal)
	defer fresh.w.stop()
	require.NoError(t, fresh.Lost())
	require.NoError(t, fresh.do(func() error { ran = true; return nil }))
	assert.True(t, ran)
	// Another ordinal is not touched.
	elsewhere := fakeDevice(ordinal + 1)
	defer elsewhere.w.stop()
	assert.NoError(t, elsewhere.Lost())
}

func TestStickyCodes(t *testing.T) {
	for code, sticky := range map[int]bool{700: true, 719: true, 715: true, 716: true, 710: true, 2: false, 1: false, 201: false, 999: false} {
		assert.Equal(t, sticky, stickyError(cuCheck("call", code)) != nil, "code %d", code)
	}
	assert.Nil(t, stickyError(errors.New("plain")))
}

// faultSource is a kernel that writes through the pointer it is given:
// with a null pointer, an illegal address.
const faultSource = `
extern "C" __global__ void fault(float* p) { p[threadIdx.x] = 1.0f; }
extern "C" __global__ void fill(float* p, float v, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) p[i] = v;
}
`

// childEnvFault makes TestContextLostOnGPU's child process run the fault.
const childEnvFault = "STENCIL_FAULT_CHILD"

// On a GPU: a kernel that faults leaves its Device reporting the lost
// context on every later call, and a new Device works again. The fault
// runs in a child process (this test binary again), so that the reset of
// the primary context cannot disturb the other tests' device.
func TestContextLostOnGPU(t *testing.T) {
	if os.Getenv(childEnvFault) == "1" {
		faultChild(t)
		return
	}
	device(t) // skips without a GPU
	cmd := exec.Command(os.Args[0], "-test.run", "^TestContextLostOnGPU$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnvFault+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("child process:\n%s", out.String())
	require.NoError(t, err, "the child process failed")
	assert.Contains(t, out.String(), "--- PASS: TestContextLostOnGPU")
	// The faulted process is gone: a new one (this one) has the GPU.
	d, err := Open(0)
	require.NoError(t, err)
	defer d.Close()
	fillCheck(t, d)
	t.Logf("after the faulting process: a new Device works, a fill kernel wrote 1000 × 2.5, read back")
}

func faultChild(t *testing.T) {
	d, err := Open(0)
	if errors.Is(err, ErrNoGPU) {
		t.Skip(err.Error())
	}
	require.NoError(t, err)
	buf, err := d.Alloc(64)
	require.NoError(t, err)
	m, err := d.compile("fault_test", faultSource, nil)
	require.NoError(t, err)
	fault, err := m.Function("fault")
	require.NoError(t, err)
	g := Geometry{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}}

	_, err = d.launch(fault, g, new(Args).Ptr(0), false)
	t.Logf("the faulting launch: %v", err)
	require.ErrorIs(t, err, ErrContextLost)
	var ce *CUDAError
	require.ErrorAs(t, err, &ce)
	assert.True(t, stickyCodes[ce.Code], "%v", ce)

	// Every later call on the Device says so.
	_, _, err = d.MemInfo()
	t.Logf("MemInfo afterwards: %v", err)
	assert.ErrorIs(t, err, ErrContextLost)
	assert.ErrorIs(t, buf.Upload(0, make([]float32, 64)), ErrContextLost)
	assert.ErrorIs(t, buf.Download(0, make([]float32, 64)), ErrContextLost)
	_, err = d.Alloc(64)
	assert.ErrorIs(t, err, ErrContextLost)
	_, err = d.launch(fault, g, new(Args).Ptr(buf.ptr), false)
	assert.ErrorIs(t, err, ErrContextLost)
	assert.ErrorIs(t, d.Lost(), ErrContextLost)
	assert.NoError(t, d.Close(), "closing a lost device releases what it can")

	// A new Device in this process: it works where the driver lets the
	// reset context be retained, and otherwise says that it takes a new
	// process. Either way, the parent then shows the GPU usable again.
	d2, err := Open(0)
	if err != nil {
		t.Logf("a new Device in the faulted process: %v", err)
		require.ErrorIs(t, err, ErrContextLost)
		assert.Contains(t, err.Error(), "new process")
		return
	}
	defer d2.Close()
	require.NoError(t, d2.Lost())
	fillCheck(t, d2)
	t.Logf("a new Device in the faulted process works")
}

// fillCheck runs a kernel on d that writes 1000 × 2.5 and reads it back.
func fillCheck(t *testing.T, d *Device) {
	t.Helper()
	b, err := d.Alloc(1000)
	require.NoError(t, err)
	defer b.Free()
	m, err := d.compile("fault_test", faultSource, nil)
	require.NoError(t, err)
	fill, err := m.Function("fill")
	require.NoError(t, err)
	_, err = d.launch(fill, Geometry{Grid: [3]int{4, 1, 1}, Block: [3]int{256, 1, 1}},
		new(Args).Ptr(b.ptr).F32(2.5).I32(1000), false)
	require.NoError(t, err)
	got := make([]float32, 1000)
	require.NoError(t, b.Download(0, got))
	for i, v := range got {
		require.Equal(t, float32(2.5), v, "element %d", i)
	}
}
