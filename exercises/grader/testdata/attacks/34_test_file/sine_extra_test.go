package sine

import "os"

func discretizeFromTest(f func(float64) float64, a, b float64, n int) ([]float64, []float64, error) {
	_, err := os.ReadFile("/etc/passwd")
	return nil, nil, err
}
