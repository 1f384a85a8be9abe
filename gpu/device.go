package gpu

import (
	"fmt"
	"sync"
)

// Device attributes read at Open (CUdevice_attribute values).
const (
	attrMaxThreadsPerBlock  = 1
	attrMaxBlockDimX        = 2
	attrMaxGridDimX         = 5
	attrMaxSharedPerBlock   = 8
	attrMultiprocessors     = 16
	attrL2CacheSize         = 38
	attrMaxThreadsPerSM     = 39
	attrComputeMajor        = 75
	attrComputeMinor        = 76
	attrMaxSharedOptin      = 97
	attrMaxSharedPerSM      = 81
	attrMemoryClockKHz      = 36
	attrMemoryBusWidthBits  = 37
	cudaErrorNoDevice       = 100
	cudaErrorStubLibrary    = 34
	cudaErrorInsufficientDr = 35
)

// Props describes a device, as read from its attributes.
type Props struct {
	Ordinal             int    // the device's index for the driver
	Name                string // e.g. "NVIDIA H200"
	Major, Minor        int    // compute capability
	SMs                 int    // multiprocessors
	MaxThreadsPerBlock  int    // threads one block may have
	MaxBlockDim         [3]int // largest block along x, y, z
	MaxGridDim          [3]int // largest grid along x, y, z
	SharedPerBlock      int    // shared memory a block may use without opting in, bytes
	SharedPerBlockOptin int    // shared memory a block may use after opting in, bytes
	SharedPerSM         int    // shared memory of one multiprocessor, bytes
	MaxThreadsPerSM     int    // resident threads per multiprocessor
	L2Bytes             int    // L2 cache size
	TotalMem            uint64 // device memory, bytes
	MemoryClockKHz      int    // peak memory clock, if the driver reports it
	MemoryBusBits       int    // memory bus width, if the driver reports it
	DriverVersion       int    // e.g. 13000 for CUDA 13.0
	DriverLibrary       string // the library opened, e.g. libcuda.so.1
}

// Arch returns the device's architecture as NVRTC names it, e.g. "sm_90".
func (p Props) Arch() string { return fmt.Sprintf("sm_%d%d", p.Major, p.Minor) }

// Device is one opened GPU. Its methods may be called from any goroutine;
// the CUDA calls themselves all run on the device's locked OS thread.
type Device struct {
	props Props
	w     *worker
	dev   int
	ctx   handle
	gen   uint64 // the generation of the primary context it holds (lost.go)

	// life guards closed: calls hold it for reading while they use the
	// worker, Close for writing.
	life   sync.RWMutex
	closed bool

	state   sync.Mutex         // guards the maps below
	modules map[string]*Module // compiled modules by key
	buffers map[uint64]uint64  // live allocations: device pointer → bytes

	evStart, evStop handle // events for timing launches
}

// Open opens the device with the given ordinal: it loads the CUDA driver,
// initialises it and makes the device's primary context current on a
// locked OS thread. Without a driver the error wraps ErrNoGPU.
func Open(ordinal int) (*Device, error) {
	if err := loadDriver(); err != nil {
		return nil, err
	}
	d := &Device{w: newWorker(), modules: map[string]*Module{}, buffers: map[uint64]uint64{}}
	err := d.w.do(func() error { return d.start(ordinal) })
	if err != nil {
		d.w.stop()
		return nil, err
	}
	return d, nil
}

