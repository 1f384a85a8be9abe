// Package datatest holds the committed-data records that the tests of
// nbrun's packages share.
package datatest

import (
	"stencillab.dev/lab"
	"stencillab.dev/lab/benchfile"
)

// ScalingBench is a bench of strong scaling at two N and weak scaling,
// with per-GPU times whose slowest compute is known: the record the
// readers' and the charts' tests share.
func ScalingBench() *benchfile.File {
	rank := func(g int, compute, exchange float64) []lab.RankTime {
		out := make([]lab.RankTime, g)
		for i := range out {
			out[i] = lab.RankTime{Compute: compute - 0.01*float64(i), Exchange: exchange, Wait: 0.01 * float64(i)}
		}
		return out
	}
	b := &benchfile.File{Device: "NVIDIA H100 80GB HBM3", Command: "stencil bench -gpus 1,2,4 -json"}
	for _, n := range []int{512, 1024} {
		base := 0.4 * float64(n*n*n) / (512 * 512 * 512)
		for _, g := range []int{1, 2, 4} {
			ms := base/float64(g) + 0.02*float64(g-1)
			b.Scaling = append(b.Scaling, benchfile.Scale{Kernel: "fast", N: n, NZ: n, GPUs: g, MedianMs: ms, PointsPerSec: 1e9,
				BaseGPUs: 1, BaseMs: base, Efficiency: base / (float64(g) * ms), RankMs: rank(g, base/float64(g)*1.05, 0.02*float64(g-1))})
		}
	}
	for _, g := range []int{1, 2, 4} {
		b.Scaling = append(b.Scaling, benchfile.Scale{Kernel: "fast", N: 512, NZ: 512 * g, GPUs: g, Weak: true, MedianMs: 0.4 + 0.01*float64(g),
			PointsPerSec: 1e9, BaseGPUs: 1, BaseMs: 0.41, Efficiency: 0.41 / (0.4 + 0.01*float64(g)), RankMs: rank(g, 0.405, 0.01)})
	}
	return b
}
