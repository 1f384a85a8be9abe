// Package derivative is an attack on the grader, for its tests: the
// functions call helpers of a second file of the submission, which holds
// what the exercise may not use.
package derivative

// Weights is the helper's.
func Weights(d, lo, hi int) ([]float64, error) { return weightsFromLab(d, lo, hi) }

// Apply is the helper's.
func Apply(f []float64, h float64, d, r int) ([]float64, error) { return applyFromLab(f, h, d, r) }

// Order is the helper's.
func Order(h, err []float64) (float64, error) { return orderFromLab(h, err) }