// start runs on the worker.
func (d *Device) start(ordinal int) error {
	switch r := drv.Init(); r {
	case 0:
	case cudaErrorNoDevice, cudaErrorStubLibrary, cudaErrorInsufficientDr:
		return &noGPUError{msg: fmt.Sprintf("gpu: no usable NVIDIA GPU (cuInit: %s): run on the CPU simulator", cuErrorName(r))}
	default:
		return fmt.Errorf("gpu: initialise the driver: %w", cuCheck("cuInit", r))
	}
	n, r := drv.DeviceGetCount()
	if err := cuCheck("cuDeviceGetCount", r); err != nil {
		return fmt.Errorf("gpu: count devices: %w", err)
	}
	if n == 0 {
		return &noGPUError{msg: "gpu: the NVIDIA driver sees no GPU: run on the CPU simulator"}
	}
	if ordinal < 0 || ordinal >= n {
		return fmt.Errorf("gpu: device %d does not exist: the driver sees %d device(s), 0 to %d", ordinal, n, n-1)
	}
	dev, r := drv.DeviceGet(ordinal)
	if err := cuCheck("cuDeviceGet", r); err != nil {
		return fmt.Errorf("gpu: device %d: %w", ordinal, err)
	}
	d.dev = dev
	p := Props{Ordinal: ordinal, DriverLibrary: driverLib}
	if p.Name, r = drv.DeviceGetName(dev); r != 0 {
		return fmt.Errorf("gpu: device %d: %w", ordinal, cuCheck("cuDeviceGetName", r))
	}
	attrs := []struct {
		id  int
		dst *int
		opt bool // the driver may not report it
	}{
		{attrMaxThreadsPerBlock, &p.MaxThreadsPerBlock, false},
		{attrMaxBlockDimX, &p.MaxBlockDim[0], false},
		{attrMaxBlockDimX + 1, &p.MaxBlockDim[1], false},
		{attrMaxBlockDimX + 2, &p.MaxBlockDim[2], false},
		{attrMaxGridDimX, &p.MaxGridDim[0], false},
		{attrMaxGridDimX + 1, &p.MaxGridDim[1], false},
		{attrMaxGridDimX + 2, &p.MaxGridDim[2], false},
		{attrMaxSharedPerBlock, &p.SharedPerBlock, false},
		{attrMultiprocessors, &p.SMs, false},
		{attrComputeMajor, &p.Major, false},
		{attrComputeMinor, &p.Minor, false},
		{attrL2CacheSize, &p.L2Bytes, true},
		{attrMaxThreadsPerSM, &p.MaxThreadsPerSM, true},
		{attrMaxSharedOptin, &p.SharedPerBlockOptin, true},
		{attrMaxSharedPerSM, &p.SharedPerSM, true},
		{attrMemoryClockKHz, &p.MemoryClockKHz, true},
		{attrMemoryBusWidthBits, &p.MemoryBusBits, true},
	}
	for _, a := range attrs {
		v, r := drv.DeviceGetAttribute(a.id, dev)
		if r != 0 {
			if a.opt {
				continue
			}
			return fmt.Errorf("gpu: device %d: attribute %d: %w", ordinal, a.id, cuCheck("cuDeviceGetAttribute", r))
		}
		*a.dst = v
	}
	if p.TotalMem, r = drv.DeviceTotalMem(dev); r != 0 {
		return fmt.Errorf("gpu: device %d: %w", ordinal, cuCheck("cuDeviceTotalMem", r))
	}
	if p.DriverVersion, r = drv.DriverGetVersion(); r != 0 {
		return fmt.Errorf("gpu: %w", cuCheck("cuDriverGetVersion", r))
	}
	d.gen, _ = contextGen(ordinal)
	ctx, r := drv.DevicePrimaryCtxRetain(dev)
	if err := cuCheck("cuDevicePrimaryCtxRetain", r); err != nil {
		return retainError(ordinal, err)
	}
	if err := cuCheck("cuCtxSetCurrent", drv.CtxSetCurrent(ctx)); err != nil {
		drv.DevicePrimaryCtxRelease(dev)
		return fmt.Errorf("gpu: device %d: %w", ordinal, err)
	}
	d.ctx = ctx
	var err error
	if d.evStart, r = drv.EventCreate(0); r == 0 {
		d.evStop, r = drv.EventCreate(0)
	}
	if err = cuCheck("cuEventCreate", r); err != nil {
		drv.DevicePrimaryCtxRelease(dev)
		return fmt.Errorf("gpu: device %d: %w", ordinal, err)
	}
	d.props = p
	return nil
}

// Props returns the device's properties.
func (d *Device) Props() Props { return d.props }

// do runs f on the device's thread. f must not call do.
func (d *Device) do(f func() error) error {
	d.life.RLock()
	defer d.life.RUnlock()
	if d.closed {
		return fmt.Errorf("gpu: device %d is closed", d.props.Ordinal)
	}
	if err := d.Lost(); err != nil {
		return err
	}
	return d.checkSticky(d.w.do(f))
}

// MemInfo returns the device memory free and in total, in bytes.
func (d *Device) MemInfo() (free, total uint64, err error) {
	err = d.do(func() error {
		var r int
		free, total, r = drv.MemGetInfo()
		return cuCheck("cuMemGetInfo", r)
	})
	if err != nil {
		err = fmt.Errorf("gpu: device memory: %w", err)
	}
	return free, total, err
}

