package model

import (
	"fmt"
	"strings"

	"stencillab.dev/lab"
	"stencillab.dev/notebooks/nbrun/data"
)

// ModelShare is the share of the copy bandwidth the chapter's traffic
// model predicts for a kernel at tile T on an N×N×N grid, with no cache:
// the ideal 8 bytes per interior point over the bytes the kernel loads and
// stores by lab.CostN. It is 25 % for basic whatever N (7 loads and 1
// store per point) and approaches 100 % for the tiled kernels as T grows.
func ModelShare(kernel string, n, tile int) (float64, error) {
	if n < 3 || float64(n)*float64(n)*float64(n) > lab.MaxPoints {
		return 0, fmt.Errorf("nbrun: model share: grid side %d must be at least 3 and N³ at most %d points: %w", n, int64(lab.MaxPoints), lab.ErrSize)
	}
	c, err := lab.CostN(kernel, n, tile)
	if err != nil {
		return 0, fmt.Errorf("nbrun: model share: %w", err)
	}
	moved := float64(c.Loads + c.Stores)
	if moved == 0 {
		return 0, fmt.Errorf("nbrun: model share: %s at N = %d moves nothing", kernel, n)
	}
	return 100 * 2 * float64(c.Outputs) / moved, nil
}

// CompareModel formats a table of the model's share of copy bandwidth
// against the measured share for each run, at N = 512, the size the
// runs were timed at.
func CompareModel(runs []data.HopperRun) (string, error) {
	const n = 512
	if len(runs) == 0 {
		return "", fmt.Errorf("nbrun: compare with the model: no runs (is the bench file empty at N = %d?)", n)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-15s %-18s %9s %10s %10s\n", "kernel", "launch", "time ms", "model", "measured")
	for _, r := range runs {
		model := "–"
		if tile, ok := TileOf(r); ok {
			m, err := ModelShare(r.Kernel, n, tile)
			if err != nil {
				return "", err
			}
			model = fmt.Sprintf("%.0f %%", m)
		}
		ms := "–"
		if r.Ms > 0 {
			ms = fmt.Sprintf("%.3f", r.Ms)
		}
		fmt.Fprintf(&b, "%-15s %-18s %9s %10s %8.0f %%\n", r.Kernel, r.Config, ms, model, r.PctCopy)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// tileOf reads the tile of a run's configuration for the model: T = t,
// or t×t×t blocks of basic. Other block shapes have no tile in the model;
// basic's traffic does not depend on its block anyway.
func TileOf(r data.HopperRun) (int, bool) {
	var t int
	if _, err := fmt.Sscanf(r.Config, "T = %d", &t); err == nil {
		return t, true
	}
	if s, err := lab.LookupStep3(r.Kernel); err == nil && s.BlockShape {
		return s.DefaultTile, true
	}
	return 0, false
}
