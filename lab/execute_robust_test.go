package lab

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab/sim"
)

// TestExecuteNeverPanics runs thousands of random runs, most of them
// wrong in some way (unknown steps and backends, negative or huge sides,
// tiles and blocks, grids built as inconsistent literals, kernels of one's
// own that store out of range), and checks that Execute answers each with
// a result or an error, never a panic.
func TestExecuteNeverPanics(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	names := append(StepNames(), "", "nope", "mine")
	backends := []string{CPU, Sim, GPU, "", "x"}
	grid := func() *Grid3[float32] {
		switch r.IntN(4) {
		case 0:
			return nil
		case 1:
			g, err := NewGrid3[float32](r.IntN(8)+1, r.IntN(8)+1, r.IntN(8)+1)
			if err != nil {
				return nil
			}
			return g
		case 2:
			return &Grid3[float32]{NZ: r.IntN(8) - 2, NY: r.IntN(8) - 2, NX: r.IntN(8) - 2, Data: make([]float32, r.IntN(100))}
		}
		g, _ := NewCube[float32](r.IntN(6) + 3)
		return g
	}
	for i := range 3000 {
		run := Run{Step: names[r.IntN(len(names))], Backend: backends[r.IntN(len(backends))],
			Config: Config{Tile: r.IntN(40) - 2}, NZ: r.IntN(10) - 2, NY: r.IntN(10) - 2, NX: r.IntN(10) - 2,
			Steps: r.IntN(10) - 2, Reps: r.IntN(4) - 1}
		if r.IntN(3) == 0 {
			run.Config.Block = sim.Dim3{X: r.IntN(40) - 2, Y: r.IntN(6) - 1, Z: r.IntN(6) - 1}
		}
		if r.IntN(2) == 0 {
			run.Src = grid()
		}
		if r.IntN(2) == 0 {
			run.Dst = grid()
		}
		if r.IntN(5) == 0 {
			run.Kernel = func(a StencilArgs) (sim.Kernel, error) {
				return sim.Kernel{Grid: sim.Dim3{X: a.NX, Y: a.NY, Z: a.NZ}, Block: sim.Dim3{X: a.Tile, Y: 1, Z: 1}, Body: func(t *sim.Thread) {
					t.Store(a.Out, t.ThreadIdx.X*1000, 1)
				}}, nil
			}
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("run %d %s: panic %v", i, fmt.Sprintf("%s %s tile %d block %v n %d %d %d steps %d reps %d src %v dst %v", run.Step, run.Backend, run.Config.Tile, run.Config.Block, run.NZ, run.NY, run.NX, run.Steps, run.Reps, run.Src != nil, run.Dst != nil), p)
				}
			}()
			_, _ = Execute(run)
		}()
	}
}

// TestExecuteReportsProgress runs a kernel of one's own that takes about
// four seconds and checks that Run.Progress hears of it.
func TestExecuteReportsProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("takes longer than sim.ProgressAfter, about four seconds; runs without -short")
	}
	// Eight rounds of half a second, whatever the number of workers.
	blocks := 8 * runtime.GOMAXPROCS(0)
	nap := func(a StencilArgs) (sim.Kernel, error) {
		return sim.Kernel{Name: "slow", Grid: sim.Dim3{X: blocks, Y: 1, Z: 1}, Block: sim.Dim3{X: 1, Y: 1, Z: 1},
			Body: func(*sim.Thread) { time.Sleep(500 * time.Millisecond) }}, nil
	}
	var got []sim.Progress
	var mu sync.Mutex
	_, err := Execute(Run{Step: "slow", Kernel: nap, Backend: Sim, NZ: 3, NY: 3, NX: 3, Progress: func(p sim.Progress) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, p)
	}})
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, got, "a run of about 4 s reports")
	last := got[len(got)-1]
	assert.True(t, last.Final)
	assert.Equal(t, blocks, last.Done)
}
