package run

import (
	"fmt"

	"stencillab.dev/figures/fig"
	"stencillab.dev/gpu"
	"stencillab.dev/gpu/bench"
	"stencillab.dev/lab"
)

// MaxBenchN bounds the grid of a live benchmark from a notebook.
const MaxBenchN = 512

// Bench times every 3D sweep of gpu.Sweeps3() at its default tile on an
// n×n×n grid on the GPU, reps timed launches each after two untimed ones,
// next to the float4 copy of the same grid, through `stencil bench`'s engine (gpu/bench):
// effective bandwidth counts 8 bytes per interior point, and each output
// is checked against lab.SevenPoint on three planes. Without a GPU the
// error wraps gpu.ErrNoGPU.
func Bench(n, reps int) (*fig.Bench, error) {
	if n < 3 || n > MaxBenchN {
		return nil, fmt.Errorf("nbrun: bench: grid side %d must be 3 to %d: %w", n, MaxBenchN, lab.ErrSize)
	}
	if reps < 1 || reps > lab.MaxReps {
		return nil, fmt.Errorf("nbrun: bench: %d timed launches; need 1 to %d: %w", reps, lab.MaxReps, lab.ErrSize)
	}
	d, err := gpu.Default()
	if err != nil {
		return nil, fmt.Errorf("nbrun: bench: %w", err)
	}
	// The steps resolved once here, at the notebook's edge; the loop is
	// `stencil bench`'s (gpu/bench).
	var configs []bench.Config
	for _, step := range gpu.Sweeps3() {
		p, err := lab.Resolve(step, lab.GPU, lab.Config{})
		if err != nil {
			return nil, fmt.Errorf("nbrun: bench: %w", err)
		}
		configs = append(configs, bench.Config{Label: step, Plan: p})
	}
	e, err := bench.Compile(d, configs, 1)
	if err != nil {
		return nil, fmt.Errorf("nbrun: bench: %w", err)
	}
	res, err := e.Run(bench.Spec{Sizes: []int{n}, Steps: 1, Warmup: 2, Reps: reps,
		Seed: func(int) uint64 { return Seed }, Check: true, Tolerance: Tolerance})
	if err != nil {
		return nil, fmt.Errorf("nbrun: bench: %w", err)
	}
	b := &fig.Bench{Device: d.Props().Name}
	for _, r := range res.Runs {
		b.Results = append(b.Results, fig.BenchResult{Kernel: r.Kernel, N: n, Tile: r.Tile, MedianMs: r.MedianMs,
			GBps: r.GBps, GFlops: r.GFlops, PctCopy: r.PctCopy, CopyGBps: r.CopyGBps})
	}
	return b, nil
}
