package grader

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"stencillab.dev/gpu"
)

// -gpus spreads the CUDA submissions over several GPUs: a pool holds one
// token per device, a CUDA child is started only with a token in hand and
// is told its device through CUDA_VISIBLE_DEVICES in its cleared
// environment, so that it sees that GPU alone as its device 0. Without
// -gpus the pool holds one token for the default device, and the CUDA
// submissions are graded one at a time, as on a machine with one GPU.

// maxGPUs bounds the devices "all" looks for.
const maxGPUs = 64

// deviceCount returns how many GPUs the driver reports to this process;
// 0 where there is no driver or no GPU (or cgo is off). Tests replace it.
var deviceCount = func() int {
	n, err := gpu.DeviceCount()
	if err != nil {
		return 0
	}
	return min(n, maxGPUs)
}

// resolveGPUs turns -gpus into device numbers: nil for "" (the default
// device) and for "all" where the driver reports no GPU; every device the
// driver reports for "all"; the list otherwise, each device checked
// against the count where the driver reports GPUs.
func resolveGPUs(spec string) ([]int, error) {
	devs, err := parseGPUs(spec)
	if err != nil {
		return nil, err
	}
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, nil
	}
	n := deviceCount()
	if spec == "all" {
		for i := range n {
			devs = append(devs, i)
		}
		return devs, nil
	}
	for _, d := range devs {
		if n > 0 && d >= n {
			return nil, fmt.Errorf("-gpus %s: device %d does not exist: the driver sees %d device(s), 0 to %d", spec, d, n, n-1)
		}
	}
	return devs, nil
}

// devicePool hands out the GPUs that grade CUDA submissions: one child
// per device at a time.
type devicePool struct {
	tokens chan string            // a device's ordinal, or "" for the default device
	locks  map[string]*sync.Mutex // each device's lock, given to cudacheck
	order  []string               // the devices, in ascending ordinal
	// onUse, when set, is told each use of a device (tests).
	onUse func(dev string, start, end time.Time)
}

// newDevicePool returns the pool of devs; none makes a pool of the
// default device alone.
func newDevicePool(devs []int) *devicePool {
	names := []string{""}
	if len(devs) > 0 {
		sorted := slices.Sorted(slices.Values(devs))
		names = names[:0]
		for _, d := range sorted {
			names = append(names, strconv.Itoa(d))
		}
	}
	p := &devicePool{tokens: make(chan string, len(names)), locks: map[string]*sync.Mutex{}, order: names}
	for _, n := range names {
		p.tokens <- n
		p.locks[n] = &sync.Mutex{}
	}
	return p
}

// size is the number of devices of the pool.
func (p *devicePool) size() int { return len(p.locks) }

// names are the pool's devices, in order ("" for the default device).
func (p *devicePool) names() []string { return slices.Clone(p.order) }

// use runs f with a device of the pool, waiting for one to be free; f
// gets the device's ordinal ("" for the default device) and its lock.
func (p *devicePool) use(f func(dev string, lock sync.Locker)) {
	dev := <-p.tokens
	defer func() { p.tokens <- dev }()
	start := time.Now()
	f(dev, p.locks[dev])
	if p.onUse != nil {
		p.onUse(dev, start, time.Now())
	}
}

// poolOf returns cfg's pool, or a new one for cfg.GPUs (which main has
// checked).
func poolOf(cfg Config) *devicePool {
	if cfg.pool != nil {
		return cfg.pool
	}
	devs, err := resolveGPUs(cfg.GPUs)
	if err != nil {
		devs = nil
	}
	return newDevicePool(devs)
}

// childDevice is the value of CUDA_VISIBLE_DEVICES for a child on the
// device dev of this process ("" for the default device): dev, or, when
// this process is itself given CUDA_VISIBLE_DEVICES (a cluster's job),
// the entry of that list that is this process's device dev, so that the
// child sees the GPU the grader means. "" leaves it out.
func childDevice(dev string) string {
	mine := strings.TrimSpace(os.Getenv("CUDA_VISIBLE_DEVICES"))
	if mine == "" {
		return dev
	}
	if dev == "" {
		return mine
	}
	list := strings.Split(mine, ",")
	if i, err := strconv.Atoi(dev); err == nil && i >= 0 && i < len(list) {
		return strings.TrimSpace(list[i])
	}
	return dev
}
