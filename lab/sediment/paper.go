package sediment

import "fmt"

// Counts by which the paper turns times into rates, and the bytes each
// kernel must move through device memory at the least.
const (
	// FlopsH is the paper's count of floating-point operations per h point.
	FlopsH = 55
	// FlopsS is the paper's count of floating-point operations per s point.
	FlopsS = 34
	// BytesH is the necessary traffic of the h-kernel per point: α, β, s
	// and h read once, h' written once, 8 bytes each.
	BytesH = 5 * 8
	// BytesS is the necessary traffic of the s-kernel per point: α, β, s
	// and h read once, s' written once. The paper's s-kernel reads h^{ℓ+1}
	// instead of β: the same count.
	BytesS = 5 * 8
	// BytesFused is the necessary traffic of one kernel that computes both
	// h' and s': four arrays read, two written.
	BytesFused = 6 * 8
)

// KernelCost returns the paper's flops and the necessary bytes a point of
// a kernel: KernelH, KernelS or KernelFused; zero for any other name.
func KernelCost(kernel string) (flops, bytes int) {
	switch kernel {
	case KernelH:
		return FlopsH, BytesH
	case KernelS:
		return FlopsS, BytesS
	case KernelFused:
		return FlopsH + FlopsS, BytesFused
	}
	return 0, 0
}

// PaperRow is one row of Tables 2 and 3 of Su et al., ICCS 2013: one
// kernel version measured on one GPU on a 4096×4096 mesh in double
// precision, with the resources the CUDA profiler reported.
type PaperRow struct {
	Kernel      string  // "h" or "s"
	Version     string  // the paper's name: "Baseline", "OPT-1", "OPT-2", "OPT-3"
	Variant     string  // the lab's variant: baseline, opt1, opt2, opt3
	Block       string  // thread block, e.g. "32×4"
	GFLOPs      float64 // achieved GFLOP/s, counting FlopsH or FlopsS per point
	Regs        int     // registers per thread
	SharedBytes int     // shared memory per block
	Occupancy   float64 // occupancy reported by the profiler
}

// PaperGPU is one GPU of the paper: its column of Table 1 and its rows of
// Table 2 (K20) or Table 3 (GTX 590).
type PaperGPU struct {
	Name          string
	Architecture  string
	SMs           int
	Cores         int
	RegsPerSM     int
	SharedKBPerSM int
	L1KBPerSM     int
	ReadOnlyKB    int // read-only data cache per SM; 0 where the GPU has none
	L2KB          int
	PeakDPGFLOPs  float64 // peak double precision
	TheoryGBs     float64 // theoretical memory bandwidth
	TestedGBs     float64 // bandwidth the authors measured
	Rows          []PaperRow
	Note          string
}

// PaperK20 is the Tesla K20 (Kepler GK110) of the paper: Table 1 and
// Table 2 of Su, Wu, Wen, Zhang and Cai, "Performance of Sediment Transport
// Simulations on NVIDIA's Kepler Architecture", Procedia Computer Science 18
// (2013) 1275–1281, doi:10.1016/j.procs.2013.05.294. OPT-1 is the read-only
// data cache through const __restrict__.
var PaperK20 = PaperGPU{
	Name: "Tesla K20", Architecture: "Kepler GK110", SMs: 13, Cores: 2496,
	RegsPerSM: 65536, SharedKBPerSM: 48, L1KBPerSM: 16, ReadOnlyKB: 48, L2KB: 1280,
	PeakDPGFLOPs: 1170, TheoryGBs: 208, TestedGBs: 160.88,
	Rows: []PaperRow{
		{"h", "Baseline", "baseline", "32×4", 88.43, 55, 0, 0.562},
		{"h", "OPT-1", "opt1", "32×4", 178.69, 52, 0, 0.562},
		{"h", "OPT-2", "opt2", "32×4", 182.36, 33, 3264, 0.750},
		{"h", "OPT-3", "opt3", "34×6", 190.45, 34, 3264, 0.656},
		{"s", "Baseline", "baseline", "32×4", 67.99, 39, 0, 0.750},
		{"s", "OPT-1", "opt1", "32×4", 122.78, 40, 0, 0.750},
		{"s", "OPT-2", "opt2", "32×4", 112.84, 38, 1632, 0.750},
		{"s", "OPT-3", "opt3", "34×6", 110.55, 33, 1632, 0.656},
	},
	// The paper's 165 is the flop-weighted mean of the two rates; a step,
	// the two kernels one after the other, runs at their harmonic mean,
	// 89/(55/190.45 + 34/122.78) ≈ 157 (StepGFLOPs).
	Note: "best combination (OPT-3 h, OPT-1 s): a step at 157 GFLOP/s (the paper's 165 averages the two rates)",
}

