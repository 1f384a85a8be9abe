package gpu

import (
	"fmt"

	"stencillab.dev/gpu/cu"
	"stencillab.dev/lab"
)

// This file is what gpu gives the packages built on it (gpu/multi,
// gpu/sediment): the binding its calls go through, a device's thread and
// context, a buffer's address and a prepared launch that runs on a stream
// of theirs. Everything else of theirs is their own.

// Binding returns the binding every call of the package goes through:
// cu.Lib, or a test's cu.Fake. A package built on gpu calls the libraries
// through it, on a device's thread (Device.Do), so that a fake is theirs
// too.
func Binding() cu.API { return drv }

// CheckCall turns a CUDA driver result into nil or a *CUDAError naming
// the call, as the package's own calls do.
func CheckCall(call string, code int) error { return cuCheck(call, code) }

// LoadLibrary opens the first of cands that loads and binds table t
// through the binding, and returns its name; the error says which
// libraries were tried and why each failed. The driver and NVRTC are
// loaded by the package itself; a package built on it loads the others
// (NCCL) this way.
func LoadLibrary(t cu.Table, cands []string) (string, error) {
	return openLibrary(cands, bindTable(t))
}

// Do runs f on the device's locked OS thread, where its context is
// current: every call through the binding that needs the context runs
// inside it. A closed or lost device refuses, and a sticky error of f
// marks the device lost.
func (d *Device) Do(f func() error) error { return d.do(f) }

// Context returns the device's primary context, for calls that name a
// context (cuMemcpyPeerAsync, cuCtxEnablePeerAccess).
func (d *Device) Context() cu.Handle { return d.ctx }

// Ptr returns the buffer's device address.
func (b *Buffer) Ptr() uint64 { return b.ptr }

// View returns the part of b that starts off floats into it and holds n,
// sharing its memory: it is never freed itself (whoever holds b frees it).
func (b *Buffer) View(off, n int) (*Buffer, error) {
	if err := b.span(off, n); err != nil {
		return nil, fmt.Errorf("gpu: view: %w", err)
	}
	return &Buffer{d: b.d, ptr: b.ptr + uint64(off)*4, n: n}, nil
}

// CheckSpan refuses the floats [off, off+n) when they do not lie in the
// buffer, or when the buffer is freed.
func (b *Buffer) CheckSpan(off, n int) error { return b.span(off, n) }

// Prepared is a launch checked and packed once, to be enqueued on streams
// many times (a split run's passes).
type Prepared struct {
	f *Function
	g Geometry
	a *Args
}

// Geometry returns the prepared launch's geometry.
func (p *Prepared) Geometry() Geometry { return p.g }

// Prepare checks and packs one sweep of the nz×ny×nx grid in src into dst,
// as Launch would, without launching it.
func (k *Stencil3) Prepare(dst, src *Buffer, nz, ny, nx int, c lab.Coeffs) (*Prepared, error) {
	f, g, a, err := k.prepare(dst, src, nz, ny, nx, sevenCoefs(c))
	if err != nil {
		return nil, err
	}
	return &Prepared{f, g, a}, nil
}

// Enqueue launches the prepared launch on stream s (nil: the default
// stream) without waiting. It runs on the device's thread (Device.Do),
// and the buffers must stay alive until the stream is synchronised.
func (p *Prepared) Enqueue(s cu.Handle) error {
	if err := p.f.optIn(p.g.DynamicShared); err != nil {
		return err
	}
	if err := cuCheck("cuLaunchKernel", drv.LaunchKernel(p.f.handle, p.g.Grid, p.g.Block, p.g.DynamicShared, s, p.a.buf, p.a.offsets)); err != nil {
		return fmt.Errorf("launch %s (%s): %w", p.f.Name, p.g, err)
	}
	return nil
}

// ModuleOf compiles the named sources of package cuda, joined in order, as
// one program (shared device functions first), cached like Module; the
// module takes the name of the last source.
func (d *Device) ModuleOf(sources []string, defines []Define) (*Module, error) {
	return d.moduleOf(sources, defines)
}

// CheckGeometry returns an error naming the broken limit when g cannot be
// launched on a device with props p; fnMaxThreads and fnRegisters, when
// positive, are the compiled kernel's own limits (Function.MaxThreads,
// Function.Registers).
func CheckGeometry(g Geometry, p Props, fnMaxThreads, fnRegisters int) error {
	return checkGeometry(g, p, fnMaxThreads, fnRegisters)
}

// LaunchArgs launches f with geometry g and arguments a on the default
// stream and waits for it; timed, it returns its time in milliseconds,
// measured with CUDA events.
func (d *Device) LaunchArgs(f *Function, g Geometry, a *Args, timed bool) (float64, error) {
	return d.launch(f, g, a, timed)
}

// MeasureArgs launches f with geometry g and arguments a warmup times
// untimed, then reps times timed.
func (d *Device) MeasureArgs(f *Function, g Geometry, a *Args, warmup, reps int) (Measurement, error) {
	return d.measure(f, g, a, warmup, reps)
}
