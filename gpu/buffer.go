package gpu

import (
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"stencillab.dev/lab"
)

// Buffer is an array of float32 in device memory. Free releases it; a
// buffer that becomes unreachable is freed by a cleanup as a backstop, and
// Device.Close frees all that remain.
type Buffer struct {
	d       *Device
	ptr     uint64
	n       int
	cleanup runtime.Cleanup
}

// Len returns the number of floats in the buffer.
func (b *Buffer) Len() int { return b.n }

// Bytes returns the buffer's size in bytes.
func (b *Buffer) Bytes() uint64 { return uint64(b.n) * 4 }

// Device returns the device that holds the buffer.
func (b *Buffer) Device() *Device { return b.d }

// checkFits returns an error naming the sizes when need bytes do not fit
// in the free device memory; it matches lab.ErrMemory.
func checkFits(what string, need, free, total uint64) error {
	return checkFitsTo(what, need, free, total, nil)
}

// checkFitsTo is checkFits whose error ends with what would fit, as fit
// writes it for the free bytes ("N ≤ 2320 fits").
func checkFitsTo(what string, need, free, total uint64, fit func(avail uint64) string) error {
	if need <= free {
		return nil
	}
	msg := fmt.Sprintf("gpu: %s needs %s of device memory, more than the %s free (of %s)",
		what, lab.HumanBytes(need), lab.HumanBytes(free), lab.HumanBytes(total))
	if fit != nil {
		if f := fit(free); f != "" {
			msg += ": " + f
		}
	}
	return &memoryError{msg}
}

// memoryError is a refusal for want of device memory: its message, and
// errors.Is(err, lab.ErrMemory).
type memoryError struct{ msg string }

func (e *memoryError) Error() string        { return e.msg }
func (e *memoryError) Is(target error) bool { return target == lab.ErrMemory }

// CheckFree returns an error unless bytes of device memory are free now;
// what says what they are for.
func (d *Device) CheckFree(what string, bytes uint64) error {
	free, total, err := d.MemInfo()
	if err != nil {
		return err
	}
	return checkFits(what, bytes, free, total)
}

// checkFreeFit is CheckFree whose error names what would fit.
func (d *Device) checkFreeFit(what string, bytes uint64, fit func(avail uint64) string) error {
	free, total, err := d.MemInfo()
	if err != nil {
		return err
	}
	return checkFitsTo(what, bytes, free, total, fit)
}

type bufferRef struct {
	d   *Device
	ptr uint64
}

