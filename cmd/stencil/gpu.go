package main

import (
	"fmt"

	_ "stencillab.dev/gpu"       // registers the GPU backend
	_ "stencillab.dev/gpu/multi" // registers its splitter over several GPUs
	"stencillab.dev/lab"
)

// The GPU's part of `stencil run`'s summary: the launch and the kernel's
// own time, measured with CUDA events, beside the end-to-end time of a
// sweep of Go grids (which includes copying both grids to the device and
// the result back). Importing gpu registers the GPU backend with the lab, importing
// gpu/multi its splitter (-devices, -ranks on GPUs).

// gpuFields summarises the timed launches: the launch geometry and the
// median kernel time with the bandwidth and flop rate it gives.
func gpuFields(res lab.Result) []field {
	if len(res.Millis) == 0 {
		return nil
	}
	g, med, interior := res.Launch.Geometry, res.MedianMillis(), res.Interior()
	gbps := 8 * float64(interior) / (med * 1e6)
	gflops := lab.Flops7 * float64(interior) / (med * 1e6)
	return []field{
		{Key: "grid", Label: "Grid of blocks", Value: fmt.Sprintf("%dx%dx%d", g.Grid.X, g.Grid.Y, g.Grid.Z),
			Text: fmt.Sprintf("%d×%d×%d = %d blocks", g.Grid.X, g.Grid.Y, g.Grid.Z, g.Grid.Size())},
		{Key: "block", Label: "Block of threads", Value: fmt.Sprintf("%dx%dx%d", g.Block.X, g.Block.Y, g.Block.Z),
			Text: fmt.Sprintf("%d×%d×%d = %d threads", g.Block.X, g.Block.Y, g.Block.Z, g.Block.Size())},
		{Key: "shared_bytes", Label: "Shared memory/block", Value: g.SharedBytes, Text: fmt.Sprintf("%d B", g.SharedBytes)},
		{Key: "kernel_ms", Label: "Kernel time", Value: med,
			Text: fmt.Sprintf("%.4f ms (median of %d, CUDA events; Time above includes host↔device copies)", med, len(res.Millis))},
		{Key: "kernel_gbps", Label: "Kernel throughput", Value: gbps, Text: fmt.Sprintf("%.1f GB/s (8 B per interior point)", gbps)},
		{Key: "kernel_gflops", Label: "Kernel compute", Value: gflops, Text: fmt.Sprintf("%.1f GFLOP/s", gflops)},
	}
}
