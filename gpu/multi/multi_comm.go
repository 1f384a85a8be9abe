package multi

import (
	"fmt"

	"stencillab.dev/gpu"
	"stencillab.dev/gpu/cu"
	"stencillab.dev/lab/halo"
)

// ncclComm is a rank's NCCL communicator as the lab's exchange sees it: a
// halo.Comm and halo.Packer on device buffers. Its methods enqueue on the
// stream the pass chose and must run on the rank's device thread (the
// exchange runs inside the pass's closure there), except Alloc and Free,
// which run outside it.
type ncclComm struct {
	r      *mrank
	stream cu.Handle
}

var (
	_ halo.Comm[*gpu.Buffer]   = (*ncclComm)(nil)
	_ halo.Packer[*gpu.Buffer] = (*ncclComm)(nil)
)

// Rank returns the rank's index in the world.
func (c *ncclComm) Rank() int { return c.r.p.Rank }

// Size returns the ranks of the world.
func (c *ncclComm) Size() int { return c.r.p.Ranks }

func (c *ncclComm) check(what string, b *gpu.Buffer, off, n, peer int) error {
	if err := b.CheckSpan(off, n); err != nil {
		return fmt.Errorf("gpu: %s: %w: %w", what, err, halo.ErrComm)
	}
	if b.Device() != c.r.d {
		return fmt.Errorf("gpu: %s: the buffer belongs to device %d, not the rank's %d: %w", what, b.Device().Props().Ordinal, c.r.d.Props().Ordinal, halo.ErrComm)
	}
	if peer < 0 || peer >= c.Size() || peer == c.Rank() {
		return fmt.Errorf("gpu: %s: peer %d is not another rank of the %d: %w", what, peer, c.Size(), halo.ErrComm)
	}
	if c.r.comm == nil {
		return fmt.Errorf("gpu: %s: rank %d has no communicator: %w", what, c.Rank(), halo.ErrComm)
	}
	return nil
}

// Send enqueues ncclSend of n floats of src from off to peer.
func (c *ncclComm) Send(src *gpu.Buffer, off, n, peer int) error {
	if err := c.check("send", src, off, n, peer); err != nil {
		return err
	}
	return ncclCheck("ncclSend", drv().NCCLSend(src.Ptr()+uint64(off)*4, uint64(n), peer, c.r.comm, c.stream))
}

// Recv enqueues ncclRecv of n floats from peer into dst at off.
func (c *ncclComm) Recv(dst *gpu.Buffer, off, n, peer int) error {
	if err := c.check("receive", dst, off, n, peer); err != nil {
		return err
	}
	return ncclCheck("ncclRecv", drv().NCCLRecv(dst.Ptr()+uint64(off)*4, uint64(n), peer, c.r.comm, c.stream))
}

// Group issues the sends and receives of f between ncclGroupStart and
// ncclGroupEnd.
func (c *ncclComm) Group(f func() error) error {
	if err := ncclCheck("ncclGroupStart", drv().NCCLGroupStart()); err != nil {
		return err
	}
	err := f()
	if r := drv().NCCLGroupEnd(); r != 0 && err == nil {
		err = ncclCheck("ncclGroupEnd", r)
	}
	return err
}

// Alloc returns a staging buffer of n floats on the rank's device.
func (c *ncclComm) Alloc(n int) (*gpu.Buffer, error) { return c.r.d.Alloc(n) }

// Free frees a staging buffer.
func (c *ncclComm) Free(b *gpu.Buffer) error { return b.Free() }

// Pack copies count blocks of n floats, srcOff + i·stride apart in src,
// one after the other into dst from dstOff: one 2D copy on the stream.
func (c *ncclComm) Pack(dst *gpu.Buffer, dstOff int, src *gpu.Buffer, srcOff, n, stride, count int) error {
	if count == 0 || n == 0 {
		return nil
	}
	if err := checkBlocks("pack", dst, dstOff, src, srcOff, n, stride, count); err != nil {
		return err
	}
	return c.copy2D(dst, dstOff, n, src, srcOff, stride, n, count)
}

// Unpack copies count blocks of n floats, one after the other in src from
// srcOff, into dst at dstOff + i·stride.
func (c *ncclComm) Unpack(dst *gpu.Buffer, dstOff, n, stride, count int, src *gpu.Buffer, srcOff int) error {
	if count == 0 || n == 0 {
		return nil
	}
	if err := checkBlocks("unpack", src, srcOff, dst, dstOff, n, stride, count); err != nil {
		return err
	}
	return c.copy2D(dst, dstOff, stride, src, srcOff, n, n, count)
}

// checkBlocks checks the buffers of a pack or unpack (what): count blocks
// of n floats one after the other in packed from packedOff, stride apart
// in strided from stridedOff.
func checkBlocks(what string, packed *gpu.Buffer, packedOff int, strided *gpu.Buffer, stridedOff, n, stride, count int) error {
	if err := packed.CheckSpan(packedOff, n*count); err != nil {
		return fmt.Errorf("gpu: %s: %w: %w", what, err, halo.ErrComm)
	}
	if err := strided.CheckSpan(stridedOff, stride*(count-1)+n); err != nil || stride < n {
		return fmt.Errorf("gpu: %s %d blocks of %d, %d apart: %v: %w", what, count, n, stride, err, halo.ErrComm)
	}
	return nil
}

// copy2D enqueues one 2D copy of count rows of n floats on the stream:
// from src at srcOff, rows srcPitch floats apart, to dst at dstOff, rows
// dstPitch apart.
func (c *ncclComm) copy2D(dst *gpu.Buffer, dstOff, dstPitch int, src *gpu.Buffer, srcOff, srcPitch, n, count int) error {
	return gpu.CheckCall("cuMemcpy2DAsync", drv().Memcpy2DAsync(dst.Ptr()+uint64(dstOff)*4, uint64(dstPitch)*4,
		src.Ptr()+uint64(srcOff)*4, uint64(srcPitch)*4, uint64(n)*4, uint64(count), c.stream))
}
