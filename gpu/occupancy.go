package gpu

import "fmt"

// Attributes of the device that the occupancy calculation reads
// (CUdevice_attribute values).
const (
	attrRegistersPerSM     = 82
	attrMaxBlocksPerSM     = 106
	attrReservedSharedPerB = 111
)

// OccupancyLimits reads the device's limits for the occupancy rules; a
// limit the driver does not report stays zero.
func (d *Device) OccupancyLimits() (OccupancyLimits, error) {
	var l OccupancyLimits
	err := d.do(func() error {
		for _, a := range []struct {
			id  int
			dst *int
		}{{attrRegistersPerSM, &l.RegsPerSM}, {attrMaxBlocksPerSM, &l.MaxBlocks}, {attrReservedSharedPerB, &l.ReservedShared}} {
			if v, code := drv.DeviceGetAttribute(a.id, d.dev); code == 0 {
				*a.dst = v
			}
		}
		return nil
	})
	if err != nil {
		return l, fmt.Errorf("gpu: occupancy limits: %w", err)
	}
	p := d.props
	l.MaxThreads, l.SharedPerSM = p.MaxThreadsPerSM, p.SharedPerSM
	l.RegUnit, l.SharedUnit, l.Partitions = 256, 128, 4
	if p.Major < 8 {
		l.SharedUnit = 256
	}
	return l, nil
}

// OccupancyLimits are the limits of one multiprocessor that decide how
// many blocks of a kernel it holds at once.
type OccupancyLimits struct {
	MaxThreads     int // resident threads
	RegsPerSM      int // 32-bit registers
	MaxBlocks      int // resident blocks
	SharedPerSM    int // shared memory, bytes
	ReservedShared int // shared memory the system reserves per block, bytes
	RegUnit        int // registers are given to a warp in multiples of this
	SharedUnit     int // shared memory is given to a block in multiples of this
	Partitions     int // warp schedulers, each with its share of the registers
}

// Occupancy applies the occupancy calculator's rules to a block of threads
// whose threads use regs registers and which declares shared bytes: a warp
// gets regs·32 registers rounded up to RegUnit, each of the Partitions
// schedulers holds as many warps as its share of the registers allows, a
// block gets shared + ReservedShared bytes rounded up to SharedUnit, and no
// more than MaxBlocks blocks and MaxThreads threads fit. It returns the
// resident warps over MaxThreads/32, or −1 when a limit is unknown (zero).
func (l OccupancyLimits) Occupancy(threads, regs, shared int) float64 {
	blocks := l.Blocks(threads, regs, shared)
	if blocks < 0 {
		return -1
	}
	return float64(blocks*ceilDiv(threads, 32)) / float64(l.MaxThreads/32)
}

// Blocks returns how many blocks of the kernel one multiprocessor holds
// at once by the rules of Occupancy, or −1 when a limit is unknown.
func (l OccupancyLimits) Blocks(threads, regs, shared int) int {
	if threads <= 0 || l.MaxThreads <= 0 || l.RegsPerSM <= 0 || l.MaxBlocks <= 0 || l.SharedPerSM <= 0 ||
		l.RegUnit <= 0 || l.SharedUnit <= 0 || l.Partitions <= 0 {
		return -1
	}
	maxWarps := l.MaxThreads / 32
	wpb := ceilDiv(threads, 32)
	blocks := min(l.MaxBlocks, maxWarps/wpb)
	if regs > 0 {
		perWarp := ceilDiv(regs*32, l.RegUnit) * l.RegUnit
		warps := (l.RegsPerSM / l.Partitions / perWarp) * l.Partitions
		blocks = min(blocks, warps/wpb)
	}
	if perBlock := ceilDiv(shared+l.ReservedShared, l.SharedUnit) * l.SharedUnit; perBlock > 0 {
		blocks = min(blocks, l.SharedPerSM/perBlock)
	}
	return blocks
}
