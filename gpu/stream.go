package gpu

import (
	"fmt"
	"runtime"

	"stencillab.dev/gpu/cu"
	"stencillab.dev/lab"
)

// Stream is a CUDA stream of a device: its launches and copies run in
// order, beside those of the device's other streams. The launches of the
// rest of the package (Launch, Measure, Advance) run on the default stream
// and wait for their kernel; a launch on a Stream returns at once.
type Stream struct {
	d *Device
	h handle
}

// cuStreamNonBlocking is CU_STREAM_NON_BLOCKING: the stream does not wait
// for the legacy default stream.
const cuStreamNonBlocking = 1

// NewStream creates a stream that does not wait for the default stream;
// high gives it the device's greatest priority (its blocks are scheduled
// first when both streams have work), else the least.
func (d *Device) NewStream(high bool) (*Stream, error) {
	s := &Stream{d: d}
	err := d.do(func() (err error) {
		s.h, err = createStream(high)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: new stream: %w", err)
	}
	return s, nil
}

// createStream creates a stream of the current context that does not wait
// for the default stream, of the context's greatest priority (high) or its
// least; both are 0 when the driver does not give the range. It runs on
// the worker.
func createStream(high bool) (handle, error) {
	least, greatest, r := drv.CtxGetStreamPriorityRange()
	if r != 0 {
		least, greatest = 0, 0
	}
	prio := least
	if high {
		prio = greatest
	}
	h, r := drv.StreamCreateWithPriority(cuStreamNonBlocking, prio)
	return h, cuCheck("cuStreamCreateWithPriority", r)
}

// Handle returns the stream's handle, for calls through the binding
// (Binding) that enqueue on it; nil once the stream is closed.
func (s *Stream) Handle() cu.Handle { return s.h }

// Synchronize waits for everything enqueued on the stream; a kernel's
// fault shows here.
func (s *Stream) Synchronize() error {
	if s == nil || s.h == nil {
		return fmt.Errorf("gpu: synchronize: the stream is nil or closed")
	}
	err := s.d.do(func() error { return cuCheck("cuStreamSynchronize", drv.StreamSynchronize(s.h)) })
	if err != nil {
		return fmt.Errorf("gpu: synchronize stream: %w", err)
	}
	return nil
}

// Close waits for the stream and destroys it. Closing twice is harmless.
func (s *Stream) Close() error {
	if s == nil || s.h == nil {
		return nil
	}
	h := s.h
	s.h = nil
	return s.d.do(func() error {
		if err := cuCheck("cuStreamSynchronize", drv.StreamSynchronize(h)); err != nil {
			return err
		}
		return cuCheck("cuStreamDestroy", drv.StreamDestroy(h))
	})
}

// LaunchAsync enqueues one sweep of the nz×ny×nx grid in src into dst on
// the stream and returns its geometry without waiting: the buffers must
// stay alive and untouched until the stream is synchronised. The launch
// is checked as Launch checks it.
func (k *Stencil3) LaunchAsync(s *Stream, dst, src *Buffer, nz, ny, nx int, c lab.Coeffs) (Geometry, error) {
	if s == nil || s.h == nil {
		return Geometry{}, fmt.Errorf("gpu: launch %s: the stream is nil or closed", k.cfg.step)
	}
	if s.d != k.d {
		return Geometry{}, fmt.Errorf("gpu: launch %s: the stream belongs to device %d, the kernel to device %d",
			k.cfg.step, s.d.Props().Ordinal, k.d.Props().Ordinal)
	}
	p, err := k.Prepare(dst, src, nz, ny, nx, c)
	if err != nil {
		return Geometry{}, err
	}
	err = k.d.do(func() error { return p.Enqueue(s.h) })
	runtime.KeepAlive(dst)
	runtime.KeepAlive(src)
	if err != nil {
		return Geometry{}, fmt.Errorf("gpu: launch %s on a stream: %w", k.cfg.step, err)
	}
	return p.g, nil
}
