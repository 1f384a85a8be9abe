package smooth

import "errors"

var errNotImplemented = errors.New("not implemented")

// Smooth writes into dst the three-point average of src with weights w0
// (centre) and w1 (neighbours); the two ends are copied.
func Smooth(dst, src []float64, w0, w1 float64) error {
	return errNotImplemented
}
