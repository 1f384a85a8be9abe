package multi

import (
	"errors"
	"fmt"
	"sync"

	"stencillab.dev/gpu"
	"stencillab.dev/gpu/cu"
)

// HaloBandwidth is the time of one halo exchange between two GPUs: each
// sends Bytes to the other and receives as much, through NCCL (ncclSend
// and ncclRecv in a group) and through a plain peer copy
// (cuMemcpyPeerAsync each way, peer access enabled when the devices allow
// it). Times are medians of CUDA events, the slower of the two devices.
type HaloBandwidth struct {
	Bytes      int     // one direction's message
	NCCLMicros float64 // the exchange through NCCL
	PeerMicros float64 // the exchange by peer copies
	NCCLGBs    float64 // Bytes / NCCLMicros, GB/s per direction
	PeerGBs    float64 // Bytes / PeerMicros
	PeerAccess bool    // whether the devices reach each other's memory directly
}

// MeasureHaloExchange times halo exchanges of each size (bytes, a
// multiple of 4) between two devices: warmup untimed, then reps timed.
func MeasureHaloExchange(devices [2]int, sizes []int, warmup, reps int) ([]HaloBandwidth, error) {
	if reps < 1 {
		return nil, fmt.Errorf("gpu: halo bandwidth: %d repetitions: need at least 1", reps)
	}
	if devices[0] == devices[1] {
		return nil, fmt.Errorf("gpu: halo bandwidth between device %d and itself: need two devices", devices[0])
	}
	maxBytes := 0
	for _, b := range sizes {
		if b < 4 || b%4 != 0 || b > 1<<32 {
			return nil, fmt.Errorf("gpu: halo bandwidth: a message of %d bytes: want a multiple of 4 from 4 to 4 GiB", b)
		}
		maxBytes = max(maxBytes, b)
	}
	type end struct {
		d          *gpu.Device
		send, recv *gpu.Buffer
		s          cu.Handle
		comm       cu.Handle
		e0, e1     cu.Handle
	}
	var ends [2]*end
	for i, o := range devices {
		d, err := deviceFor(o)
		if err != nil {
			return nil, err
		}
		e := &end{d: d}
		ends[i] = e
		if e.send, err = d.Alloc(maxBytes / 4); err != nil {
			return nil, err
		}
		defer e.send.Free()
		if e.recv, err = d.Alloc(maxBytes / 4); err != nil {
			return nil, err
		}
		defer e.recv.Free()
		st, err := d.NewStream(false)
		if err != nil {
			return nil, err
		}
		defer st.Close()
		e.s = st.Handle()
		err = d.Do(func() error {
			var r int
			if e.e0, r = drv().EventCreate(0); r != 0 {
				return gpu.CheckCall("cuEventCreate", r)
			}
			e.e1, r = drv().EventCreate(0)
			return gpu.CheckCall("cuEventCreate", r)
		})
		if err != nil {
			return nil, err
		}
		defer d.Do(func() error {
			drv().EventDestroy(e.e0)
			drv().EventDestroy(e.e1)
			return nil
		})
	}
	// The communicators are destroyed together: a rank's teardown may wait
	// for its peer's.
	defer func() {
		var wg sync.WaitGroup
		for _, e := range ends {
			wg.Go(func() {
				e.d.Do(func() error {
					if e.comm != nil {
						drv().NCCLCommDestroy(e.comm)
					}
					return nil
				})
			})
		}
		wg.Wait()
	}()
	// Peer access, both ways, where the devices allow it.
	access := true
	for i, e := range ends {
		can, err := e.d.EnablePeerAccess(ends[1-i].d)
		if err != nil {
			return nil, err
		}
		access = access && can
	}
	id, err := newNCCLID()
	if err != nil {
		return nil, err
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, e := range ends {
		wg.Go(func() {
			errs[i] = e.d.Do(func() error {
				var r int
				e.comm, r = drv().NCCLCommInitRank(2, id, i)
				return ncclCheck("ncclCommInitRank", r)
			})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("gpu: halo bandwidth: %w", err)
	}
	// once runs iters exchanges of n floats back to back on both ends
	// and returns the slower end's time of one, in ms: the loop hides the
	// skew between the two hosts threads' first launches.
	const iters = 20
	once := func(n int, nccl bool) (float64, error) {
		var ms [2]float64
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, e := range ends {
			peer := ends[1-i]
			wg.Go(func() {
				errs[i] = e.d.Do(func() error {
					if err := gpu.CheckCall("cuEventRecord", drv().EventRecord(e.e0, e.s)); err != nil {
						return err
					}
					for range iters {
						if nccl {
							if err := ncclCheck("ncclGroupStart", drv().NCCLGroupStart()); err != nil {
								return err
							}
							r1 := drv().NCCLSend(e.send.Ptr(), uint64(n), 1-i, e.comm, e.s)
							r2 := drv().NCCLRecv(e.recv.Ptr(), uint64(n), 1-i, e.comm, e.s)
							if err := errors.Join(ncclCheck("ncclSend", r1), ncclCheck("ncclRecv", r2),
								ncclCheck("ncclGroupEnd", drv().NCCLGroupEnd())); err != nil {
								return err
							}
						} else if err := gpu.CheckCall("cuMemcpyPeerAsync", drv().MemcpyPeerAsync(peer.recv.Ptr(), peer.d.Context(),
							e.send.Ptr(), e.d.Context(), uint64(n)*4, e.s)); err != nil {
							return err
						}
					}
					if err := gpu.CheckCall("cuEventRecord", drv().EventRecord(e.e1, e.s)); err != nil {
						return err
					}
					if err := gpu.CheckCall("cuEventSynchronize", drv().EventSynchronize(e.e1)); err != nil {
						return err
					}
					t, r := drv().EventElapsedTime(e.e0, e.e1)
					ms[i] = float64(t) / iters
					return gpu.CheckCall("cuEventElapsedTime", r)
				})
			})
		}
		wg.Wait()
		return max(ms[0], ms[1]), errors.Join(errs...)
	}
	var out []HaloBandwidth
	for _, b := range sizes {
		hb := HaloBandwidth{Bytes: b, PeerAccess: access}
		for _, nccl := range []bool{true, false} {
			var ts []float64
			for r := range warmup + reps {
				t, err := once(b/4, nccl)
				if err != nil {
					return out, fmt.Errorf("gpu: halo bandwidth, %d bytes: %w", b, err)
				}
				if r >= warmup {
					ts = append(ts, t)
				}
			}
			m := gpu.Summarize(gpu.Geometry{}, ts).Median * 1000
			if nccl {
				hb.NCCLMicros, hb.NCCLGBs = m, float64(b)/m/1e3
			} else {
				hb.PeerMicros, hb.PeerGBs = m, float64(b)/m/1e3
			}
		}
		out = append(out, hb)
	}
	return out, nil
}
