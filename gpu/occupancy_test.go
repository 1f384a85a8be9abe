package gpu

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"stencillab.dev/lab/sediment"
)

// The occupancy rules reproduce every occupancy of the paper's Tables 2
// and 3 from the registers and shared memory the paper lists, with the
// limits of the K20 (compute capability 3.5) and the GTX 590 (2.0).
func TestOccupancyMatchesPaper(t *testing.T) {
	limits := map[string]OccupancyLimits{
		sediment.PaperK20.Name: {MaxThreads: 2048, RegsPerSM: 65536, MaxBlocks: 16, SharedPerSM: 48 << 10,
			RegUnit: 256, SharedUnit: 256, Partitions: 4},
		sediment.PaperGTX590.Name: {MaxThreads: 1536, RegsPerSM: 32768, MaxBlocks: 8, SharedPerSM: 48 << 10,
			RegUnit: 64, SharedUnit: 128, Partitions: 2},
	}
	for _, g := range sediment.PaperGPUs() {
		for _, row := range g.Rows {
			threads := 32 * 4
			if row.Block == "34×6" {
				threads = 34 * 6
			}
			got := limits[g.Name].Occupancy(threads, row.Regs, row.SharedBytes)
			assert.InDelta(t, row.Occupancy, got, 6e-4, "%s %s %s", g.Name, row.Kernel, row.Version)
		}
	}
	assert.Equal(t, -1.0, OccupancyLimits{}.Occupancy(128, 32, 0))
}
