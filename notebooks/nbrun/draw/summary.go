package draw

import (
	"fmt"
	"strings"

	"stencillab.dev/figures/fig"
	"stencillab.dev/gpu"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// SummaryN is the grid side of the measured column of KernelSummary: the
// size the recorded bench times the chapter's kernels at.
const SummaryN = 512

// KernelSummary returns one table of the chapter's kernels, each at the
// tile its recorded run used on an N = SummaryN grid (the registered
// default where the bench has no run): threads and shared bytes per block,
// global loads and stores per output point, the chapter's operations per
// byte as the formula 13·outputs / (4·loads) of one block far from the
// faces with its value, the limit that bounds the tile (threads or shared
// memory, lab.MaxTile with CUDA's default limits) and the share of the
// float4 copy the kernel reached in b, whose card the table names. Every
// number comes from the lab's cost model or from b; a nil b leaves the
// measured column empty.
func KernelSummary(b *fig.Bench) (string, error) {
	var sb strings.Builder
	card := "no recorded run"
	if b != nil && b.Device != "" {
		card = b.Device
	}
	// The table stays under 110 characters a line, so that Jupyter does
	// not wrap it; without a bench it has no measured column.
	measured := ""
	if b != nil {
		measured = fmt.Sprintf("  %% of copy, N = %d", SummaryN)
	}
	fmt.Fprintf(&sb, "%s\n", strings.TrimRight(fmt.Sprintf("%-14s %-14s %7s %7s %8s %9s  %-25s %-14s%s", "kernel", "tile", "threads", "shared",
		"loads/pt", "stores/pt", "OP/B = 13·out/(4·loads)", "largest tile", measured), " "))
	rows := 0
	for _, step := range gpu.Steps3() {
		s, err := lab.LookupStep3(step)
		if err != nil || !lab.InModel(s) {
			continue
		}
		tile, pct := s.DefaultTile, ""
		if r, ok := benchRun(b, step, SummaryN); ok {
			switch {
			case r.Tile < 0:
				return "", fmt.Errorf("nbrun: kernel summary: the bench's run of %s at N = %d has tile %d", step, SummaryN, r.Tile)
			case r.Tile > 0:
				tile = r.Tile
			}
			pct = fmt.Sprintf("%.1f", r.Pct())
		}
		c, err := lab.Cost(step, tile)
		if err != nil {
			return "", fmt.Errorf("nbrun: kernel summary: %s at tile %d: %w", step, tile, err)
		}
		if c.Outputs == 0 || c.Loads == 0 {
			return "", fmt.Errorf("nbrun: kernel summary: %s at tile %d computes %d points from %d loads", step, tile, c.Outputs, c.Loads)
		}
		maxT, bound, err := lab.MaxTile(step, sim.DefaultLimits())
		if err != nil {
			return "", fmt.Errorf("nbrun: kernel summary: %s: %w", step, err)
		}
		tileText := fmt.Sprintf("%s %d", s.TileName, tile)
		if s.BlockShape {
			tileText = fmt.Sprintf("%d×%d×%d block", tile, tile, tile)
		}
		formula := fmt.Sprintf("13·%d/(4·%d) = %.2f", c.Outputs, c.Loads, c.OpPerByte())
		if b != nil {
			pct = fmt.Sprintf("  %18s", pct)
		}
		fmt.Fprintf(&sb, "%s\n", strings.TrimRight(fmt.Sprintf("%-14s %-14s %7d %7d %8.2f %9.2f  %-25s %-14s%s", step, tileText, c.Threads, c.SharedBytes,
			float64(c.Loads)/float64(c.Outputs), 1.0, formula, fmt.Sprintf("%d (%s)", maxT, bound), pct), " "))
		rows++
	}
	if rows == 0 {
		return "", fmt.Errorf("nbrun: kernel summary: no registered step is in the chapter's cost model")
	}
	if b == nil {
		fmt.Fprintf(&sb, "\nShared in bytes per block; %s here: notebook 7 times the kernels. Loads and OP/B count one\n"+
			"block far from the grid's faces, as the chapter does; a block stores each of its outputs once.\n", card)
		return sb.String(), nil
	}
	fmt.Fprintf(&sb, "\nShared in bytes per block; the measured column: %s. Loads and OP/B count one block far from\n"+
		"the grid's faces, as the chapter does; a block stores each of its outputs once.\n", card)
	return sb.String(), nil
}

// benchRun returns b's run of step at grid side n.
func benchRun(b *fig.Bench, step string, n int) (fig.BenchResult, bool) {
	if b == nil {
		return fig.BenchResult{}, false
	}
	for _, r := range b.Results {
		if r.Kernel == step && r.N == n {
			return r, true
		}
	}
	return fig.BenchResult{}, false
}