// PaperGTX590 is the GeForce GTX 590 (Fermi GF110) of the paper: Table 1
// and Table 3 of the same article. There OPT-1 is the L1 cache set to 48 KB
// (cudaFuncCachePreferL1). Our copy of Table 3 ends after the s-kernel's
// OPT-2 row, so it has no OPT-3 s row.
var PaperGTX590 = PaperGPU{
	Name: "GeForce GTX 590", Architecture: "Fermi GF110", SMs: 16, Cores: 512,
	RegsPerSM: 32768, SharedKBPerSM: 48, L1KBPerSM: 16, ReadOnlyKB: 0, L2KB: 768,
	PeakDPGFLOPs: 161.3, TheoryGBs: 165.9, TestedGBs: 142.94,
	Rows: []PaperRow{
		{"h", "Baseline", "baseline", "32×4", 76.46, 55, 0, 0.333},
		{"h", "OPT-1 (PreferL1)", "opt1", "32×4", 81.36, 55, 0, 0.333},
		{"h", "OPT-2", "opt2", "32×4", 76.98, 29, 4896, 0.667},
		{"h", "OPT-3", "opt3", "34×6", 87.97, 22, 4896, 0.875},
		{"s", "Baseline", "baseline", "32×4", 72.23, 39, 0, 0.500},
		{"s", "OPT-1 (PreferL1)", "opt1", "32×4", 75.11, 39, 0, 0.500},
		{"s", "OPT-2", "opt2", "32×4", 56.49, 29, 3264, 0.667},
	},
	Note: "best combination (OPT-3 h, OPT-1 s): 82 GFLOP/s overall",
}

// StepGFLOPs is the rate of a whole step of the paper's model on g with the
// h-kernel in variant hv and the s-kernel in variant sv: the two kernels
// run one after the other, so their times per point add, and the step does
// the flops of both (KernelCost) in that time.
func (g PaperGPU) StepGFLOPs(hv, sv string) (float64, error) {
	h, ok := g.Row(KernelH, hv)
	if !ok {
		return 0, fmt.Errorf("sediment: %s has no %s row for the h-kernel", g.Name, hv)
	}
	s, ok := g.Row(KernelS, sv)
	if !ok {
		return 0, fmt.Errorf("sediment: %s has no %s row for the s-kernel", g.Name, sv)
	}
	fh, _ := KernelCost(KernelH)
	fs, _ := KernelCost(KernelS)
	return float64(fh+fs) / (float64(fh)/h.GFLOPs + float64(fs)/s.GFLOPs), nil
}

// PaperGPUs returns the paper's two GPUs, K20 first.
func PaperGPUs() []PaperGPU { return []PaperGPU{PaperK20, PaperGTX590} }

// Row returns the paper's row for a kernel ("h" or "s") and a lab variant,
// and whether the paper has one.
func (g PaperGPU) Row(kernel, variant string) (PaperRow, bool) {
	for _, r := range g.Rows {
		if r.Kernel == kernel && r.Variant == variant {
			return r, true
		}
	}
	return PaperRow{}, false
}

// BandwidthShare returns the share of a copy bandwidth that a kernel
// running at gflops reaches for its necessary traffic: the points per
// second gflops/flopsPerPoint times bytesPerPoint, over copyGBs.
func BandwidthShare(gflops float64, flopsPerPoint, bytesPerPoint int, copyGBs float64) float64 {
	return gflops / float64(flopsPerPoint) * float64(bytesPerPoint) / copyGBs
}
