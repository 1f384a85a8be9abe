package smooth

import "errors"

var errLen = errors.New("smooth: slices of different lengths")

// Smooth writes into dst the three-point average of src with weights w0
// (centre) and w1 (neighbours); the two ends are copied.
func Smooth(dst, src []float64, w0, w1 float64) error {
	if len(dst) != len(src) {
		return errLen
	}
	for j := len(src) - 1; j >= 0; j-- {
		var v float64
		if j > 0 && j < len(src)-1 {
			v = w0 * src[j]
			v += w1 * src[j-1]
			v += w1 * src[j+1]
		} else {
			v = src[j]
		}
		dst[j] = v
	}
	return nil
}
