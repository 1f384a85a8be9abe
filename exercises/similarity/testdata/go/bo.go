package smooth

import "errors"

// Smooth writes into dst the three-point average of src with weights w0
// (centre) and w1 (neighbours); the two ends are copied.
func Smooth(dst, src []float64, w0, w1 float64) error {
	switch {
	case len(src) != len(dst):
		return errors.New("lengths differ")
	case len(src) < 3:
		copy(dst, src)
		return nil
	}
	last := len(src) - 1
	for k := range src {
		if k == 0 || k == last {
			dst[k] = src[k]
			continue
		}
		left, mid, right := src[k-1], src[k], src[k+1]
		dst[k] = w1*left + w0*mid + w1*right
	}
	return nil
}