// Alloc allocates a buffer of n floats. The size is checked against the
// device's free memory before anything is allocated.
func (d *Device) Alloc(n int) (*Buffer, error) {
	if n <= 0 {
		return nil, fmt.Errorf("gpu: buffer of %d floats: the size must be positive", n)
	}
	bytes := uint64(n) * 4
	var ptr uint64
	err := d.do(func() error {
		free, total, r := drv.MemGetInfo()
		if err := cuCheck("cuMemGetInfo", r); err != nil {
			return err
		}
		if err := checkFits(fmt.Sprintf("a buffer of %d floats", n), bytes, free, total); err != nil {
			return err
		}
		p, r := drv.MemAlloc(bytes)
		if err := cuCheck("cuMemAlloc", r); err != nil {
			return fmt.Errorf("gpu: allocate %s: %w", lab.HumanBytes(bytes), err)
		}
		ptr = p
		d.state.Lock()
		d.buffers[p] = bytes
		d.state.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	b := &Buffer{d: d, ptr: ptr, n: n}
	b.cleanup = runtime.AddCleanup(b, func(r bufferRef) { go r.d.release(r.ptr) }, bufferRef{d, ptr})
	return b, nil
}

// release frees a device pointer if it is still live.
func (d *Device) release(ptr uint64) error {
	return d.do(func() error {
		d.state.Lock()
		_, live := d.buffers[ptr]
		delete(d.buffers, ptr)
		d.state.Unlock()
		if !live {
			return nil
		}
		return cuCheck("cuMemFree", drv.MemFree(ptr))
	})
}

// Free releases the buffer's memory. Freeing twice is harmless; the buffer
// must not be used afterwards.
func (b *Buffer) Free() error {
	if b == nil || b.ptr == 0 {
		return nil
	}
	p := b.ptr
	b.ptr = 0
	b.cleanup.Stop()
	if err := b.d.release(p); err != nil {
		return fmt.Errorf("gpu: free buffer: %w", err)
	}
	return nil
}

func (b *Buffer) live() error {
	if b == nil || b.ptr == 0 {
		return fmt.Errorf("gpu: buffer is nil or freed")
	}
	return nil
}

func (b *Buffer) span(off, n int) error {
	if err := b.live(); err != nil {
		return err
	}
	if off < 0 || n < 0 || off+n > b.n {
		return fmt.Errorf("gpu: floats %d to %d are outside the buffer of %d", off, off+n, b.n)
	}
	return nil
}

// Upload copies src into the buffer starting at float offset off.
func (b *Buffer) Upload(off int, src []float32) error {
	if err := b.span(off, len(src)); err != nil {
		return fmt.Errorf("gpu: upload: %w", err)
	}
	if len(src) == 0 {
		return nil
	}
	err := b.d.do(func() error {
		return cuCheck("cuMemcpyHtoD", drv.MemcpyHtoD(b.ptr+uint64(off)*4, unsafe.Pointer(&src[0]), uint64(len(src))*4))
	})
	runtime.KeepAlive(b)
	if err != nil {
		return fmt.Errorf("gpu: upload %d floats: %w", len(src), err)
	}
	return nil
}

// Download copies len(dst) floats from the buffer, starting at float
// offset off, into dst.
func (b *Buffer) Download(off int, dst []float32) error {
	if err := b.span(off, len(dst)); err != nil {
		return fmt.Errorf("gpu: download: %w", err)
	}
	if len(dst) == 0 {
		return nil
	}
	err := b.d.do(func() error {
		return cuCheck("cuMemcpyDtoH", drv.MemcpyDtoH(unsafe.Pointer(&dst[0]), b.ptr+uint64(off)*4, uint64(len(dst))*4))
	})
	runtime.KeepAlive(b)
	if err != nil {
		return fmt.Errorf("gpu: download %d floats: %w", len(dst), err)
	}
	return nil
}

// Fill sets every float of the buffer to v; Fill(float32(math.NaN()))
// poisons it.
func (b *Buffer) Fill(v float32) error {
	if err := b.live(); err != nil {
		return fmt.Errorf("gpu: fill: %w", err)
	}
	err := b.d.do(func() error {
		if err := cuCheck("cuMemsetD32", drv.MemsetD32(b.ptr, math.Float32bits(v), uint64(b.n))); err != nil {
			return err
		}
		return cuCheck("cuStreamSynchronize", drv.StreamSynchronize(nil))
	})
	runtime.KeepAlive(b)
	if err != nil {
		return fmt.Errorf("gpu: fill %d floats: %w", b.n, err)
	}
	return nil
}

// Poison fills the buffer with NaN, so that points a kernel does not write
// show in a comparison.
func (b *Buffer) Poison() error { return b.Fill(float32(math.NaN())) }

// FillRandom fills the buffer on the device with uniform values in
// [−1, 1) that depend only on seed and position (cuda/fill.cu).
func (b *Buffer) FillRandom(seed uint64) error {
	if err := b.live(); err != nil {
		return fmt.Errorf("gpu: fill random: %w", err)
	}
	f, err := b.d.memFunction("fill", "fill_random")
	if err != nil {
		return err
	}
	blocks := min((b.n+255)/256, b.d.props.SMs*32)
	g := Geometry{Grid: [3]int{max(blocks, 1), 1, 1}, Block: [3]int{256, 1, 1}}
	a := fillRandomArgs(b.ptr, int64(b.n), seed)
	_, err = b.d.launch(f, g, a, false)
	runtime.KeepAlive(b)
	if err != nil {
		return fmt.Errorf("gpu: fill random: %w", err)
	}
	return nil
}

// checkGridBuffers checks the two buffers of an nz×ny×nx grid operation
// called what on d: both live, both on d, both large enough for the grid,
// and not the same buffer. Size and aliasing errors wrap lab.ErrMismatch.
func (d *Device) checkGridBuffers(what string, dst, src *Buffer, nz, ny, nx int) error {
	n := nz * ny * nx
	for _, b := range []struct {
		name string
		b    *Buffer
	}{{"destination", dst}, {"source", src}} {
		if err := b.b.live(); err != nil {
			return fmt.Errorf("gpu: %s: %s: %w", what, b.name, err)
		}
		if b.b.d != d {
			return fmt.Errorf("gpu: %s: the %s buffer belongs to another device", what, b.name)
		}
		if b.b.n < n {
			return fmt.Errorf("gpu: %s: %s buffer of %d floats is smaller than the %d×%d×%d grid: %w",
				what, b.name, b.b.n, nz, ny, nx, lab.ErrMismatch)
		}
	}
	if dst.overlaps(src) {
		return fmt.Errorf("gpu: %s: dst and src are the same buffer or share memory; it needs two: %w", what, lab.ErrMismatch)
	}
	return nil
}

// overlaps reports whether the device memory of b and o intersects.
func (b *Buffer) overlaps(o *Buffer) bool {
	return b.ptr < o.ptr+o.Bytes() && o.ptr < b.ptr+b.Bytes()
}

// Copy copies src into dst with the float4 copy kernel (cuda/copy.cu) and
// times it. The buffers must have the same length.
func (d *Device) Copy(dst, src *Buffer) (Launch, error) {
	f, g, a, err := d.copyLaunch(dst, src)
	if err != nil {
		return Launch{}, err
	}
	ms, err := d.launch(f, g, a, true)
	return Launch{Geometry: g, Millis: ms}, err
}

// MeasureCopy times the float4 copy kernel from src to dst: warmup
// untimed launches, then reps timed ones. It moves 8 bytes per float.
func (d *Device) MeasureCopy(dst, src *Buffer, warmup, reps int) (Measurement, error) {
	f, g, a, err := d.copyLaunch(dst, src)
	if err != nil {
		return Measurement{}, err
	}
	return d.measure(f, g, a, warmup, reps)
}

func (d *Device) copyLaunch(dst, src *Buffer) (*Function, Geometry, *Args, error) {
	if err := dst.live(); err != nil {
		return nil, Geometry{}, nil, fmt.Errorf("gpu: copy: destination: %w", err)
	}
	if err := src.live(); err != nil {
		return nil, Geometry{}, nil, fmt.Errorf("gpu: copy: source: %w", err)
	}
	if dst.n != src.n {
		return nil, Geometry{}, nil, fmt.Errorf("gpu: copy: buffers of %d and %d floats differ in length", dst.n, src.n)
	}
	if dst.overlaps(src) {
		return nil, Geometry{}, nil, fmt.Errorf("gpu: copy: source and destination are the same buffer or share memory")
	}
	f, err := d.memFunction("copy", "copy_float4")
	if err != nil {
		return nil, Geometry{}, nil, err
	}
	g := copyGeometry(src.n)
	return f, g, copyFloat4Args(src.ptr, dst.ptr, int64(src.n)), nil
}

// copyGeometry is the copy kernel's launch: one float4 per thread, 256
// threads per block.
func copyGeometry(n int) Geometry {
	n4 := n / 4
	return Geometry{Grid: [3]int{max((n4+255)/256, 1), 1, 1}, Block: [3]int{256, 1, 1}}
}
