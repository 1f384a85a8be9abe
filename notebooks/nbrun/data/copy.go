package data

import (
	"fmt"
)

// H200CopyGBps returns the float4 copy's bandwidth at N = n in the
// committed H200 bench, BenchFile: the B_mem of the model.
func H200CopyGBps(n int) (float64, error) {
	b, err := MeasuredBench()
	if err != nil {
		return 0, err
	}
	for _, c := range b.Copies {
		if c.N == n {
			return c.GBps, nil
		}
	}
	return 0, fmt.Errorf("nbrun: %s has no copy at N = %d", BenchFile, n)
}
