package main

import (
	"fmt"
	"sort"

	"stencillab.dev/gpu"
	"stencillab.dev/lab"
)

// The GPU backend of `stencil run`. Importing gpu registers its steps on
// lab.GPU; the hook below runs them on device buffers it keeps between
// repetitions, so that the summary can give the kernel's own time, measured
// with CUDA events, beside the end-to-end time of a sweep of Go grids
// (which includes copying both grids to the device and the result back).

func init() {
	runHooks[lab.GPU] = gpuHook
}

func gpuHook(step string, cfg lab.Config) (lab.SweepFunc, func() []field, error) {
	d, err := gpu.Default()
	if err != nil {
		return nil, nil, err
	}
	k, err := d.Stencil3(step, gpu.Options{Tile: cfg.Tile})
	if err != nil {
		return nil, nil, err
	}
	var (
		src, dst *gpu.Buffer
		launches []gpu.Launch
		interior int
	)
	sweep := func(dg, sg *lab.Grid3[float32], c lab.Coeffs) error {
		if err := lab.CheckSweep(dg, sg); err != nil {
			return fmt.Errorf("gpu: %s: %w", step, err)
		}
		if _, err := k.Geometry(sg.NZ, sg.NY, sg.NX); err != nil {
			return err
		}
		if src == nil || src.Len() != len(sg.Data) {
			what := fmt.Sprintf("%s on a %d×%d×%d grid (source and destination)", step, sg.NZ, sg.NY, sg.NX)
			if err := d.CheckFree(what, 2*uint64(len(sg.Data))*4); err != nil {
				return err
			}
			if src, err = d.Alloc(len(sg.Data)); err != nil {
				return err
			}
			if dst, err = d.Alloc(len(sg.Data)); err != nil {
				return err
			}
		}
		if err := src.Upload(0, sg.Data); err != nil {
			return fmt.Errorf("gpu: %s: %w", step, err)
		}
		if err := dst.Upload(0, dg.Data); err != nil {
			return fmt.Errorf("gpu: %s: %w", step, err)
		}
		l, err := k.Launch(dst, src, sg.NZ, sg.NY, sg.NX, c)
		if err != nil {
			return err
		}
		launches = append(launches, l)
		interior = sg.Interior()
		if err := dst.Download(0, dg.Data); err != nil {
			return fmt.Errorf("gpu: %s: %w", step, err)
		}
		return nil
	}
	report := func() []field {
		defer func() {
			src.Free()
			dst.Free()
		}()
		return gpuFields(launches, interior)
	}
	return sweep, report, nil
}

// gpuFields summarises the timed launches: the launch geometry and the
// median kernel time with the bandwidth and flop rate it gives.
func gpuFields(launches []gpu.Launch, interior int) []field {
	if len(launches) == 0 {
		return nil
	}
	ms := make([]float64, len(launches))
	for i, l := range launches {
		ms[i] = l.Millis
	}
	sort.Float64s(ms)
	med := ms[len(ms)/2]
	g := launches[0].Geometry
	gbps := 8 * float64(interior) / (med * 1e6)
	gflops := lab.Flops7 * float64(interior) / (med * 1e6)
	return []field{
		{Key: "grid", Label: "Grid of blocks", Value: fmt.Sprintf("%dx%dx%d", g.Grid[0], g.Grid[1], g.Grid[2]),
			Text: fmt.Sprintf("%d×%d×%d = %d blocks", g.Grid[0], g.Grid[1], g.Grid[2], g.Blocks())},
		{Key: "block", Label: "Block of threads", Value: fmt.Sprintf("%dx%dx%d", g.Block[0], g.Block[1], g.Block[2]),
			Text: fmt.Sprintf("%d×%d×%d = %d threads", g.Block[0], g.Block[1], g.Block[2], g.Threads())},
		{Key: "shared_bytes", Label: "Shared memory/block", Value: g.SharedBytes, Text: fmt.Sprintf("%d B", g.SharedBytes)},
		{Key: "kernel_ms", Label: "Kernel time", Value: med,
			Text: fmt.Sprintf("%.4f ms (median of %d, CUDA events; Time above includes host↔device copies)", med, len(ms))},
		{Key: "kernel_gbps", Label: "Kernel throughput", Value: gbps, Text: fmt.Sprintf("%.1f GB/s (8 B per interior point)", gbps)},
		{Key: "kernel_gflops", Label: "Kernel compute", Value: gflops, Text: fmt.Sprintf("%.1f GFLOP/s", gflops)},
	}
}
