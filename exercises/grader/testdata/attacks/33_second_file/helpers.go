// This second file is never taken from a submission: only the student
// files of an exercise are.
package derivative

import "stencillab.dev/lab"

func weightsFromLab(d, lo, hi int) ([]float64, error) { return lab.CentralDifference(d, hi) }

func applyFromLab(f []float64, h float64, d, r int) ([]float64, error) { return nil, nil }

func orderFromLab(h, err []float64) (float64, error) { return 0, nil }
