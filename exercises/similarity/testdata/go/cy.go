package smooth

import "fmt"

func neighbours(s []float64, i int) float64 { return s[i-1] + s[i+1] }

// Smooth writes into dst the three-point average of src with weights w0
// (centre) and w1 (neighbours); the two ends are copied.
func Smooth(dst, src []float64, w0, w1 float64) error {
	if m, n := len(dst), len(src); m != n {
		return fmt.Errorf("size mismatch %d vs %d", m, n)
	}
	copy(dst, src)
	i := 1
	for i+1 < len(src) {
		dst[i] = src[i]*w0 + neighbours(src, i)*w1
		i++
	}
	return nil
}
