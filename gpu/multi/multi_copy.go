package multi

import (
	"fmt"
	"math"
	"sync"

	"stencillab.dev/gpu"
	"stencillab.dev/gpu/cu"
)

// This file is the peer-copy exchange (OverlapCopy, OverlapCopyEarly):
// each rank pushes its boundary planes into its neighbours' halos with
// cuMemcpyPeerAsync on its high-priority stream. The copy engines move
// the planes, so no kernel competes with the sweep for the SMs, and a
// copy starts in a few microseconds where an NCCL exchange takes ten or
// more. The ranks order their work through CUDA events recorded on each
// other's streams; a stream waits on the event a peer's host thread last
// recorded, so each host thread first waits (progress) until its peers
// have enqueued what it waits for.

// progress is how far each rank's host thread has enqueued the passes of
// the current run: the last pass whose compute and whose push are
// recorded.
type progress struct {
	mu       sync.Mutex
	cond     *sync.Cond
	computed []int
	pushed   []int
}

// reset starts a run of size ranks: nothing enqueued.
func (p *progress) reset(size int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cond == nil {
		p.cond = sync.NewCond(&p.mu)
	}
	p.computed = make([]int, size)
	p.pushed = make([]int, size)
	for i := range size {
		p.computed[i], p.pushed[i] = -1, -1
	}
}

// fail releases every waiter: a rank that failed enqueues nothing more,
// and its peers must not wait for it forever (their own run then fails
// or waits on stale events, and the failure is reported).
func (p *progress) fail() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.computed {
		p.computed[i], p.pushed[i] = math.MaxInt32, math.MaxInt32
	}
	p.cond.Broadcast()
}

// set records that rank enqueued a pass's compute (or push).
func (p *progress) set(which *[]int, rank, pass int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	(*which)[rank] = max((*which)[rank], pass)
	p.cond.Broadcast()
}

// await blocks until rank enqueued pass (of which).
func (p *progress) await(which *[]int, rank, pass int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for (*which)[rank] < pass {
		p.cond.Wait()
	}
}

// enablePeers indexes the ranks and lets each device reach its
// neighbours' memory directly, where the devices allow it (otherwise
// cuMemcpyPeerAsync stages the copies itself).
func (m *Multi) enablePeers() error {
	m.byRank = make([]*mrank, m.size)
	for _, mr := range m.ranks {
		m.byRank[mr.p.Rank] = mr
	}
	for _, mr := range m.ranks {
		for _, nb := range []int{mr.p.Down, mr.p.Up} {
			if nb < 0 {
				continue
			}
			if _, err := mr.d.EnablePeerAccess(m.byRank[nb].d); err != nil {
				return fmt.Errorf("gpu: rank %d reaches rank %d's memory: %w", mr.p.Rank, nb, err)
			}
		}
	}
	return nil
}

// passCopy runs one pass with the peer-copy exchange; early computes the
// boundary planes before the interior and copies them beside it.
//
// At pass p a rank's sweep reads the halos its neighbours pushed at p−1,
// and waits for those pushes. Its push of pass p writes the neighbours'
// halos in the buffer they read at p−1 and write at p: it waits for their
// sweep of p−1 (h = 1, whose sweep writes no halo plane) or of p (h = k,
// whose sweep also writes k−1 planes inside the halo, replaced by the
// push). The compute stream also waits for the rank's own push of p−1
// before writing again the planes it read.
func (mr *mrank) passCopy(pp passPlans, dir, pass int, early bool) error {
	m, p := mr.m, mr.p
	e0 := evIndex(pass, 0)
	prevPush := evIndex(pass-1, evExchangeEnd)
	nbs := []int{}
	for _, nb := range []int{p.Down, p.Up} {
		if nb >= 0 {
			nbs = append(nbs, nb)
		}
	}
	if pass > 0 {
		for _, nb := range nbs {
			m.prog.await(&m.prog.pushed, nb, pass-1)
			if err := mr.waitOn(mr.lo, m.byRank[nb], prevPush); err != nil {
				return err
			}
		}
		if err := mr.wait(mr.lo, prevPush); err != nil {
			return err
		}
	}
	compute := []op{mr.recordOp(e0+evComputeStart, mr.lo)}
	pushAfter := e0 + evComputeEnd
	if early {
		compute = append(compute, launchOp(mr.lo, pp.boundary[dir]), mr.recordOp(e0+evBoundaryEnd, mr.lo))
		pushAfter = e0 + evBoundaryEnd
	}
	compute = append(compute,
		launchOp(mr.lo, pp.interior[dir]),
		mr.recordOp(e0+evComputeEnd, mr.lo),
		mr.recordOp(e0+evInteriorEnd, mr.lo))
	if err := enqueue(compute...); err != nil {
		return err
	}
	m.prog.set(&m.prog.computed, p.Rank, pass)

	// The push, on the high-priority stream.
	if err := mr.wait(mr.hi, pushAfter); err != nil {
		return err
	}
	after := pass - 1 // the neighbours' sweep the push waits for; none at pass 0 for h = 1
	if p.Halo > 1 {
		after = pass
	}
	for _, nb := range nbs {
		if after < 0 {
			break
		}
		m.prog.await(&m.prog.computed, nb, after)
		if err := mr.waitOn(mr.hi, m.byRank[nb], evIndex(after, evComputeEnd)); err != nil {
			return err
		}
	}
	if err := mr.record(e0+evExchangeStart, mr.hi); err != nil {
		return err
	}
	out := pp.out[dir]
	plane := p.LocalNY() * p.NX
	for _, nb := range nbs {
		peer := m.byRank[nb]
		z0 := p.Z0 // the planes the neighbour below holds in its upper halo
		if nb == p.Up {
			z0 = p.Z1 - p.Halo
		}
		src := out.Ptr() + uint64((z0-p.LZ0)*plane)*4
		peerOut, _ := peer.pingPong(dir)
		dst := peerOut.Ptr() + uint64((z0-peer.p.LZ0)*plane)*4
		bytes := uint64(p.Halo*plane) * 4
		if err := gpu.CheckCall("cuMemcpyPeerAsync", drv().MemcpyPeerAsync(dst, peer.d.Context(), src, mr.d.Context(), bytes, mr.hi)); err != nil {
			return fmt.Errorf("push planes [%d, %d) to rank %d: %w", z0, z0+p.Halo, nb, err)
		}
	}
	if err := mr.record(e0+evExchangeEnd, mr.hi); err != nil {
		return err
	}
	m.prog.set(&m.prog.pushed, p.Rank, pass)
	return nil
}

// waitOn makes stream s wait for event i of another rank's pool, which its
// host thread has recorded (progress says so).
func (mr *mrank) waitOn(s cu.Handle, peer *mrank, i int) error {
	peer.evMu.Lock()
	e := cu.Handle(nil)
	if i < len(peer.events) {
		e = peer.events[i]
	}
	peer.evMu.Unlock()
	if e == nil {
		return fmt.Errorf("rank %d waits for event %d of rank %d, which it never recorded", mr.p.Rank, i, peer.p.Rank)
	}
	return gpu.CheckCall("cuStreamWaitEvent", drv().StreamWaitEvent(s, e))
}
