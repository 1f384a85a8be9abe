package sediment

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Kernel names of a bench row.
const (
	KernelH     = "h"   // the h-kernel, eq. 3
	KernelS     = "s"   // the s-kernel, eq. 4
	KernelFused = "h+s" // one kernel computing both
)

// Variants are the GPU kernel variants in the paper's order, then ours.
var Variants = []string{"baseline", "opt1", "opt2", "opt3", "best"}

// VersionName returns the paper's name of a variant: Baseline, OPT-1,
// OPT-2, OPT-3; "best" stays itself.
func VersionName(variant string) string {
	switch variant {
	case "baseline":
		return "Baseline"
	case "opt1":
		return "OPT-1"
	case "opt2":
		return "OPT-2"
	case "opt3":
		return "OPT-3"
	}
	return variant
}

// CheckVariant returns an error naming the known variants unless v is one.
func CheckVariant(v string) error {
	for _, k := range Variants {
		if k == v {
			return nil
		}
	}
	return fmt.Errorf("sediment: variant %q: %w (known: %s)", v, ErrInput, strings.Join(Variants, ", "))
}

// BenchRow is one measured kernel, in the layout of the paper's Tables 2
// and 3 plus the bandwidth it reaches for the bytes it must move.
type BenchRow struct {
	Kernel        string  `json:"kernel"`  // KernelH, KernelS or KernelFused
	Variant       string  `json:"variant"` // baseline, opt1, opt2, opt3, best
	Block         string  `json:"block"`   // thread block, e.g. "32×4"
	Config        string  `json:"config,omitempty"`
	Ms            float64 `json:"ms"`              // median time of one launch
	GFLOPs        float64 `json:"gflops"`          // paper's flop count per point over Ms
	Regs          int     `json:"regs"`            // registers per thread
	SharedBytes   int     `json:"shared_bytes"`    // static shared memory per block
	Occupancy     float64 `json:"occupancy"`       // resident warps over the SM's maximum; −1 if not obtained
	BytesPerPoint int     `json:"bytes_per_point"` // necessary traffic
	GBs           float64 `json:"gbs"`             // necessary traffic over Ms
	CopyShare     float64 `json:"copy_share"`      // GBs over the copy kernel's
}

// BenchReport is one bench run on one GPU.
type BenchReport struct {
	Command string     `json:"command,omitempty"` // how it was made
	Device  string     `json:"device"`
	Arch    string     `json:"arch"`
	SMs     int        `json:"sms"`
	Nx      int        `json:"nx"`
	Ny      int        `json:"ny"`
	Reps    int        `json:"reps"`     // timed launches per kernel; times are medians
	CopyGBs float64    `json:"copy_gbs"` // 16-byte copy kernel, bytes read plus written
	Rows    []BenchRow `json:"rows"`
}

// Row returns the report's row for a kernel and variant; none in a nil
// report.
func (r *BenchReport) Row(kernel, variant string) (BenchRow, bool) {
	if r == nil {
		return BenchRow{}, false
	}
	for _, row := range r.Rows {
		if row.Kernel == kernel && row.Variant == variant {
			return row, true
		}
	}
	return BenchRow{}, false
}

// LoadBench reads a BenchReport written as JSON, such as
// docs/sediment_h200.json.
func LoadBench(path string) (*BenchReport, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sediment: bench report: %w", err)
	}
	var r BenchReport
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("sediment: bench report %s: %w", path, err)
	}
	if r.Nx < 1 || r.Ny < 1 || len(r.Rows) == 0 {
		return nil, fmt.Errorf("sediment: bench report %s has no mesh or no rows: %w", path, ErrInput)
	}
	return &r, nil
}

func fmtShared(b int) string {
	if b == 0 {
		return "0"
	}
	return fmt.Sprintf("%d B", b)
}

func fmtOcc(o float64) string {
	if o < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", o)
}

// WriteTable writes the report in the layout of the paper's tables, one
// block per kernel: code version, thread block, GFLOP/s, registers per
// thread, shared memory per block, occupancy, then the GB/s of necessary
// traffic and its share of the copy kernel, and beside them the paper's
// GFLOP/s, registers and occupancy on the K20 and the GTX 590 with the
// share of the bandwidth the authors measured that the same traffic
// count gives.
func WriteTable(w io.Writer, r *BenchReport) error {
	if w == nil || r == nil {
		return fmt.Errorf("sediment: bench table: nil writer or report: %w", ErrInput)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, %d SMs), %d×%d mesh, fp64, median of %d launches; 16-byte copy kernel %.0f GB/s\n",
		r.Device, r.Arch, r.SMs, r.Nx, r.Ny, r.Reps, r.CopyGBs)
	for _, k := range []string{KernelH, KernelS, KernelFused} {
		var rows []BenchRow
		for _, row := range r.Rows {
			if row.Kernel == k {
				rows = append(rows, row)
			}
		}
		if len(rows) == 0 {
			continue
		}
		flops, bytes := KernelCost(k)
		fmt.Fprintf(&b, "\n%s-kernel (%d flops and %d bytes a point)\n", k, flops, bytes)
		fmt.Fprintf(&b, "%-9s %-6s %9s %5s %8s %6s %7s %7s | %-23s | %-23s\n",
			"version", "block", "GFLOP/s", "regs", "shared", "occ", "GB/s", "of copy",
			"K20: GFLOP/s regs occ bw", "GTX 590: same")
		for _, row := range rows {
			fmt.Fprintf(&b, "%-9s %-6s %9.1f %5d %8s %6s %7.0f %6.1f%% | %-23s | %-23s\n",
				VersionName(row.Variant), row.Block, row.GFLOPs, row.Regs, fmtShared(row.SharedBytes),
				fmtOcc(row.Occupancy), row.GBs, 100*row.CopyShare,
				paperCell(PaperK20, k, row.Variant), paperCell(PaperGTX590, k, row.Variant))
		}
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("sediment: write table: %w", err)
	}
	return nil
}

// paperCell writes the paper's GFLOP/s, registers, occupancy and share of
// the authors' measured bandwidth for one kernel, or a dash where the
// paper has no row.
func paperCell(g PaperGPU, kernel, variant string) string {
	p, ok := g.Row(kernel, variant)
	if !ok {
		return "—"
	}
	flops, bytes := KernelCost(kernel)
	return fmt.Sprintf("%6.2f %2d %5.3f %3.0f%%", p.GFLOPs, p.Regs, p.Occupancy,
		100*BandwidthShare(p.GFLOPs, flops, bytes, g.TestedGBs))
}
