package model

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"stencillab.dev/lab"
	"stencillab.dev/lab/halo"
	"stencillab.dev/notebooks/nbrun/run"
)

// NVLinkGBps is the NVLink bandwidth of an H100 or H200 SXM, per
// direction, in 10⁹ B/s: 18 links of 25 GB/s (NVIDIA's H100 and H200
// datasheets give 900 GB/s in both directions together).
const NVLinkGBps = 450

// HaloRatio is the model of a z-slab split: the time a GPU spends sending
// its halo planes over the time it spends sweeping its slab. A rank of
// an N³ grid split over G GPUs sweeps N³/G points at 8 bytes each through
// its memory (B_mem) and sends two planes of N² floats, 8·N² bytes, through
// its links (B_link): (8N²/B_link) / (8N³/(G·B_mem)) = G·B_mem / (N·B_link).
func HaloRatio(n, gpus int, memGBps, linkGBps float64) float64 {
	return float64(gpus) * memGBps / (float64(n) * linkGBps)
}

// HaloModelTable prints the model's ratio for grids ns on gpus GPUs.
func HaloModelTable(ns, gpus []int, memGBps, linkGBps float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "halo time / compute time = G·B_mem/(N·B_link), B_mem = %.0f GB/s, B_link = %.0f GB/s\n", memGBps, linkGBps)
	fmt.Fprintf(&b, "%6s", "N")
	for _, g := range gpus {
		fmt.Fprintf(&b, " %9s", fmt.Sprintf("G = %d", g))
	}
	b.WriteString("\n")
	for _, n := range ns {
		fmt.Fprintf(&b, "%6d", n)
		for _, g := range gpus {
			fmt.Fprintf(&b, " %9.3f", HaloRatio(n, g, memGBps, linkGBps))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// PartsTable prints the parts of a split: what each rank owns and holds.
func PartsTable(parts []halo.Part) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%4s %14s %14s %14s %6s %6s\n", "rank", "owns planes", "owns rows", "holds planes", "Down", "Up")
	for _, p := range parts {
		fmt.Fprintf(&b, "%4d %14s %14s %14s %6d %6d\n", p.Rank,
			fmt.Sprintf("[%d, %d)", p.Z0, p.Z1), fmt.Sprintf("[%d, %d)", p.Y0, p.Y1), fmt.Sprintf("[%d, %d)", p.LZ0, p.LZ1), p.Down, p.Up)
	}
	return b.String()
}

// SplitRun is a sweep run split over CPU ranks, beside the same run on one
// domain.
type SplitRun struct {
	Step             string
	N, Ranks, PY     int
	Steps            int
	Result           lab.Result // the split's
	Equal            bool       // its output equals the single domain's, bit for bit
	SplitMs, WholeMs float64    // median times of the split and of the single domain
	Surface          []halo.Surface
}

// RunSplitCPU runs steps time steps of step on an n³ grid on one domain
// and split over ranks CPU ranks (py of them along y), and compares the
// outputs bit for bit.
func RunSplitCPU(step string, n, ranks, py, steps int) (SplitRun, error) {
	r := lab.Run{Step: step, Backend: lab.CPU, NZ: n, NY: n, NX: n, C: lab.DistinctCoeffs(), Seed: run.Seed, Steps: steps, Reps: 3}
	whole, err := lab.Execute(r)
	if err != nil {
		return SplitRun{}, fmt.Errorf("nbrun: %s on one domain: %w", step, err)
	}
	r.Split = lab.Split{Ranks: ranks, PY: py}
	split, err := lab.Execute(r)
	if err != nil {
		return SplitRun{}, fmt.Errorf("nbrun: %s over %d ranks: %w", step, ranks, err)
	}
	if split.Comm == nil {
		return SplitRun{}, fmt.Errorf("nbrun: %s over %d ranks: the split counted no messages", step, ranks)
	}
	parts, err := halo.Decompose(n, n, n, ranks, py, split.Comm.Halo)
	if err != nil {
		return SplitRun{}, fmt.Errorf("nbrun: %w", err)
	}
	return SplitRun{Step: step, N: n, Ranks: ranks, PY: max(py, 1), Steps: split.Steps, Result: split,
		Equal:   slices.EqualFunc(split.Out.Data, whole.Out.Data, sameBits),
		SplitMs: split.MedianMillis(), WholeMs: whole.MedianMillis(), Surface: halo.Volume(parts)}, nil
}

// sameBits reports whether two float32 values have the same bits: unlike
// ==, it tells −0 from +0 and finds a NaN equal to itself.
func sameBits(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }

// String prints what the split sent and how its ranks' points compare
// with their halos.
func (s SplitRun) String() string {
	var b strings.Builder
	c := s.Result.Comm
	if c == nil || len(c.Messages) < len(s.Surface) || len(c.Bytes) < len(s.Surface) {
		return fmt.Sprintf("%s on %d³: no split was counted\n", s.Step, s.N)
	}
	shape := fmt.Sprintf("%d z-slabs", s.Ranks)
	if s.PY > 1 {
		shape = fmt.Sprintf("%d×%d pencils (z×y)", s.Ranks/s.PY, s.PY)
	}
	fmt.Fprintf(&b, "%s on %d³ over %s, halo h = %d, %d time steps: output equal to one domain's bit for bit: %v\n",
		s.Step, s.N, shape, c.Halo, s.Steps, s.Equal)
	fmt.Fprintf(&b, "per time step: %.0f messages, %.0f halo bytes (%.2f MB)\n", c.MessagesPerStep(), c.BytesPerStep(), c.BytesPerStep()/1e6)
	fmt.Fprintf(&b, "%4s %10s %10s %12s %12s %10s\n", "rank", "messages", "bytes", "interior pts", "halo pts", "halo/int")
	for i, sf := range s.Surface {
		fmt.Fprintf(&b, "%4d %10d %10d %12d %12d %10.4f\n", sf.Rank, c.Messages[i], c.Bytes[i], sf.Interior, sf.Halo, sf.Ratio)
	}
	fmt.Fprintf(&b, "median time: %.1f ms split, %.1f ms on one domain (CPU ranks share this machine's cores)\n", s.SplitMs, s.WholeMs)
	return b.String()
}

// BusiestHalo is the model of issue 27: the halo points the busiest rank
// of a pz×py split of an N³ grid receives per exchange (h = 1). A rank
// receives N·N/py points from each of its z neighbours (two in the middle,
// one at an end, none when pz = 1) and N·N/pz from each of its y
// neighbours; py = 1 is z-slabs.
func BusiestHalo(n, pz, py int) float64 {
	nn := float64(n) * float64(n)
	return float64(min(2, pz-1))*nn/float64(py) + float64(min(2, py-1))*nn/float64(pz)
}

// BestPencils returns the pz×py split of g ranks, py > 1, whose busiest
// rank receives the smallest halo (the first such, fewest along y); 0, 0
// for g outside 2 … lab.MaxRanks.
func BestPencils(n, g int) (pz, py int) {
	if g < 2 || g > lab.MaxRanks {
		return 0, 0
	}
	best := math.Inf(1)
	for y := 2; y <= g; y++ {
		if g%y != 0 {
			continue
		}
		if h := BusiestHalo(n, g/y, y); h < best {
			best, pz, py = h, g/y, y
		}
	}
	return pz, py
}

// MaxHalo returns the halo points of a split run's busiest rank.
func (s SplitRun) MaxHalo() float64 {
	m := int64(0)
	for _, sf := range s.Surface {
		m = max(m, sf.Halo)
	}
	return float64(m)
}
