package checks

import (
	"math"

	"stencillab.dev/exercises/grading"
)

// distinct returns n coefficients in [0.05, 1), each at least 0.02 from
// every other, so that swapping any two changes the result.
func distinct(t *grading.T, n int) []float64 {
	var c []float64
	for len(c) < n {
		v := 0.05 + 0.95*t.Rand().Float64()
		ok := true
		for _, o := range c {
			if math.Abs(o-v) < 0.02 {
				ok = false
				break
			}
		}
		if ok {
			c = append(c, v)
		}
	}
	return c
}

// pick returns one of vs at random.
func pick[V any](t *grading.T, vs ...V) V { return vs[t.Rand().IntN(len(vs))] }

// swapped returns c with the pairs of positions p swapped.
func swapped[C ~[9]float64 | ~[13]float64](c C, p ...int) C {
	for i := 0; i+1 < len(p); i += 2 {
		c[p[i]], c[p[i+1]] = c[p[i+1]], c[p[i]]
	}
	return c
}
