package checks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab/sim"
)

// The bank conflicts of exercise 10's transposing kernel against Nsight
// Compute: bench/ncu-banks.sh profiled the same kernel in CUDA
// (bench/banks.cu) with conflicting and padded tiles and recorded the
// counts in figures/data/ncu_banks_*.json.

type ncuBanks struct {
	Device string `json:"device"`
	Runs   []struct {
		T, P, N int
		Metrics map[string]float64 `json:"metrics"`
	} `json:"runs"`
}

func TestTransposeBankConflictsAgreeWithNsightCompute(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "figures", "data", "ncu_banks_*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "the recorded ncu counts (bench/ncu-banks.sh) are committed in figures/data")
	for _, file := range files {
		raw, err := os.ReadFile(file)
		require.NoError(t, err)
		var f ncuBanks
		require.NoError(t, json.Unmarshal(raw, &f), file)
		require.NotEmpty(t, f.Runs)
		for _, r := range f.Runs {
			t.Run(fmt.Sprintf("%s/T=%d/P=%d", filepath.Base(file), r.T, r.P), func(t *testing.T) {
				in := &sim.Global{Name: "in", Data: make([]float32, r.N*r.N)}
				out := &sim.Global{Name: "out", Data: make([]float32, r.N*r.N)}
				st, err := (&sim.Simulator{}).Launch(TransposeKernel(in, out, r.N, r.T, r.P))
				require.NoError(t, err)
				m := st.Memory
				for _, c := range []struct {
					conflicts, instructions string
					sim                     sim.WarpCounts
				}{
					{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "smsp__sass_inst_executed_op_shared_ld.sum", m.SharedLoads},
					{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "smsp__sass_inst_executed_op_shared_st.sum", m.SharedStores},
				} {
					hw, ok := r.Metrics[c.conflicts]
					require.True(t, ok, "%s was measured", c.conflicts)
					inst, ok := r.Metrics[c.instructions]
					require.True(t, ok, "%s was measured", c.instructions)
					assert.InDelta(t, inst, float64(c.sim.Requests), 0.02*inst, "%s", c.instructions)
					if c.sim.Conflicts > 0 {
						assert.InDelta(t, hw, float64(c.sim.Conflicts), 0.02*hw, "%s: ncu %.0f, simulator %d", c.conflicts, hw, c.sim.Conflicts)
					} else {
						assert.LessOrEqual(t, hw, 0.15*inst, "%s: ncu %.0f in %.0f instructions, where no two words of a warp share a bank", c.conflicts, hw, inst)
					}
					t.Logf("T = %2d, P = %2d: %s ncu %.0f, simulator %d (%d instructions)", r.T, r.P, c.conflicts, hw, c.sim.Conflicts, c.sim.Requests)
				}
			})
		}
	}
}
