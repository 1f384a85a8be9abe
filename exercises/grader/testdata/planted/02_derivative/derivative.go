// Package derivative is a planted solution of exercise 2 that panics in a
// goroutine of its own, where no recover can catch it, for the grader's
// tests.
package derivative

import "sync"

// Weights panics in a goroutine.
func Weights(d, lo, hi int) ([]float64, error) {
	w := make([]float64, hi-lo+1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w[len(w)+d] = 1
	}()
	wg.Wait()
	return w, nil
}

// Apply returns nothing useful.
func Apply(f []float64, h float64, d, r int) ([]float64, error) { return f, nil }

// Order returns nothing useful.
func Order(h, err []float64) (float64, error) { return 0, nil }