// Close frees every buffer and module of the device, releases its context
// and stops its thread. Closing twice is harmless. A device whose context
// is lost only releases its hold on the context, which the fault's reset
// already emptied.
func (d *Device) Close() error {
	d.life.Lock()
	defer d.life.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	lost := d.Lost() != nil
	d.w.do(func() error {
		d.state.Lock()
		defer d.state.Unlock()
		if lost {
			// The reset freed the buffers, modules and events with the
			// context; their handles mean nothing now (a pointer may even
			// name a new allocation). Only the retain is ours to release.
			clear(d.buffers)
			clear(d.modules)
			drv.DevicePrimaryCtxRelease(d.dev)
			return nil
		}
		for p := range d.buffers {
			keep(cuCheck("cuMemFree", drv.MemFree(p)))
			delete(d.buffers, p)
		}
		for k, m := range d.modules {
			keep(cuCheck("cuModuleUnload", drv.ModuleUnload(m.handle)))
			delete(d.modules, k)
		}
		keep(cuCheck("cuEventDestroy", drv.EventDestroy(d.evStart)))
		keep(cuCheck("cuEventDestroy", drv.EventDestroy(d.evStop)))
		keep(cuCheck("cuDevicePrimaryCtxRelease", drv.DevicePrimaryCtxRelease(d.dev)))
		return nil
	})
	d.w.stop()
	defaultMu.Lock()
	if defaultDev == d {
		defaultDev = nil
	}
	defaultMu.Unlock()
	if first != nil {
		return fmt.Errorf("gpu: close device %d: %w", d.props.Ordinal, first)
	}
	return nil
}

var (
	defaultMu  sync.Mutex
	defaultDev *Device
)

// Default returns device 0, opening it on first use. It is shared by the
// lab's registered steps and the package-level functions. A failed open is
// not remembered: the next call tries again; nor is a device whose context
// a fault lost: the next call opens a new one.
func Default() (*Device, error) {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if defaultDev != nil && defaultDev.Lost() != nil {
		// A fault lost its context: open a fresh one.
		old := defaultDev
		defaultDev = nil
		defaultMu.Unlock()
		old.Close()
		defaultMu.Lock()
	}
	if defaultDev != nil {
		return defaultDev, nil
	}
	d, err := Open(0)
	if err != nil {
		return nil, err
	}
	defaultDev = d
	return d, nil
}

// DeviceCount returns the GPUs the driver sees; without a driver the
// error wraps ErrNoGPU.
func DeviceCount() (int, error) {
	if err := loadDriver(); err != nil {
		return 0, err
	}
	w := newWorker()
	defer w.stop()
	n := 0
	err := w.do(func() error {
		if r := drv.Init(); r != 0 {
			return &noGPUError{msg: fmt.Sprintf("gpu: no usable NVIDIA GPU (cuInit: %s)", cuErrorName(r))}
		}
		var r int
		n, r = drv.DeviceGetCount()
		return cuCheck("cuDeviceGetCount", r)
	})
	return n, err
}

// EnablePeerAccess lets d reach peer's memory directly where the devices
// allow it, and reports whether they do; it runs on d's worker.
func (d *Device) EnablePeerAccess(peer *Device) (can bool, err error) {
	err = d.do(func() error {
		ok, r := drv.DeviceCanAccessPeer(d.dev, peer.dev)
		if r != 0 || !ok {
			return nil
		}
		can = true
		if r := drv.CtxEnablePeerAccess(peer.ctx); r != 0 && r != cudaErrorPeerAccessAlreadyEnabled {
			return cuCheck("cuCtxEnablePeerAccess", r)
		}
		return nil
	})
	return can, err
}

// cudaErrorPeerAccessAlreadyEnabled is CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED.
const cudaErrorPeerAccessAlreadyEnabled = 704

// Lost returns nil while the device's context is usable, else the error
// wrapping ErrContextLost that its calls now return.
func (d *Device) Lost() error {
	gen, cause := contextGen(d.props.Ordinal)
	if gen == d.gen {
		return nil
	}
	return &lostError{ordinal: d.props.Ordinal, name: d.props.Name, cause: cause}
}

// checkSticky looks at the error of a call made on the device's thread:
// a sticky one resets the primary context, once, and becomes the lost
// error. It runs on the caller's goroutine after the call.
func (d *Device) checkSticky(err error) error {
	ce := stickyError(err)
	if ce == nil {
		return err
	}
	if loseContext(d.props.Ordinal, d.gen, ce) && d.ctx != nil {
		// Reset on the device's thread; the next retain, by a new
		// Device, makes a fresh context. Its own error is of no use:
		// the context is gone either way.
		d.w.do(func() error {
			drv.DevicePrimaryCtxReset(d.dev)
			return nil
		})
	}
	return d.Lost()
}
