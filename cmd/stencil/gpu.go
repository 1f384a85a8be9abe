package main

import (
	"fmt"

	"stencillab.dev/gpu"
	"stencillab.dev/lab"
)

// The GPU backend of `stencil run`. Importing gpu registers its steps on
// lab.GPU; the hook below runs them through gpu's timed sweeper, so that the
// summary gives the kernel's own time, measured with CUDA events, beside the
// end-to-end time of a sweep of Go grids (which includes copying both grids
// to the device and the result back).

func init() {
	runHooks[lab.GPU] = gpuHook
}

func gpuHook(step string, cfg lab.Config) (lab.SweepFunc, func() []field, error) {
	d, err := gpu.Default()
	if err != nil {
		return nil, nil, err
	}
	sweep, measured, release, err := d.TimedSweeper(step, gpu.Options{Tile: cfg.Tile})
	if err != nil {
		return nil, nil, err
	}
	var interior int
	counted := func(dst, src *lab.Grid3[float32], c lab.Coeffs) error {
		interior = src.Interior()
		return sweep(dst, src, c)
	}
	report := func() []field {
		defer release()
		return gpuFields(measured(), interior)
	}
	return counted, report, nil
}

// gpuFields summarises the timed launches: the launch geometry and the
// median kernel time with the bandwidth and flop rate it gives.
func gpuFields(m gpu.Measurement, interior int) []field {
	if len(m.Millis) == 0 {
		return nil
	}
	g, med := m.Geometry, m.Median
	gbps := 8 * float64(interior) / (med * 1e6)
	gflops := lab.Flops7 * float64(interior) / (med * 1e6)
	return []field{
		{Key: "grid", Label: "Grid of blocks", Value: fmt.Sprintf("%dx%dx%d", g.Grid[0], g.Grid[1], g.Grid[2]),
			Text: fmt.Sprintf("%d×%d×%d = %d blocks", g.Grid[0], g.Grid[1], g.Grid[2], g.Blocks())},
		{Key: "block", Label: "Block of threads", Value: fmt.Sprintf("%dx%dx%d", g.Block[0], g.Block[1], g.Block[2]),
			Text: fmt.Sprintf("%d×%d×%d = %d threads", g.Block[0], g.Block[1], g.Block[2], g.Threads())},
		{Key: "shared_bytes", Label: "Shared memory/block", Value: g.SharedBytes, Text: fmt.Sprintf("%d B", g.SharedBytes)},
		{Key: "kernel_ms", Label: "Kernel time", Value: med,
			Text: fmt.Sprintf("%.4f ms (median of %d, CUDA events; Time above includes host↔device copies)", med, len(m.Millis))},
		{Key: "kernel_gbps", Label: "Kernel throughput", Value: gbps, Text: fmt.Sprintf("%.1f GB/s (8 B per interior point)", gbps)},
		{Key: "kernel_gflops", Label: "Kernel compute", Value: gflops, Text: fmt.Sprintf("%.1f GFLOP/s", gflops)},
	}
}
