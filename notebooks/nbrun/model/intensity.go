package model

import (
	"fmt"

	"stencillab.dev/lab"
	"stencillab.dev/notebooks/nbrun/run"
)

// IntensityPoint is the arithmetic intensity of one tile size T, three
// ways: counted by the simulator, predicted for the whole launch with the
// blocks at the grid's faces (lab.IntensityN), and the slides' formula for
// a block far from the faces (lab.IntensityTiled).
type IntensityPoint struct {
	T       int
	Counted float64 // Stats.OpPerByte of the simulated launch
	Model   float64 // lab.IntensityN(step, N, T), as Simulate sets it in Result.Model
	Slide   float64 // 3.25·(1 − 2/T)³
}

// IntensitySweep simulates a kernel with an input tile (shared-memory
// tiling, coarsening, register tiling) on an n×n×n grid for each tile and returns the three
// intensities of each. Every run is also checked against the reference;
// a wrong output is an error.
func IntensitySweep(step string, n int, tiles []int) ([]IntensityPoint, error) {
	if len(tiles) == 0 {
		return nil, fmt.Errorf("nbrun: intensity sweep of %s: no tiles: %w", step, lab.ErrSize)
	}
	var pts []IntensityPoint
	for _, t := range tiles {
		r, err := run.Simulate(step, n, t)
		if err != nil {
			return nil, fmt.Errorf("nbrun: intensity sweep, T = %d: %w", t, err)
		}
		if !r.OK() {
			return nil, fmt.Errorf("nbrun: intensity sweep: %s with T = %d differs from the reference by %g", step, t, r.Diff.MaxAbs)
		}
		if r.Model == 0 {
			return nil, fmt.Errorf("nbrun: intensity sweep: %s has no intensity model: %w", step, lab.ErrUnknown)
		}
		pts = append(pts, IntensityPoint{T: t, Counted: r.Stats.OpPerByte(), Model: r.Model, Slide: lab.IntensityTiled(float64(t))})
	}
	return pts, nil
}
