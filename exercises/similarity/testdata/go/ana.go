package smooth

import "fmt"

// Smooth writes into dst the three-point average of src with weights w0
// (centre) and w1 (neighbours); the two ends are copied.
func Smooth(dst, src []float64, w0, w1 float64) error {
	if len(dst) != len(src) {
		return fmt.Errorf("smooth: dst has %d values, src %d", len(dst), len(src))
	}
	n := len(src)
	if n == 0 {
		return nil
	}
	dst[0] = src[0]
	dst[n-1] = src[n-1]
	for i := 1; i < n-1; i++ {
		dst[i] = w0*src[i] + w1*(src[i-1]+src[i+1])
	}
	return nil
}
