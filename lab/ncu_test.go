package lab

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab/sim"
)

// The simulator against Nsight Compute: bench/ncu-sectors.sh profiled the
// chapter's kernels on a GPU and recorded the L1's counts in
// figures/data/ncu_sectors_*.json; the same launches run here through the
// simulator. docs/warps.md says what is compared and why some counts
// differ by design.

// ncuFile is the file bench/ncu-sectors.sh writes.
type ncuFile struct {
	Device string   `json:"device"`
	NCU    string   `json:"ncu"`
	Runs   []ncuRun `json:"runs"`
}

// ncuRun is one profiled launch: `stencil run -backend gpu -kernel Kernel
// -n N [-block Block]`, and its metrics.
type ncuRun struct {
	Kernel  string              `json:"kernel"`
	Block   string              `json:"block"`
	N       int                 `json:"n"`
	Metrics map[string]*float64 `json:"metrics"`
}

// The ncu metrics compared.
const (
	ncuLdSectors   = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
	ncuLdRequests  = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
	ncuStSectors   = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
	ncuStRequests  = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
	ncuLdConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
	ncuStConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
	ncuLdShared    = "smsp__sass_inst_executed_op_shared_ld.sum"
	ncuStShared    = "smsp__sass_inst_executed_op_shared_st.sum"
)

// ncuTolerance is the agreement asked of the simulator: 2 %.
const ncuTolerance = 0.02

// ncuSpurious bounds the bank conflicts ncu reports for accesses in which
// no two words share a bank, as a share of the shared instructions: the
// counter counts every extra pass of the L1's data banks, whatever its
// cause, and the tiled kernel's stores of 32 consecutive words show some.
// A real conflict costs at least one extra pass per instruction (100 %).
const ncuSpurious = 0.15

func readNCU(t *testing.T) (files []string, runs map[string]ncuFile) {
	files, err := filepath.Glob(filepath.Join("..", "figures", "data", "ncu_sectors_*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "the recorded ncu counts (bench/ncu-sectors.sh) are committed in figures/data")
	runs = map[string]ncuFile{}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		require.NoError(t, err)
		var f ncuFile
		require.NoError(t, json.Unmarshal(raw, &f), file)
		require.NotEmpty(t, f.Runs, file)
		runs[file] = f
	}
	return files, runs
}

// blockOf reads a block written XxYxZ; "" is the step's own block.
func blockOf(t *testing.T, s string) sim.Dim3 {
	if s == "" {
		return sim.Dim3{}
	}
	parts := strings.Split(s, "x")
	require.Len(t, parts, 3, "block %q", s)
	var v [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		require.NoError(t, err, "block %q", s)
		v[i] = n
	}
	return sim.Dim3{X: v[0], Y: v[1], Z: v[2]}
}

func TestSimulatorAgreesWithNsightCompute(t *testing.T) {
	files, all := readNCU(t)
	covered := map[string]bool{}
	for _, file := range files {
		f := all[file]
		for _, r := range f.Runs {
			name := fmt.Sprintf("%s/%s/%s/N=%d", filepath.Base(file), r.Kernel, r.Block, r.N)
			covered[fmt.Sprintf("%s %s %d", r.Kernel, r.Block, r.N)] = true
			t.Run(name, func(t *testing.T) {
				res, err := Execute(Run{Step: r.Kernel, Backend: Sim, Config: Config{Block: blockOf(t, r.Block)},
					NZ: r.N, NY: r.N, NX: r.N, Seed: 1, C: DistinctCoeffs()})
				require.NoError(t, err)
				m := res.Stats.Memory
				metric := func(name string) float64 {
					v := r.Metrics[name]
					require.NotNil(t, v, "%s was measured", name)
					return *v
				}
				near := func(what string, hw float64, sim int64) {
					assert.InDelta(t, hw, float64(sim), ncuTolerance*hw, "%s: ncu %.0f, simulator %d", what, hw, sim)
				}
				near(ncuLdSectors, metric(ncuLdSectors), m.GlobalLoads.Sectors)
				near(ncuLdRequests, metric(ncuLdRequests), m.GlobalLoads.Requests)
				near(ncuStSectors, metric(ncuStSectors), m.GlobalStores.Sectors)
				near(ncuStRequests, metric(ncuStRequests), m.GlobalStores.Requests)
				// The CUDA coarsened kernel rotates its planes in every
				// thread, the Go one only in threads whose (j, k) is in the
				// grid (lab/coarsened.go): more shared instructions on the
				// GPU at the grid's edges.
				if r.Kernel != "coarsened" {
					near(ncuLdShared, metric(ncuLdShared), m.SharedLoads.Requests)
					near(ncuStShared, metric(ncuStShared), m.SharedStores.Requests)
				}
				for _, c := range []struct {
					metric, instructions string
					sim                  int64
				}{
					{ncuLdConflicts, ncuLdShared, m.SharedLoads.Conflicts},
					{ncuStConflicts, ncuStShared, m.SharedStores.Conflicts},
				} {
					hw, inst := metric(c.metric), metric(c.instructions)
					if c.sim > 0 {
						near(c.metric, hw, c.sim)
						continue
					}
					assert.LessOrEqual(t, hw, ncuSpurious*inst, "%s: ncu %.0f in %.0f instructions, where no two words of a warp share a bank", c.metric, hw, inst)
				}
				t.Logf("%-14s %-7s N=%-3d  ld sectors %8d / %8.0f  requests %7d / %7.0f  st sectors %7d / %7.0f  requests %6d / %6.0f  conflicts ld %d / %.0f  st %d / %.0f",
					r.Kernel, r.Block, r.N, m.GlobalLoads.Sectors, metric(ncuLdSectors), m.GlobalLoads.Requests, metric(ncuLdRequests),
					m.GlobalStores.Sectors, metric(ncuStSectors), m.GlobalStores.Requests, metric(ncuStRequests),
					m.SharedLoads.Conflicts, metric(ncuLdConflicts), m.SharedStores.Conflicts, metric(ncuStConflicts))
			})
		}
	}
	// The launches the comparison is about: both blocks of the basic kernel
	// and the three tiled kernels at their default tiles, at N = 67 and 130.
	for _, n := range []int{67, 130} {
		for _, k := range []string{"basic 8x8x8", "basic 32x8x1", "tiled ", "coarsened ", "register_tiled "} {
			assert.True(t, covered[fmt.Sprintf("%s %d", k, n)], "ncu measured %s at N = %d", k, n)
		}
	}
}
