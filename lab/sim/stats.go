package sim

import "fmt"

// Stats are the counters of one simulated launch. Memory traffic is
// counted per access a thread makes, in elements of 4 bytes and in bytes:
// no cache, no coalescing, exactly what the kernel's code asks for, which
// is the accounting of the chapter's intensity model. Memory counts the
// same accesses as a GPU moves them, per warp (warp.go).
type Stats struct {
	Kernel string `json:"kernel"`
	Grid   Dim3   `json:"grid"`  // gridDim of the launch
	Block  Dim3   `json:"block"` // blockDim of the launch

	BlocksRun int64 `json:"blocks"`    // blocks run (all of the grid unless it was rejected)
	Threads   int64 `json:"threads"`   // threads run
	Intervals int64 `json:"intervals"` // barrier intervals run, summed over blocks

	// SharedBytesPerBlock is the most shared memory any block declared.
	SharedBytesPerBlock int `json:"shared_bytes_per_block"`

	GlobalLoads      int64 `json:"global_loads"`       // elements read from global memory
	GlobalStores     int64 `json:"global_stores"`      // elements written to global memory
	GlobalLoadBytes  int64 `json:"global_load_bytes"`  // 4 bytes per global load
	GlobalStoreBytes int64 `json:"global_store_bytes"` // 4 bytes per global store
	SharedLoads      int64 `json:"shared_loads"`       // elements read from shared memory
	SharedStores     int64 `json:"shared_stores"`      // elements written to shared memory
	SharedLoadBytes  int64 `json:"shared_load_bytes"`  // 4 bytes per shared load
	SharedStoreBytes int64 `json:"shared_store_bytes"` // 4 bytes per shared store
	Flops            int64 `json:"flops"`              // operations the threads reported with Thread.Flops

	// StoringThreads counts the threads (one per block they ran in) that
	// stored to global memory at least once; MaxStoresPerThread is the
	// most global stores one thread made in one block. Together they say
	// how the outputs were shared out among the threads.
	StoringThreads     int64 `json:"storing_threads"`
	MaxStoresPerThread int64 `json:"max_stores_per_thread"`

	// Memory is the same traffic as the hardware moves it: per warp
	// request, in 32-byte sectors for global memory and in bank passes for
	// shared memory, per kind of access and per site of the source.
	Memory Memory `json:"memory"`

	// Hazards are the first hazards of the launch in block order (at most
	// 16); HazardCounts counts them all, by kind.
	Hazards      []Hazard     `json:"hazards,omitempty"`
	HazardCounts HazardCounts `json:"hazard_counts"`
	// FaultCount counts failed threads and barriers reached by part of a
	// block.
	FaultCount int64 `json:"fault_count"`
}

// HazardCounts counts the hazards of a launch by kind.
type HazardCounts struct {
	ReadAfterWrite  int64 `json:"read_after_write"`
	WriteAfterRead  int64 `json:"write_after_read"`
	WriteAfterWrite int64 `json:"write_after_write"`
	Uninitialised   int64 `json:"uninitialised"`
	// DivergentBarrier counts barrier intervals of a block whose threads
	// waited at different calls of Sync.
	DivergentBarrier int64 `json:"divergent_barrier"`
}

// Total returns the number of hazards of every kind.
func (h HazardCounts) Total() int64 {
	return h.ReadAfterWrite + h.WriteAfterRead + h.WriteAfterWrite + h.Uninitialised + h.DivergentBarrier
}

func (h *HazardCounts) count(k HazardKind) {
	switch k {
	case ReadAfterWrite:
		h.ReadAfterWrite++
	case WriteAfterRead:
		h.WriteAfterRead++
	case WriteAfterWrite:
		h.WriteAfterWrite++
	case Uninitialised:
		h.Uninitialised++
	case DivergentBarrier:
		h.DivergentBarrier++
	}
}

func (h *HazardCounts) add(o HazardCounts) {
	h.ReadAfterWrite += o.ReadAfterWrite
	h.WriteAfterRead += o.WriteAfterRead
	h.WriteAfterWrite += o.WriteAfterWrite
	h.Uninitialised += o.Uninitialised
	h.DivergentBarrier += o.DivergentBarrier
}

// OpPerByte is the measured arithmetic intensity as the chapter defines it:
// floating-point operations over the bytes loaded from global memory.
// Stores are left out, as in the chapter's 13/28 = 0.46 OP/B for the basic
// kernel, so that it can be compared with the intensity model (IntensityN).
// It is 0 for a launch that loaded nothing.
func (s Stats) OpPerByte() float64 {
	if s.GlobalLoadBytes == 0 {
		return 0
	}
	return float64(s.Flops) / float64(s.GlobalLoadBytes)
}

// OpPerMovedByte is operations over all global bytes moved, loads and
// stores: the accounting of a bandwidth measurement on a GPU (at least 8
// bytes per point, one read and one write).
func (s Stats) OpPerMovedByte() float64 {
	b := s.GlobalLoadBytes + s.GlobalStoreBytes
	if b == 0 {
		return 0
	}
	return float64(s.Flops) / float64(b)
}

// String summarises the counters in one line.
func (s Stats) String() string {
	return fmt.Sprintf("%s <<<%s, %s>>>: global %d B loaded, %d B stored; shared %d B loaded, %d B stored; %d flops; %.3f OP/B",
		s.Kernel, s.Grid.Shape(), s.Block.Shape(), s.GlobalLoadBytes, s.GlobalStoreBytes,
		s.SharedLoadBytes, s.SharedStoreBytes, s.Flops, s.OpPerByte())
}
